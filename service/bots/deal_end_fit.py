"""The fitted parameters of service/bots/deal_end.py, by player count: written by
`make fit-deal-end` (tests/bench/deal_end.py); run it again rather than edit.

2026-12-02: 12000 hands a player count, the search at 5 ms a move, seed 1 (scopa,
default rules).
"""

from typing import Any

FITTED: dict[int, dict[str, Any]] = {
    2: {
        "cards_shift": (-1.2646, -1.2668, -1.2751, -1.258, -1.2638),
        "cards_per_table_card": 0.1311,
        "cards_spread": (0.8848, 0.8084, 0.7759, 0.7578, 0.7475),
        "coins_shift": (-0.209, -0.1999, -0.1916, -0.1767, -0.1759),
        "coins_spread": (0.5755, 0.5532, 0.5441, 0.5366, 0.5332),
        "settebello": (
            (-0.19, -0.0649),
            (-0.1462, 0.0946),
            (-0.1092, 0.211),
            (-0.0845, 0.2215),
            (-0.059, 0.2114),
        ),
        "primiera": (
            (-0.2326, 0.7628),
            (-0.1809, 0.7578),
            (-0.1421, 0.74),
            (-0.1213, 0.7811),
            (-0.104, 0.7788),
        ),
        "scopas": (
            (-0.0199, 0.9659, 0.0031),
            (-0.0205, 1.0644, 0.0056),
            (-0.0329, 1.0476, 0.0129),
            (-0.0453, 1.1847, 0.0191),
            (0.0315, 0.9955, -0.0001),
        ),
    },
    4: {
        "cards_shift": (-1.1756, -1.1894),
        "cards_per_table_card": 0.1314,
        "cards_spread": (0.799, 0.7415),
        "coins_shift": (-0.1804, -0.1734),
        "coins_spread": (0.549, 0.5283),
        "settebello": ((-0.1321, 0.1013), (-0.0662, 0.2468)),
        "primiera": ((-0.1308, 0.7368), (-0.0836, 0.7486)),
        "scopas": ((-0.0775, 1.0171, 0.0126), (-0.1024, 1.1172, 0.0194)),
    },
}
