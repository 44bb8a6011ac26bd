// Cards as large as the screen allows: the hand's from the width it has and its share of
// the height, then the table's from the room the rest of the screen leaves it (the table
// area takes what is left, CSS grid's 1fr), for as many cards as lie there.
//
// The hand wraps (screen.css): nine or ten cards (Scopone) lie in two rows, each card
// whole and inside the screen. The moves since yours (under the table, or above your
// hand on a phone held sideways) take what room they need at the size sized here. Whatever it sizes, the page must neither scroll down nor
// sideways: cards are made smaller until it does not.

import { $ } from './dom.js';

const GAP = 6;
const LARGEST = 120;
const SMALLEST = 26;
const RATIO = 1.5; // a card is 100 x 150
const TAPPABLE = 44; // the smallest a card of the hand gets: a finger's width
// The cards of the moves since yours: as large as the table's, at most this, at least
// that (their index still read).
const RECENT_LARGEST = 56;
const RECENT_SMALLEST = 40;
const FAIR_TABLE = 56; // a table's card this wide or more is not cramped

/** The widest card such that `n` cards, in rows, fit `width` x `height`. */
export function widest(n, width, height, largest = LARGEST, smallest = SMALLEST) {
  for (let w = largest; w > smallest; w -= 1) {
    const perRow = Math.max(1, Math.floor((width + GAP) / (w + GAP)));
    const rows = Math.ceil(Math.max(1, n) / perRow);
    if (rows * w * RATIO + (rows - 1) * GAP <= height) return w;
  }
  return smallest;
}

/** Whether the page is larger than the screen, either way, or the game than its box. */
function overflows(game) {
  const root = document.documentElement;
  return (
    root.scrollHeight > root.clientHeight + 1 ||
    root.scrollWidth > root.clientWidth + 1 ||
    game.scrollHeight > game.clientHeight + 1 ||
    game.scrollWidth > game.clientWidth + 1
  );
}

export function fitCards() {
  const game = $('#game');
  if (!game || game.hidden) return;
  const landscape = window.innerWidth > window.innerHeight && window.innerHeight < 600;
  const hand = $('#hand');
  const held = Math.max(3, hand.querySelectorAll('.card').length);
  // The hand: at most a fifth of the height (portrait) or 36% (landscape, where it has a
  // column of its own); a little more for a Scopone hand, which takes two rows.
  const share = (landscape ? 0.36 : 0.19) + (held > 6 ? 0.08 : 0);
  const width = hand.clientWidth || window.innerWidth;
  let handW = widest(held, width, window.innerHeight * share, 130, TAPPABLE);
  let recentW = RECENT_LARGEST;
  const recent = [...document.querySelectorAll('#last-move .recent')];
  for (const move of recent) move.hidden = false;
  for (let tries = 0; tries < 24; tries += 1) {
    game.style.setProperty('--hand-w', `${handW}px`);
    game.style.setProperty('--recent-w', `${recentW}px`);
    const tableW = fitTable(game, handW);
    // The moves since yours never in larger cards than the table's (what you capture).
    if (recentW > Math.max(RECENT_SMALLEST, tableW)) {
      recentW = Math.max(RECENT_SMALLEST, tableW);
      continue;
    }
    // The table's cards far smaller than the hand's (what you capture, squeezed by a
    // few large cards of yours): a smaller hand.
    const cramped = handW > TAPPABLE && tableW < Math.min(FAIR_TABLE, handW * 0.7);
    // Still larger than the screen (the moves since yours, the capture choices, a
    // declaration, a long list of seats): smaller cards of those moves, then a smaller
    // hand, until it fits.
    if (!cramped && !overflows(game)) break;
    if (!cramped && recentW > RECENT_SMALLEST) recentW = Math.max(RECENT_SMALLEST, recentW - 4);
    else if (handW > TAPPABLE) handW = Math.max(TAPPABLE, handW - 6);
    else break;
  }
  // Everything at its smallest and still too tall (a phone held sideways, six players):
  // the oldest of the moves since yours give way, the latest always shown.
  for (const move of recent.slice(0, -1)) {
    if (!overflows(game)) break;
    move.hidden = true;
  }
}

/** The table's cards: as wide as its area (its box, less its padding) allows. */
function fitTable(game, handW) {
  const area = $('.table-area');
  const style = getComputedStyle(area);
  const width = area.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  const height = area.clientHeight - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom);
  const lying = Math.max(4, $('#table').querySelectorAll('.card').length);
  const tableW = widest(lying, width, height, Math.min(handW, 110));
  game.style.setProperty('--card-w', `${tableW}px`);
  return tableW;
}
