// Following a game live. One small interface, two ways to feed it:
//
//   const follower = follow(gameId, token, {onState, onEvents, onMode, onGone});
//   follower.poke();   // something happened (a move of ours): look now
//   follower.close();
//
// onState(view, seq): the game as the viewer sees it after the log's event `seq`;
// onEvents([event, ...]): events of the log in order, each once, each with its `seq`;
// onReaction({seat, emote, at}): a quick reaction a seat sent (the stream's only: not in
// the log); onMode('live' | 'polling' | 'reconnecting' | 'offline'): how it follows now;
// onAborted(): the game was aborted (by the service key that created it): nothing more
// will come, and the follower has stopped (no reconnection, no polling).
//
// The server's event stream (GET /v1/games/{id}/stream, server-sent events) comes first:
// its `state`, then each event as it is committed; when it ends (`end`: reconnect) or the
// network drops, it is opened again from the last `seq` seen, so nothing is missed or
// repeated. If the stream cannot be had (an error answer), the log is polled instead
// (GET /v1/games/{id}/events?after=<seq>, If-None-Match: a 304 while nothing changed),
// and the stream tried again a little later.

import { api, gone, network } from './api.js';

const POLL_MS = 1000;
const POLL_MAX_MS = 10000;
const STREAM_RETRY_MS = 20000;

export function follow(gameId, token, handlers, { stream = 'EventSource' in window } = {}) {
  return new Follower(gameId, token, handlers, stream);
}

class Follower {
  constructor(gameId, token, handlers, stream) {
    this.gameId = gameId;
    this.token = token;
    this.handlers = handlers;
    this.seq = null; // the last seq passed on (null: nothing yet)
    this.version = null; // the log's version at the last poll
    this.source = null;
    this.timer = null;
    this.closed = false;
    this.delay = POLL_MS;
    this.stop = new AbortController(); // its reads' retries end with it
    this.online = () => {
      // Back online: the stream closed when it went offline, or one still waiting out
      // its reconnection delay, is opened now; every request waiting to be sent again
      // is sent.
      network.wake();
      if (this.closed) return;
      if (this.offlineStream || (this.source && this.source.readyState !== EventSource.OPEN)) {
        this.offlineStream = false;
        this.openStream();
      } else this.poke();
    };
    this.offline = () => {
      // Offline: nothing can come. The stream is closed (not left half-open) and
      // opened again, from the last event seen, when the browser is back online.
      if (this.closed) return;
      if (this.source) {
        this.source.close();
        this.source = null;
        this.offlineStream = true;
      }
      this.mode('offline');
    };
    window.addEventListener('online', this.online);
    window.addEventListener('offline', this.offline);
    if (stream) this.openStream();
    else this.startPolling();
  }

  close() {
    this.closed = true;
    this.stop.abort();
    window.removeEventListener('online', this.online);
    window.removeEventListener('offline', this.offline);
    this.source?.close();
    this.source = null;
    clearTimeout(this.timer);
    clearTimeout(this.streamTimer);
  }

  /** Look for news now: the stream brings it by itself; polling polls at once. */
  poke() {
    if (this.closed) return;
    if (this.source) {
      if (this.source.readyState === EventSource.CLOSED) this.openStream();
      return;
    }
    clearTimeout(this.timer);
    this.delay = POLL_MS;
    this.timer = setTimeout(() => this.poll(), 0);
  }

  mode(name) {
    if (this.current !== name) {
      this.current = name;
      this.handlers.onMode?.(name);
    }
  }

  deliver(events) {
    const fresh = events.filter((event) => this.seq === null || event.seq > this.seq);
    if (!fresh.length) return;
    this.seq = fresh[fresh.length - 1].seq;
    this.handlers.onEvents(fresh);
    if (fresh.some((event) => event.type === 'aborted')) this.aborted();
  }

  /** The game state `view` after `seq`; an aborted game's is its last. */
  state(view, seq) {
    this.seq = seq;
    this.handlers.onState(view, seq);
    if (view.status === 'aborted') this.aborted();
  }

  /** The game was aborted: its log ends there. Stop following it, and say so. */
  aborted() {
    if (this.closed) return;
    this.close();
    this.handlers.onAborted?.();
  }

  // -- the stream ----------------------------------------------------------------------

  openStream() {
    clearTimeout(this.timer);
    this.source?.close();
    const source = new EventSource(api.streamUrl(this.gameId, this.token, this.seq));
    this.source = source;
    source.addEventListener('state', (message) => {
      this.mode('live');
      this.delay = POLL_MS;
      network.wake(); // connected again: what waits to be sent again goes now
      const seq = Number(message.lastEventId);
      // Opened fresh, the state is the game after `seq`. Resumed (after a seq of ours,
      // or Last-Event-ID), it is already newer than `seq`: the events after `seq`
      // follow, and they are what we have not seen.
      if (this.seq === null || seq > this.seq) this.state(JSON.parse(message.data), seq);
    });
    source.addEventListener('message', (message) => {
      this.deliver([JSON.parse(message.data)]);
    });
    source.addEventListener('reaction', (message) => {
      this.handlers.onReaction?.(JSON.parse(message.data));
    });
    source.addEventListener('end', (message) => {
      source.close();
      if (this.closed || this.source !== source) return;
      const { reason } = JSON.parse(message.data);
      if (reason === 'gone' || reason === 'revoked') {
        // The game expired, or this token no longer holds its seat: either way,
        // reconnecting would be refused.
        this.source = null;
        this.closed = true;
        this.handlers.onGone?.(reason);
      } else if (reason === 'aborted') {
        this.aborted(); // its `aborted` event came before: nothing more will
      } else {
        this.openStream(); // from the last seq we have
      }
    });
    source.addEventListener('error', () => {
      if (this.closed || this.source !== source) return;
      if (source.readyState === EventSource.CLOSED) {
        // Refused (an error status, or not a stream at all): poll, and try it again later.
        source.close();
        this.source = null;
        this.startPolling();
        this.streamTimer = setTimeout(() => {
          if (!this.closed && !this.source) this.openStream();
        }, STREAM_RETRY_MS);
      } else {
        this.mode(navigator.onLine === false ? 'offline' : 'reconnecting'); // it retries
      }
    });
  }

  // -- polling -------------------------------------------------------------------------

  startPolling() {
    this.mode('polling');
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.poll(), 0);
  }

  async poll() {
    if (this.closed || this.source) return;
    try {
      if (this.seq === null) await this.pollFresh();
      else {
        const log = await api.events(this.gameId, this.token, this.seq, this.version);
        if (log) {
          this.version = log.version;
          this.deliver(log.events);
        }
      }
      this.mode('polling');
      this.delay = POLL_MS;
    } catch (error) {
      if (this.closed) return;
      if (gone(error)) {
        this.closed = true;
        this.handlers.onGone?.();
        return;
      }
      this.mode(navigator.onLine === false ? 'offline' : 'reconnecting');
      this.delay = Math.min(this.delay * 2, POLL_MAX_MS);
    }
    if (!this.closed && !this.source) {
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.poll(), this.delay);
    }
  }

  /** The view and the seq it stands after: read both, until they are of one version. */
  async pollFresh() {
    for (;;) {
      const view = await api.view(this.gameId, this.token, this.stop.signal);
      const log = await api.events(this.gameId, this.token, null, null);
      if (this.closed || this.source) return;
      if (log.version === view.version) {
        const seq = log.events.length ? log.events[log.events.length - 1].seq : -1;
        this.version = log.version;
        this.state(view, seq);
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 100)); // it moved: read again
    }
  }
}
