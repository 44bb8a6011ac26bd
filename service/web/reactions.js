// Quick reactions between the seats of a game: a fixed set of emotes (no free text), sent
// with POST /v1/games/{id}/reactions and seen by every viewer as the stream's `reaction`
// events; shown for a moment by the sender's seat.

import { $, fill, h } from './dom.js';
import { seatName } from './events.js';
import { t } from './strings.js';

const SVG = 'http://www.w3.org/2000/svg';
const INK = '#2b2118';
const FACE = `<circle cx="12" cy="12" r="10.5" fill="#ffd24a" stroke="#7a4a00" stroke-width="1"/>`;
const EYES = `<circle cx="8.5" cy="9.5" r="1.3" fill="${INK}"/><circle cx="15.5" cy="9.5" r="1.3" fill="${INK}"/>`;
const LINE = `fill="none" stroke="${INK}" stroke-width="1.6" stroke-linecap="round" stroke-linejoin="round"`;

/** The emotes the service takes, in the order the page shows them, each drawn as SVG
 * (24 x 24 units): no emoji font needed. */
export const EMOTES = [
  ['applause', `<g fill="#ffd24a" stroke="#7a4a00" stroke-width="1"><rect x="4" y="6" width="7" height="13" rx="3.5" transform="rotate(-18 7.5 12.5)"/><rect x="12" y="6" width="7" height="13" rx="3.5" transform="rotate(18 15.5 12.5)"/></g><path d="M4 3.5l1.2 1.8M12 1.5v2.2M20 3.5l-1.2 1.8" ${LINE}/>`],
  ['laugh', `${FACE}<path d="M6.5 9.5q2-2 4 0M13.5 9.5q2-2 4 0" ${LINE}/><path d="M6.5 13h11q-1 5.5-5.5 5.5T6.5 13z" fill="${INK}"/>`],
  ['wow', `${FACE}${EYES}<ellipse cx="12" cy="16" rx="2.3" ry="3" fill="${INK}"/>`],
  ['oops', `${FACE}${EYES}<rect x="6.5" y="13.5" width="11" height="4" rx="1.5" fill="#fff" stroke="${INK}" stroke-width="1.2"/><path d="M9.2 13.5v4M12 13.5v4M14.8 13.5v4" stroke="${INK}" stroke-width="1"/>`],
  ['thinking', `${FACE}${EYES}<path d="M8.5 16h5" ${LINE}/><path d="M16.5 15.5q3-4.5 4.5-.5l-2.5 3.5" fill="#ffd24a" stroke="#7a4a00" stroke-width="1"/>`],
  ['sad', `${FACE}${EYES}<path d="M8 17q4-3.5 8 0" ${LINE}/><path d="M16.5 11.5q1.2 2 1.2 2.8a1.2 1.2 0 0 1-2.4 0q0-.8 1.2-2.8z" fill="#3b82c4"/>`],
  ['hurry', `<path d="M6 2.5h12M6 21.5h12" ${LINE}/><path d="M7 3q0 6 5 9q-5 3-5 9h10q0-6-5-9q5-3 5-9z" fill="#fffaf0" stroke="${INK}" stroke-width="1.4" stroke-linejoin="round"/><path d="M9 20q0-3 3-4.5q3 1.5 3 4.5zM10 7h4l-2 3z" fill="#e2b33c"/>`],
  ['gg', `<path d="M12 2.5l2.9 6 6.6.9-4.8 4.6 1.2 6.5L12 17.4l-5.9 3.1 1.2-6.5-4.8-4.6 6.6-.9z" fill="#ffd24a" stroke="#7a4a00" stroke-width="1.1" stroke-linejoin="round"/>`],
];
const DRAWINGS = new Map(EMOTES);
const SHOWN_MS = 3500;
/** The reactions shown lately (seat, emote and time): one's own shows from the answer to
 * sending it, and again from the stream, once only. */
const shown = new Set();

/** The drawing of `emote`, as an <svg> (hidden from readers: its name is said). */
export function emoteSvg(emote) {
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('focusable', 'false');
  svg.innerHTML = DRAWINGS.get(emote);
  return svg;
}

/** Show `reaction` ({seat, emote}) by its seat's box (yours too), not over its name. */
export function showReaction(view, reaction) {
  if (!DRAWINGS.has(reaction.emote) || !view.seats[reaction.seat]) return;
  const once = `${reaction.seat} ${reaction.emote} ${reaction.at}`;
  if (shown.has(once)) return;
  shown.add(once);
  setTimeout(() => shown.delete(once), 4 * SHOWN_MS);
  const layer = $('#bubbles');
  const seatBox = $(`.seat[data-seat="${reaction.seat}"]`);
  const rect = seatBox?.getBoundingClientRect();
  const name = seatName(view, reaction.seat);
  const bubble = h(
    'div',
    { class: 'bubble', role: 'status', dataset: { seat: reaction.seat, emote: reaction.emote } },
    h('span', { class: 'bubble-glyph' }, emoteSvg(reaction.emote)),
    h('span', { class: 'bubble-text' }, t('reacted', { name, emote: t(`emote_${reaction.emote}`) })),
  );
  layer.append(bubble);
  if (rect && (rect.width || rect.height)) {
    // Beside the seat's box, never over its name: above it, or below where there is no
    // room above.
    const { width, height } = bubble.getBoundingClientRect();
    const above = rect.top - height - 4;
    bubble.style.left = `${Math.max(4, Math.min(window.innerWidth - width - 4, rect.left))}px`;
    bubble.style.top = `${above >= 4 ? above : Math.min(rect.bottom + 4, window.innerHeight - height - 4)}px`;
  }
  setTimeout(() => bubble.remove(), SHOWN_MS);
}

/** The reactions opened (the first one focused) or closed (`refocus`: the focus back on
 * the button that opens them). */
export function showReactions(open, refocus = false) {
  const box = $('#reactions');
  if (box.hidden === !open) return;
  box.hidden = !open;
  $('#react').setAttribute('aria-expanded', String(open));
  if (open) box.querySelector('button')?.focus();
  else if (refocus) $('#react').focus();
}

/** The reactions: one button an emote, its drawing shown, its name read. */
export function fillEmotes() {
  fill(
    $('#reactions'),
    EMOTES.map(([emote]) =>
      h('button', { type: 'button', class: 'emote', dataset: { emote, i18nLabel: `emote_${emote}`, i18nTitle: `emote_${emote}` } }, emoteSvg(emote)),
    ),
  );
}
