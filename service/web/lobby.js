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
  ruleOptions(variant);
  seatsChanged(form);
  form.target.min = variant.min_target;
  form.target.max = variant.max_target;
  if (resetTarget || !form.target.value) form.target.value = variant.default_target;
}

/** The variant's rule options (GET /v1/variants' `options`), each at its default: a
 * box to tick, a list to choose from, or a number. Named in the page's words where it
 * has them, else in the service's description. The choices made are kept across
 * variants that share an option. */
function ruleOptions(variant) {
  const box = $('#rule-options');
  const kept = Object.fromEntries(
    [...box.querySelectorAll('[data-rule]')].map((el) => [el.dataset.rule, ruleValue(el)]),
  );
  const named = (key, fallback) => (t(key) === key ? fallback : t(key));
  const field = (option) => {
    const value = kept[option.name] ?? option.default;
    const data = { rule: option.name, type: option.type };
    const label = named(`rule_${option.name}`, option.description);
    if (option.type === 'boolean') {
      return h('label', { class: 'rule tick' }, h('input', { type: 'checkbox', checked: Boolean(value), dataset: data }), h('span', {}, label));
    }
    const input = option.type === 'string'
      ? h('select', { dataset: data }, (option.choices ?? []).map((choice) =>
        h('option', { value: choice, selected: choice === value }, named(`rule_${option.name}_${choice}`, choice))))
      : h('input', { type: 'number', min: option.minimum, max: option.maximum, value, dataset: data });
    return h('label', { class: 'rule' }, h('span', {}, label), ' ', input);
  };
  fill(box, (variant.options ?? []).map(field));
  $('#club-rules').hidden = !(variant.options ?? []).length;
}

function ruleValue(el) {
  if (el.dataset.type === 'boolean') return el.checked;
  if (el.dataset.type === 'integer') return Number(el.value);
  return el.value;
}

/** The rule options chosen that differ from their defaults (POST /v1/games' `rules`). */
function chosenRules(variant) {
  const rules = {};
  for (const option of variant?.options ?? []) {
    const el = $(`#rule-options [data-rule="${option.name}"]`);
    if (el && ruleValue(el) !== option.default) rules[option.name] = ruleValue(el);
  }
  return rules;
}

/** With friends, how many of the other seats computer players take (none to all but
 * one: a friend's seat at least). */
export function seatsChanged(form) {
  const most = Math.max(0, Number(form.players.value) - 2);
  const bots = Math.min(Number(form.bots.value) || 0, most);
  fill(form.bots, Array.from({ length: most + 1 }, (_, n) => h('option', { value: n, selected: n === bots }, n)));
  againstChanged(form);
}

export function againstChanged(form) {
  const friends = form.against.value !== 'computer';
  $('#bots-field').hidden = !friends || Number(form.players.value) < 3;
  $('#level-field').hidden = friends && !(Number(form.bots.value) > 0);
}

/** Which of the other seats computer players take at a table with friends: the seats
 * across from yours (your side's) go to friends first, the others to the computer. */
function botSeats(players, bots) {
  const others = Array.from({ length: players - 1 }, (_, i) => i + 1);
  const theirs = others.filter((seat) => seat % 2 === 1); // the other side (4 and 6 players)
  const ours = others.filter((seat) => seat % 2 === 0);
  const order = players % 2 === 0 ? [...theirs.reverse(), ...ours.reverse()] : others.reverse();
  return new Set(order.slice(0, bots));
}

/** The body of POST /v1/games the form asks for (`variants`: GET /v1/variants'). */
export function creation(form, variants = []) {
  const name = form.name.value.trim();
  const players = Number(form.players.value);
  const computers = form.against.value === 'computer';
  const taken = computers ? null : botSeats(players, Number(form.bots.value) || 0);
  const others = Array.from({ length: players - 1 }, (_, i) =>
    computers || taken.has(i + 1) ? { name: '', bot: form.level.value } : { open: true },
  );
  const label = t('computerBadge').replace(/^./, (c) => c.toUpperCase());
  const several = others.filter((seat) => seat.bot).length > 1;
  let bots = 0;
  for (const seat of others) {
    if (seat.bot) seat.name = several ? `${label} ${++bots}` : label;
  }
  const body = {
    variant: form.variant.value,
    seats: [{ name }, ...others],
    target: Number(form.target.value),
  };
  if (form.clock.value) body.clock = Number(form.clock.value);
  const rules = chosenRules(variants.find((v) => v.name === form.variant.value));
  if (Object.keys(rules).length) body.rules = rules;
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

/** A room code as people read it out: in groups of four ("K7QX 2MPA 9R"). */
export function groupCode(code) {
  return (code.match(/.{1,4}/g) ?? []).join(' ');
}

/** A room's link, short enough to read out or type: the page and the room code. */
export function roomLink(code) {
  return `${location.origin}/play?${new URLSearchParams({ room: code })}`;
}

/** The waiting room. Its creator (`given`: the room code it was given) shows the room
 * code, large, and its link to share: the code of now (the view's `join`, after a
 * rotation too). */
export function renderLobby(view, you, given) {
  fill($('#lobby-seats'), seatList(view, you));
  const open = view.seats.filter((seat) => seat.open).length;
  fill($('#lobby-waiting'), open ? t('waitingMore', { n: open }) : '');
  const code = given ? (view.join?.code ?? given) : null;
  $('#share').hidden = !code;
  if (!code) return;
  $('#share-link').value = roomLink(code);
  fill($('#room-code'), groupCode(code));
}
