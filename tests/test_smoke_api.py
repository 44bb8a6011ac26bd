"""A first walkthrough: create a match and play it to the end over HTTP."""

import random

from tests.helpers import Table


def test_a_two_player_match_plays_to_the_end(table: Table) -> None:
    table.create(seed=7)
    results = table.play_to_end(random.Random(7))
    final = results[-1]
    assert final["state"]["status"] == "finished"
    assert final["events"][-1]["type"] == "match_over"
    scores = [t["score"] for t in final["state"]["teams"]]
    assert max(scores) >= 11 and scores.count(max(scores)) == 1
    assert final["state"]["winner"] == scores.index(max(scores))
