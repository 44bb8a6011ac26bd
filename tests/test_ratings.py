"""Players' ratings (docs/platforms.md, "Ratings and tournaments"): the Weng-Lin
Plackett-Luce model checked against its published example and against the paper's
update written out here on its own; and the service moving them once per rated game,
reading them (`GET /v1/players/{player_id}`, `GET /v1/players`) and telling them in the
`game.over` webhook."""

from __future__ import annotations

import math
import random
import subprocess
import threading
from collections.abc import Callable
from typing import Any

import pytest
from flask.testing import FlaskClient

from service.play.ratings import Ratings
from service.ratings import DEFAULT, Rating, Seat, ranks_of, rate
from tests.test_platform_swiss import relay
from tests.test_webhooks import BETA, SHORT_SCHEDULE, key, keyed, registered, wait_for

__all__ = ["keyed"]

# -- the model ----------------------------------------------------------------------------


def paper_update(
    teams: list[list[tuple[float, float]]], ranks: list[int], tau: float = 0.0
) -> list[list[tuple[float, float]]]:
    """Weng and Lin (2011), Algorithm 4 (the Plackett-Luce model), written from the
    paper alone: each team's strength is its players' summed means and variances;
    ``c`` the spread of all of them with the performance noise ``beta`` (25/6); a team's
    mean moves by ``Omega``, its variance shrinks by ``Delta`` (with ``gamma`` =
    sigma_team / c, and kappa = 0.0001), shared among its players by their variances."""
    beta, kappa = 25 / 6, 1e-4
    teams = [[(m, math.sqrt(s * s + tau * tau)) for m, s in team] for team in teams]
    mu = [sum(m for m, _ in team) for team in teams]
    var = [sum(s * s for _, s in team) for team in teams]
    c = math.sqrt(sum(v + beta * beta for v in var))
    k = len(teams)
    strength = [math.exp(mu[i] / c) for i in range(k)]
    below = [sum(strength[s] for s in range(k) if ranks[s] >= ranks[q]) for q in range(k)]
    tied = [sum(1 for s in range(k) if ranks[s] == ranks[q]) for q in range(k)]
    updated = []
    for i in range(k):
        omega = delta = 0.0
        for q in range(k):
            if ranks[q] <= ranks[i]:
                p = strength[i] / below[q]
                omega += ((1.0 if q == i else 0.0) - p) / tied[q]
                delta += p * (1 - p) / tied[q]
        omega *= var[i] / c
        delta *= (math.sqrt(var[i]) / c) * var[i] / (c * c)
        updated.append(
            [
                (m + s * s / var[i] * omega, s * math.sqrt(max(1 - s * s / var[i] * delta, kappa)))
                for m, s in teams[i]
            ]
        )
    return updated


def test_the_published_example_moves_as_published() -> None:
    """openskill's documented example of the model (Plackett-Luce, no dynamics factor):
    a new player and one at 32.444/5.123 beat 43.381/2.421 and 25.188/6.211."""
    a1, a2 = Rating(), Rating(32.444, 5.123)
    b1, b2 = Rating(43.381, 2.421), Rating(25.188, 6.211)
    seats = [Seat(0, a1), Seat(1, b1), Seat(0, a2), Seat(1, b2)]  # as a Scopone table sits
    after = rate(seats, [0, 1], tau=0)
    published = [
        (28.669648436582808, 8.071520788025197),
        (43.071274808241974, 2.4166900452721256),
        (33.83086971107981, 5.062772998705765),
        (23.149503312339064, 6.1378606973362135),
    ]
    for got, (mu, sigma) in zip(after, published, strict=True):
        assert got.mu == pytest.approx(mu, abs=1e-9) and got.sigma == pytest.approx(sigma, abs=1e-9)
    # The paper's formulas by hand agree.
    teams = [[(a1.mu, a1.sigma), (a2.mu, a2.sigma)], [(b1.mu, b1.sigma), (b2.mu, b2.sigma)]]
    by_hand = paper_update(teams, [0, 1])
    assert by_hand[0][0][0] == pytest.approx(published[0][0], abs=1e-9)
    assert by_hand[1][1][1] == pytest.approx(published[3][1], abs=1e-9)


@pytest.mark.parametrize("shape", [(1, 1), (1, 1, 1), (2, 2), (3, 3)])
def test_the_model_is_the_papers_update_for_every_table(shape: tuple[int, ...]) -> None:
    """One against one, three ways, two against two, three against three: the ratings
    the service gives are the paper's update (with the dynamics factor, and with ties)."""
    rng = random.Random(sum(shape))
    for _ in range(50):
        teams = [[(rng.uniform(10, 40), rng.uniform(1, 9)) for _ in range(size)] for size in shape]
        ranks = [rng.randrange(len(shape)) for _ in shape]
        tau = rng.choice([0.0, 25 / 300])
        seats = [Seat(t, Rating(m, s)) for t, team in enumerate(teams) for m, s in team]
        got = rate(seats, ranks, tau=tau)
        want = [player for team in paper_update(teams, ranks, tau) for player in team]
        for rating, (mu, sigma) in zip(got, want, strict=True):
            assert rating.mu == pytest.approx(mu, abs=1e-9)
            assert rating.sigma == pytest.approx(sigma, abs=1e-9)


def test_beating_stronger_players_lifts_a_rating_more_than_beating_weaker_ones() -> None:
    """Two new players each win 30 games in a row: one against players rated 35
    (established: sigma 2), one against players rated 15. The first ends well above."""
    strong, weak = DEFAULT, DEFAULT
    for _ in range(30):
        strong = rate([Seat(0, strong), Seat(1, Rating(35, 2))], [0, 1])[0]
        weak = rate([Seat(0, weak), Seat(1, Rating(15, 2))], [0, 1])[0]
    assert strong.mu > weak.mu + 5 and strong.display > weak.display + 5


def test_ratings_find_the_players_true_order_over_many_games() -> None:
    """Twelve players of known strengths play 1,500 random two-player games, each won with
    the Bradley-Terry chance of their strengths: the ratings rank them as they are."""
    rng = random.Random(7)
    skill = [float(n) for n in range(12)]
    ratings = [DEFAULT] * 12
    for _ in range(1500):
        a, b = rng.sample(range(12), 2)
        a_wins = rng.random() < 1 / (1 + math.exp((skill[b] - skill[a]) / 2))
        ranks = [0, 1] if a_wins else [1, 0]
        ratings[a], ratings[b] = rate([Seat(0, ratings[a]), Seat(1, ratings[b])], ranks)
    order = sorted(range(12), key=lambda p: ratings[p].display)
    misplaced = sum(abs(place - player) for place, player in enumerate(order))
    assert misplaced <= 12, order


def test_a_match_is_ranked_winner_first_then_by_points() -> None:
    """docs/rules.md R8, R9: the winner first, even one who won outright with fewer points."""
    assert ranks_of(0, [12, 7]) == [0, 1]
    assert ranks_of(1, [10, 12, 5]) == [1, 0, 2]
    assert ranks_of(2, [9, 9, 3]) == [1, 1, 0]  # won outright (napoleone) with fewer points


# -- the service --------------------------------------------------------------------------


def rated_game(client: FlaskClient, players: list[str], **more: Any) -> str:
    body = {
        "target": 1,
        "rated": True,
        "seats": [{"name": p, "player_id": p} for p in players],
        **more,
    }
    made = client.post("/v1/games", json=body, headers=key())
    assert made.status_code == 201, made.get_json()
    game_id: str = made.get_json()["id"]
    return game_id


def finished(client: FlaskClient, players: list[str], **more: Any) -> dict[str, Any]:
    """A rated game of ``players`` played to its end; its view."""
    game_id = rated_game(client, players, **more)
    relay(client, game_id)
    view: dict[str, Any] = client.get(f"/v1/games/{game_id}", headers=key()).get_json()
    assert view["status"] == "finished"
    return view


def ratings_of(client: FlaskClient, player: str) -> dict[str, dict[str, Any]]:
    answer = client.get(f"/v1/players/{player}", headers=key())
    assert answer.status_code == 200, answer.get_json()
    body = answer.get_json()
    assert body["player_id"] == player
    return {r["variant"]: r for r in body["ratings"]}


def test_a_rated_game_moves_its_players_ratings_once(keyed: Callable[..., FlaskClient]) -> None:
    client = keyed()
    assert ratings_of(client, "ana") == {}  # nobody rated yet: no rating, not a 404
    view = finished(client, ["ana", "bo"])
    winner = view["winner"]
    seats = [Seat(s, DEFAULT) for s in range(2)]
    expected = rate(seats, [0 if s == winner else 1 for s in range(2)])
    for seat, player in enumerate(["ana", "bo"]):
        record = ratings_of(client, player)["scopa"]
        assert record["mu"] == pytest.approx(expected[seat].mu)
        assert record["sigma"] == pytest.approx(expected[seat].sigma)
        assert record["rating"] == pytest.approx(expected[seat].display)
        assert (record["games"], record["wins"], record["losses"]) == (
            1,
            int(seat == winner),
            int(seat != winner),
        )
        assert record["place"] == (1 if seat == winner else 2)
        assert record["last_game"] == view["id"]
    # Settling again (a webhook job, a tournament) changes nothing: once per game.
    app_store = client.application.extensions["scopa_store"]
    from service.play import Game  # noqa: PLC0415

    game = app_store.load(view["id"])
    assert isinstance(game, Game)
    outcome = Ratings(app_store).settle(game)
    assert outcome is not None and [c.after for c in outcome.seats] == expected
    assert ratings_of(client, "ana")["scopa"]["games"] == 1
    # Another key's players are its own.
    assert client.get("/v1/players/ana", headers=key(BETA)).get_json()["ratings"] == []


def test_scopas_and_hands_are_counted_from_the_log(keyed: Callable[..., FlaskClient]) -> None:
    client = keyed()
    view = finished(client, ["cy", "di"], target=4)
    events = client.get(f"/v1/games/{view['id']}/events", headers=key()).get_json()["events"]
    scopas = [0, 0]
    for event in events:
        if event["type"] == "move" and event["scopa"]:
            scopas[event["seat"]] += 1
    hands = sum(1 for event in events if event["type"] == "hand_over")
    for seat, player in enumerate(["cy", "di"]):
        record = ratings_of(client, player)["scopa"]
        assert (record["scopas"], record["hands"]) == (scopas[seat], hands)
        assert record["scopas_per_hand"] == pytest.approx(scopas[seat] / hands)


def test_games_that_end_together_each_move_the_ratings_once(
    keyed: Callable[..., FlaskClient],
) -> None:
    """Eight rated games of one player settled at once from eight threads, twice each:
    every game counted once, and the player's rating is the fold of the eight outcomes
    in the order they settled."""
    client = keyed()
    app_store = client.application.extensions["scopa_store"]
    games = []
    for n in range(8):
        view = finished(client, ["hub", f"rim-{n}"])
        games.append(app_store.load(view["id"]))
    # Undo what their commits settled, to settle them all again at once.
    redis = app_store.redis
    for name in redis.scan_iter("scopa:ratings:{acme}:*"):
        redis.delete(name)
    barrier = threading.Barrier(16)
    outcomes: list[Any] = []

    def settle(game: Any) -> None:
        barrier.wait()
        outcomes.append(Ratings(app_store).settle(game))

    threads = [threading.Thread(target=settle, args=(g,)) for g in games for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(o is not None for o in outcomes)
    record = ratings_of(client, "hub")["scopa"]
    assert record["games"] == 8
    assert record["wins"] + record["losses"] == 8
    # Each game's "before" is another's "after": one chain from the new player's rating.
    hub = {o.game_id: next(c for c in o.seats if c.player_id == "hub") for o in outcomes}
    chain, at = [], DEFAULT
    while len(chain) < 8:
        step = next(c for c in hub.values() if c.before == at)
        chain.append(step)
        at = step.after
    assert at == Rating(record["mu"], record["sigma"])


def test_a_leaderboard_pages_through_every_player_by_rating(
    keyed: Callable[..., FlaskClient],
) -> None:
    client = keyed()
    players = [f"p{n}" for n in range(6)]
    rng = random.Random(3)
    for _ in range(8):
        finished(client, rng.sample(players, 2))
    finished(client, ["p0", "p1", "p2", "p3"], variant="scopone")
    seen: list[dict[str, Any]] = []
    url: str | None = "/v1/players?variant=scopa&limit=2"
    while url is not None:
        page = client.get(url, headers=key())
        assert page.status_code == 200, page.get_json()
        body = page.get_json()
        assert body["variant"] == "scopa" and len(body["players"]) <= 2
        seen += body["players"]
        url = body["next"]
        assert (url is None) == ("Link" not in page.headers)
    rated = {p for p in players if "scopa" in ratings_of(client, p)}
    assert [e["player_id"] for e in seen] and {e["player_id"] for e in seen} == rated
    assert len(seen) == len(rated)
    assert [e["place"] for e in seen] == list(range(1, len(seen) + 1))
    assert [e["rating"] for e in seen] == sorted((e["rating"] for e in seen), reverse=True)
    for entry in seen:
        assert entry["rating"] == pytest.approx(
            ratings_of(client, entry["player_id"])["scopa"]["rating"]
        )
    scopone = client.get("/v1/players?variant=scopone", headers=key()).get_json()["players"]
    assert sorted(e["player_id"] for e in scopone) == ["p0", "p1", "p2", "p3"]
    wrong = client.get("/v1/players?variant=scopa&cursor=bm90LWEtY3Vyc29y", headers=key())
    assert wrong.status_code == 422 and wrong.mimetype == "application/problem+json"
    assert client.get("/v1/players?variant=scopa").status_code == 401


def test_what_a_rated_game_needs(keyed: Callable[..., FlaskClient]) -> None:
    client = keyed()
    seats = [{"name": "Ana", "player_id": "ana"}, {"name": "Bo"}]
    missing = client.post("/v1/games", json={"rated": True, "seats": seats}, headers=key())
    assert missing.status_code == 422 and "player_id" in missing.get_data(as_text=True)
    twice = [{"name": "Ana", "player_id": "ana"}, {"name": "Bo", "player_id": "ana"}]
    again = client.post("/v1/games", json={"rated": True, "seats": twice}, headers=key())
    assert again.status_code == 422
    anonymous = client.post("/v1/games", json={"rated": True, "players": 2})
    assert anonymous.status_code in (403, 422), anonymous.get_json()
    assert client.post("/v1/games", json={"rated": False, "players": 2}).status_code == 201


def test_unrated_and_aborted_games_move_no_rating(keyed: Callable[..., FlaskClient]) -> None:
    client = keyed()
    made = client.post(
        "/v1/games",
        json={
            "target": 1,
            "seats": [{"name": "A", "player_id": "ua"}, {"name": "B", "player_id": "ub"}],
        },
        headers=key(),
    ).get_json()
    relay(client, made["id"])
    aborted = rated_game(client, ["ua", "ub"])
    assert (
        client.post(
            f"/v1/games/{aborted}/abort", json={"reason": "rain"}, headers=key()
        ).status_code
        == 200
    )
    assert ratings_of(client, "ua") == {} and ratings_of(client, "ub") == {}


def test_the_game_over_webhook_tells_each_seats_rating_before_and_after(
    keyed: Callable[..., FlaskClient], start_worker: Callable[..., subprocess.Popen[bytes]]
) -> None:
    receiver, allow, client, _ = registered(keyed, ["game.over"])
    receiver.up()
    start_worker(
        "--only-webhooks", WEBHOOK_ALLOW_HOSTS=allow, WEBHOOK_RETRY_SCHEDULE=SHORT_SCHEDULE
    )
    first = finished(client, ["eva", "fil"])
    second = finished(client, ["fil", "eva"])  # their second game starts where the first left
    overs = wait_for(lambda: len(receiver.received) >= 2 and receiver.received, 60, "two game.over")
    by_game = {o["data"]["game"]["id"]: o["data"] for o in overs}
    one, two = by_game[first["id"]]["ratings"], by_game[second["id"]]["ratings"]
    assert [c["player_id"] for c in one] == ["eva", "fil"] and [c["player_id"] for c in two] == [
        "fil",
        "eva",
    ]
    assert all(c["before"] == {"rating": 0.0, "mu": 25.0, "sigma": 25 / 3} for c in one)
    assert one[0]["after"] == two[1]["before"] and one[1]["after"] == two[0]["before"]
    now = ratings_of(client, "eva")["scopa"]
    assert two[1]["after"] == {k: now[k] for k in ("rating", "mu", "sigma")}
    winner = by_game[first["id"]]["winner"]
    assert one[winner]["after"]["mu"] > 25 > one[1 - winner]["after"]["mu"]
