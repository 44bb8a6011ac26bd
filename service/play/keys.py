"""Every Redis key and channel name the service uses, each built by one function here.

A name is a prefix (one constant per kind), a hash tag in braces, and for related keys
a suffix. Redis Cluster hashes only the tag, so every name with the same tag is in one
slot: a script or a transaction may touch them together. The layout (``<...>`` an
argument; the slot is the tag's)::

    scopa:game:{<id>}                     hash: a game (service/play/store.py names its
                                          fields)
    scopa:game:{<id>}:events              list: the game's event log, oldest first
    scopa:game:{<id>}:log                 shard channel: what each commit appended
    scopa:game:{<id>}:commits             shard channel: the log's length after each commit
    scopa:game:{<id>}:reactions           shard channel: the seats' reactions
    scopa:creation:{<hash>}               string: the game a creation's Idempotency-Key
                                          created
    scopa:round:{<hash>}                  string: a bulk creation's kept answer
    scopa:invitation:{<hash>}             string: the game a join code (its keyed hash)
                                          lets people into (service/play/invitations.py)
    scopa:owner:{<owner>}:games           sorted set: the games a service key created
    scopa:owner:{<owner>}:player:<player> sorted set: those with a seat of that player
    scopa:owner:{<owner>}:over            sorted set: its games finished or aborted
    scopa:owner:{<owner>}:over:player:<player>  sorted set: those with a seat of that
                                          player
    scopa:owner:{<owner>}:tournaments     sorted set: the tournaments a service key made
    scopa:rate:{<quota>:<who>}:<window>   integer: a rate limit's count in one window
    scopa:budget:{<payer>}:<window>       integer: a payer's milliseconds in one window
    scopa:streams:{<holder>}              sorted set: the leases of a holder's streams
    scopa:feed:{<owner>}                  stream: the key's events, as its stream carries them
    scopa:feed:{<owner>}:state            hash: since when the key's events are kept, and
                                          the last one trimmed away
    scopa:feed:{<owner>}:at:<game>        integer: how much of the game's log is in the feed
    scopa:feed:{<owner>}:news             shard channel: the feed's last id, at each append
    scopa:tournament:{<id>}               string: a tournament, as JSON
    scopa:tournament:{<id>}:events        list: what happened to it (rounds started and
                                          finished, its end), for its webhooks
    scopa:ratings:{<owner>}:player:<player>  hash: a player's rating and record, per variant
    scopa:ratings:{<owner>}:board:<variant>  sorted set: the key's players in a variant, by
                                          their displayed rating
    scopa:ratings:{<owner>}:game:<game>   string: what a rated game did to its seats' ratings
    scopa:hooks:{<owner>}:endpoints       hash: a service key's webhook endpoints
    scopa:hooks:{<owner>}:cursor          hash: how much of each game's log was sent
    scopa:hooks:{<owner>}:pending         hash: each endpoint's deliveries waiting
    scopa:hooks:{<owner>}:d:<endpoint>    hash: an endpoint's deliveries
    scopa:hooks:{<owner>}:log:<endpoint>  sorted set: an endpoint's deliveries in order
    scopa:hooks:{<owner>}:q:<endpoint>:<game>  list: a game's deliveries waiting
    scopa:hooks:{<owner>}:qs:<endpoint>   set: the games with such a queue

The modules that read and write each kind say what its values hold and when it expires.
The background queues' keys (``rq:*``, on the job queue's Redis) are rq's own, named by
rq from the queue names and job ids of service/play/queues.py and
service/play/webhooks/queueing.py.
"""

from __future__ import annotations

from collections.abc import Iterable

#: The namespace of every name here.
ROOT = "scopa:"
GAME = ROOT + "game:"
CREATION = ROOT + "creation:"
BULK_CREATION = ROOT + "round:"
INVITATION = ROOT + "invitation:"
LISTING = ROOT + "owner:"
RATE = ROOT + "rate:"
BUDGET = ROOT + "budget:"
STREAMS = ROOT + "streams:"
WEBHOOKS = ROOT + "hooks:"
FEED = ROOT + "feed:"
RATINGS = ROOT + "ratings:"
TOURNAMENT = ROOT + "tournament:"


def _tagged(prefix: str, tag: str) -> str:
    """``prefix`` and ``tag`` in braces: the names so begun share ``tag``'s slot."""
    return f"{prefix}{{{tag}}}"


def game(game_id: str) -> str:
    """The game's hash: its version, state, token hashes and kept answers (the game's slot)."""
    return _tagged(GAME, game_id)


def game_events(game_id: str) -> str:
    """The game's event log, a list of event JSON, oldest first (the game's slot)."""
    return game(game_id) + ":events"


def game_log_channel(game_id: str) -> str:
    """The shard channel each commit publishes what it appended on (the game's slot)."""
    return game(game_id) + ":log"


def game_commits_channel(game_id: str) -> str:
    """The shard channel each commit publishes the log's length on (the game's slot)."""
    return game(game_id) + ":commits"


def game_reactions_channel(game_id: str) -> str:
    """The shard channel the game's reactions are published on (the game's slot)."""
    return game(game_id) + ":reactions"


def creation(name: str) -> str:
    """The id of the game a creation's Idempotency-Key (its keyed hash) created (its own slot)."""
    return _tagged(CREATION, name)


def bulk_creation(name: str) -> str:
    """The answer kept for a bulk creation's Idempotency-Key (its keyed hash; its own slot)."""
    return _tagged(BULK_CREATION, name)


def invitation(name: str) -> str:
    """The id of the game a join code (its keyed hash) lets people into (its own slot)."""
    return _tagged(INVITATION, name)


def listing(owner: str, player_id: str | None = None, *, over: bool = False) -> str:
    """The index of ``owner``'s games (with a seat of ``player_id``; over) (the owner's slot)."""
    tagged = _tagged(LISTING, owner) + (":over" if over else "")
    if player_id is None:
        return tagged if over else tagged + ":games"
    return f"{tagged}:player:{player_id}"


def tournaments(owner: str) -> str:
    """The index of ``owner``'s tournaments, by creation time (the owner's slot)."""
    return _tagged(LISTING, owner) + ":tournaments"


def listings(owner: str, player_ids: Iterable[str | None], *, over: bool = False) -> list[str]:
    """The indexes a game of ``owner`` with seats of ``player_ids`` is in (the owner's slot)."""
    players = dict.fromkeys(p for p in player_ids if p)  # each once, in seat order
    return [listing(owner, over=over), *(listing(owner, p, over=over) for p in players)]


def every_listing(owner: str, player_ids: Iterable[str | None]) -> list[str]:
    """Every index a game of ``owner`` may be in, over or not (the owner's slot)."""
    players = list(player_ids)
    return listings(owner, players) + listings(owner, players, over=True)


def rate_counter(quota: str, who: str, window: int) -> str:
    """``who``'s count of ``quota`` in one fixed window (the slot of ``quota`` and ``who``)."""
    return f"{_tagged(RATE, f'{quota}:{who}')}:{window}"


def budget(payer: str, window: int) -> str:
    """The milliseconds ``payer`` cost in the fixed window ``window`` (the payer's slot)."""
    return f"{_tagged(BUDGET, payer)}:{window}"


def stream_leases(holder: str) -> str:
    """The leases of the streams ``holder`` has open, by expiry (the holder's slot)."""
    return _tagged(STREAMS, holder)


def key_feed(owner: str) -> str:
    """The key's events, every game's, in the order appended (the owner's slot)."""
    return _tagged(FEED, owner)


def key_feed_state(owner: str) -> str:
    """Since when the key's feed is kept, and the last entry trimmed off it (the owner's slot)."""
    return key_feed(owner) + ":state"


def key_feed_cursor(owner: str, game_id: str) -> str:
    """How much of the game's log the key's feed holds (the owner's slot)."""
    return f"{key_feed(owner)}:at:{game_id}"


def key_feed_channel(owner: str) -> str:
    """The shard channel each append to the key's feed publishes on (the owner's slot)."""
    return key_feed(owner) + ":news"


def tournament(tournament_id: str) -> str:
    """A tournament, as JSON (the tournament's slot)."""
    return _tagged(TOURNAMENT, tournament_id)


def tournament_events(tournament_id: str) -> str:
    """What happened to the tournament, a list of JSON, oldest first (its slot)."""
    return tournament(tournament_id) + ":events"


def player_ratings(owner: str, player_id: str) -> str:
    """A player's rating and record in each variant: variant -> JSON (the owner's slot)."""
    return f"{_tagged(RATINGS, owner)}:player:{player_id}"


def rating_board(owner: str, variant: str) -> str:
    """The key's players in ``variant``, scored by displayed rating (the owner's slot)."""
    return f"{_tagged(RATINGS, owner)}:board:{variant}"


def rated_game(owner: str, game_id: str) -> str:
    """What the rated game did to its seats' ratings, once it did (the owner's slot)."""
    return f"{_tagged(RATINGS, owner)}:game:{game_id}"


def _webhooks(owner: str) -> str:
    return _tagged(WEBHOOKS, owner)


def webhook_endpoints(owner: str) -> str:
    """The service key's webhook endpoints: endpoint id -> JSON (the owner's slot)."""
    return _webhooks(owner) + ":endpoints"


def webhook_cursors(owner: str) -> str:
    """How much of each game's log became deliveries: game id -> length (the owner's slot)."""
    return _webhooks(owner) + ":cursor"


def webhook_pending(owner: str) -> str:
    """Each endpoint's deliveries waiting, and its deliveries' last number (the owner's slot)."""
    return _webhooks(owner) + ":pending"


def webhook_deliveries(owner: str, endpoint: str) -> str:
    """The endpoint's deliveries: message id -> JSON (the owner's slot)."""
    return f"{_webhooks(owner)}:d:{endpoint}"


def webhook_log(owner: str, endpoint: str) -> str:
    """The endpoint's message ids by their number, in the order made (the owner's slot)."""
    return f"{_webhooks(owner)}:log:{endpoint}"


def webhook_queue(owner: str, endpoint: str, game_id: str) -> str:
    """The game's message ids waiting for the endpoint, oldest first (the owner's slot)."""
    return f"{_webhooks(owner)}:q:{endpoint}:{game_id}"


def webhook_queues(owner: str, endpoint: str) -> str:
    """The games with deliveries waiting for the endpoint (the owner's slot)."""
    return f"{_webhooks(owner)}:qs:{endpoint}"


def webhook_due(owner: str) -> str:
    """The key's queues by when their head is due: "<endpoint> <game>" (the owner's slot)."""
    return _webhooks(owner) + ":due"


def webhook_redo(owner: str) -> str:
    """The redeliveries asked for, oldest first: "<endpoint> <message>" (the owner's slot)."""
    return _webhooks(owner) + ":redo"


def webhook_asked(owner: str) -> str:
    """When each redelivery was last asked for, to attempt it once (the owner's slot)."""
    return _webhooks(owner) + ":asked"


def webhook_unread(owner: str) -> str:
    """The key's games whose log gained events no dispatch has read yet (the owner's slot)."""
    return _webhooks(owner) + ":unread"


def webhook_runner(owner: str) -> str:
    """The key's delivery run: the token of the job making its attempts (the owner's slot)."""
    return _webhooks(owner) + ":runner"


def webhook_gone(owner: str) -> str:
    """The key's deleted games whose deliveries are being finished (the owner's slot)."""
    return _webhooks(owner) + ":gone"
