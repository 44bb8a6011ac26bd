"""Walkthroughs of a match over HTTP: create it, read it as each seat and as a
spectator, play it to the end, read its hands and its log, and check that no response
ever shows a card its reader may not see."""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.helpers import Table, listed

ALL_CARDS = [f"{value}{suit}" for suit in "DCSB" for value in range(1, 11)]
CARD_IN_TEXT = re.compile(r"(?<![0-9A-Za-z])(?:10|[1-9])[DCSB](?![0-9A-Za-z])")
TEAMS = {2: [0, 1], 3: [0, 1, 2], 4: [0, 1, 0, 1], 6: [0, 1, 0, 1, 0, 1]}


def shuffled_deck(seed: int) -> list[str]:
    deck = list(ALL_CARDS)
    random.Random(seed).shuffle(deck)
    return deck


class TestCreate:
    def test_defaults_make_a_two_player_match_to_eleven(self, client: FlaskClient) -> None:
        response = client.post("/v1/games", json={})
        assert response.status_code == 201
        created = response.get_json()
        game_id = created["id"]
        assert response.headers["Location"] == f"/v1/games/{game_id}"
        assert response.headers["ETag"] == '"1"'
        assert created["version"] == 1

        seats = created["seats"]
        assert [(s["seat"], s["name"], s["team"]) for s in seats] == [
            (0, "Player 1", 0),
            (1, "Player 2", 1),
        ]
        tokens = [s["token"] for s in seats]
        assert len(set(tokens)) == 2
        assert all(len(token) >= 32 for token in tokens)

        state = created["state"]
        assert state["id"] == game_id and state["version"] == 1
        assert state["variant"] == "scopa"
        assert state["status"] == "playing"
        assert state["target"] == 11
        assert state["rules"] == {
            "re_bello": False,
            "napola": False,
            "napoleone": False,
            "forced_capture": "card",
            "dealer_last_sweep": False,
        }
        assert state["seeded"] is False
        assert state["hand_number"] == 1
        assert state["turn"] == (state["dealer"] + 1) % 2
        assert len(state["table"]) == 4
        assert state["stock_count"] == 40 - 2 * 3 - 4
        assert state["you"] is None and "hand" not in state
        assert [s["hand_count"] for s in state["seats"]] == [3, 3]
        assert state["teams"] == [
            {"team": 0, "seats": [0], "score": 0},
            {"team": 1, "seats": [1], "score": 0},
        ]
        assert state["last_move"] is None and state["winner"] is None

        # The Location is the game, and its ETag is the version.
        again = client.get(response.headers["Location"])
        assert again.status_code == 200
        assert again.headers["ETag"] == '"1"'
        assert again.get_json() == state

    def test_named_seats_options_and_target_are_kept(self, client: FlaskClient) -> None:
        rules = {"re_bello": True, "napola": True, "napoleone": True, "forced_capture": "any"}
        response = client.post(
            "/v1/games",
            json={
                "seats": [{"name": "Ana"}, {"name": "Bruno"}, {"name": "Chiara"}],
                "target": 21,
                "rules": rules,
            },
        )
        assert response.status_code == 201
        created = response.get_json()
        assert [s["name"] for s in created["seats"]] == ["Ana", "Bruno", "Chiara"]
        assert [s["team"] for s in created["seats"]] == [0, 1, 2]
        state = created["state"]
        assert state["target"] == 21
        assert state["rules"] == {**rules, "dealer_last_sweep": False}
        assert [s["name"] for s in state["seats"]] == ["Ana", "Bruno", "Chiara"]

    @pytest.mark.parametrize("players", [2, 3, 4, 6])
    def test_player_counts_and_their_sides(self, client: FlaskClient, players: int) -> None:
        response = client.post("/v1/games", json={"players": players})
        assert response.status_code == 201
        created = response.get_json()
        assert [s["team"] for s in created["seats"]] == TEAMS[players]
        assert len({s["token"] for s in created["seats"]}) == players
        state = created["state"]
        expected_teams = [
            {"team": t, "seats": [s for s in range(players) if TEAMS[players][s] == t], "score": 0}
            for t in sorted(set(TEAMS[players]))
        ]
        assert state["teams"] == expected_teams
        assert [s["hand_count"] for s in state["seats"]] == [3] * players
        assert state["stock_count"] == 40 - 3 * players - 4

    def test_the_same_seed_deals_the_same_cards(self, client: FlaskClient) -> None:
        first, second, other = Table(client), Table(client), Table(client)
        for game in (first, second):
            game.create(seed=42, players=3)
        other.create(seed=43, players=3)

        def deal(game: Table) -> tuple[Any, ...]:
            view = game.view()
            return (
                view["dealer"],
                view["table"],
                tuple(tuple(game.view(seat)["hand"]) for seat in range(3)),
            )

        assert first.view()["seeded"] is True
        assert deal(first) == deal(second)
        assert deal(first) != deal(other)

        # Same moves, same later deals: play both to the start of hand 2 in step.
        rng = random.Random(1)
        while first.view()["hand_number"] == 1:
            turn = first.view()["turn"]
            moves = first.legal_moves(turn)
            assert moves == second.legal_moves(turn)
            move = rng.choice(moves)
            one = first.move(turn, move["card"], move["capture"])
            two = second.move(turn, move["card"], move["capture"])
            assert one.status_code == two.status_code == 200
            assert one.get_json()["events"] == two.get_json()["events"]
        assert deal(first) == deal(second)

    def test_a_given_deck_is_dealt_in_order(self, client: FlaskClient) -> None:
        deck = shuffled_deck(5)
        assert sum(card.startswith("10") for card in deck[6:10]) < 3  # no redeal (R3)
        game = Table(client)
        # The dealer is the last seat, so seat 0 plays first and is dealt first.
        game.create(deck=deck, first_dealer=1)
        assert game.view(0)["hand"] == listed(deck[0:3])
        assert game.view(1)["hand"] == listed(deck[3:6])
        spectator = game.view()
        assert spectator["table"] == listed(deck[6:10])
        assert spectator["seeded"] is True
        assert spectator["dealer"] == 1 and spectator["turn"] == 0

        # With seat 0 dealing, seat 1 is served first.
        game.create(deck=deck, first_dealer=0)
        assert game.view(1)["hand"] == listed(deck[0:3])
        assert game.view(0)["hand"] == listed(deck[3:6])
        assert game.view()["turn"] == 1

    def test_a_given_deck_with_four_players(self, client: FlaskClient) -> None:
        deck = shuffled_deck(8)
        assert sum(card.startswith("10") for card in deck[12:16]) < 3
        game = Table(client)
        game.create(players=4, deck=deck, first_dealer=3)
        for seat in range(4):
            assert game.view(seat)["hand"] == listed(deck[3 * seat : 3 * seat + 3])
        assert game.view()["table"] == listed(deck[12:16])
        assert game.view()["stock_count"] == 24


class TestViews:
    def test_each_seat_sees_its_own_hand_and_nobody_elses(self, table: Table) -> None:
        table.create(players=4, seed=3)
        spectator = table.view()
        assert spectator["you"] is None
        assert "hand" not in spectator
        hands = []
        for seat in range(4):
            response = table.client.get(table.url(), headers=table.auth(seat))
            assert response.headers["ETag"] == '"1"'
            view = response.get_json()
            assert view["you"] == seat
            assert len(view["hand"]) == view["seats"][seat]["hand_count"] == 3
            # Apart from "you" and "hand", a seat sees what the spectator sees.
            assert {k: v for k, v in view.items() if k not in ("you", "hand")} == {
                k: v for k, v in spectator.items() if k != "you"
            }
            hands.append(view["hand"])
        dealt = [card for hand in hands for card in hand]
        assert len(set(dealt)) == 12
        assert not set(dealt) & set(spectator["table"])

    def test_legal_moves_are_for_the_seat_on_turn_only(self, table: Table) -> None:
        table.create(seed=11)
        turn = table.view()["turn"]
        waiting = 1 - turn
        response = table.client.get(table.url("/legal-moves"), headers=table.auth(waiting))
        assert response.status_code == 200
        assert response.headers["ETag"] == '"1"'
        assert response.get_json() == {"seat": waiting, "moves": [], "declarations": []}

        body = table.client.get(table.url("/legal-moves"), headers=table.auth(turn)).get_json()
        assert body["seat"] == turn
        hand = table.view(turn)["hand"]
        assert body["moves"]
        assert {m["card"] for m in body["moves"]} <= set(hand)
        for move in body["moves"]:
            assert set(move["capture"]) <= set(table.view()["table"])

    def test_a_move_answers_with_the_movers_view_and_a_new_etag(self, table: Table) -> None:
        table.create(seed=11)
        turn = table.view()["turn"]
        hand = table.view(turn)["hand"]
        move = table.legal_moves(turn)[0]
        response = table.move(turn, move["card"], move["capture"])
        assert response.status_code == 200
        assert response.headers["ETag"] == '"2"'
        body = response.get_json()
        assert body["move"] == {
            "seat": turn,
            "card": move["card"],
            "capture": move["capture"],
            "scopa": False,
        }
        state = body["state"]
        assert state["version"] == 2
        assert state["you"] == turn
        assert sorted(state["hand"]) == sorted(c for c in hand if c != move["card"])
        assert state["turn"] == 1 - turn
        assert state["last_move"] == body["move"]
        assert table.view(turn) == state

    def test_a_sweep_scores_a_scopa(self, table: Table) -> None:
        deck = ["10D", "5S", "6S", "7B", "8B", "9B", "1C", "2C", "3C", "4C"]
        table.create(deck=deck + [c for c in ALL_CARDS if c not in deck], first_dealer=1)
        moves = table.legal_moves(0)
        assert {"card": "10D", "capture": ["1C", "2C", "3C", "4C"], "sweep": True} in moves
        assert all(not m["sweep"] for m in moves if m["card"] != "10D")

        # 10D has a single legal move, so the capture may be left out.
        response = table.move(0, "10D")
        assert response.status_code == 200
        body = response.get_json()
        assert body["move"] == {
            "seat": 0,
            "card": "10D",
            "capture": ["1C", "2C", "3C", "4C"],
            "scopa": True,
        }
        state = body["state"]
        assert state["table"] == []
        assert state["seats"][0]["scopas"] == 1
        assert state["seats"][0]["captured_count"] == 5
        # Seat 1 plays onto the empty table: every card is laid.
        assert {(m["card"], tuple(m["capture"])) for m in table.legal_moves(1)} == {
            ("7B", ()),
            ("8B", ()),
            ("9B", ()),
        }

    def test_the_event_log_shows_each_seat_only_its_own_deal(self, table: Table) -> None:
        deck = shuffled_deck(21)
        table.create(deck=deck, first_dealer=1)
        log = {}
        for viewer in (None, 0, 1):
            headers = table.auth(viewer) if viewer is not None else {}
            response = table.client.get(table.url("/events"), headers=headers)
            assert response.status_code == 200
            assert response.headers["ETag"] == '"1"'
            log[viewer] = response.get_json()
            assert log[viewer]["id"] == table.game_id and log[viewer]["version"] == 1
        events = log[None]["events"]
        assert [e["type"] for e in events] == ["match_started", "deal"]
        assert [e["seq"] for e in events] == [0, 1]
        assert "cards" not in events[1] and "hands" not in events[1]
        assert events[1]["table"] == listed(deck[6:10])
        assert log[0]["events"][1]["cards"] == listed(deck[0:3])
        assert log[1]["events"][1]["cards"] == listed(deck[3:6])
        for viewer in (0, 1):
            assert "hands" not in log[viewer]["events"][1]

        move = table.legal_moves(0)[0]
        assert table.move(0, move["card"], move["capture"]).status_code == 200
        after = table.client.get(table.url("/events")).get_json()
        assert after["version"] == 2
        assert after["events"][-1] == {
            "seq": 2,
            "type": "move",
            "seat": 0,
            "card": move["card"],
            "capture": move["capture"],
            "scopa": False,
        }


def leaked(body: Any, secret: set[str], game_id: str) -> set[str]:
    """The secret cards that appear anywhere in ``body``'s JSON text."""
    text = json.dumps(body).replace(game_id, "")
    return set(CARD_IN_TEXT.findall(text)) & secret


def test_no_response_ever_shows_a_card_its_reader_may_not_see(client: FlaskClient) -> None:
    """Play a 3-player match over HTTP; at every version read the game, the legal moves
    and the log as each seat and as a spectator, and look for any card of another seat's
    hand or of the stock. The hands are known from each seat's own view at the same
    version; the stock is every card not yet seen this hand."""
    players = 3
    game = Table(client)
    game.create(players=players, seed=2024, target=6)
    rng = random.Random(2024)
    public: set[str] = set()  # the cards shown face up or played during this hand
    hand_number = 1
    last: tuple[int, dict[str, Any]] | None = None  # the last mover and its response
    viewers: list[int | None] = [None, *range(players)]
    checked_versions = 0
    hands_seen = set()

    while True:
        views = {v: game.view(v) for v in viewers}
        version = views[None]["version"]
        assert {view["version"] for view in views.values()} == {version}
        spectator = views[None]
        new_hand = spectator["hand_number"] != hand_number
        if new_hand:
            # The last move was the previous hand's: its cards were dealt again.
            hand_number, public = spectator["hand_number"], set()
        elif last is not None:
            public |= {last[1]["move"]["card"], *last[1]["move"]["capture"]}
        hands_seen.add(hand_number)
        public |= set(spectator["table"])
        hands = {seat: set(views[seat]["hand"]) for seat in range(players)}
        in_hands = set().union(*hands.values())
        stock = set(ALL_CARDS) - in_hands - public
        if spectator["status"] == "playing":
            assert len(stock) == spectator["stock_count"]

        for viewer in viewers:
            secret = stock | (in_hands - hands[viewer] if viewer is not None else in_hands)
            headers = game.auth(viewer) if viewer is not None else {}
            assert not leaked(views[viewer], secret, game.game_id), (version, viewer)

            log = client.get(game.url("/events"), headers=headers).get_json()
            assert all("hands" not in e for e in log["events"])
            # Earlier hands' events name every card: look at this hand's only (a redeal's
            # table was shuffled back into the deck).
            starts = [i for i, e in enumerate(log["events"]) if e["type"] == "hand_over"]
            current = log["events"][starts[-1] + 1 if starts else 0 :]
            current = [e for e in current if e["type"] != "redeal"]
            assert not leaked(current, secret, game.game_id), (version, viewer)
            deals = [e for e in current if e["type"] == "deal"]
            if viewer is None:
                assert all("cards" not in e for e in deals)
            elif deals and spectator["status"] == "playing":
                assert hands[viewer] <= set(deals[-1]["cards"])

            if viewer is not None:
                moves = client.get(game.url("/legal-moves"), headers=headers).get_json()
                assert not leaked(moves, secret, game.game_id), (version, viewer)

            if last is not None and last[0] == viewer:
                response = last[1]
                shown = [e for e in response["events"] if e["type"] == "deal"]
                if not new_hand:
                    shown.append(response["move"])
                assert not leaked([response["state"], shown], secret, game.game_id)

        checked_versions += 1
        turn = spectator["turn"]
        if turn is None:
            break
        move = rng.choice(game.legal_moves(turn))
        response = game.move(turn, move["card"], move["capture"])
        assert response.status_code == 200
        last = (turn, response.get_json())

    assert spectator["status"] == "finished"
    assert len(hands_seen) >= 2, "the walkthrough should cross from one hand to the next"
    assert checked_versions > 60


@pytest.mark.parametrize(("players", "seed"), [(2, 1), (3, 2), (4, 3), (6, 4)])
def test_a_match_is_played_to_the_end(client: FlaskClient, players: int, seed: int) -> None:
    game = Table(client)
    game.create(players=players, seed=seed)
    rng = random.Random(seed)
    finished_hands: list[dict[str, Any]] = []
    version = 1
    while True:
        view = game.view()
        assert view["version"] == version
        number = view["hand_number"]
        hands = client.get(game.url("/hands"))
        assert hands.status_code == 200
        assert hands.get_json() == {"hands": finished_hands}
        if view["status"] == "finished":
            break
        # The hand being played has no score yet; the one after it does not exist.
        in_progress = client.get(game.url(f"/hands/{number}"))
        assert in_progress.status_code == 409
        assert in_progress.mimetype == "application/problem+json"
        assert client.get(game.url(f"/hands/{number + 1}")).status_code == 404

        turn = view["turn"]
        move = rng.choice(game.legal_moves(turn))
        response = game.move(turn, move["card"], move["capture"])
        assert response.status_code == 200
        version += 1
        for event in response.get_json()["events"]:
            if event["type"] == "hand_over":
                assert event["hand"] == len(finished_hands) + 1
                finished_hands.append(event["score"])
                cards = [c for side in event["score"]["teams"] for c in side["captured"]]
                assert sorted(cards) == sorted(ALL_CARDS)  # every card ends in a pile (R6)

    assert len(finished_hands) == view["hand_number"] >= 2
    teams = sorted(set(TEAMS[players]))
    totals = [sum(h["teams"][t]["total"] for h in finished_hands) for t in teams]
    assert [t["score"] for t in view["teams"]] == totals == finished_hands[-1]["scores"]
    top = max(totals)
    assert top >= 11 and totals.count(top) == 1
    assert view["winner"] == totals.index(top)
    assert view["turn"] is None
    for n, hand in enumerate(finished_hands, start=1):
        assert client.get(game.url(f"/hands/{n}")).get_json() == hand
    assert client.get(game.url(f"/hands/{len(finished_hands) + 1}")).status_code == 404
    assert client.get(game.url("/hands/0")).status_code == 404

    log = client.get(game.url("/events")).get_json()
    assert log["version"] == version
    last_event = {
        "type": "match_over",
        "winner": view["winner"],
        "scores": totals,
        "reason": "target",
    }
    assert log["events"][-1] == {"seq": len(log["events"]) - 1, **last_event}

    # The match is over: no seat may move, and nobody has legal moves.
    for seat in range(players):
        assert game.legal_moves(seat) == []
        hand = game.view(seat)["hand"]
        assert hand == []
        response = game.move(seat, "7D", [])
        assert response.status_code == 409
        assert response.mimetype == "application/problem+json"
        assert response.get_json()["type"] == "/problems/match-over"
    assert game.view()["version"] == version
