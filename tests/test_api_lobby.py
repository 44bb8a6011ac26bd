"""The lobby: open seats taken with a join code, leaving before the start, games nobody
can watch, and the rematch after a match."""

from __future__ import annotations

import random
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import requests
from flask.testing import FlaskClient

from service.play import join_code
from tests.conftest import TEST_SECRET
from tests.helpers import Table, everything_stored
from tests.live import CARD_CODE, Player
from tests.test_workers import assert_the_log_replays

FULL_DECK = [f"{value}{suit}" for suit in "DCSB" for value in range(1, 11)]


def open_game(table: Table, *seats: dict[str, Any], **body: Any) -> dict[str, Any]:
    return table.create(seats=list(seats), **body)


def join(client: FlaskClient, game_id: str, name: str, code: str, **extra: Any) -> Any:
    headers = extra.pop("headers", {})
    return client.post(
        f"/v1/games/{game_id}/join", json={"name": name, "code": code, **extra}, headers=headers
    )


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


class TestOpenSeats:
    def test_a_game_with_an_open_seat_waits_with_nothing_dealt(self, table: Table) -> None:
        created = open_game(table, {"name": "Ann"}, {"open": True})
        assert [s["open"] for s in created["seats"]] == [False, True]
        assert created["seats"][1]["name"] is None and created["seats"][1]["token"] is None
        assert created["join"]["code"] == join_code(TEST_SECRET.encode(), table.game_id)
        assert created["join"]["url"] == f"/v1/games/{table.game_id}/join"
        code = created["join"]["code"]
        assert created["join"]["link"] == f"/play?game={table.game_id}&code={code}"
        with table.client.get(created["join"]["link"]) as page:  # the page
            assert page.status_code == 200
        assert created["events"] == []
        state = table.view(0)
        assert state["status"] == "waiting"
        assert state["hand"] == [] and state["table"] == [] and state["turn"] is None
        assert [s["open"] for s in state["seats"]] == [False, True]
        assert state["hand_number"] == 0 and state["stock_count"] == 0
        events = table.client.get(table.url("/events")).get_json()["events"]
        assert events == []

    def test_a_null_name_leaves_the_seat_open(self, table: Table) -> None:
        created = open_game(table, {"name": "Ann"}, {"name": None})
        assert created["seats"][1]["open"] is True
        assert created["state"]["status"] == "waiting"

    @pytest.mark.parametrize(
        "seat",
        [{"open": True, "name": "Bea"}, {"open": True, "bot": "greedy"}, {}, {"open": False}],
    )
    def test_a_seat_is_named_or_open_and_a_computer_player_is_never_open(
        self, client: FlaskClient, seat: dict[str, Any]
    ) -> None:
        response = client.post("/v1/games", json={"seats": [{"name": "Ann"}, seat]})
        assert response.status_code == 422, response.json
        assert response.json["type"] == "/problems/validation"

    @pytest.mark.parametrize(
        ("fixed", "field"),
        [({"seed": 5}, "seed"), ({"deck": FULL_DECK}, "deck"), ({"seed": 0}, "seed")],
    )
    @pytest.mark.parametrize("open_seat", [{"open": True}, {"name": None}])
    def test_a_seed_or_a_deck_with_open_seats_is_refused(
        self, client: FlaskClient, fixed: dict[str, Any], field: str, open_seat: dict[str, Any]
    ) -> None:
        """Replaying ``Match.new(seed=...)`` would tell the creator every hand the
        joiners get (issue 26, item 8): such a game is refused, and says why."""
        body = {"seats": [{"name": "Ann"}, open_seat], **fixed}
        response = client.post("/v1/games", json=body)
        assert response.status_code == 422, response.json
        assert response.json["type"] == "/problems/validation"
        assert list(response.json["errors"]) == [field]
        assert "open seats" in response.json["detail"] + str(response.json["errors"])
        # With every seat named, the same seed or deck makes a game.
        named = {"seats": [{"name": "Ann"}, {"name": "Bea"}], **fixed}
        assert client.post("/v1/games", json=named).status_code == 201

    def test_nobody_moves_before_the_start(self, table: Table) -> None:
        open_game(table, {"name": "Ann"}, {"open": True})
        response = table.move(0, "1D", [])
        assert response.status_code == 409
        assert response.json["type"] == "/problems/match-not-started"
        assert table.legal_moves(0) == []
        hint = table.client.get(table.url("/hint"), headers=table.auth(0))
        assert hint.status_code == 409
        assert table.client.get(table.url("/hands")).get_json() == {"hands": []}
        assert table.client.get(table.url("/hands/1")).status_code == 409
        assert table.client.post(table.url("/bots")).status_code == 409

    def test_the_last_seat_taken_starts_the_match(self, table: Table) -> None:
        created = open_game(table, {"name": "Ann"}, {"open": True}, {"open": True})
        code = created["join"]["code"]
        first = join(table.client, table.game_id, "Bea", code)
        assert first.status_code == 200, first.json
        assert first.json["seat"] == 1 and first.json["name"] == "Bea"
        assert first.json["state"]["status"] == "waiting"
        assert first.headers["ETag"] == '"2"'
        second = join(table.client, table.game_id, "Cid", code)
        assert second.json["seat"] == 2
        state = second.json["state"]
        assert state["status"] == "playing" and state["you"] == 2
        assert len(state["hand"]) == 3 and len(state["table"]) == 4
        assert [s["name"] for s in state["seats"]] == ["Ann", "Bea", "Cid"]
        assert not any(s["open"] for s in state["seats"])
        tokens = [table.tokens[0], first.json["token"], second.json["token"]]
        for seat, token in enumerate(tokens):
            view = table.client.get(table.url(), headers=bearer(token)).get_json()
            assert view["you"] == seat and len(view["hand"]) == 3
        log = table.client.get(table.url("/events")).get_json()["events"]
        kinds = [e["type"] for e in log]
        assert kinds[:4] == ["seat_joined", "seat_joined", "match_started", "deal"]
        assert log[0] == {"seq": 0, "type": "seat_joined", "seat": 1, "name": "Bea"}
        assert log[2]["seats"][2]["name"] == "Cid"

    def test_no_open_seat_is_a_conflict(self, table: Table) -> None:
        created = open_game(table, {"name": "Ann"}, {"open": True})
        code = created["join"]["code"]
        assert join(table.client, table.game_id, "Bea", code).status_code == 200
        late = join(table.client, table.game_id, "Cid", code)
        assert late.status_code == 409
        assert late.json["type"] == "/problems/no-open-seat"

    def test_a_chosen_seat(self, table: Table) -> None:
        created = open_game(table, {"open": True}, {"name": "Ann"}, {"open": True}, {"open": True})
        code = created["join"]["code"]
        chosen = join(table.client, table.game_id, "Bea", code, seat=3)
        assert chosen.json["seat"] == 3 and chosen.json["team"] == 1
        again = join(table.client, table.game_id, "Cid", code, seat=3)
        assert again.status_code == 409 and "seat 3 is not open" in again.json["detail"]
        taken = join(table.client, table.game_id, "Cid", code, seat=1)
        assert taken.status_code == 409

    def test_the_join_code_must_be_the_games(self, table: Table) -> None:
        created = open_game(table, {"name": "Ann"}, {"open": True})
        wrong = join(table.client, table.game_id, "Bea", "0000000000")
        assert wrong.status_code == 403
        assert wrong.json["type"] == "/problems/wrong-join-code"
        assert table.view()["seats"][1]["open"] is True
        # Read out and typed again: lower case, a dash, O for 0 and I for 1 still do.
        code = created["join"]["code"]
        typed = (code[:5] + "-" + code[5:]).lower().replace("0", "o").replace("1", "i")
        assert join(table.client, table.game_id, "Bea", typed).status_code == 200

    def test_another_games_code_does_not_open_this_one(self, client: FlaskClient) -> None:
        one, two = Table(client), Table(client)
        code = open_game(one, {"name": "Ann"}, {"open": True})["join"]["code"]
        open_game(two, {"name": "Ann"}, {"open": True})
        assert join(client, two.game_id, "Bea", code).status_code == 403

    def test_a_full_game_has_no_join_code(self, table: Table) -> None:
        created = open_game(table, {"name": "Ann"}, {"name": "Bea"})
        assert created["join"] is None
        code = join_code(TEST_SECRET.encode(), table.game_id)
        late = join(table.client, table.game_id, "Cid", code)
        assert late.status_code == 409

    def test_a_computer_player_waits_for_the_people(self, table: Table) -> None:
        created = open_game(table, {"name": "CPU", "bot": "greedy"}, {"open": True}, first_dealer=1)
        assert table.client.post(table.url("/bots")).status_code == 409
        joined = join(table.client, table.game_id, "Bea", created["join"]["code"])
        # Seat 1 dealt, so the computer player in seat 0 plays first, at once.
        state = joined.json["state"]
        assert state["status"] == "playing"
        assert state["turn"] == 1 and state["last_move"]["seat"] == 0

    def test_a_retried_join_gets_the_same_seat_and_token(self, table: Table) -> None:
        created = open_game(table, {"name": "Ann"}, {"open": True}, {"open": True})
        key = {"Idempotency-Key": "join-retry-0123456789"}
        code = created["join"]["code"]
        first = join(table.client, table.game_id, "Bea", code, headers=key)
        again = join(table.client, table.game_id, "Bea", code, headers=key)
        assert again.status_code == 200
        assert again.headers["Idempotent-Replayed"] == "true"
        assert again.json == first.json
        assert table.view()["seats"][2]["open"] is True  # one seat taken, not two
        other = join(table.client, table.game_id, "Cid", code, headers=key)
        assert other.status_code == 422
        short = join(table.client, table.game_id, "Cid", code, headers={"Idempotency-Key": "k"})
        assert short.status_code == 422


class TestLeaving:
    def test_a_seat_leaves_before_the_start(self, table: Table) -> None:
        created = open_game(table, {"name": "Ann"}, {"open": True}, {"open": True})
        joined = join(table.client, table.game_id, "Bea", created["join"]["code"]).json
        left = table.client.post(table.url("/leave"), headers=bearer(joined["token"]))
        assert left.status_code == 204 and left.headers["ETag"] == '"3"'
        assert table.view()["seats"][1] == {**table.view()["seats"][1], "open": True, "name": None}
        gone = table.client.get(table.url(), headers=bearer(joined["token"]))
        assert gone.status_code == 401
        log = table.client.get(table.url("/events")).get_json()["events"]
        assert log[-1] == {"seq": 1, "type": "seat_left", "seat": 1}
        # The creator may leave too; the seat is anyone's again.
        assert table.client.post(table.url("/leave"), headers=table.auth(0)).status_code == 204
        again = join(table.client, table.game_id, "Cid", created["join"]["code"])
        assert again.json["seat"] == 0

    def test_nobody_leaves_a_match_once_started(self, table: Table) -> None:
        created = open_game(table, {"name": "Ann"}, {"open": True})
        join(table.client, table.game_id, "Bea", created["join"]["code"])
        response = table.client.post(table.url("/leave"), headers=table.auth(0))
        assert response.status_code == 409
        assert response.json["type"] == "/problems/match-started"

    def test_leaving_needs_a_seat_token(self, table: Table) -> None:
        open_game(table, {"name": "Ann"}, {"open": True})
        assert table.client.post(table.url("/leave")).status_code == 401


class TestNoSpectators:
    VIEWS = ("", "/events", "/hands")

    def test_every_view_needs_a_seat_token(self, table: Table) -> None:
        table.create(spectators=False)
        assert table.created["state"]["spectators"] is False
        for suffix in self.VIEWS:
            response = table.client.get(table.url(suffix))
            assert response.status_code == 401, suffix
            assert "no spectators" in response.json["detail"]
            assert table.client.get(table.url(suffix), headers=table.auth(1)).status_code == 200
        assert table.client.get(table.url("/hands/1")).status_code == 401

    def test_spectators_are_welcome_by_default(self, table: Table) -> None:
        table.create()
        assert table.created["state"]["spectators"] is True
        for suffix in self.VIEWS:
            assert table.client.get(table.url(suffix)).status_code == 200


def finish(table: Table, seed: int) -> None:
    table.play_to_end(random.Random(seed))
    assert table.view()["status"] == "finished"


class TestRematch:
    def test_not_before_the_match_is_over(self, table: Table) -> None:
        table.create()
        response = table.client.post(table.url("/rematch"), headers=table.auth(0))
        assert response.status_code == 409
        assert response.json["type"] == "/problems/match-not-over"

    def test_each_seat_gets_its_token_for_the_next_match(self, table: Table) -> None:
        table.create(
            seats=[{"name": "Ann"}, {"name": "Bea"}], target=1, variant="scopa", first_dealer=0
        )
        finish(table, 3)
        old = table.view()
        first = table.client.post(table.url("/rematch"), headers=table.auth(1))
        assert first.status_code == 201, first.json
        new_id = first.json["id"]
        assert first.headers["Location"] == f"/v1/games/{new_id}"
        assert first.json["seat"] == 1
        state = first.json["state"]
        assert state["previous"] == table.game_id and state["you"] == 1
        assert state["status"] == "playing" and len(state["hand"]) == 3
        assert [s["name"] for s in state["seats"]] == ["Ann", "Bea"]
        assert state["target"] == 1 and state["variant"] == "scopa"
        assert state["dealer"] == (old["dealer"] + 1) % 2
        # The finished game says where the next match is, in its view and its log.
        assert table.view()["next"] == new_id
        log = table.client.get(table.url("/events")).get_json()["events"]
        assert log[-1]["type"] == "rematch" and log[-1]["game"] == new_id
        # The other seat asks with its own token: the same game, its own token.
        second = table.client.post(table.url("/rematch"), headers=table.auth(0))
        assert second.status_code == 200 and second.json["id"] == new_id
        assert second.json["seat"] == 0 and second.json["token"] != first.json["token"]
        again = table.client.post(table.url("/rematch"), headers=table.auth(1))
        assert again.status_code == 200 and again.json["token"] == first.json["token"]
        for seat, answer in ((0, second.json), (1, first.json)):
            view = table.client.get(f"/v1/games/{new_id}", headers=bearer(answer["token"]))
            assert view.status_code == 200 and view.json["you"] == seat
        # An old token is no token of the new game.
        stale = table.client.get(f"/v1/games/{new_id}", headers=table.auth(0))
        assert stale.status_code == 401

    def test_a_series_is_tallied_across_rematches(self, table: Table) -> None:
        """Every view of a match says how many matches of its series are over and how many
        each team won: this one once finished, and those it is the rematch of (a rematch
        keeps every seat, so a team is the same seats in each)."""
        table.create(seats=[{"name": n} for n in "ABCD"], target=1, first_dealer=0)
        assert table.view()["series"] == {"matches": 0, "wins": [0, 0]}
        wins = [0, 0]
        for seed in range(3):
            finish(table, seed)
            wins[table.view()["winner"]] += 1
            assert table.view()["series"] == {"matches": seed + 1, "wins": wins}
            asked = [
                table.client.post(table.url("/rematch"), headers=table.auth(seat)).json
                for seat in range(4)
            ]
            table.game_id = asked[0]["id"]
            table.tokens = [answer["token"] for answer in asked]
            # The next match starts with the tally so far, in every seat's view.
            for seat in range(4):
                assert table.view(seat)["series"] == {"matches": seed + 1, "wins": wins}
        assert sum(wins) == 3

    def test_a_rematch_keeps_the_computer_players_and_no_spectators(self, table: Table) -> None:
        table.create(
            seats=[{"name": "Ann"}, {"name": "CPU", "bot": "random"}], target=1, spectators=False
        )
        while table.view(0)["status"] != "finished":
            move = table.legal_moves(0)[0]
            assert table.move(0, move["card"], move["capture"]).status_code == 200
        answer = table.client.post(table.url("/rematch"), headers=table.auth(0)).json
        state = answer["state"]
        assert [s["bot"] for s in state["seats"]] == [None, "random"]
        assert state["spectators"] is False
        assert table.client.get(f"/v1/games/{answer['id']}").status_code == 401

    def test_no_card_shows_in_a_waiting_game(self, table: Table) -> None:
        created = open_game(table, {"name": "Ann"}, {"open": True}, {"open": True})
        join(table.client, table.game_id, "Bea", created["join"]["code"])
        for seat in (None, 0):
            text = table.client.get(
                table.url(), headers=table.auth(seat) if seat is not None else {}
            ).get_data(as_text=True)
            assert not CARD_CODE.search(text)


def test_a_lobby_games_log_replays_around_its_lobby_events(table: Table, redis_url: str) -> None:
    """docs/rules.md R3-R8: the match in the log is the match stored, with the seats taken
    and left before it and the rematch after it passed over."""
    created = open_game(table, {"name": "Ann"}, {"open": True}, {"open": True}, target=3)
    code = created["join"]["code"]
    first = join(table.client, table.game_id, "Bea", code).json
    assert table.client.post(table.url("/leave"), headers=bearer(first["token"])).status_code == 204
    table.tokens[1:] = [join(table.client, table.game_id, n, code).json["token"] for n in "CD"]
    finish(table, 11)
    assert table.client.post(table.url("/rematch"), headers=table.auth(0)).status_code == 201
    log = table.client.get(table.url("/events")).get_json()["events"]
    kinds = [e["type"] for e in log]
    assert kinds[:5] == ["seat_joined", "seat_left", "seat_joined", "seat_joined", "match_started"]
    assert kinds[-2:] == ["match_over", "rematch"]
    assert_the_log_replays(redis_url, table.game_id)


class TestRaces:
    """On the real service (gunicorn, two workers): many people at once."""

    def test_people_racing_for_seats_each_get_one_or_a_409(self, live_service: Any) -> None:
        player = Player(live_service.url)
        created = player.create(seats=[{"name": "Ann"}] + [{"open": True}] * 3)
        code = created["join"]["code"]

        def take(name: str) -> requests.Response:
            return requests.post(player.url("/join"), json={"name": name, "code": code}, timeout=30)

        with ThreadPoolExecutor(8) as pool:
            answers = list(pool.map(take, [f"P{i}" for i in range(8)]))
        won = [a.json() for a in answers if a.status_code == 200]
        assert sorted(a["seat"] for a in won) == [1, 2, 3]
        assert {a.status_code for a in answers} <= {200, 409}
        state = player.view()
        assert state["status"] == "playing"
        assert [s["name"] for s in state["seats"][1:]] == [
            a["name"] for a in sorted(won, key=lambda a: a["seat"])
        ]
        for answer in won:
            view = requests.get(player.url(), headers=bearer(answer["token"]), timeout=30)
            assert view.json()["you"] == answer["seat"]

    def test_seats_asking_for_a_rematch_at_once_get_one_match(self, live_service: Any) -> None:
        player = Player(live_service.url)
        player.create(seats=[{"name": "Ann"}, {"name": "Bea"}], target=1)
        player.play_random(random.Random(2), 500)

        def ask(seat: int) -> requests.Response:
            return requests.post(player.url("/rematch"), headers=player.auth(seat), timeout=30)

        with ThreadPoolExecutor(8) as pool:
            answers = list(pool.map(ask, [0, 1] * 4))
        assert all(a.status_code in (200, 201) for a in answers), [a.text for a in answers]
        assert [a.status_code for a in answers].count(201) == 1
        assert len({a.json()["id"] for a in answers}) == 1
        for seat in (0, 1):
            tokens = {a.json()["token"] for a in answers[seat::2]}
            assert len(tokens) == 1
        log = player.events()["events"]
        assert [e["type"] for e in log].count("rematch") == 1


def test_a_seated_player_can_read_the_join_code_again(table: Table) -> None:
    created = open_game(table, {"name": "Ann"}, {"open": True}, {"open": True})
    assert table.view(0)["join"] == created["join"]
    assert table.view()["join"] is None  # a spectator cannot
    joined = join(table.client, table.game_id, "Bea", created["join"]["code"]).json
    assert joined["state"]["join"] == created["join"]
    join(table.client, table.game_id, "Cid", created["join"]["code"])
    assert table.view(0)["join"] is None  # every seat taken: no code to pass on


def test_a_computer_players_seat_needs_no_name(table: Table) -> None:
    created = table.create(seats=[{"name": "Ann"}, {"bot": "greedy"}])
    assert [s["name"] for s in created["seats"]] == ["Ann", "Computer 2"]


def test_a_legal_move_can_be_sent_back_as_it_is(table: Table) -> None:
    table.create(seed=3)
    turn = table.view()["turn"]
    move = table.legal_moves(turn)[0]
    assert set(move) == {"card", "capture", "sweep"}
    response = table.client.post(table.url("/moves"), json=move, headers=table.auth(turn))
    assert response.status_code == 200, response.json


def test_a_retried_creation_gives_the_join_code_again_and_keeps_none(
    client: FlaskClient, redis_url: str
) -> None:
    body = {"seats": [{"name": "Ann"}, {"open": True}]}
    key = {"Idempotency-Key": "create-open-seat-0123456789"}
    first = client.post("/v1/games", json=body, headers=key)
    again = client.post("/v1/games", json=body, headers=key)
    assert again.status_code == 201 and again.headers["Idempotent-Replayed"] == "true"
    assert again.json == first.json and again.json["join"]["code"]
    everything = everything_stored(redis_url)
    assert '"seats"' in everything  # the kept answer, inflated
    assert first.json["join"]["code"] not in everything  # made again from the secret
    assert first.json["seats"][0]["token"] not in everything


class TestInvitation:
    def test_whoever_has_the_code_sees_the_seats_before_taking_one(self, table: Table) -> None:
        created = open_game(table, {"name": "Ann"}, {"open": True}, spectators=False)
        code = created["join"]["code"]
        assert table.client.get(table.url()).status_code == 401  # no spectators
        seen = table.client.get(table.url("/join"), query_string={"code": code.lower()})
        assert seen.status_code == 200
        assert seen.json["status"] == "waiting" and seen.json["you"] is None
        assert [s["name"] for s in seen.json["seats"]] == ["Ann", None]
        assert seen.json["join"] is None  # a spectator's view: it does not repeat the code
        wrong = table.client.get(table.url("/join"), query_string={"code": "0000000000"})
        assert wrong.status_code == 403
        assert table.client.get(table.url("/join")).status_code == 422
        join(table.client, table.game_id, "Bea", code)
        started = table.client.get(table.url("/join"), query_string={"code": code})
        assert started.status_code == 409  # and the cards stay the seats' own
        assert not CARD_CODE.search(started.get_data(as_text=True))


class TestRotatingTheJoinCode:
    """``POST /v1/games/{id}/join-code``: whoever created a game waiting for people gives
    it a new code, and the old one lets nobody in any more (issue 26, item 9)."""

    def test_the_creator_rotates_the_code_and_the_old_one_fails(self, table: Table) -> None:
        created = open_game(table, {"name": "Ann"}, {"open": True}, {"open": True})
        old = created["join"]["code"]
        assert join(table.client, table.game_id, "Bea", old).status_code == 200
        rotated = table.client.post(table.url("/join-code"), headers=table.auth(0))
        assert rotated.status_code == 200, rotated.json
        new = rotated.json["code"]
        assert new != old and len(new) == 10
        assert rotated.json["url"] == f"/v1/games/{table.game_id}/join"
        assert rotated.json["link"] == f"/play?game={table.game_id}&code={new}"
        assert rotated.headers["ETag"] == '"3"'
        # The old code: 403 everywhere; the seated see the new one.
        refused = join(table.client, table.game_id, "Eve", old)
        assert refused.status_code == 403
        assert refused.json["type"] == "/problems/wrong-join-code"
        invitation = table.client.get(table.url("/join"), query_string={"code": old})
        assert invitation.status_code == 403
        assert table.view(0)["join"]["code"] == new
        assert join(table.client, table.game_id, "Cid", new).status_code == 200
        assert table.view()["status"] == "playing"
        # A rotation needs a code to rotate: not once the match has started.
        late = table.client.post(table.url("/join-code"), headers=table.auth(0))
        assert late.status_code == 409 and late.json["type"] == "/problems/no-open-seat"

    def test_rotations_accumulate(self, table: Table) -> None:
        created = open_game(table, {"name": "Ann"}, {"open": True})
        codes = [created["join"]["code"]]
        for _ in range(3):
            codes.append(
                table.client.post(table.url("/join-code"), headers=table.auth(0)).json["code"]
            )
        assert len(set(codes)) == 4
        for code in codes[:-1]:
            assert join(table.client, table.game_id, "Eve", code).status_code == 403
        assert join(table.client, table.game_id, "Bea", codes[-1]).status_code == 200

    def test_only_the_creators_seat_may_rotate(self, table: Table) -> None:
        created = open_game(table, {"name": "Ann"}, {"open": True}, {"open": True})
        code = created["join"]["code"]
        bea = join(table.client, table.game_id, "Bea", code).json["token"]
        for headers in ({}, bearer("not-a-token")):
            response = table.client.post(table.url("/join-code"), headers=headers)
            assert response.status_code == 401
        joiner = table.client.post(table.url("/join-code"), headers=bearer(bea))
        assert joiner.status_code == 403
        assert joiner.json["type"] == "/problems/not-the-host"
        assert table.view(0)["join"]["code"] == code  # nothing changed
        assert table.view(0)["version"] == 2

    def test_a_replayed_creation_answers_the_code_of_now(self, table: Table) -> None:
        headers = {"Idempotency-Key": "a-creation-key-0123456789"}
        body = {"seats": [{"name": "Ann"}, {"open": True}]}
        created = table.client.post("/v1/games", json=body, headers=headers).json
        table.game_id, table.tokens = created["id"], [created["seats"][0]["token"]]
        new = table.client.post(table.url("/join-code"), headers=table.auth(0)).json["code"]
        again = table.client.post("/v1/games", json=body, headers=headers)
        assert again.headers["Idempotent-Replayed"] == "true"
        assert again.json["join"]["code"] == new
