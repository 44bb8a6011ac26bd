// Cards as large as the screen allows: the hand's from the width it has and its share of
// the height, then the table's from the room the rest of the screen leaves it (the table
// area takes what is left, CSS grid's 1fr), for as many cards as lie there.

import { $ } from './dom.js';

const GAP = 6;
const LARGEST = 120;
const SMALLEST = 26;
const RATIO = 1.5; // a card is 100 x 150

/** The widest card such that `n` cards, in rows, fit `width` x `height`. */
export function widest(n, width, height, largest = LARGEST) {
  for (let w = largest; w > SMALLEST; w -= 1) {
    const perRow = Math.max(1, Math.floor((width + GAP) / (w + GAP)));
    const rows = Math.ceil(Math.max(1, n) / perRow);
    if (rows * w * RATIO + (rows - 1) * GAP <= height) return w;
  }
  return SMALLEST;
}

export function fitCards() {
  const game = $('#game');
  if (!game || game.hidden) return;
  const landscape = window.innerWidth > window.innerHeight && window.innerHeight < 600;
  const hand = $('#hand');
  const held = Math.max(3, hand.querySelectorAll('.card').length);
  // The hand: in one row, at most a fifth of the height (portrait) or 45% (landscape,
  // where it has a column of its own).
  const share = landscape ? 0.36 : 0.19;
  let handW = widest(held, hand.clientWidth || window.innerWidth, window.innerHeight * share, 130);
  const root = document.documentElement;
  for (let tries = 0; tries < 12; tries += 1) {
    game.style.setProperty('--hand-w', `${handW}px`);
    fitTable(game, handW);
    // Still taller than the screen (the capture choices, a declaration, a long list of
    // seats): a smaller hand, until it fits.
    const over = root.scrollHeight > root.clientHeight || game.scrollHeight > game.clientHeight + 1;
    if (!over || handW <= 48) break;
    handW -= 8;
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
}
