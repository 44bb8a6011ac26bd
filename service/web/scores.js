// The score of a hand as a table (a row per scoring category, a column per side), and
// the match so far (a row per hand), from GET /v1/games/{id}/hands or a `hand_over` event.

import { cardSvg } from './cards.js';
import { h } from './dom.js';
import { cardList, categories } from './names.js';
import { t } from './strings.js';

/** A side's name: its seats' names. */
export function sideName(view, team) {
  const seats = view.teams[team]?.seats ?? [];
  return seats.map((seat) => view.seats[seat]?.name ?? `#${seat + 1}`).join(t('and'));
}

/** A side as its column or score says it: "Us" and "Them" where sides are teams and
 * you play (the names for screen readers, and in full on the seats), else the names. */
export function sideLabel(view, team) {
  const you = view.you ?? null;
  const teams = view.teams.length < view.seats.length;
  if (you === null || !teams) return sideName(view, team);
  const ours = view.seats[you]?.team === team;
  return [ours ? t('us') : t('them'), h('span', { class: 'visually-hidden' }, ` (${sideName(view, team)})`)];
}

/** What a side took, shown beside the points of a category. */
function detail(side, category) {
  switch (category) {
    case 'cards':
      return side.cards;
    case 'coins':
      return side.coins;
    case 'settebello':
      return side.settebello ? t('yes') : t('no');
    case 'primiera':
      return side.primiera ?? '–';
    case 'scopas':
      return side.scopas;
    default:
      return null;
  }
}

/** Each card's primiera value (docs/rules.md R7.3): 7 21, 6 18, ace 16, 5 15, 4 14, 3 13,
 * 2 12, figures 10. */
const PRIMIERA = { 7: 21, 6: 18, 1: 16, 5: 15, 4: 14, 3: 13, 2: 12, 8: 10, 9: 10, 10: 10 };

/** The cards behind a side's primiera: its best of each suit, when they add up to the
 * value the service scored (else nothing: a variant counting otherwise). */
export function primieraCards(side) {
  const best = new Map();
  for (const code of side.captured ?? []) {
    const suit = code.slice(-1);
    const value = PRIMIERA[Number.parseInt(code, 10)] ?? 0;
    if (!best.has(suit) || value > PRIMIERA[Number.parseInt(best.get(suit), 10)]) best.set(suit, code);
  }
  const cards = [...best.values()];
  const sum = cards.reduce((total, code) => total + PRIMIERA[Number.parseInt(code, 10)], 0);
  return side.primiera != null && cards.length === 4 && sum === side.primiera ? cards : [];
}

/** A category's cell beyond its points: the primiera's cards, in small (named for
 * screen readers). */
function behind(side, category, faces) {
  if (category !== 'primiera') return null;
  const cards = primieraCards(side);
  if (!cards.length) return null;
  return h(
    'span',
    { class: 'behind' },
    h('span', { class: 'visually-hidden' }, `: ${cardList(cards)}`),
    cards.map((code) => h('span', { class: 'face sheet-face', 'aria-hidden': 'true', dataset: { card: code } }, cardSvg(code, faces))),
  );
}

function head(view, teams, first) {
  return h(
    'thead',
    {},
    h('tr', {}, h('th', { scope: 'col' }, first), teams.map((team) => h('th', { scope: 'col' }, sideLabel(view, team)))),
  );
}

/** The table of one hand's score (`score`: a HandScore). */
export function handTable(view, score, faces = 'italian') {
  const sides = score.teams;
  const teams = sides.map((side) => side.team);
  const rows = [];
  for (const [category, name] of categories()) {
    if (category === 'total') continue;
    if (!sides.some((side) => category in side.points)) continue; // an option not played
    rows.push(
      h(
        'tr',
        { dataset: { category } },
        h('th', { scope: 'row' }, name),
        sides.map((side) => {
          const shown = detail(side, category);
          return h(
            'td',
            {},
            h('strong', {}, side.points[category] ?? 0),
            shown === null ? null : h('small', {}, ` (${shown})`),
            behind(side, category, faces),
          );
        }),
      ),
    );
  }
  const total = categories().find(([category]) => category === 'total')?.[1] ?? 'Total';
  return h(
    'table',
    { class: 'score', dataset: { hand: score.hand } },
    h('caption', {}, t('handScore', { n: score.hand })),
    head(view, teams, t('category')),
    h(
      'tbody',
      {},
      rows,
      h('tr', { class: 'total', dataset: { category: 'total' } }, h('th', { scope: 'row' }, total), sides.map((side) => h('td', {}, h('strong', {}, side.total)))),
      h('tr', { class: 'match', dataset: { category: 'match' } }, h('th', { scope: 'row' }, t('matchTotal')), score.scores.map((points) => h('td', {}, points))),
    ),
  );
}

/** Every finished hand's points, and the match totals after each. */
export function matchTable(view, hands) {
  const teams = view.teams.map((team) => team.team);
  return h(
    'table',
    { class: 'score hands' },
    h('caption', {}, t('allHands')),
    head(view, teams, t('handColumn')),
    h(
      'tbody',
      {},
      hands.map((hand) =>
        h(
          'tr',
          { dataset: { hand: hand.hand } },
          h('th', { scope: 'row' }, hand.hand), // (its column says "Hand": said once)
          hand.teams.map((side, i) => h('td', {}, `+${side.total} → `, h('strong', {}, hand.scores[i]))),
        ),
      ),
    ),
  );
}
