"""Following games live: what the event streams (``GET /v1/games/{id}/stream``) of one
process share.

- :class:`Hub`: the process's one Redis subscriber. Each commit publishes the events it
  appended on the game's shard channel (:meth:`GameStore.commit`, in the same script as
  the write); the hub listens, on one connection, to the channels of the games followed
  in this process, and hands each message to the game's :class:`Feed`. Whichever process
  or worker committed, every stream hears of it.
- :class:`Feed`: one game's event log as this process has read it, shared by the
  streams that follow the game here: a commit's events are taken from its message
  (Redis is read only when a message does not follow on from what the feed holds),
  once however many streams follow.
- :class:`StreamLeases`: the streams open at once per client address, counted in Redis
  for every instance.

A stream's thread holds no Redis connection while it waits: what it reads, it reads on
the store's shared client, one pooled connection for the time of a command.

Nothing is lost between a stream's read and a commit: a stream follows the game first,
then reads the game; the hub subscribes in the background and, once Redis confirms the
subscription (and after every reconnection), has the feed read the log again from where
it stands. The log is the truth: a message extends a feed only where it starts exactly
where the feed ends (messages of one channel come in the order of the commits), and
any other has the feed read the log.

A key's stream (``GET /v1/events``) waits on a :class:`Signal` of the same hub: the
key's feed channel, on which each append publishes (:mod:`.key_feed`); it reads the feed
itself when woken.

Reactions (emotes a seat sends) come on the game's sibling channel, which the hub
listens to with the commits one: the feed keeps the last few for some seconds, and each
follower takes those that came after it started following, with its next read of the log
(so a stream whose token lost its seat sends none: it ends first); a stream sends its
state once the reactions channel is confirmed, so it misses none sent after. A stream that
reconnects starts afresh: nothing is replayed. So that a stream also notices a
game that expired (which publishes nothing), and catches up even while the subscriber
is down, it has the feed read the log again at each keep-alive.
"""

from __future__ import annotations

import contextlib
import hmac
import logging
import secrets
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable
from typing import Any, NamedTuple

import orjson
from redis.client import PubSub
from redis.cluster import ClusterPubSub, RedisCluster

from ..engine import Event
from . import connections, keys
from .store import Commit, GameNotFoundError, GameStore, parse_commit

#: How soon the subscriber takes up a game newly followed (it looks between messages).
POLL_SECONDS = 0.05
#: The longest the subscriber waits before it tries Redis again after a failure.
MAX_BACKOFF_SECONDS = 5.0
#: How long a reaction waits for the streams to send it (older ones are dropped), and
#: how many a feed keeps at most.
REACTION_SECONDS = 5.0
KEPT_REACTIONS = 32
log = logging.getLogger(__name__)
#: What a feed's read of the log may meet (it is then left stale and read again).
_READ_FAILURES: tuple[type[Exception], ...] = (GameNotFoundError, OSError, *connections.ERRORS)
#: What the subscriber may meet (it then subscribes again on a new pubsub). StopIteration:
#: a cluster pubsub whose every node subscription ended while it was read from.
_SUBSCRIBER_FAILURES: tuple[type[Exception], ...] = (OSError, StopIteration, *connections.ERRORS)

_stopping = threading.Event()
_hubs: weakref.WeakSet[Hub] = weakref.WeakSet()


def stop_all() -> None:
    """End every stream of this process (the server is shutting down): each sends its
    last event and closes, and its client reconnects elsewhere with Last-Event-ID.
    Safe to call from a signal handler."""
    _stopping.set()
    for hub in list(_hubs):
        hub.wake_all()


def stopping() -> bool:
    return _stopping.is_set()


class HubFullError(RuntimeError):
    """This process follows as many streams as it may (``STREAMS_PER_WORKER``)."""


class Read(NamedTuple):
    """What a stream reads of its game: the events from where it asked on, and each
    seat's token hash (None: a computer player's or an open seat) as of the last of
    them, read together, so that a stream checks its seat against exactly the events it
    is about to send."""

    events: list[Event]
    tokens: tuple[str | None, ...]
    #: The reactions that came since the follower's previous read (see
    #: :meth:`Follower.since`), oldest first.
    reactions: tuple[dict[str, Any], ...] = ()

    def holds(self, seat: int, token_hash: str) -> bool:
        """Whether the token hashed ``token_hash`` still holds ``seat``."""
        held = self.tokens[seat] if seat < len(self.tokens) else None
        return held is not None and hmac.compare_digest(held, token_hash)


class Waiters:
    """The events of the streams waiting on something, set when it changes; and
    ``hearing``, set once Redis confirmed the subscription that tells of changes."""

    def __init__(self) -> None:
        self.hearing = threading.Event()
        self._waiting_lock = threading.Lock()
        self._waiters: set[threading.Event] = set()

    def add(self, waiter: threading.Event) -> None:
        with self._waiting_lock:
            self._waiters.add(waiter)

    def discard(self, waiter: threading.Event) -> None:
        with self._waiting_lock:
            self._waiters.discard(waiter)

    def wake(self) -> None:
        with self._waiting_lock:
            waiters = list(self._waiters)
        for waiter in waiters:
            waiter.set()


class Feed(Waiters):
    """One game's event log as this process has read it, from the position its first
    reader asked for on; and its followers, woken when it changes."""

    def __init__(self, game_id: str, store: GameStore) -> None:
        super().__init__()
        self.game_id = game_id
        self.followers = 0
        self._store = store
        self._base: int | None = None  # the position of self._log[0]
        self._log: list[Event] = []
        #: Each seat's token hash as of the log held; None until the log is first read.
        self._tokens: tuple[str | None, ...] | None = None
        self._announced = 0  # the log length the latest commit published
        self._stale = True  # read the log again, whatever was announced
        self._read_at = 0.0
        self._lock = threading.Lock()  # the fields above
        self._reading = threading.Lock()  # one read of Redis at a time
        #: The latest reactions: (their number, when they came, the reaction).
        self._reactions: deque[tuple[int, float, dict[str, Any]]] = deque(maxlen=KEPT_REACTIONS)
        self._reacted = 0  # how many reactions came (the number of the latest)
        # (hearing: set once Redis confirmed the reactions' channel: from then on no
        # reaction sent to the game is missed, a reaction being only ever published.)

    def announce(self, commit: Commit | None) -> None:
        """(The subscriber's thread.) A commit's message, or (None) the subscription was
        confirmed: take the events it appended if they start where the log held ends;
        else (a message missed, the subscription new, the game deleted) read what is
        new, once for every follower. Then wake them. If that read fails, each reads
        for itself."""
        with self._lock:
            if commit is None or commit.length < 0:
                self._stale = True
            elif not self._extend(commit):
                if commit.length > self._announced:
                    self._announced = commit.length
                elif commit.tokens != self._tokens and self._tokens is not None:
                    self._stale = True  # (a seat's token changed with no event)
        try:
            self._catch_up()
        except _READ_FAILURES:
            pass  # left stale: each follower reads again, and sees what is wrong
        self.wake()

    def _extend(self, commit: Commit) -> bool:
        """(Holding the lock.) Append ``commit``'s events to the log held if they start
        where it ends (a feed read already, and not stale), with its token hashes;
        whether they did."""
        base = self._base
        if base is None or self._tokens is None or self._stale or not commit.events:
            return False
        end = base + len(self._log)
        if commit.length - len(commit.events) != end:
            return False
        self._log += commit.events
        self._tokens = commit.tokens
        self._announced = max(self._announced, commit.length)
        return True

    def react(self, reaction: dict[str, Any]) -> None:
        """(The subscriber's thread.) A reaction came: keep it for the followers to
        take, and wake them."""
        with self._lock:
            self._reacted += 1
            self._reactions.append((self._reacted, time.monotonic(), reaction))
        self.wake()

    @property
    def reacted(self) -> int:
        """How many reactions came so far (a new follower takes those after)."""
        return self._reacted

    def reactions_after(self, seen: int) -> tuple[tuple[dict[str, Any], ...], int]:
        """The reactions after the ``seen`` first (those kept, at most
        :data:`REACTION_SECONDS` old), and how many came in all."""
        oldest = time.monotonic() - REACTION_SECONDS
        with self._lock:
            new = tuple(r for n, at, r in self._reactions if n > seen and at >= oldest)
            return new, self._reacted

    def invalidate(self) -> None:
        """Have every follower read the log again (no Redis call here: safe in a
        signal handler)."""
        with self._lock:
            self._stale = True
        self.wake()

    def refresh(self, max_age: float) -> None:
        """Have the next :meth:`since` read the log again if it was last read more than
        ``max_age`` seconds ago (a missed message, or a game that expired)."""
        with self._lock:
            if time.monotonic() - self._read_at >= max_age:
                self._stale = True

    def _fresh(self, start: int) -> bool:
        """Whether the log held answers ``since(start)`` as it is."""
        base = self._base
        return (
            base is not None
            and start >= base
            and self._tokens is not None  # (a first read under way has not ended)
            and not self._stale
            and self._announced <= base + len(self._log)
        )

    def since(self, start: int) -> Read:
        """The events from position ``start`` on, as far as this process knows them now
        (it reads Redis when a commit announced more than it holds, or when stale), with
        the seats' token hashes as of the last of them. Raises GameNotFoundError once
        the game is gone, and Redis errors."""
        if not self._fresh(start):
            with self._reading:
                if self._base is None:
                    self._base = start
                elif start < self._base:  # before what this feed keeps: read it directly
                    return Read(*self._store.feed(self.game_id, start))
            self._catch_up()
        assert self._base is not None
        with self._lock:  # the log and the tokens it was read with, together
            if self._tokens is not None:
                return Read(self._log[start - self._base :], self._tokens)
        return Read(*self._store.feed(self.game_id, start))  # (never read yet: read here)

    def _catch_up(self) -> None:
        with self._reading:
            if self._base is None:
                return  # nobody has read yet: the first reader reads
            with self._lock:
                end = self._base + len(self._log)
                read = self._stale or self._announced > end
                self._stale = False
            if not read:
                return
            try:
                new, tokens = self._store.feed(self.game_id, end)
            except BaseException:
                with self._lock:
                    self._stale = True
                raise
            with self._lock:  # (a message may have extended the log meanwhile)
                held = self._base + len(self._log)
                if end + len(new) >= held:
                    self._log += new[held - end :]
                    self._tokens = tokens
            self._read_at = time.monotonic()


class Hold:
    """One stream's hold on what wakes it (its game's :class:`Feed`, or a
    :class:`Signal`): :meth:`wait` for news; :meth:`close` it when the stream ends."""

    def __init__(self, waiters: Waiters, leave: Callable[[], None]) -> None:
        self._waiters = waiters
        self._leave = leave
        self._news = threading.Event()
        self._closed = False
        waiters.add(self._news)

    def hearing(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for Redis to confirm the subscription (at once
        if it has); whether it did. What is published after it is not missed."""
        return self._waiters.hearing.wait(timeout)

    def wait(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for news; whether some came."""
        return self._news.wait(timeout)

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._waiters.discard(self._news)
            self._leave()


class Follower(Hold):
    """A game stream's hold on its game's feed: read with :meth:`since`, then
    :meth:`wait` for news."""

    def __init__(self, hub: Hub, feed: Feed) -> None:
        super().__init__(feed, lambda: hub.leave(feed))
        self.feed = feed
        self._reactions_seen = feed.reacted  # none that came before it followed

    def since(self, start: int) -> Read:
        """The events from ``start`` on, and the tokens they go with (see
        :meth:`Feed.since`), with the reactions that came since the previous call (taken
        before the log is read: a reaction sent after a seat left comes with the log
        that shows it left); any news after this call starts makes the next :meth:`wait`
        return at once."""
        self._news.clear()
        reactions, seen = self.feed.reactions_after(self._reactions_seen)
        read = self.feed.since(start)
        self._reactions_seen = seen  # (only once read: a failed read loses none)
        return read._replace(reactions=reactions) if reactions else read


class Signal(Waiters):
    """A channel whose every message (and its subscription's confirmation) only wakes
    whoever waits on it: a key's feed (:mod:`.key_feed`), which its streams then read."""

    def __init__(self, channel: str) -> None:
        super().__init__()
        self.channel = channel
        self.followers = 0


class Watch(Hold):
    """A key stream's hold on its feed's :class:`Signal`: :meth:`clear` before reading
    the feed, then :meth:`wait`."""

    def __init__(self, hub: Hub, signal: Signal) -> None:
        super().__init__(signal, lambda: hub.unwatch(signal))

    def clear(self) -> None:
        self._news.clear()


class Hub:
    """The process's subscriber: one connection to Redis, one thread, whatever the
    number of streams; at most ``capacity`` streams at once (0: no limit)."""

    def __init__(self, url: str, store: GameStore, *, capacity: int, timeout: float) -> None:
        self.capacity = capacity
        self._store = store
        self._url, self._timeout = url, timeout
        self._client = self._connect()
        self._lock = threading.Lock()
        self._feeds: dict[str, Feed] = {}  # by channel
        self._reacting: dict[str, Feed] = {}  # the same, by reactions channel
        self._signals: dict[str, Signal] = {}  # by channel
        self._followers = 0
        self._changed = False
        self._closed = False
        self._thread: threading.Thread | None = None
        _hubs.add(self)

    def _connect(self) -> connections.Client:
        return connections.connect(
            self._url,
            socket_timeout=self._timeout,
            socket_connect_timeout=self._timeout,
            socket_keepalive=True,
            health_check_interval=30,
        )

    @property
    def followers(self) -> int:
        return self._followers

    def follow(self, game_id: str) -> Follower:
        """Follow ``game_id``: its feed wakes on every commit to the game from now on
        (the subscription is made in the background; once Redis confirms it the feed
        reads the log again, so that nothing committed meanwhile is missed). Raises
        HubFullError when this process follows ``capacity`` streams already."""
        channel = keys.game_log_channel(game_id)
        with self._lock:
            self._admit()
            feed = self._feeds.get(channel)
            if feed is None:
                feed = self._feeds[channel] = Feed(game_id, self._store)
                self._reacting[keys.game_reactions_channel(game_id)] = feed
                self._changed = True
            feed.followers += 1
            self._followers += 1
            self._start()
        return Follower(self, feed)

    def watch(self, channel: str) -> Watch:
        """Be woken by every message on ``channel`` from now on (subscribed in the
        background: :meth:`Watch.hearing` says when Redis confirmed it). Raises
        HubFullError as :meth:`follow` does: a watch counts as a stream."""
        with self._lock:
            self._admit()
            signal = self._signals.get(channel)
            if signal is None:
                signal = self._signals[channel] = Signal(channel)
                self._changed = True
            signal.followers += 1
            self._followers += 1
            self._start()
        return Watch(self, signal)

    def unwatch(self, signal: Signal) -> None:
        with self._lock:
            signal.followers -= 1
            self._followers -= 1
            if signal.followers == 0 and self._signals.get(signal.channel) is signal:
                del self._signals[signal.channel]
                self._changed = True

    def _admit(self) -> None:
        """(Holding the lock.) Raise HubFullError unless one more stream may follow."""
        if self._closed or stopping():
            raise HubFullError("the server is shutting down")
        if self.capacity and self._followers >= self.capacity:
            raise HubFullError(f"{self._followers} streams are open in this process")

    def _start(self) -> None:
        """(Holding the lock.) Start the subscriber's thread, if it is not running."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="scopa-live-hub", daemon=True)
            self._thread.start()

    def leave(self, feed: Feed) -> None:
        channel = keys.game_log_channel(feed.game_id)
        with self._lock:
            feed.followers -= 1
            self._followers -= 1
            if feed.followers == 0 and self._feeds.get(channel) is feed:
                del self._feeds[channel]
                del self._reacting[keys.game_reactions_channel(feed.game_id)]
                self._changed = True

    def wake_all(self) -> None:
        """Have every follower read its log again (no Redis call: safe in a signal
        handler)."""
        with self._lock:
            feeds = list(self._feeds.values())
            signals = list(self._signals.values())
        for feed in feeds:
            feed.invalidate()
        for signal in signals:
            signal.wake()

    def close(self) -> None:
        """Stop the subscriber (for tests and shutdown)."""
        with self._lock:
            self._closed = True
            thread = self._thread
        if thread is not None:
            thread.join(timeout=5)
        self._client.close()

    def _wanted(self) -> set[str] | None:
        """The channels to listen to, if they changed since last asked."""
        with self._lock:
            if not self._changed:
                return None
            self._changed = False
            return set(self._feeds) | set(self._reacting) | set(self._signals)

    def _run(self) -> None:
        pubsub: PubSub | None = None
        listening: set[str] = set()
        failures = 0
        # Shard channels (Redis 7, and always on a cluster, where a shard channel is
        # heard on the node that holds its slot), or plain ones (Redis 6).
        sharded: bool | None = True if isinstance(self._client, RedisCluster) else None
        try:
            while not self._closed:
                try:
                    if sharded is None:
                        version = str(self._client.info("server")["redis_version"])
                        sharded = int(version.split(".")[0]) >= 7
                    if pubsub is None:
                        pubsub, listening = self._client.pubsub(), set()
                        with self._lock:
                            self._changed = True
                    wanted = self._wanted()
                    if wanted is not None:
                        # Confirmed subscriptions come back as messages (_dispatch).
                        if added := wanted - listening:
                            (pubsub.ssubscribe if sharded else pubsub.subscribe)(*added)
                            listening |= added
                        if dropped := listening - wanted:
                            (pubsub.sunsubscribe if sharded else pubsub.unsubscribe)(*dropped)
                            listening -= dropped
                    if isinstance(pubsub, ClusterPubSub):
                        self._listen_cluster(pubsub, bool(listening))
                    else:
                        message = pubsub.get_message(timeout=POLL_SECONDS)
                        while message is not None:
                            self._dispatch(message)
                            message = pubsub.get_message(timeout=0.0)
                    if failures:
                        log.info("live updates: listening to Redis again")
                    failures = 0
                except _SUBSCRIBER_FAILURES as error:
                    if not failures:
                        log.warning(
                            "live updates: the subscriber lost Redis (%s); streams read "
                            "the log at each keep-alive meanwhile",
                            type(error).__name__,
                        )
                    failures += 1
                    if pubsub is not None:
                        with contextlib.suppress(*connections.ERRORS, OSError):
                            pubsub.close()
                        pubsub = None  # subscribe again, on a new one
                    if isinstance(self._client, RedisCluster):
                        # A new client learns the cluster's slots afresh (a master may
                        # have failed over); the subscriber sends nothing else that
                        # would teach the old one.
                        connections.close(self._client)
                        self._client = self._connect()
                    self.wake_all()
                    time.sleep(min(MAX_BACKOFF_SECONDS, 0.1 * 2**failures))
        finally:
            if pubsub is not None:
                pubsub.close()

    def _listen_cluster(self, pubsub: ClusterPubSub, listening: bool) -> None:
        """Read what the cluster's nodes sent: redis-py keeps a connection per node
        that holds a followed game's slot and reads them in turn, each for at most
        :data:`POLL_SECONDS` (so a message waits at most that times the nodes)."""
        if not listening:
            time.sleep(POLL_SECONDS)
            return
        message = pubsub.get_sharded_message(timeout=POLL_SECONDS)
        while message is not None:
            self._dispatch(message)
            message = pubsub.get_sharded_message(timeout=0.0)

    def _dispatch(self, message: dict[str, object]) -> None:
        kind = message["type"]
        channel = str(message["channel"])
        with self._lock:
            feed = self._feeds.get(channel)
            reacting = self._reacting.get(channel) if feed is None else None
            signal = self._signals.get(channel)
        if signal is not None:
            if kind in ("ssubscribe", "subscribe"):
                signal.hearing.set()
            signal.wake()
            return
        if reacting is not None:
            if kind in ("smessage", "message"):
                reaction = _reaction(message["data"])
                if reaction is not None:
                    reacting.react(reaction)
            elif kind in ("ssubscribe", "subscribe"):
                reacting.hearing.set()
            return
        if feed is None:
            return
        if kind in ("smessage", "message"):
            try:
                commit = parse_commit(message["data"])  # type: ignore[arg-type]
            except (ValueError, TypeError):
                commit = None  # (not a commit's message: read the log)
            feed.announce(commit)
        elif kind in ("ssubscribe", "subscribe"):  # (again, after a reconnection)
            feed.announce(None)  # read what came before


def _reaction(data: object) -> dict[str, Any] | None:
    """A reaction's message as published (service/api/resources/reactions), or None if
    it is not one (it is then dropped)."""
    try:
        reaction = orjson.loads(data if isinstance(data, bytes | str) else b"")
    except orjson.JSONDecodeError:
        return None
    return reaction if isinstance(reaction, dict) else None


class StreamLeases:
    """The streams open at once per holder (a client's address prefix, a game's
    spectators, a seat), for every instance: a sorted set per holder
    (:func:`.keys.stream_leases`) of leases, each expiring ``seconds`` after it was taken
    or last renewed, so that the streams of a process that died stop counting by
    themselves."""

    def __init__(self, store: GameStore, seconds: float) -> None:
        self._store = store
        self.seconds = seconds

    def take(self, who: str, limit: int) -> str | None:
        """A new lease for ``who``, or None if ``who`` holds ``limit`` already."""
        key, lease, now = keys.stream_leases(who), secrets.token_hex(8), time.time()
        with self._store.shared.pipeline(transaction=True) as pipe:
            pipe.zremrangebyscore(key, "-inf", now)
            pipe.zadd(key, {lease: now + self.seconds})
            pipe.zcard(key)
            pipe.expire(key, int(self.seconds) + 1)
            held = pipe.execute()[2]
        if held > limit:
            self.release(who, lease)
            return None
        return lease

    def renew(self, who: str, lease: str) -> None:
        key = keys.stream_leases(who)
        with self._store.shared.pipeline(transaction=True) as pipe:
            pipe.zadd(key, {lease: time.time() + self.seconds}, xx=True)
            pipe.expire(key, int(self.seconds) + 1)
            pipe.execute()

    def release(self, who: str, lease: str) -> None:
        self._store.shared.zrem(keys.stream_leases(who), lease)

    def forget(self, *holders: str) -> None:
        """Drop every lease of ``holders`` (a deleted game's: its streams end anyway)."""
        with self._store.shared.pipeline(transaction=False) as pipe:
            for who in holders:
                pipe.delete(keys.stream_leases(who))
            pipe.execute()


def holder_of(game_id: str, seat: int | None) -> str:
    """Whose count a stream of ``game_id`` is held to besides its address's: the game's
    spectators' (``seat`` None) or that seat's."""
    return f"g:{game_id}" if seat is None else f"g:{game_id}:{seat}"
