"""A game's view and events as answers show them, built from a game: every card in them
goes through ``service.engine.views``, which decides what each viewer may see."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlencode

from flask import url_for

from ...engine import Event, Status, event_view, get_variant, match_view
from ...engine.match import team_of_seats
from ...engine.rules import OPTIONS
from ...play import Game, Lobby, join_code
from ...play.steps import series_after
from ..context import server_secret
from ..problems import etag
from ..service_keys import requesting_key


def view_of(game: Game, seat: int | None) -> dict[str, Any]:
    """The game as ``seat`` sees it (a spectator: None). Each seat's ``player_id`` is
    shown to the service key that created the game (whatever seat it reads as) and to
    that seat's own token, to nobody else."""
    match = game.match
    shown = lobby_view(game.lobby, seat) if match is None else match_view(match, seat)
    view = {"id": game.id, "version": game.version, "seq": game.logged - 1, **shown}
    view["rules"] = rules_view(view["variant"], view["rules"])
    keyed = game.owner is not None  # (a game created without a key has no player ids)
    owner = keyed and requesting_key() == game.owner
    for entry, level in zip(view["seats"], game.bots, strict=True):
        entry["bot"] = level
        entry["open"] = entry["name"] is None
        if keyed and (owner or entry["seat"] == seat):
            entry["player_id"] = game.player_id(entry["seat"])
    if game.aborted is not None:
        view["status"] = Status.ABORTED
        view["turn"] = None
    view["join"] = None  # the seated may pass the code on; nobody else sees it
    if game.lobby is not None and seat is not None:
        code = join_code(server_secret(), game.id, game.join_generation)
        view["join"] = join_answer(game.id, code)
    view["spectators"] = game.spectators
    view["rated"] = game.rated
    clock = game.clock
    view["clock"] = None if clock is None else {"seconds": clock, "deadline": utc(game.deadline)}
    view["previous"] = game.previous
    view["next"] = game.next
    wins = series_after(game) if match is not None else [0] * len(view["teams"])
    view["series"] = {"matches": sum(wins), "wins": list(wins)}
    view["abort_reason"] = game.aborted
    view["start_at"] = utc(game.start_at)
    view["metadata"] = game.metadata
    return view


def rules_view(variant: str, rules: dict[str, Any]) -> dict[str, Any]:
    """A match's rules as its views show them: every option of its variant, those left
    at their defaults included (the stored rules leave Cirulla's out)."""
    shown = dict(rules)
    for name in get_variant(variant).extra_options:
        shown.setdefault(name, OPTIONS[name].default)
    return shown


def utc(moment: float | None) -> str | None:
    """A UNIX time as RFC 3339 text in UTC, to the millisecond."""
    if moment is None:
        return None
    text = datetime.fromtimestamp(moment, UTC).isoformat(timespec="milliseconds")
    return text.replace("+00:00", "Z")


def lobby_view(lobby: Lobby | None, seat: int | None) -> dict[str, Any]:
    """A game waiting for people, as a match view with nothing dealt: open seats have no
    name, nobody has a card, the turn is nobody's."""
    assert lobby is not None, "a game has a match or a lobby"
    setup = lobby.setup
    teams = team_of_seats(len(lobby.names))
    view: dict[str, Any] = {
        "variant": setup["variant"],
        "status": Status.WAITING,
        "target": setup["target"],
        "rules": setup["rules"],
        "seeded": setup["seed"] is not None or setup["deck"] is not None,
        "hand_number": 0,
        "dealer": setup["first_dealer"],
        "turn": None,
        "table": [],
        "stock_count": 0,
        "you": seat,
        "seats": [
            {
                "seat": index,
                "name": name,
                "team": teams[index],
                "hand_count": 0,
                "captured_count": 0,
                "scopas": 0,
            }
            for index, name in enumerate(lobby.names)
        ],
        "teams": [
            {"team": team, "seats": [s for s, t in enumerate(teams) if t == team], "score": 0}
            for team in range(max(teams) + 1)
        ],
        "last_move": None,
        "winner": None,
    }
    if seat is not None:
        view["hand"] = []
    return view


def events_for(events: list[Event], seat: int | None, first: int) -> list[Event]:
    """``events`` as ``seat`` may see them, numbered with their ``seq`` from ``first``
    (their position in the game's log)."""
    return [{"seq": first + i, **event_view(e, seat)} for i, e in enumerate(events)]


def join_answer(game_id: str, code: str) -> dict[str, Any]:
    """How people take a game's open seats: its code, where a client sends it, and a
    link a person can open (the service's own page, /play)."""
    return {
        "code": code,
        "url": url_for("games.lobby.JoinGame", game_id=game_id),
        "link": "/play?" + urlencode({"game": game_id, "code": code}),
    }


def created_headers(game_id: str, version: int) -> dict[str, str]:
    return {"Location": url_for("games.GameItem", game_id=game_id), **etag(version)}
