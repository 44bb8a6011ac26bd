// The page's state (its settings, the game it follows, the sheet it shows) and the lines
// every part of it writes: which screen shows, the error line, the status line, the
// connection badge.

import { ApiError, Cancelled, NetworkError, network } from './api.js';
import { Clock } from './clock.js';
import { $, fill } from './dom.js';
import { t } from './strings.js';

const SCREENS = ['loading', 'setup', 'join', 'lobby', 'game', 'tournament'];

export const page = {
  faces: 'italian',
  variants: [],
  game: null,
  tournament: null, // the tournament followed (tournament.js), read-only
  dialog: null, // what the score dialog shows: a function that fills it again
  mode: null, // how the game is followed (follow.js): live, polling, reconnecting, offline
  oneTap: false, // touch: a tap plays at once (else a first tap shows, a second plays)
  pointer: 'mouse', // the kind of pointer of the last press
  keyboard: false, // the last input was a key (not a press): the focus is kept in view
  speaking: false, // the page's words (and the cards' names) are here: the game is drawn
  ready: null, // a promise: the words and the variants are here
};
export const clock = new Clock($('#clock'));

export function screen(name) {
  for (const id of SCREENS) $(`#${id}`).hidden = id !== name;
  document.body.dataset.screen = name;
}

export function showError(error) {
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
export function say(tell, move = false) {
  if (!tell) return;
  const text = tell();
  if (!text) return;
  told = tell;
  fill($('#status'), text);
  $('#status').classList.toggle('quiet', move);
}

export function sayAgain() {
  if (told) fill($('#status'), told());
}

/** The connection badge: offline when the browser is; reconnecting while the stream
 * reconnects or a request waits to be sent again; else how the game is followed. */
export function showMode(mode = page.mode) {
  page.mode = mode;
  const el = $('#connection');
  if (!page.game || !mode) {
    delete el.dataset.mode;
    fill(el);
    $('#offline-banner').hidden = true;
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
  const banner = $('#offline-banner');
  banner.hidden = shown !== 'offline';
  fill(banner, banner.hidden ? null : t('offlineBanner'));
}

/** The status line says nothing (the game it told of is closed). */
export function forgetTold() {
  told = null;
  fill($('#status'));
}

/** Someone playing by keyboard never has the focus fall back to the page (a capture
 * chosen and its choices gone, the hand drawn again, the score sheet closed): it goes
 * to the hand's card in the tab order. */
export function keepFocus() {
  if (!page.keyboard || $('#game').hidden || $('#scores-dialog').open) return;
  const active = document.activeElement;
  if (active && active !== document.body && active.isConnected && active.checkVisibility?.() !== false) return;
  $('#hand .card[tabindex="0"]')?.focus();
}
