// A game the player sits at: the followed game (followed.js) and what the player does in
// it, each a request of the API: play a card (a tap, or two on touch; a capture chosen),
// declare (Cirulla), ask for a hint, react, ask for a rematch, leave. And the game
// opened and closed.

import { ApiError, NetworkError, api } from './api.js';
import { $ } from './dom.js';
import { describe } from './events.js';
import { FollowedGame, notStartedYet } from './followed.js';
import { hideHint, showHint, showHintText } from './hint.js';
import { clock, forgetTold, page, say, screen, showError, showMode } from './page.js';
import * as saved from './saved.js';
import { showReaction } from './reactions.js';
import { closeDialog } from './sheet.js';
import { t } from './strings.js';
import { preview } from './table.js';

class Game extends FollowedGame {
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
    this.pending = card; // shown as such until its move comes (sent when the network is back)
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
      const reaction = await api.react(this.id, this.token, emote);
      if (this.view) showReaction(this.view, reaction); // at once, even while polling
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

export function openGame(id, seat) {
  closeGame();
  showError(null);
  const watching = seat.token ? {} : { watch: '1' }; // a spectator's address stays one
  history.replaceState(null, '', `/play?${new URLSearchParams({ game: id, ...watching })}`);
  screen('loading');
  page.game = new Game(id, seat);
}

/** Watch a game without a seat, as a spectator (/play?game=<id>&watch=1: a tournament's
 * table links there): its view and events, no hand, nothing to play. */
export function watchGame(id) {
  openGame(id, { token: null, seat: null });
}

export function closeGame() {
  page.game?.close();
  page.game = null;
  page.tournament?.close(); // a tournament followed (tournament.js) is left too
  page.tournament = null;
  page.mode = null;
  clock.stop();
  closeDialog();
  hideHint();
  forgetTold();
  showMode(null);
}

export function newGame() {
  closeGame();
  saved.leaveCurrent();
  history.replaceState(null, '', '/play');
  screen('setup');
  $('#setup-form').elements.name.focus();
}
