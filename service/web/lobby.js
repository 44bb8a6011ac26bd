// Before a match: the new-game form (computer players or friends, variant, players,
// target, turn clock), the join form a share link opens, and the waiting room.

import { $, fill, h } from './dom.js';
import { variantName } from './names.js';
import { t } from './strings.js';

export const LEVELS = ['random', 'greedy', 'apprentice', 'expert'];
export const CLOCKS = [15, 30, 60, 120];

/** Fill the new-game form's choices (variants from GET /v1/variants), keeping its values. */
export function fillSetup(form, variants) {
  const chosen = form.variant.value || 'scopa';
  fill(
    form.variant,
    variants.map((v) => h('option', { value: v.name, selected: v.name === chosen }, variantName(v.name, v.title))),
  );
  const level = form.level.value || 'greedy';
  fill(form.level, LEVELS.map((name) => h('option', { value: name, selected: name === level }, t(`level_${name}`))));
  const clock = form.clock.value;
  fill(
    form.clock,
    h('option', { value: '' }, t('clockOff')),
    CLOCKS.map((n) => h('option', { value: n, selected: String(n) === clock }, t('seconds', { n }))),
  );
  variantChanged(form, variants, false);
  againstChanged(form);
}

/** The players and the target a variant allows. */
export function variantChanged(form, variants, resetTarget = true) {
  const variant = variants.find((v) => v.name === form.variant.value);
  if (!variant) return;
  const players = Number(form.players.value) || variant.players[0];
  fill(
    form.players,
    variant.players.map((n) => h('option', { value: n, selected: n === players }, n)),
  );
  form.target.min = variant.min_target;
  form.target.max = variant.max_target;
  if (resetTarget || !form.target.value) form.target.value = variant.default_target;
}

export function againstChanged(form) {
  $('#level-field').hidden = form.against.value !== 'computer';
}

/** The body of POST /v1/games the form asks for. */
export function creation(form) {
  const name = form.name.value.trim();
  const players = Number(form.players.value);
  const others = Array.from({ length: players - 1 }, () =>
    form.against.value === 'computer' ? { name: '', bot: form.level.value } : { open: true },
  );
  const label = t('computerBadge').replace(/^./, (c) => c.toUpperCase());
  let bots = 0;
  for (const seat of others) {
    if (seat.bot) seat.name = others.length > 1 ? `${label} ${++bots}` : label;
  }
  const body = {
    variant: form.variant.value,
    seats: [{ name }, ...others],
    target: Number(form.target.value),
  };
  if (form.clock.value) body.clock = Number(form.clock.value);
  return body;
}

/** The seats of a waiting game: who sits, which are open. */
export function seatList(view, you) {
  return view.seats.map((seat) =>
    h(
      'li',
      { class: seat.open ? 'open' : 'taken', dataset: { seat: seat.seat } },
      seat.open ? t('openSeat') : seat.name,
      seat.seat === you ? ` (${t('you')})` : null,
      seat.bot ? ` · ${t('computerBadge')}` : null,
    ),
  );
}

export function renderLobby(view, you, shareUrl) {
  fill($('#lobby-seats'), seatList(view, you));
  const open = view.seats.filter((seat) => seat.open).length;
  fill($('#lobby-waiting'), open ? t('waitingMore', { n: open }) : '');
  $('#share').hidden = !shareUrl;
  if (shareUrl) $('#share-link').value = shareUrl;
}
