// The page: start or join a match, follow it live, play it, read its scores.
// It uses the public API only (api.js); the game follows the log (follow.js), applying
// each event to the view it shows (events.js), animated (animate.js).

import { animateMove, animateRemainder, moving } from './animate.js';
import { ApiError, Cancelled, NetworkError, api, gone, network } from './api.js';
import { Clock } from './clock.js';
import { $, $$, fill, h } from './dom.js';
import { abortedText, applyEvent, describe, matchOverText, seatName } from './events.js';
import { fitCards } from './fit.js';
import { follow } from './follow.js';
import { againstChanged, creation, fillSetup, renderLobby, seatList, seatsChanged, variantChanged } from './lobby.js';
import { cardList, cardName, useNames, variantName } from './names.js';
import { scopaMoment, setSound, sweepShown, turnMoment } from './moments.js';
import { EMOTES, showReaction } from './reactions.js';
import * as saved from './saved.js';
import { handTable, matchTable, sideName } from './scores.js';
import { language, preferredLanguage, setLanguage, t, translatePage } from './strings.js';
import { renderGame } from './table.js';

const SCREENS = ['loading', 'setup', 'join', 'lobby', 'game'];
const RESYNC_MS = 2500;
const DEAL_MS = 350;
const SWEEP_PAUSE_MS = 900; // a sweep is seen before the game goes on

const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const page = {
  faces: 'italian',
  variants: [],
  game: null,
  dialog: null, // what the score dialog shows: a function that fills it again
  mode: null, // how the game is followed (follow.js): live, polling, reconnecting, offline
  oneTap: false, // touch: a tap plays at once (else a first tap shows, a second plays)
  pointer: 'mouse', // the kind of pointer of the last press
  keyboard: false, // the last input was a key (not a press): the focus is kept in view
};
const clock = new Clock($('#clock'));

function screen(name) {
  for (const id of SCREENS) $(`#${id}`).hidden = id !== name;
  document.body.dataset.screen = name;
}

function showError(error) {
  const box = $('#error');
  if (!error) {
    box.hidden = true;
    fill(box);
    delete box.dataset.offline;
    return;
  }
  let text;
  box.dataset.offline = String(error instanceof NetworkError);
  if (error instanceof Cancelled) return;
  if (error instanceof NetworkError) text = t('offline');
  else if (error instanceof ApiError) text = t('error', { detail: error.message });
  else text = t('error', { detail: String(error.message ?? error) });
  fill(box, text);
  box.hidden = false;
}

/** The status line: a sentence on the last event worth one, said again in another
 * language when the page's changes (`tell` makes it from the words of the moment). */
let told = null;
function say(tell, move = false) {
  if (!tell) return;
  const text = tell();
  if (!text) return;
  told = tell;
  fill($('#status'), text);
  $('#status').classList.toggle('quiet', move);
}

function sayAgain() {
  if (told) fill($('#status'), told());
}

/** A capture choice: legal moves grouped by card. */
function grouped(moves) {
  const legal = new Map();
  for (const move of moves) {
    if (!legal.has(move.card)) legal.set(move.card, []);
    legal.get(move.card).push(move.capture);
  }
  return legal;
}

// -- one game followed ----------------------------------------------------------------------

class Game {
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
    this.listen();
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

  shareUrl() {
    if (!this.code) return null;
    const query = new URLSearchParams({ game: this.id, code: this.code });
    return `${location.origin}/play?${query}`;
  }

  /** The game as the server sees it, after event `seq`: draw it afresh. */
  adopt(view, seq) {
    if (this.closed) return;
    this.era += 1; // an event being animated now is of the view before: it is dropped
    this.view = view;
    this.seq = seq;
    this.queue = [];
    this.legal = null;
    this.declarations = [];
    this.selected = null;
    this.armed = null;
    this.sending = false;
    this.recent = view.last_move ? [view.last_move] : [];
    this.draw();
    if (view.last_move) say(() => describe(view, { type: 'move', ...view.last_move }), true);
    if (view.status === 'finished') showResult(this);
    if (view.status === 'aborted') this.stopped();
    this.settle();
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
        const move = { seat: event.seat, card: event.card, capture: event.capture, scopa: event.scopa };
        const mine = event.seat === before.you;
        this.recent = mine ? [move] : [...this.recent, move].slice(-before.seats.length);
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
      const signal = this.stop.signal;
      const [fresh, { moves, declarations }] = await Promise.all([
        api.view(this.id, this.token, signal),
        api.legalMoves(this.id, this.token, signal),
      ]);
      if (this.closed) return;
      // Events came meanwhile (a move played for us when our time ran out, or from
      // another device): this read may be older than them. Read again after them.
      stale = this.pumping || this.queue.length > 0 || seen[0] !== this.era || seen[1] !== this.seq;
      if (stale) return;
      if (fresh.status === 'playing' && fresh.turn === fresh.you && moves.length) {
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
    if (!view || this.closed) return;
    if (view.status === 'waiting') {
      screen('lobby');
      renderLobby(view, this.seat, this.shareUrl());
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
      scopaCards: this.scopaCards,
      recent: this.recent,
      ...extra,
    });
    const game = $('#game');
    game.dataset.game = this.id;
    game.dataset.status = view.status;
    game.dataset.seq = this.seq ?? '';
    game.dataset.players = view.seats.length;
    game.dataset.ready = String(Boolean(this.legal && !this.busy && !this.sending && !extra.hidden));
    const waiting = this.notStarted();
    if (waiting) fill($('#turn'), startText(this.startsAt()));
    const turn = view.turn === null ? '' : seatName(view, view.turn);
    clock.show(view, turn);
    $('#show-scores').hidden = view.hand_number < 2 && view.status !== 'finished';
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

  /** A card of your hand clicked (or Enter, Space): play it, or ask what it takes. On
   * touch (unless the player chose one tap), a first tap shows what it takes, a second
   * plays it. */
  choose(card, touch = false) {
    if (this.busy || this.sending || !this.legal?.has(card)) return;
    this.focus = card;
    if (touch && !page.oneTap && this.armed !== card) {
      this.armed = card;
      this.selected = null;
      this.draw();
      const options = this.legal.get(card);
      preview(options.length === 1 ? options[0] : []);
      return;
    }
    this.armed = null;
    const options = this.legal.get(card);
    if (options.length === 1) {
      this.send(card, options[0]);
      return;
    }
    this.selected = card;
    this.draw();
    $('#choice-list .choice')?.focus();
  }

  cancel() {
    if (this.armed && !this.selected) {
      this.armed = null;
      this.draw();
      return;
    }
    if (!this.selected) return;
    const card = this.selected;
    this.selected = null;
    this.draw();
    $(`#hand [data-card="${card}"]`)?.focus();
  }

  async send(card, capture) {
    const seq = this.seq;
    this.busy = true;
    this.sending = true; // not "your turn" while the card is on its way
    this.armed = null;
    this.refresh();
    try {
      await api.move(this.id, this.token, card, capture, this.view.version, this.stop.signal);
      showError(null);
      if (this.seq === seq) {
        // Its events are on their way (the stream's, or the poll this asks for now);
        // if they do not come, the game is read afresh.
        this.legal = null;
        this.selected = null;
        this.resync(this.view);
      }
      this.follower.poke();
    } catch (error) {
      this.sending = false;
      if (this.failed(error)) return;
      // Too early (our clock is ahead of the service's): wait out its Retry-After.
      if (notStartedYet(error)) this.notBefore = Date.now() + (error.retryAfter ?? 1) * 1000;
      // Refused: the game moved on without us (409, 412: a move played for us when our
      // time ran out, or from another device) needs no word; an illegal move (422) does.
      if (!(error instanceof ApiError && [409, 412].includes(error.status))) showError(error);
      this.legal = null;
      this.selected = null;
      this.settle();
    } finally {
      this.busy = false;
      this.refresh();
    }
  }

  /** Cirulla: declare our cards (an entry of the legal moves' `declarations`, sent as it
   * is). It is still our turn after it: the legal moves are read again, to play a card. */
  async declare(entry) {
    if (this.busy || !this.legal || !this.declarations.includes(entry)) return;
    const seq = this.seq;
    this.busy = true;
    this.refresh();
    try {
      const answer = await api.declare(this.id, this.token, entry, this.view.version, this.stop.signal);
      showError(null);
      this.declarations = [];
      this.legal = null;
      this.selected = null;
      const alone = this.seq === seq && answer.state.seq === seq + 1;
      if (alone && !this.pumping && !this.queue.length) {
        // Nothing else happened meanwhile: the answer is the view after our declaration
        // (the log's next event, which the stream brings too: it is skipped as seen).
        this.view = answer.state;
        this.seq = answer.state.seq;
        const view = this.view;
        say(() => describe(view, answer.declaration));
      }
      this.follower.poke();
    } catch (error) {
      if (this.failed(error)) return;
      if (notStartedYet(error)) this.notBefore = Date.now() + (error.retryAfter ?? 1) * 1000;
      if (!(error instanceof ApiError && [409, 412].includes(error.status))) showError(error);
      if (error instanceof ApiError && [409, 412, 422].includes(error.status)) {
        this.legal = null;
        this.declarations = [];
        this.selected = null;
      }
    } finally {
      this.busy = false;
      this.refresh();
      this.settle();
    }
  }

  /** Draw the view again, unless an event is being animated (it draws when done). */
  refresh() {
    if (!this.pumping) this.draw();
  }

  /** The expert's move for us now, said in our words (a 429: when to ask again). */
  async hint() {
    if (!this.legal || this.busy) return;
    const asked = [this.era, this.seq];
    $('#hint').disabled = true;
    try {
      const answer = await api.hint(this.id, this.token);
      if (this.closed || asked[0] !== this.era || asked[1] !== this.seq) return;
      this.hinted = answer.move.card;
      this.draw();
      showHint(this.view, answer);
    } catch (error) {
      if (this.failed(error)) return;
      if (error instanceof ApiError && error.status === 429) {
        const n = Math.ceil(error.retryAfter ?? 1);
        showHintText(() => t('hintWait', { n }));
      } else if (error instanceof NetworkError || (error instanceof ApiError && error.status >= 500)) {
        showHintText(() => t('offline'));
      } else if (!(error instanceof ApiError && error.status === 409)) showError(error);
    } finally {
      $('#hint').disabled = !this.legal;
    }
  }

  /** A quick reaction to everyone at the table (429: when to send the next). */
  async react(emote) {
    try {
      await api.react(this.id, this.token, emote);
    } catch (error) {
      if (this.failed(error)) return;
      if (error instanceof ApiError && error.status === 429) {
        const n = Math.ceil(error.retryAfter ?? 1);
        showHintText(() => t('reactWait', { n }));
      } else if (!(error instanceof ApiError && error.status === 409)) showError(error);
    }
  }

  async rematch() {
    const answer = await api.rematch(this.id, this.token, this.stop.signal);
    saved.keepSeat(answer.id, { token: answer.token, seat: answer.seat });
    closeDialog();
    openGame(answer.id, { token: answer.token, seat: answer.seat });
  }

  async leave() {
    await api.leave(this.id, this.token, this.stop.signal);
    saved.forgetSeat(this.id);
    newGame();
  }

  gone(reason) {
    saved.forgetSeat(this.id);
    closeGame();
    screen('setup');
    showError(new Error(t(reason === 'revoked' ? 'seatRevoked' : 'gameGone')));
  }
}

/** The connection badge: offline when the browser is; reconnecting while the stream
 * reconnects or a request waits to be sent again; else how the game is followed. */
function showMode(mode = page.mode) {
  page.mode = mode;
  const el = $('#connection');
  if (!page.game || !mode) {
    delete el.dataset.mode;
    fill(el);
    return;
  }
  let shown = mode;
  if (navigator.onLine === false) shown = 'offline';
  else if (network.failing > 0 && mode !== 'offline') shown = 'reconnecting';
  if ((shown === 'live' || shown === 'polling') && $('#error').dataset.offline === 'true') {
    showError(null); // connected again
  }
  el.dataset.mode = shown;
  fill(el, { live: t('live'), polling: t('polling'), reconnecting: t('reconnecting') }[shown] ?? t('offline'));
}

function openGame(id, seat) {
  closeGame();
  showError(null);
  fill($('#status'));
  history.replaceState(null, '', `/play?${new URLSearchParams({ game: id })}`);
  screen('loading');
  page.game = new Game(id, seat);
}

function closeGame() {
  page.game?.close();
  page.game = null;
  page.mode = null;
  clock.stop();
  closeDialog();
  hideHint();
  told = null;
  fill($('#status'));
  showMode(null);
}

// -- the hint -----------------------------------------------------------------------------

/** The hint line: `tell` makes its text in the page's words (said again when they change),
 * `anchor` a section of the rules page to link to. */
let hintTold = null;
let hintAnchor = null;
function showHintText(tell, anchor = null) {
  hintTold = tell;
  hintAnchor = anchor;
  const box = $('#hint-text');
  const text = tell ? tell() : '';
  const query = new URLSearchParams({ lang: language() });
  const link = anchor
    ? h('a', { href: `/play/rules?${query}#${anchor}`, target: '_blank', rel: 'noopener' }, t('hintRules'))
    : null;
  fill(box, text, link ? ' ' : null, link);
  box.hidden = !text;
}

function hideHint() {
  showHintText(null);
}

/** What the expert would play, and why: what it takes, and the margin it expects. */
function hintText(view, answer) {
  const { card, capture } = answer.move;
  const parts = [];
  if (answer.declaration) parts.push(t('hintDeclare', { kind: answer.declaration.declare }));
  parts.push(
    capture.length
      ? t('hintTake', { card: cardName(card), cards: cardList(capture) })
      : t('hintPlay', { card: cardName(card) }),
  );
  const taken = [card, ...capture];
  if (capture.length && capture.length === view.table.length) parts.push(t('hintScopa'));
  else if (capture.length && taken.includes('7D')) parts.push(t('hintSettebello'));
  else if (capture.length && taken.some((c) => c.endsWith('D'))) parts.push(t('hintCoins'));
  else if (!capture.length) parts.push(t('hintLay'));
  if (answer.value != null) {
    const value = new Intl.NumberFormat(language(), { maximumFractionDigits: 1, signDisplay: 'always' });
    parts.push(t('hintValue', { value: value.format(answer.value) }));
  }
  return parts.join(' ');
}

function showHint(view, answer) {
  const { capture } = answer.move;
  const sweep = capture.length && capture.length === view.table.length;
  // docs/rules.md's sections, as the rules page anchors them: R5.1 (a scopa), R4 (captures).
  showHintText(() => hintText(view, answer), sweep ? 'r51-the-sweep' : 'r4-capturing');
}

// -- the end of the match -------------------------------------------------------------------

/** On the game screen once the match is over: its result and what next (the score sheet
 * may be closed). An aborted match: why it stopped (the organiser's words, as text). */
function renderFinal(game) {
  const view = game.view;
  const box = $('#final');
  const aborted = view.status === 'aborted';
  const over = view.status === 'finished' || aborted;
  box.hidden = !over;
  box.dataset.aborted = String(aborted);
  if (!over) return;
  $('#final-scores').hidden = aborted && view.hand_number < 2;
  if (aborted) {
    fill($('#final-result'), abortedText(view));
    fill($('#final-reason'));
    $('#final-reason').hidden = true;
    $('#final-rematch').hidden = true;
    $('#final-rematch-note').hidden = true;
    return;
  }
  fill($('#final-result'), resultText(view) || t('finalNote'));
  const reason = matchOverText(view, game.over);
  fill($('#final-reason'), reason);
  $('#final-reason').hidden = !reason;
  $('#final-rematch').hidden = view.you === null || view.you === undefined;
  $('#final-rematch-note').hidden = !(view.next && view.you !== null && view.you !== undefined);
}

/** A 409 whose problem says the match has not started yet (`start_at`): not an error, a wait. */
function notStartedYet(error) {
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

function newGame() {
  closeGame();
  saved.leaveCurrent();
  history.replaceState(null, '', '/play');
  screen('setup');
  $('#setup-form').elements.name.focus();
}

// -- the score dialog -------------------------------------------------------------------------

function openDialog(game, title, fillBody, { holds = false } = {}) {
  const dialog = $('#scores-dialog');
  const before = page.dialog;
  let release;
  const closed = new Promise((resolve) => {
    release = resolve;
  });
  dialog.dataset.holds = String(holds);
  page.dialog = {
    game,
    holds, // the game's next events wait until it is closed
    closed,
    release() {
      release();
      before?.release?.();
    },
    fill() {
      fill($('#scores-title'), title());
      fillBody();
      const view = game.view;
      const rematch = view.status === 'finished' && view.you !== null;
      $('#rematch').hidden = !rematch;
      $('#rematch-note').hidden = !(rematch && view.next);
      $('#dialog-new-game').hidden = view.status !== 'finished';
      fill($('#close-scores'), view.status === 'finished' ? t('close') : t('continue'));
    },
  };
  page.dialog.fill();
  if (!dialog.open) dialog.showModal();
}

function closeDialog() {
  const dialog = $('#scores-dialog');
  if (dialog.open) dialog.close();
  page.dialog?.release();
  page.dialog = null;
}

function showHand(game, score) {
  openDialog(game, () => t('handScore', { n: score.hand }), () => {
    fill($('#result'));
    fill($('#reason'));
    $('#reason').hidden = true;
    fill($('#scores-body'), handTable(game.view, score, page.faces));
  }, { holds: true });
}

async function showScores(game, { result = false } = {}) {
  let hands = [];
  try {
    hands = await api.hands(game.id, game.token, game.stop.signal);
    if (result && !game.over) game.over = await matchOver(game);
  } catch (error) {
    if (game.failed(error)) return;
    showError(error);
  }
  if (game.closed) return;
  game.draw();
  openDialog(game, () => (result ? t('matchOver') : t('scores')), () => {
    const view = game.view;
    if (result) fill($('#result'), resultText(view));
    else fill($('#result'));
    const reason = result ? matchOverText(view, game.over) : '';
    fill($('#reason'), reason);
    $('#reason').hidden = !reason;
    const last = hands[hands.length - 1];
    fill($('#scores-body'), last ? handTable(view, last, page.faces) : null, hands.length > 1 ? matchTable(view, hands) : null);
  });
}

/** The match_over event of a finished match opened afresh: near the end of its log. */
async function matchOver(game) {
  const after = game.seq === null ? null : Math.max(-1, game.seq - 4);
  const log = await api.events(game.id, game.token, after, null).catch(() => ({ events: [] }));
  return log.events.findLast((event) => event.type === 'match_over') ?? null;
}

function showResult(game) {
  return showScores(game, { result: true });
}

function resultText(view) {
  if (view.winner === null) return '';
  if (view.you !== null) {
    return view.seats[view.you].team === view.winner ? t('youWon') : t('youLost');
  }
  return t('won', { names: sideName(view, view.winner) });
}

// -- the screens before a match -----------------------------------------------------------------

async function showJoin(id, code) {
  screen('join');
  const form = $('#join-form');
  form.dataset.game = id;
  form.dataset.code = code;
  form.elements.name.value = saved.prefs().name ?? '';
  form.querySelector('button').disabled = false;
  fill($('#join-seats'));
  fill($('#join-game'));
  try {
    const view = await api.invitation(id, code);
    fill($('#join-game'), joinedGame(view));
    fill($('#join-seats'), h('span', {}, t('seatsNow')), h('ul', {}, seatList(view, null)));
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) showError(new Error(t('gameGone')));
    else if (error instanceof ApiError && error.status === 409) {
      showError(new Error(t('alreadyStarted')));
      form.querySelector('button').disabled = true;
    } else showError(error);
  }
}

/** What a join link leads to: the game, how many play, the target, the clock. */
function joinedGame(view) {
  const variant = page.variants.find((v) => v.name === view.variant);
  return [
    variantName(view.variant, variant?.title),
    `${t('players')}: ${view.seats.length}`,
    t('toTarget', { n: view.target }),
    view.clock ? `${t('clock')}: ${t('seconds', { n: view.clock.seconds })}` : t('clockOff'),
  ].join(' · ');
}

async function join(form) {
  const { game, code } = form.dataset;
  const name = form.elements.name.value.trim();
  saved.savePrefs({ name });
  try {
    const joined = await api.join(game, name, code);
    saved.keepSeat(game, { token: joined.token, seat: joined.seat });
    openGame(game, { token: joined.token, seat: joined.seat });
  } catch (error) {
    if (error instanceof ApiError && error.status === 403) showError(new Error(t('wrongCode')));
    else if (error instanceof ApiError && error.status === 409) showError(new Error(t('noSeat')));
    else showError(error);
  }
}

async function start(form) {
  const body = creation(form.elements, page.variants);
  saved.savePrefs({ name: body.seats[0].name });
  const button = form.querySelector('[type=submit]');
  button.disabled = true;
  try {
    const created = await api.create(body);
    const mine = { token: created.seats[0].token, seat: 0, code: created.join?.code ?? null };
    saved.keepSeat(created.id, mine);
    openGame(created.id, mine);
  } catch (error) {
    showError(error);
  } finally {
    button.disabled = false;
  }
}

// -- language and faces ---------------------------------------------------------------------

async function useWords() {
  try {
    await useNames(language(), page.faces);
  } catch (error) {
    showError(error); // the page still works: cards are then named by their codes
  }
  translatePage();
  $('#rules-link').href = `/play/rules?${new URLSearchParams({ lang: language() })}`;
  fillSetup($('#setup-form').elements, page.variants);
  page.game?.refresh();
  page.dialog?.fill();
  sayAgain();
  showHintText(hintTold, hintAnchor);
  showMode();
}

// -- keyboard and pointer -------------------------------------------------------------------------

/** Someone playing by keyboard never has the focus fall back to the page (a capture
 * chosen and its choices gone, the hand drawn again, the score sheet closed): it goes
 * to the hand's card in the tab order. */
function keepFocus() {
  if (!page.keyboard || $('#game').hidden || $('#scores-dialog').open) return;
  const active = document.activeElement;
  if (active && active !== document.body && active.isConnected && active.checkVisibility?.() !== false) return;
  $('#hand .card[tabindex="0"]')?.focus();
}

/** Arrow keys move the focus along a row of buttons (one of them in the tab order). */
function roving(container, event) {
  const buttons = $$('button', container);
  const at = buttons.indexOf(document.activeElement);
  if (at < 0) return false;
  const moves = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };
  let to = null;
  if (event.key in moves) to = (at + moves[event.key] + buttons.length) % buttons.length;
  else if (event.key === 'Home') to = 0;
  else if (event.key === 'End') to = buttons.length - 1;
  if (to === null) return false;
  event.preventDefault();
  buttons.forEach((button, i) => button.setAttribute('tabindex', i === to ? '0' : '-1'));
  buttons[to].focus();
  return true;
}

/** Light up the table cards `cards` (what a move would take). Its own mark: a capture
 * being shown (`showing`, while a move is animated) is not wiped by it. */
function preview(cards) {
  const taking = new Set(cards);
  for (const el of $$('#table .card')) el.classList.toggle('preview', taking.has(el.dataset.card));
}

function previewCard(card) {
  const game = page.game;
  const options = game?.legal?.get(card);
  preview(options && !game.selected ? options.flat() : []);
}

function wire() {
  const lang = $('#lang');
  const faces = $('#faces');
  lang.addEventListener('change', () => {
    setLanguage(lang.value);
    saved.savePrefs({ lang: lang.value });
    useWords();
  });
  faces.addEventListener('change', () => {
    page.faces = faces.value;
    saved.savePrefs({ faces: faces.value });
    useWords();
  });
  $('#new-game').addEventListener('click', newGame);

  const setup = $('#setup-form');
  setup.addEventListener('submit', (event) => {
    event.preventDefault();
    start(setup);
  });
  setup.elements.variant.addEventListener('change', () => variantChanged(setup.elements, page.variants));
  setup.elements.players.addEventListener('change', () => seatsChanged(setup.elements));
  setup.elements.bots.addEventListener('change', () => againstChanged(setup.elements));
  for (const radio of setup.elements.against) {
    radio.addEventListener('change', () => againstChanged(setup.elements));
  }
  $('#join-form').addEventListener('submit', (event) => {
    event.preventDefault();
    join(event.target);
  });

  $('#copy').addEventListener('click', async () => {
    const input = $('#share-link');
    input.select();
    try {
      await navigator.clipboard.writeText(input.value);
      fill($('#copy'), t('copied'));
    } catch {
      // no clipboard here: the link is selected, ready to copy by hand
    }
  });
  $('#leave').addEventListener('click', () => page.game?.leave().catch(showError));

  const hand = $('#hand');
  document.addEventListener('pointerdown', (event) => {
    page.pointer = event.pointerType;
  }, { capture: true });
  hand.addEventListener('click', (event) => {
    const button = event.target.closest('button[data-card]');
    // A click made by a touch (event.detail: not the keyboard's Enter or Space).
    const touch = event.detail > 0 && page.pointer === 'touch';
    if (button) page.game?.choose(button.dataset.card, touch);
  });
  hand.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') page.game?.cancel();
    else roving(hand, event);
  });
  for (const kind of ['pointerover', 'focusin']) {
    hand.addEventListener(kind, (event) => {
      if (event.pointerType === 'touch') return; // a tap shows it (select, then confirm)
      const button = event.target.closest('button[data-card]');
      if (button) previewCard(button.dataset.card);
    });
  }
  hand.addEventListener('pointerleave', () => preview([]));

  const choices = $('#choice-list');
  choices.addEventListener('click', (event) => {
    const button = event.target.closest('button.choice');
    const game = page.game;
    if (button && game?.selected) game.send(game.selected, button.dataset.capture.split(' '));
  });
  choices.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') page.game?.cancel();
    else roving(choices, event);
  });
  for (const kind of ['pointerover', 'focusin']) {
    choices.addEventListener(kind, (event) => {
      const button = event.target.closest('button.choice');
      if (button) preview(button.dataset.capture.split(' '));
    });
  }
  $('#cancel-choice').addEventListener('click', () => page.game?.cancel());

  $('#declare-list').addEventListener('click', (event) => {
    const button = event.target.closest('button[data-declare]');
    const game = page.game;
    if (!button || !game) return;
    const kind = button.dataset.declare;
    const menu = $(`#declare-list select[data-declare="${kind}"]`);
    const entry = game.declarations.find(
      (d) => d.declare === kind && (menu ? String(d.matta_as) === menu.value : true),
    );
    if (entry) game.declare(entry);
  });

  $('#show-scores').addEventListener('click', () => page.game && showScores(page.game));
  $('#final-scores').addEventListener('click', () => page.game && showResult(page.game));
  $('#close-scores').addEventListener('click', closeDialog);
  $('#scores-dialog').addEventListener('close', () => {
    page.dialog?.release();
    page.dialog = null;
    keepFocus();
  });
  document.addEventListener('keydown', (event) => {
    if (!['Shift', 'Control', 'Alt', 'Meta'].includes(event.key)) page.keyboard = true;
  }, true);
  document.addEventListener('pointerdown', () => {
    page.keyboard = false;
  }, true);
  for (const id of ['#rematch', '#final-rematch']) {
    $(id).addEventListener('click', () => page.game?.rematch().catch(showError));
  }
  for (const id of ['#dialog-new-game', '#final-new-game']) $(id).addEventListener('click', newGame);

  $('#hint').addEventListener('click', () => page.game?.hint());
  // The reactions: one button opens them, a reaction sent (a click elsewhere, Escape)
  // closes them.
  $('#react').addEventListener('click', () => showReactions($('#reactions').hidden));
  $('#reactions').addEventListener('click', (event) => {
    const button = event.target.closest('button[data-emote]');
    if (!button) return;
    page.game?.react(button.dataset.emote);
    showReactions(false, true);
  });
  document.addEventListener('click', (event) => {
    if (!$('#reactions').hidden && !event.target.closest('.react-box')) showReactions(false);
  });
  $('.react-box').addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && !$('#reactions').hidden) showReactions(false, true);
  });

  const sound = $('#sound');
  sound.addEventListener('change', () => {
    setSound(sound.checked);
    saved.savePrefs({ sound: sound.checked });
  });
  const oneTap = $('#one-tap');
  oneTap.addEventListener('change', () => {
    page.oneTap = oneTap.checked;
    saved.savePrefs({ oneTap: oneTap.checked });
  });

  // The menu closes as menus do: a click elsewhere, or Escape.
  const menu = $('#menu');
  document.addEventListener('click', (event) => {
    if (menu.open && !menu.contains(event.target)) menu.open = false;
  });
  menu.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && menu.open) {
      menu.open = false;
      menu.querySelector('summary').focus();
    }
  });
  $('#new-game').addEventListener('click', () => {
    menu.open = false;
  });

  network.listeners.add(() => showMode());
  window.addEventListener('online', () => {
    network.wake();
    showMode();
  });
  window.addEventListener('offline', () => showMode());
  window.addEventListener('resize', () => fitCards());
}

/** The reactions opened (the first one focused) or closed (`refocus`: the focus back on
 * the button that opens them). */
function showReactions(open, refocus = false) {
  const box = $('#reactions');
  if (box.hidden === !open) return;
  box.hidden = !open;
  $('#react').setAttribute('aria-expanded', String(open));
  if (open) box.querySelector('button')?.focus();
  else if (refocus) $('#react').focus();
}

/** The reactions: one button an emote, its glyph shown, its name read. */
function fillEmotes() {
  fill(
    $('#reactions'),
    EMOTES.map(([emote, glyph]) =>
      h('button', { type: 'button', class: 'emote', dataset: { emote, i18nLabel: `emote_${emote}`, i18nTitle: `emote_${emote}` } }, h('span', { 'aria-hidden': 'true' }, glyph)),
    ),
  );
}

// -- the start ----------------------------------------------------------------------------------

async function boot() {
  const prefs = saved.prefs();
  setLanguage(preferredLanguage(prefs.lang));
  page.faces = prefs.faces === 'french' ? 'french' : 'italian';
  $('#lang').value = language();
  $('#faces').value = page.faces;
  setSound(prefs.sound === true);
  $('#sound').checked = prefs.sound === true;
  page.oneTap = prefs.oneTap === true;
  $('#one-tap').checked = page.oneTap;
  fillEmotes();
  $('#setup-form').elements.name.value = prefs.name ?? '';
  wire();
  try {
    page.variants = await api.variants();
  } catch (error) {
    showError(error);
  }
  await useWords();

  const params = new URLSearchParams(location.search);
  const id = params.get('game');
  const code = params.get('code');
  const seat = id ? saved.seatIn(id) : null;
  if (id && seat) openGame(id, seat);
  else if (id && code) showJoin(id, code);
  else {
    const current = saved.currentGame();
    const kept = current ? saved.seatIn(current) : null;
    if (kept) openGame(current, kept);
    else newGame();
  }
}

boot();
