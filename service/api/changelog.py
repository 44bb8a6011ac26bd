"""The contract's changes, newest first: the spec's description ends with them (its
``info.version`` is the newest's), and docs/api.md's "Changes to the contract" lists the
same (tests/test_openapi.py checks both)."""

from __future__ import annotations

#: (version, what changed for clients), newest first.
CHANGES: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "1.5.0",
        (
            "Ratings: a game created with `rated: true` (service key only; every seat "
            "with a `player_id` of its own) moves its players' ratings in its variant "
            "when it finishes (OpenSkill's Weng-Lin Plackett-Luce model: one against one, "
            "three ways and teams alike); an aborted game moves none. `GameView` has "
            "`rated`; the `game.over` webhook has `ratings` (each seat's before and after; "
            "null for a game not rated).",
            "New operations `getPlayer`, `GET /v1/players/{player_id}` (a player's rating, "
            "uncertainty, games, wins, losses, scopas and hands per variant, and place on "
            "its leaderboard) and `listPlayers`, `GET /v1/players?variant=` (a variant's "
            "leaderboard by rating, paged by an opaque cursor in `next` and `Link`), both "
            "service key only.",
            "New operations for tournaments: `createTournament`, `POST /v1/tournaments` "
            "(service key only: a Swiss by FIDE's Dutch system, a round robin by FIDE's "
            "Berger tables or a seeded single elimination, of players or Scopone pairs; its "
            "first round's games made with it, all or none, and each next round made by the "
            "service when the last game of a round ends or at its time in `round_starts`), "
            "`listTournaments`, `GET /v1/tournaments` (the key's, newest first, paged), "
            "`getTournament`, `GET /v1/tournaments/{tournament_id}` (standings with Buchholz, "
            "Sonneborn-Berger, game points and scopas, and every round's pairings and "
            "results; anyone may read a public one, without player ids or tokens; `If-None- "
            "Match` gives 304), `withdrawTournamentEntrant`, `POST "
            "/v1/tournaments/{tournament_id}/withdrawals`, and `cancelTournament`, `POST "
            "/v1/tournaments/{tournament_id}/cancel`.",
            "Webhook event types `tournament.round_started`, `tournament.round_finished`, "
            "`tournament.finished` and `tournament.cancelled` (a delivery's `game` is the "
            "tournament's id for them).",
            "`abortGame` refuses a tournament's game that is being played: 409, new problem "
            "type `/problems/tournament-game` (its entrant withdraws instead). New problem "
            "type `/problems/tournament-not-found` (404).",
        ),
    ),
    (
        "1.4.0",
        (
            "New operation `streamKeyEvents`, `GET /v1/events` (service key only): every "
            "event of every game the key owns in one server-sent event stream, each "
            "game's in the order of its log and as its spectators see it, as "
            '`{"game_id", "event"}`; resumed with `Last-Event-ID` on any instance (ids '
            "`<ms>-<n>`), `event: missed` when what followed is no longer kept. Limited "
            "per key by the new setting `STREAM_LIMIT_PER_KEY` (4).",
        ),
    ),
    (
        "1.3.0",
        (
            "`GameView` has `series`: the matches over in the series a match belongs to (it "
            "and the matches it is the rematch of) and how many each team won, so that "
            "every device of every seat shows the same tally across rematches.",
            '`exportGames` pages by its `Link` header (`rel="next"`, an opaque `cursor` '
            "on the creation time and id), which skips no game: paging by `until` skipped "
            "games created in the same millisecond as the last line (a bulk call's). It "
            "filters by `status`, `variant`, `metadata.<key>=<value>` and `ids` too, and "
            "refuses an unknown parameter (422) instead of ignoring it.",
            "Webhook payloads: each seat of `data.game.seats` has its `team`, and "
            "`game.over` names the winners' seats and player ids (`winners`).",
            "New operation `updateWebhook`, `PATCH /v1/webhooks/{endpoint_id}`: an "
            "endpoint's `url`, `events`, or `enabled` (enabled again, the deliveries that "
            "waited are made in order). A disabled endpoint's deliveries are recorded and "
            "wait, instead of being dropped.",
            "New operation `rotateWebhookSecret`, `POST /v1/webhooks/{endpoint_id}/secret`: "
            "a new signing secret; the old one signs each delivery too (two signatures in "
            "`webhook-signature`) for `overlap_seconds` (a day by default). Endpoints show "
            "`previous_secret_expires_at`.",
            "New operation `recoverWebhookDeliveries`, `POST /v1/webhooks/{endpoint_id}/"
            "recover`: one more attempt of every failed delivery since a time, in one "
            "request of the redelivery quota.",
            "New operation `testWebhook`, `POST /v1/webhooks/{endpoint_id}/test`: a signed "
            "`ping` to the endpoint, in its delivery log (`WebhookDeliveryType` adds `ping`; "
            "a delivery's `game` is null for it), counted as a redelivery.",
            "The spec has a top-level `webhooks` (OpenAPI 3.1): each event type's body, "
            "`<Type>Webhook` in the components (`TurnStartedWebhook`, ...), every field "
            "and nothing more.",
            "Webhooks: every turn has its `turn.started` (with `deadline` null for a turn "
            "taken before its event was read), however fast moves are relayed.",
            "Every operation with query parameters refuses one it does not declare (422, "
            "the parameter named in `errors`), as the listing did: `getGame`, "
            "`listLegalMoves`, `getGameHint`, `listHandScores`, `getHandScore`, the event "
            "log and the others ignored a misspelt `as_seat` and answered a spectator's "
            "view.",
        ),
    ),
    (
        "1.2.0",
        (
            "New operation `findInvitation`, `GET /v1/invitations/{code}`: the game waiting "
            "for people that a join code lets in, found by the code alone (as a person "
            "types it: any case, spaces and dashes ignored), answered as `readInvitation` "
            "answers (a spectator's `GameView`, with the game's `id`). A wrong code, "
            "whatever is wrong with it, is a 404 of the new problem type "
            "`/problems/invitation-not-found`.",
            "`findInvitation` counts against a new quota, `invitations` (30 a minute per "
            "address by default, `INVITATION_LIMIT_PER_ADDRESS`; 429 past it).",
        ),
    ),
    (
        "1.1.1",
        (
            "`as_seat` and `X-Seat` name seats 0 to 5: a service key reads and plays the "
            "last two seats of a 6-player match (the spec allowed 0 to 3, and the "
            "event log's and hints' `as_seat` refused 4 and 5).",
            "A body with a name, metadata value or abort reason that breaks its rules and "
            "another invalid field: the 422's `errors` names the other field; the text "
            "field is named once the rest is valid.",
        ),
    ),
    (
        "1.1.0",
        (
            "An `Idempotency-Key` of `createGame` and `joinGame` is the caller's own: a "
            "service key's keys are its own, and without a key they are scoped to the "
            "client's network (the one its rate limits count). The same key from another "
            "caller is another request: it never gets the first caller's answer or tokens.",
            "`importGame` counts against the `creations` quota (429 past it).",
            "`exportGames` and `listGames` count against quotas of their own, `exports` and "
            "`listings` (429 past them: `EXPORT_LIMIT_PER_KEY`, `LISTING_LIMIT_PER_KEY`).",
            "`exportGames`, `listGames` and `getGameRecord` hold part of the cost budget "
            "before they run, and are refused (429) while it is spent; an export reads its "
            "key's index of games that are over.",
            "`rematchGame`: `token` is null for a seat that had no token (an imported "
            "game's: its key acts for it with `X-Seat`).",
            "`retryWebhookDelivery` counts against the `redeliveries` quota (429 past it), "
            "and a delivery asked for again within 10 s is attempted once.",
            "Names, metadata values and abort reasons are refused (422) with a control, "
            "bidirectional, zero-width or other invisible character, in every operation "
            "that takes them (`importGame` included).",
            "Webhook URLs are refused (422) at a 6to4, Teredo, NAT64 or IPv4-mapped "
            "address that embeds a refused IPv4 address, at port 0, or with a control "
            "character.",
            "A player's `player_id` leaves with them: a seat left and taken again shows "
            "no `player_id`, and the key's listing by that id no longer lists the game.",
        ),
    ),
    ("1.0.0", ("The first version of the contract.",)),
)

#: The contract's version: the newest change's.
VERSION = CHANGES[0][0]


def markdown() -> str:
    """The changes as Markdown: a list per version, newest first."""
    lines: list[str] = []
    for version, changes in CHANGES:
        lines += [f"**{version}**", ""]
        lines += [f"- {change}" for change in changes]
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"
