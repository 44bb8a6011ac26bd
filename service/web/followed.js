// One game followed: its view, the events of its log applied to it one by one (animated),
// and, on your turn, your legal moves read (what a card is played on). What the player
// does in it is game.js's.

import { animateMove, animateRemainder, moving } from './animate.js';
import { ApiError, Cancelled, api, gone, network } from './api.js';
import { $, fill } from './dom.js';
import { applyEvent, describe, seatName } from './events.js';
import { fitCards } from './fit.js';
import { follow } from './follow.js';
import { hideHint } from './hint.js';
import { renderLobby } from './lobby.js';
import { scopaMoment, sweepShown, turnMoment } from './moments.js';
import { clock, keepFocus, page, say, screen, showError, showMode } from './page.js';
import { showReaction, showReactions } from './reactions.js';
import { tally } from './series.js';
import { closeDialog, renderFinal, showHand, showResult } from './sheet.js';
import { language, t } from './strings.js';
import { renderGame } from './table.js';

const RESYNC_MS = 2500;
const DEAL_MS = 350;
const SWEEP_PAUSE_MS = 900; // a sweep is seen before the game goes on

const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A capture choice: legal moves grouped by card. */
function grouped(moves) {
  const legal = new Map();
  for (const move of moves) {
    if (!legal.has(move.card)) legal.set(move.card, []);
    legal.get(move.card).push(move.capture);
  }
  return legal;
}

export class FollowedGame {
  constructor(id, seat) {
    this.id = id;
    this.token = seat.token;
    this.seat = seat.seat;
    this.code = seat.code ?? null;
    this.view = null;
    this.seq = null;
    this.queue = [];
    this.pumping = false;
    this.legal = null;
    this.declarations = []; // Cirulla: what we may declare before playing (C3)
    this.over = null; // the match_over event, once seen (its reason)
    this.selected = null;
    this.busy = false;
    this.closed = false;
    this.era = 0;
    this.follower = null;
    this.stop = new AbortController(); // the game's requests stop retrying when it closes
    this.sending = false; // our card (or declaration) is on its way
    this.armed = null; // touch: the card tapped once
    this.hinted = null; // the card the last hint named
    this.scopaCards = new Map(); // seat -> the cards that made its scopas this hand
    this.recent = []; // the moves since ours (ours first), as the page saw them
    // Read at once, beside the stream rather than after its first state (a round trip
    // less on a slow network): the view and your legal moves. The view is drawn if it
    // comes first (it names its `seq`), and the first settle() plays on them.
    this.early = this.read().catch(() => null);
    this.early.then((found) => {
      if (!found || this.closed || this.seq !== null) return;
      this.adopt(found[0], found[0].seq);
      this.earlyState = true; // the stream's first state, the same, is not drawn again
    });
    this.listen();
  }

  /** The view and your legal moves, read together (a spectator has none: not asked). */
  read() {
    const signal = this.stop.signal;
    const legal = this.token ? api.legalMoves(this.id, this.token, signal) : { moves: [], declarations: [] };
    return Promise.all([api.view(this.id, this.token, signal), legal]);
  }

  /** The early read (once), if it is of the version of `view`; else null. */
  async takeEarly(view) {
    const early = this.early;
    this.early = null;
    const found = early && (await early);
    return found && found[0].version === view.version ? found : null;
  }

  listen() {
    this.follower?.close();
    this.follower = follow(this.id, this.token, {
      onState: (view, seq) => this.adopt(view, seq),
      onEvents: (events) => this.receive(events),
      onMode: (mode) => showMode(mode),
      onGone: (reason) => this.gone(reason),
      onAborted: () => this.aborted(),
      onReaction: (reaction) => this.view && showReaction(this.view, reaction),
    });
  }

  close() {
    this.closed = true;
    this.stop.abort();
    this.follower?.close();
    clearTimeout(this.resyncTimer);
    clearTimeout(this.startTimer);
  }

  /** When moves may be played (ms since the epoch): the view's `start_at`, or later if
   * the service said so (a 409 not-started-yet's Retry-After: our clock may be ahead). */
  startsAt() {
    const at = this.view?.start_at ? Date.parse(this.view.start_at) : 0;
    return Math.max(Number.isNaN(at) ? 0 : at, this.notBefore ?? 0);
  }

  /** Whether the match is dealt but not started yet (`start_at` ahead): the hand is shown,
   * not playable. A timer wakes the page at the start (events may also come then: a
   * computer player's first move). */
  notStarted() {
    const left = this.startsAt() - Date.now();
    if (left <= 0 || this.view?.status !== 'playing') return false;
    if (!this.startTimer) {
      this.startTimer = setTimeout(() => {
        this.startTimer = null;
        if (this.closed) return;
        this.refresh();
        this.settle();
      }, Math.min(left + 50, 2 ** 31 - 1)); // (a longer wait is armed again when it fires)
    }
    return true;
  }

  /** The follower saw the game aborted: show its final state (read again if the stream
   * ended before its event reached the view). */
  async aborted() {
    if (this.closed) return;
    if (this.view?.status === 'aborted' || this.queue.some((event) => event.type === 'aborted')) return;
    try {
      const view = await api.view(this.id, this.token, this.stop.signal);
      if (!this.closed) this.adopt(view, view.seq);
    } catch (error) {
      this.failed(error);
    }
  }

  /** A failure of one of our requests: the game gone, or else nothing to draw (the
   * request retried what could pass; what is left is a refusal the next read settles). */
  failed(error) {
    if (error instanceof Cancelled || this.closed) return true;
    if (gone(error)) {
      this.gone('gone');
      return true;
    }
    return false;
  }

  /** The game as the server sees it, after event `seq`: draw it afresh. */
  adopt(view, seq) {
    if (this.closed) return;
    const early = this.earlyState;
    this.earlyState = false;
    if (early && seq === this.seq && view.version === this.view?.version) return;
    this.era += 1; // an event being animated now is of the view before: it is dropped
    this.view = view;
    this.seq = seq;
    this.queue = [];
    this.legal = null;
    this.declarations = [];
    this.selected = null;
    this.armed = null;
    this.sending = false;
    this.recent = view.last_move ? [{ ...view.last_move, seq }] : [];
    this.draw();
    if (view.status === 'playing' && view.last_move && view.last_move.seat !== view.you) this.recall(seq);
    if (view.last_move) say(() => describe(view, { type: 'move', ...view.last_move }), true);
    if (view.status === 'finished') showResult(this);
    if (view.status === 'aborted') this.stopped();
    this.settle();
  }

  /** The moves since ours, read from the log: a view read afresh (a reload, a stream
   * resumed after moves were missed) names only the last one. Those that came after `seq`
   * meanwhile are kept. */
  async recall(seq) {
    const era = this.era;
    let log;
    try {
      log = await api.events(this.id, this.token, null, null);
    } catch (error) {
      this.failed(error); // the list stays as it was: the last move
      return;
    }
    if (this.closed || era !== this.era) return; // read afresh again meanwhile
    const view = this.view;
    let recent = [];
    let hand = null;
    for (const event of log.events) {
      if (event.seq > seq) break;
      if (event.type === 'deal' && event.hand !== hand) {
        hand = event.hand;
        recent = [];
      } else if (event.type === 'move') recent = since(recent, event, view);
    }
    for (const move of this.recent) if (move.seq > seq) recent = since(recent, move, view);
    this.recent = recent;
    this.refresh();
  }

  receive(events) {
    if (this.closed || !events.length) return;
    this.queue.push(...events);
    $('#game').dataset.received = events[events.length - 1].seq; // come, maybe not shown yet
    this.pump();
  }

  async pump() {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (this.queue.length && !this.closed) {
        const event = this.queue[0];
        if (this.seq === null || event.seq > this.seq) await this.sheetClosed(event);
        if (this.closed) return;
        if (this.queue[0] !== event) continue; // the game was read afresh meanwhile
        this.queue.shift();
        if (this.seq !== null && event.seq <= this.seq) continue;
        const era = this.era;
        await this.apply(event);
        if (era === this.era) {
          this.seq = event.seq;
          $('#game').dataset.seq = this.seq;
        }
      }
    } finally {
      this.pumping = false;
    }
    if (this.closed) return;
    this.draw();
    this.settle();
  }

  /** While the hand's score sheet is open, the next deal waits (and all after it): the
   * end of the match and a rematch do not. */
  async sheetClosed(event) {
    if (['match_over', 'rematch', 'hand_over', 'aborted'].includes(event.type)) return;
    const sheet = page.dialog;
    if (sheet?.game === this && sheet.holds) await sheet.closed;
  }

  /** One event of the log: animated, then the view after it drawn. */
  async apply(event) {
    const before = this.view;
    const after = applyEvent(before, event);
    const era = this.era;
    const draw = (view, extra) => era === this.era && this.draw(view, extra);
    let extra = {};
    this.legal = null;
    this.declarations = [];
    this.selected = null;
    this.armed = null;
    this.hinted = null;
    hideHint();
    sweepShown(); // a card laid, a deal: the table is no longer the swept one
    switch (event.type) {
      case 'move': {
        if (event.seat === before.you) this.sending = false; // it is on the table now
        this.recent = since(this.recent, event, before);
        if (moving()) await animateMove(event, before, after, page.faces, draw);
        if (era !== this.era) return;
        if (event.scopa) {
          const cards = this.scopaCards.get(event.seat) ?? [];
          this.scopaCards.set(event.seat, [...cards, event.card]);
          scopaMoment(t('scopaBy', { name: seatName(before, event.seat) }));
          this.view = after;
          this.draw(after);
          await wait(SWEEP_PAUSE_MS); // the swept table, its banner over it, a moment
          if (era !== this.era) return;
        }
        break;
      }
      case 'deal':
        if (event.hand !== before.hand_number) {
          this.scopaCards = new Map();
          this.recent = [];
        }
        extra = { dealt: new Set([...(event.cards ?? []), ...event.table]) };
        break;
      case 'hand_over':
        if (moving()) await animateRemainder(event, page.faces, draw, after);
        if (era !== this.era) return;
        this.view = after;
        showHand(this, event.score);
        break;
      case 'match_over':
        this.view = after;
        this.over = event;
        showResult(this);
        break;
      case 'rematch':
        this.view = after;
        if (page.dialog?.game === this) page.dialog.fill();
        else showResult(this);
        break;
      case 'aborted':
        this.view = after;
        this.stopped();
        break;
      default:
        break;
    }
    this.view = after;
    say(() => describe(before, event), event.type === 'move');
    this.draw(after, extra);
    if (extra.dealt && moving()) await wait(DEAL_MS);
  }

  /** The match was aborted: its final state, with nothing left to do in it (no sheet
   * held open, no error, no hint). */
  stopped() {
    clearTimeout(this.resyncTimer);
    closeDialog();
    hideHint();
    showError(null);
    this.legal = null;
    this.declarations = [];
  }

  /** Your turn: read the view and your legal moves (what a move is played on). */
  async settle() {
    const view = this.view;
    const mine = view && view.status === 'playing' && view.you !== null && view.turn === view.you;
    if (!mine || this.legal || this.settling || this.closed || this.notStarted()) return;
    this.settling = true;
    const seen = [this.era, this.seq];
    let stale = false;
    try {
      const [fresh, { moves, declarations }] = (await this.takeEarly(view)) ?? (await this.read());
      if (this.closed) return;
      // Events came meanwhile (a move played for us when our time ran out, or from
      // another device): this read may be older than them. Read again after them.
      stale = this.pumping || this.queue.length > 0 || seen[0] !== this.era || seen[1] !== this.seq;
      if (stale) return;
      // A read ahead of the events shown (`seq`: moves made meanwhile, elsewhere) waits
      // for them: adopting it would skip them (and a score sheet that holds the deal).
      const ours = fresh.seq === this.seq;
      if (ours && fresh.status === 'playing' && fresh.turn === fresh.you && moves.length) {
        this.view = fresh;
        this.legal = grouped(moves);
        this.declarations = declarations;
        this.sending = false;
        sweepShown(); // nothing over the table on your turn
        this.draw();
        turnMoment();
      } else {
        // The server has moved on: its events are on their way. If they do not come,
        // start again from the server's state.
        this.resync(view);
      }
    } catch (error) {
      // Not a failure that may pass (those are retried): the game is gone, or the seat
      // is not to play after all (409). Start again from the server's state.
      if (!this.failed(error)) this.resync(view);
    } finally {
      this.settling = false;
      if (stale && !this.pumping) this.settle();
    }
  }

  /** Follow the game afresh (its state, then its events) unless something came since. */
  resync(view = this.view) {
    clearTimeout(this.resyncTimer);
    this.resyncTimer = setTimeout(() => {
      if (!this.closed && !this.legal && !this.pumping && this.view === view) {
        this.seq = null;
        this.listen();
      }
    }, RESYNC_MS);
  }

  draw(view = this.view, extra = {}) {
    if (!view || this.closed || !page.speaking) return; // drawn when the words come
    if (view.status === 'waiting') {
      screen('lobby');
      renderLobby(view, this.seat, this.code);
      return;
    }
    screen('game');
    renderGame(view, {
      faces: page.faces,
      legal: this.legal,
      declarations: this.declarations,
      selected: this.selected,
      focus: this.focus,
      armed: this.armed,
      hinted: this.hinted,
      sending: this.sending,
      pending: this.sending ? this.pending : null,
      // Its request waits to be sent again (offline, or a failure that may pass).
      held: navigator.onLine === false || network.failing > 0,
      scopaCards: this.scopaCards,
      recent: this.recent,
      series: tally(view),
      ...extra,
    });
    const game = $('#game');
    game.dataset.game = this.id;
    game.dataset.status = view.status;
    game.dataset.seq = this.seq ?? '';
    game.dataset.players = view.seats.length;
    game.dataset.pending = (this.sending && this.pending) || '';
    game.dataset.ready = String(Boolean(this.legal && !this.busy && !this.sending && !extra.hidden));
    const waiting = this.notStarted();
    if (waiting) fill($('#turn'), startText(this.startsAt()));
    const turn = view.turn === null ? '' : seatName(view, view.turn);
    clock.show(view, turn);
    // Once it is over, the final box's button shows the scores (one control, not two).
    $('#show-scores').hidden = view.hand_number < 2 || view.status !== 'playing';
    const seated = view.you !== null && view.you !== undefined;
    $('#hint').hidden = !(seated && view.status === 'playing' && !waiting);
    $('#hint').disabled = !(this.legal && !this.busy && !this.sending);
    const reacting = seated && view.status === 'playing'; // 409 once it is over
    $('#react').hidden = !reacting;
    if (!reacting) showReactions(false);
    renderFinal(this);
    fitCards();
    keepFocus();
  }

  /** Draw the view again, unless an event is being animated (it draws when done). */
  refresh() {
    if (!this.pumping) this.draw();
  }
}

/** The moves since ours (ours first) once `event`, a move, is played in `view`. */
function since(recent, event, view) {
  const move = { seat: event.seat, card: event.card, capture: event.capture, scopa: event.scopa, seq: event.seq };
  return event.seat === view.you ? [move] : [...recent, move].slice(-view.seats.length);
}

/** A 409 whose problem says the match has not started yet (`start_at`): not an error, a wait. */
export function notStartedYet(error) {
  return error instanceof ApiError && error.status === 409 && String(error.problem.type).endsWith('/problems/not-started-yet');
}

/** "The match starts at <time>", in the page's language and the browser's time zone (the
 * date too unless it is today). */
function startText(at) {
  const when = new Date(at);
  const today = when.toDateString() === new Date().toDateString();
  const options = { timeStyle: when.getSeconds() ? 'medium' : 'short' };
  if (!today) options.dateStyle = 'medium';
  return t('startsAt', { time: new Intl.DateTimeFormat(language(), options).format(when) });
}
