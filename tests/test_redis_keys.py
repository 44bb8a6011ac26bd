"""The Redis key and channel names (service/play/keys.py): each builder's name, byte for
byte, as data already stored was written under and as the Lua scripts receive them; the
names a script or transaction touches together in one Redis Cluster slot; and no name
built anywhere else in the service."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from redis.crc import key_slot

from service.play import keys

GAME = "Xy7_abc"
HASH = "0123456789abcdef0123456789abcdef"
OWNER = "acme"
ENDPOINT = "ep_1"

#: Each builder, sample arguments, and the name it must give: the names the service has
#: stored its data and published its messages under.
PINNED: list[tuple[Callable[..., str], tuple[object, ...], dict[str, object], str]] = [
    (keys.game, (GAME,), {}, "scopa:game:{Xy7_abc}"),
    (keys.game_events, (GAME,), {}, "scopa:game:{Xy7_abc}:events"),
    (keys.game_log_channel, (GAME,), {}, "scopa:game:{Xy7_abc}:log"),
    (keys.game_commits_channel, (GAME,), {}, "scopa:game:{Xy7_abc}:commits"),
    (keys.game_reactions_channel, (GAME,), {}, "scopa:game:{Xy7_abc}:reactions"),
    (keys.creation, (HASH,), {}, "scopa:creation:{0123456789abcdef0123456789abcdef}"),
    (keys.bulk_creation, (HASH,), {}, "scopa:round:{0123456789abcdef0123456789abcdef}"),
    (keys.invitation, (HASH,), {}, "scopa:invitation:{0123456789abcdef0123456789abcdef}"),
    (keys.listing, (OWNER,), {}, "scopa:owner:{acme}:games"),
    (keys.listing, (OWNER, "p:1"), {}, "scopa:owner:{acme}:player:p:1"),
    (keys.listing, (OWNER,), {"over": True}, "scopa:owner:{acme}:over"),
    (keys.listing, (OWNER, "p:1"), {"over": True}, "scopa:owner:{acme}:over:player:p:1"),
    (
        keys.rate_counter,
        ("requests", "a:203.0.113.7/32", 29571234),
        {},
        "scopa:rate:{requests:a:203.0.113.7/32}:29571234",
    ),
    (keys.rate_counter, ("hints", "key:acme", 7), {}, "scopa:rate:{hints:key:acme}:7"),
    (keys.budget, ("key:acme", 29571234), {}, "scopa:budget:{key:acme}:29571234"),
    (keys.budget, ("a:2001:db8::/64", -1), {}, "scopa:budget:{a:2001:db8::/64}:-1"),
    (keys.stream_leases, ("g:Xy7_abc:1",), {}, "scopa:streams:{g:Xy7_abc:1}"),
    (keys.stream_leases, ("a:198.51.100.0/24",), {}, "scopa:streams:{a:198.51.100.0/24}"),
    (keys.key_feed, (OWNER,), {}, "scopa:feed:{acme}"),
    (keys.key_feed_state, (OWNER,), {}, "scopa:feed:{acme}:state"),
    (keys.key_feed_cursor, (OWNER, GAME), {}, "scopa:feed:{acme}:at:Xy7_abc"),
    (keys.key_feed_channel, (OWNER,), {}, "scopa:feed:{acme}:news"),
    (keys.tournaments, (OWNER,), {}, "scopa:owner:{acme}:tournaments"),
    (keys.tournament, ("trn_ab1",), {}, "scopa:tournament:{trn_ab1}"),
    (keys.tournament_events, ("trn_ab1",), {}, "scopa:tournament:{trn_ab1}:events"),
    (keys.player_ratings, (OWNER, "p:1"), {}, "scopa:ratings:{acme}:player:p:1"),
    (keys.rating_board, (OWNER, "scopone"), {}, "scopa:ratings:{acme}:board:scopone"),
    (keys.rated_game, (OWNER, GAME), {}, "scopa:ratings:{acme}:game:Xy7_abc"),
    (keys.webhook_endpoints, (OWNER,), {}, "scopa:hooks:{acme}:endpoints"),
    (keys.webhook_cursors, (OWNER,), {}, "scopa:hooks:{acme}:cursor"),
    (keys.webhook_pending, (OWNER,), {}, "scopa:hooks:{acme}:pending"),
    (keys.webhook_deliveries, (OWNER, ENDPOINT), {}, "scopa:hooks:{acme}:d:ep_1"),
    (keys.webhook_log, (OWNER, ENDPOINT), {}, "scopa:hooks:{acme}:log:ep_1"),
    (keys.webhook_queue, (OWNER, ENDPOINT, GAME), {}, "scopa:hooks:{acme}:q:ep_1:Xy7_abc"),
    (keys.webhook_queues, (OWNER, ENDPOINT), {}, "scopa:hooks:{acme}:qs:ep_1"),
    (keys.webhook_due, (OWNER,), {}, "scopa:hooks:{acme}:due"),
    (keys.webhook_redo, (OWNER,), {}, "scopa:hooks:{acme}:redo"),
    (keys.webhook_asked, (OWNER,), {}, "scopa:hooks:{acme}:asked"),
    (keys.webhook_unread, (OWNER,), {}, "scopa:hooks:{acme}:unread"),
    (keys.webhook_runner, (OWNER,), {}, "scopa:hooks:{acme}:runner"),
    (keys.webhook_gone, (OWNER,), {}, "scopa:hooks:{acme}:gone"),
]


@pytest.mark.parametrize(
    ("builder", "args", "options", "name"),
    PINNED,
    ids=[f"{builder.__name__}{args}{options or ''}" for builder, args, options, _ in PINNED],
)
def test_each_builder_gives_the_name_stored_data_is_under(
    builder: Callable[..., str], args: tuple[object, ...], options: dict[str, object], name: str
) -> None:
    assert builder(*args, **options) == name


def test_every_builder_is_pinned_and_documented() -> None:
    """A builder added to keys.py is pinned above, and says what its key holds."""
    builders = {
        name
        for name, value in vars(keys).items()
        if callable(value)
        and not name.startswith("_")
        and getattr(value, "__module__", None) == keys.__name__
    }
    assert builders == {b.__name__ for b, _, _, _ in PINNED} | {"listings", "every_listing"}
    for name in builders:
        doc = getattr(keys, name).__doc__
        assert doc and "slot" in doc, f"{name} should say what it holds and its slot"


def test_a_games_listings_are_its_owners_and_each_players_once() -> None:
    assert keys.listings(OWNER, ["p1", None, "p2", "p1"]) == [
        "scopa:owner:{acme}:games",
        "scopa:owner:{acme}:player:p1",
        "scopa:owner:{acme}:player:p2",
    ]
    assert keys.listings(OWNER, [None, None]) == ["scopa:owner:{acme}:games"]
    assert keys.listings(OWNER, ["p1", "p1"], over=True) == [
        "scopa:owner:{acme}:over",
        "scopa:owner:{acme}:over:player:p1",
    ]
    assert keys.every_listing(OWNER, ["p1"]) == [
        "scopa:owner:{acme}:games",
        "scopa:owner:{acme}:player:p1",
        "scopa:owner:{acme}:over",
        "scopa:owner:{acme}:over:player:p1",
    ]


def test_the_names_used_together_share_a_cluster_slot() -> None:
    """What one script or transaction touches is in one slot: a game's keys and the
    channels its commits publish on, a service key's listings, webhook records and feed, a
    rate check's two windows, a payer's two windows."""
    together = [
        [
            keys.game(GAME),
            keys.game_events(GAME),
            keys.game_log_channel(GAME),
            keys.game_commits_channel(GAME),
            keys.game_reactions_channel(GAME),
        ],
        keys.every_listing(OWNER, ["p1", "p2"]),
        [
            keys.webhook_endpoints(OWNER),
            keys.webhook_cursors(OWNER),
            keys.webhook_pending(OWNER),
            keys.webhook_deliveries(OWNER, ENDPOINT),
            keys.webhook_log(OWNER, ENDPOINT),
            keys.webhook_queue(OWNER, ENDPOINT, GAME),
            keys.webhook_queues(OWNER, ENDPOINT),
            keys.webhook_due(OWNER),
            keys.webhook_redo(OWNER),
            keys.webhook_asked(OWNER),
            keys.webhook_unread(OWNER),
            keys.webhook_runner(OWNER),
            keys.webhook_gone(OWNER),
        ],
        [
            keys.key_feed(OWNER),
            keys.key_feed_state(OWNER),
            keys.key_feed_cursor(OWNER, GAME),
            keys.key_feed_channel(OWNER),
        ],
        [keys.rate_counter("requests", "t:ab12", w) for w in (41, 42)],
        [keys.budget("key:acme", w) for w in (41, 42)],
    ]
    for names in together:
        assert len({key_slot(name.encode()) for name in names}) == 1, names
    # (and the tag is what decides: other games fall elsewhere)
    assert len({key_slot(keys.game(f"g{i}").encode()) for i in range(50)}) > 40


SERVICE = Path(__file__).resolve().parent.parent / "service"


def _code_strings(tree: ast.AST) -> Iterator[ast.Constant]:
    """The string literals of ``tree`` that are code (not docstrings or other bare
    strings), and not the seed of a ``random.Random`` (the engine's and the computer
    players' seeds begin ``scopa:`` too, and are no key)."""
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            skipped.add(id(node.value))
        elif isinstance(node, ast.Call) and ast.unparse(node.func) in ("random.Random", "Random"):
            skipped.update(id(n) for arg in node.args for n in ast.walk(arg))
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield node


#: keys.py's prefix constants: a name begun with one outside keys.py is built by hand.
PREFIXES = {name for name, value in vars(keys).items() if name.isupper() and isinstance(value, str)}


def key_literals(path: Path, root: Path = SERVICE.parent) -> list[str]:
    """Where ``path`` spells a Redis name of the service's own: a string literal (an
    f-string's text included) with ``scopa:`` in it, or one of keys.py's prefixes."""
    tree = ast.parse(path.read_text(), str(path))
    where = path.relative_to(root)
    found = [
        f"{where}:{node.lineno}: {node.value!r}"
        for node in _code_strings(tree)
        if isinstance(node.value, str) and keys.ROOT in node.value
    ]
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").endswith("keys"):
            found += [f"{where}:{node.lineno}: {a.name}" for a in node.names if a.name in PREFIXES]
        elif isinstance(node, ast.Attribute) and ast.unparse(node.value).endswith("keys"):
            found += [f"{where}:{node.lineno}: {node.attr}"] if node.attr in PREFIXES else []
    return found


def test_no_key_is_named_outside_keys_py() -> None:
    found = [
        line
        for path in sorted(SERVICE.rglob("*.py"))
        if path != SERVICE / "play" / "keys.py"
        for line in key_literals(path)
    ]
    assert found == [], "build these names with service/play/keys.py"


def test_the_search_finds_a_key_spelled_out(tmp_path: Path) -> None:
    """The search above finds a name built by hand, in an f-string or a plain string or
    from keys.py's prefixes, and passes over docstrings and random seeds."""
    module = tmp_path / "module.py"
    module.write_text(
        '"""Keys: scopa:game:{<id>}."""\n'
        "import random\n"
        "PREFIX = 'scopa:budget:'\n"
        "def key(game_id):\n"
        '    """scopa:game:{<id>}"""\n'
        '    return f"scopa:game:{{{game_id}}}:events"\n'
        "def seed(n):\n"
        '    return random.Random(f"scopa:{n}:bot")\n'
        "def leases(holder):\n"
        '    return keys.STREAMS + "{" + holder + "}"\n'
    )
    found = [line.split(": ", 1)[1] for line in key_literals(module, tmp_path)]
    assert sorted(found) == ["'scopa:budget:'", "'scopa:game:{'", "STREAMS"]
