// Moves, animated: the card played flies from the hand that played it to the table;
// what it takes is lit up, then swept into the taker's pile. With "reduce motion" asked
// for by the system, nothing moves: the table simply changes.

import { cardSvg } from './cards.js';
import { $, h } from './dom.js';

const FLIGHT_MS = 380;
const SHOW_MS = 300;
const SWEEP_MS = 320;
const PAUSE_MS = 160;

export function moving() {
  return !window.matchMedia('(prefers-reduced-motion: reduce)').matches;
}

const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A card drawn over the page from rectangle `from` to rectangle `to`. */
async function fly(code, faces, from, to, duration, fade = false) {
  if (!from || !to) return;
  const flying = h('div', { class: 'flying', 'aria-hidden': 'true' }, cardSvg(code, faces));
  flying.style.left = `${to.left}px`;
  flying.style.top = `${to.top}px`;
  flying.style.width = `${to.width}px`;
  flying.style.height = `${to.height}px`;
  document.body.append(flying);
  const dx = from.left + from.width / 2 - (to.left + to.width / 2);
  const dy = from.top + from.height / 2 - (to.top + to.height / 2);
  const scale = to.width ? from.width / to.width : 1;
  const frames = [
    { transform: `translate(${dx}px, ${dy}px) scale(${scale})`, opacity: 1 },
    { transform: 'none', opacity: fade ? 0.2 : 1 },
  ];
  try {
    await flying.animate(frames, { duration, easing: 'cubic-bezier(.2,.7,.3,1)' }).finished;
  } catch {
    // cancelled: the page moved on
  } finally {
    flying.remove();
  }
}

const rectOf = (el) => {
  if (!el) return null;
  const rect = el.getBoundingClientRect();
  return rect.width || rect.height ? rect : null;
};

/** Where `seat`'s played card comes from: its card in your hand, the card it declared
 * (face up, Cirulla), or its hand of backs. */
function source(event, view) {
  if (event.seat === view.you) return rectOf($(`#hand [data-card="${event.card}"]`));
  return (
    rectOf($(`#opponents .exposed[data-seat="${event.seat}"] [data-card="${event.card}"]`)) ??
    rectOf($(`#opponents .backs[data-seat="${event.seat}"]`)) ??
    rectOf($(`.seat[data-seat="${event.seat}"]`))
  );
}

/**
 * Animate `event` (a move) from view `before` to view `after`. `draw(view, extra)` draws a
 * view, `extra` adding to what the page shows: {hidden: Set, showing: [cards]}.
 */
export async function animateMove(event, before, after, faces, draw) {
  const from = source(event, before);
  if (!event.capture.length) {
    draw(after, { hidden: new Set([event.card]) });
    const slot = rectOf($(`#table [data-card="${event.card}"]`));
    await fly(event.card, faces, from, slot, FLIGHT_MS);
    draw(after, {});
    await wait(PAUSE_MS);
    return;
  }
  // A capture: over the cards it takes, they light up, all go to the taker's pile.
  draw(before, { hidden: new Set([event.card]), showing: event.capture });
  const target = rectOf($(`#table [data-card="${event.capture[0]}"]`));
  await fly(event.card, faces, from, target, FLIGHT_MS);
  await wait(SHOW_MS);
  const taken = [event.card, ...event.capture].map((code) => ({
    code,
    rect: rectOf($(`#table [data-card="${code}"]`)) ?? target,
  }));
  draw(after, {});
  const pileRect = rectOf($(`.pile[data-seat="${event.seat}"]`));
  await Promise.all(taken.map(({ code, rect }) => fly(code, faces, rect, pileRect, SWEEP_MS, true)));
  await wait(PAUSE_MS);
}

/** The cards left on the table at the end of a hand go to the last seat that captured. */
export async function animateRemainder(event, faces, draw, after) {
  const cards = event.remainder.cards;
  const taker = event.remainder.seat;
  const rects = cards.map((code) => ({ code, rect: rectOf($(`#table [data-card="${code}"]`)) }));
  draw(after, {});
  const pileRect = taker === null ? null : rectOf($(`.pile[data-seat="${taker}"]`));
  await Promise.all(rects.map(({ code, rect }) => fly(code, faces, rect, pileRect, SWEEP_MS, true)));
}
