// Quick reactions between the seats of a game: a fixed set of emotes (no free text), sent
// with POST /v1/games/{id}/reactions and seen by every viewer as the stream's `reaction`
// events; shown for a moment by the sender's seat.

import { $, fill, h } from './dom.js';
import { seatName } from './events.js';
import { t } from './strings.js';

/** The emotes the service takes, in the order the page shows them, each with its glyph. */
export const EMOTES = [
  ['applause', '👏'],
  ['laugh', '😂'],
  ['wow', '😮'],
  ['oops', '😬'],
  ['thinking', '🤔'],
  ['sad', '😢'],
  ['hurry', '⏳'],
  ['gg', '🤝'],
];
const GLYPHS = new Map(EMOTES);
const SHOWN_MS = 3500;

/** Show `reaction` ({seat, emote}) by its seat's box (yours: by your name). */
export function showReaction(view, reaction) {
  const glyph = GLYPHS.get(reaction.emote);
  if (!glyph || !view.seats[reaction.seat]) return;
  const layer = $('#bubbles');
  const seatBox = $(`.seat[data-seat="${reaction.seat}"]`);
  const rect = seatBox?.getBoundingClientRect();
  const name = seatName(view, reaction.seat);
  const bubble = h(
    'div',
    { class: 'bubble', role: 'status', dataset: { seat: reaction.seat, emote: reaction.emote } },
    h('span', { class: 'bubble-glyph', 'aria-hidden': 'true' }, glyph),
    h('span', { class: 'bubble-text' }, t('reacted', { name, emote: t(`emote_${reaction.emote}`) })),
  );
  if (rect && (rect.width || rect.height)) {
    bubble.style.left = `${Math.max(4, Math.min(window.innerWidth - 180, rect.left + 8))}px`;
    bubble.style.top = `${Math.max(4, rect.top - 8)}px`;
  }
  layer.append(bubble);
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

/** The reactions: one button an emote, its glyph shown, its name read. */
export function fillEmotes() {
  fill(
    $('#reactions'),
    EMOTES.map(([emote, glyph]) =>
      h('button', { type: 'button', class: 'emote', dataset: { emote, i18nLabel: `emote_${emote}`, i18nTitle: `emote_${emote}` } }, h('span', { 'aria-hidden': 'true' }, glyph)),
    ),
  );
}
