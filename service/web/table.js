// The game screen drawn from a view: the other seats (cards in hand, piles, scopas), the
// table, your hand, the capture choices, the score line and whose turn it is.
//
// `ui` says what the view does not: {faces, legal: Map(card -> [capture, ...]) | null,
// declarations: [{declare, matta_as, points}] (Cirulla: what you may declare first),
// selected: card | null, showing: [cards] | null (a capture being looked at),
// hidden: Set(cards not drawn yet: a card in flight), dealt: Set(cards just dealt),
// armed: card | null (touch: tapped once, shown with what it takes, a second tap plays it),
// sending: bool (our card is on its way: not "your turn" any more), pending: card | null
// (that card, marked in the hand), held: bool (its request waits for the network), scopaCards: Map(seat ->
// [cards that made its scopas this hand, as far as the page saw them]), hinted: card | null,
// series: [matches won, by team] | null (a rematch's series so far)}.

import { backSvg, cardSvg } from './cards.js';
import { $, $$, fill, h } from './dom.js';
import { MATTA, seatName } from './events.js';
import { cardList, cardName } from './names.js';
import { sideLabel } from './scores.js';
import { seriesLine } from './series.js';
import { t } from './strings.js';

const MAX_BACKS = 10;

/** The seats other than yours, in playing order from the one after yours. */
export function otherSeats(view) {
  const n = view.seats.length;
  if (view.you === null || view.you === undefined) return view.seats.map((_, i) => i);
  return Array.from({ length: n - 1 }, (_, i) => (view.you + 1 + i) % n);
}

export function cardFace(code, faces, attrs = {}) {
  return h('span', { class: 'face', ...attrs }, cardSvg(code, faces));
}

function seatBadges(view, seat) {
  const info = view.seats[seat];
  return [
    info.bot ? h('span', { class: 'badge level' }, t(`level_${info.bot}`).split(' (')[0]) : null,
    view.dealer === seat && view.status !== 'waiting' ? h('span', { class: 'badge dealer' }, t('dealer')) : null,
    partnerOf(view, seat) ? h('span', { class: 'badge partner' }, t('partner')) : null,
  ];
}

/** Whether `seat` plays on your side (4 and 6 players: teams of two or three). */
function partnerOf(view, seat) {
  const you = view.you ?? null;
  if (you === null || seat === you) return false;
  return view.seats[seat].team === view.seats[you].team;
}

/** A seat's pile: its cards face down with their count, each scopa a card turned across
 * (its face when the page saw it made, else its back). */
function pile(view, seat, ui) {
  const info = view.seats[seat];
  const known = ui.scopaCards?.get(seat) ?? [];
  const across = Array.from({ length: info.scopas }, (_, i) => {
    const code = known[i];
    return h('span', { class: 'scopa-card', dataset: code ? { card: code } : {} }, code ? cardSvg(code, ui.faces) : backSvg());
  });
  return h(
    'div',
    { class: 'pile', dataset: { seat, count: info.captured_count, scopas: info.scopas } },
    h(
      'span',
      { class: 'pile-cards', 'aria-hidden': 'true' },
      info.captured_count ? backSvg() : null,
      info.captured_count ? h('span', { class: 'pile-count' }, info.captured_count) : null,
      across,
    ),
    h(
      'span',
      { class: 'pile-text' },
      t('captured', { n: info.captured_count }),
      info.scopas ? h('span', { class: 'scopas' }, ` · ${t('scopaCards', { n: info.scopas })}`) : null,
      info.declared_points
        ? h('span', { class: 'declared-points' }, ` · ${t('declaredPoints', { n: info.declared_points })}`)
        : null,
    ),
  );
}

/** A seat's declared cards, face up until played (Cirulla, C3.4). */
function exposedCards(view, seat, ui) {
  const exposed = view.seats[seat].exposed ?? [];
  if (!exposed.length) return null;
  return h(
    'ul',
    { class: 'exposed', dataset: { seat }, 'aria-label': t('declaredCards', { cards: cardList(exposed) }) },
    exposed.map((code) =>
      h(
        'li',
        { class: ui.hidden?.has(code) ? 'card leaving' : 'card', dataset: { card: code } },
        pictured(view, code, ui),
      ),
    ),
  );
}

/** A card drawn, named for readers (an image with its name). */
function pictured(view, code, ui) {
  return h('span', { class: 'picture', role: 'img', 'aria-label': cardName(code) }, mattaMark(view, code), cardSvg(code, ui.faces));
}

/** The value the 7C keeps (option matta_keeps_value, C5.2), shown on it. */
function mattaMark(view, code) {
  if (code !== MATTA || !view.matta_as) return null;
  return h('span', { class: 'matta', 'aria-hidden': 'true' }, `= ${view.matta_as}`);
}

function seatBox(view, seat, ui, tag = 'li') {
  const info = view.seats[seat];
  const count = info.hand_count;
  const hidden = Math.max(0, count - (info.exposed?.length ?? 0)); // the others are face up
  const turn = view.status === 'playing' && view.turn === seat && !(ui.sending && seat === view.you);
  return h(
    tag,
    { class: `seat${turn ? ' turn' : ''}`, dataset: { seat, team: info.team } },
    h('div', { class: 'seat-name' }, turn ? h('span', { class: 'marker', 'aria-hidden': 'true' }, '▶ ') : null, h('span', { class: 'name' }, info.name ?? '…'), seatBadges(view, seat)),
    h(
      'div',
      { class: 'held' },
      h(
        'div',
        { class: 'backs', dataset: { seat }, role: 'img', 'aria-label': t('cardsInHand', { n: count }) },
        Array.from({ length: Math.min(hidden, MAX_BACKS) }, () => h('span', { class: 'back' }, backSvg())),
      ),
      exposedCards(view, seat, ui),
    ),
    pile(view, seat, ui),
  );
}

/** The match's line: the hand and the deck while it is played (not at its end: the score
 * sheet names the last hand), the target, the scores, and a series' tally (series.js). */
function renderInfo(view, series) {
  const info = $('#info');
  const playing = view.status === 'playing';
  fill(
    info,
    playing ? h('span', {}, t('handNumber', { n: view.hand_number })) : null,
    playing ? h('span', {}, t('stock', { n: view.stock_count })) : null,
    h('span', {}, t('toTarget', { n: view.target })),
    // A seed or a set deck: its creator can know the deals (the API says `seeded`).
    view.seeded ? h('span', { class: 'badge seeded', title: t('seededHint') }, t('seeded')) : null,
    h(
      'ul',
      { class: 'scoreline' },
      view.teams.map((team) =>
        h('li', { dataset: { team: team.team } }, h('strong', {}, team.score), ' ', sideLabel(view, team.team)),
      ),
    ),
    series ? h('span', { class: 'series' }, seriesLine(view, series)) : null,
  );
}

function renderSeats(view, ui) {
  const opponents = $('#opponents');
  fill(opponents, otherSeats(view).map((seat) => seatBox(view, seat, ui)));
  const me = $('#me');
  const seated = view.you !== null && view.you !== undefined;
  // Seated, the others are drawn around you as the game goes (docs/rules.md R2.4: the next
  // seat on your right), a partner across: read in playing order, drawn right to left.
  opponents.dataset.around = String(seated);
  opponents.dataset.count = String(opponents.children.length);
  if (!seated) {
    fill(me);
    return;
  }
  const box = seatBox(view, view.you, ui, 'div');
  box.querySelector('.held').remove(); // your cards are shown below, the declared marked
  fill(me, ...box.childNodes);
  me.className = box.className;
  Object.assign(me.dataset, box.dataset);
}

function renderTurn(view, ui) {
  const el = $('#turn');
  const mine = view.turn === view.you && view.status === 'playing' && !ui.sending;
  el.classList.toggle('mine', mine);
  const pending = ui.pending && view.turn === view.you && view.status === 'playing';
  el.classList.toggle('pending', Boolean(pending));
  if (pending) fill(el, t(ui.held ? 'pending' : 'sendingCard', { card: cardName(ui.pending) }));
  else if (view.status !== 'playing' || view.turn === null || (view.turn === view.you && !mine)) fill(el);
  else if (ui.armed && mine) fill(el, t('tapAgain', { card: cardName(ui.armed) }));
  else if (mine) fill(el, t('yourTurn'));
  else fill(el, t('turnOf', { name: seatName(view, view.turn) }));
}

function renderTable(view, ui) {
  const takeable = new Set();
  const chosen = ui.selected ?? ui.armed;
  if (chosen && ui.legal?.has(chosen)) {
    for (const capture of ui.legal.get(chosen)) capture.forEach((c) => takeable.add(c));
  }
  const showing = new Set(ui.showing ?? []);
  const cards = view.table.map((code) => {
    const classes = ['card'];
    if (takeable.has(code)) classes.push('takeable');
    if (showing.has(code)) classes.push('showing');
    if (ui.hidden?.has(code)) classes.push('arriving');
    if (ui.dealt?.has(code)) classes.push('dealt');
    return h('li', { class: classes.join(' '), dataset: { card: code } }, pictured(view, code, ui));
  });
  const table = $('#table');
  table.dataset.count = cards.length;
  fill(table, cards.length ? cards : h('li', { class: 'empty' }, t('emptyTable')));
}

/** The moves since your last one (`ui.recent`; the view's last move when the page has
 * seen no more), oldest first: who played which card, and what it took. The box says
 * the latest (its `data-card`); each line says its own, in words for screen readers. */
function renderLastMove(view, ui) {
  const box = $('#last-move');
  const last = view.last_move;
  if (!last || view.status === 'waiting') {
    box.hidden = true;
    fill(box);
    return;
  }
  const seen = ui.recent?.length && ui.recent[ui.recent.length - 1].card === last.card ? ui.recent : [last];
  const faces = (codes) => codes.map((code) => cardFace(code, ui.faces, { class: 'face recent-face', dataset: { card: code } }));
  box.hidden = false;
  box.dataset.seat = last.seat;
  box.dataset.card = last.card;
  box.dataset.capture = last.capture.join(' ');
  box.dataset.count = seen.length;
  box.classList.toggle('scopa', Boolean(last.scopa));
  const line = (move) => {
    const name = seatName(view, move.seat);
    const sentence = move.capture.length
      ? t('playedTook', { name, card: cardName(move.card), cards: cardList(move.capture) })
      : t('played', { name, card: cardName(move.card) });
    return h(
      'li',
      {
        class: move.scopa ? 'recent scopa' : 'recent',
        dataset: { seat: move.seat, card: move.card, capture: move.capture.join(' ') },
      },
      h('span', { class: 'visually-hidden' }, `${sentence}${move.scopa ? ` ${t('scopa')}` : ''}`),
      h('span', { class: 'last-who', 'aria-hidden': 'true' }, name),
      h(
        'span',
        { class: 'last-pictures', 'aria-hidden': 'true' },
        faces([move.card]),
        move.capture.length ? h('span', { class: 'last-took' }, '→') : null,
        faces(move.capture),
        move.scopa ? h('span', { class: 'badge scopa-badge' }, t('scopa')) : null,
      ),
    );
  };
  fill(box, h('ol', { class: 'recent-moves', 'aria-label': t('recentMoves') }, seen.map(line)));
}

function renderHand(view, ui) {
  const hand = $('#hand');
  const focused = hand.contains(document.activeElement) ? document.activeElement.dataset.card : null;
  const mine = view.status === 'playing' && view.turn === view.you && ui.legal !== null && !ui.sending;
  const codes = view.hand ?? [];
  const current = codes.includes(focused) ? focused : (codes.includes(ui.focus) ? ui.focus : codes[0]);
  const declared = new Set(view.seats[view.you ?? -1]?.exposed ?? []); // Cirulla: face up
  const buttons = codes.map((code) => {
    const playable = mine && ui.legal.has(code);
    const classes = ['card'];
    if (playable) classes.push('playable');
    if (declared.has(code)) classes.push('declared');
    if (ui.hidden?.has(code)) classes.push('leaving');
    if (ui.dealt?.has(code)) classes.push('dealt');
    if (playable && ui.armed === code) classes.push('armed');
    if (playable && ui.hinted === code) classes.push('hinted');
    if (ui.pending === code) classes.push('pending'); // on its way, or waiting to be sent
    return h(
      'button',
      {
        type: 'button',
        class: classes.join(' '),
        'aria-disabled': playable ? 'false' : 'true',
        'aria-pressed': ui.selected === code || (playable && ui.armed === code) ? 'true' : 'false',
        tabindex: code === current ? '0' : '-1',
        title: declared.has(code) ? t('declaredMark') : null,
        dataset: declared.has(code) ? { card: code, mark: t('declaredMark') } : { card: code },
      },
      // Named by its text (not an aria-label unlike what shows: the index on the face).
      h('span', { class: 'visually-hidden' }, declared.has(code) ? `${cardName(code)} (${t('declaredMark')})` : cardName(code)),
      mattaMark(view, code),
      cardSvg(code, ui.faces),
    );
  });
  fill(hand, buttons);
  if (focused && current) hand.querySelector(`[data-card="${current}"]`)?.focus();
}

function renderChoices(view, ui) {
  const box = $('#choices');
  const options = ui.selected ? (ui.legal?.get(ui.selected) ?? []) : [];
  if (options.length < 2) {
    box.hidden = true;
    fill($('#choice-list'));
    return;
  }
  box.hidden = false;
  fill(
    $('#choice-list'),
    options.map((capture, i) =>
      h(
        'button',
        {
          type: 'button',
          class: 'choice',
          tabindex: i === 0 ? '0' : '-1',
          dataset: { capture: capture.join(' ') },
        },
        // Named by its text, as the hand's cards are (a label would hide the faces' index).
        h('span', { class: 'visually-hidden' }, t('take', { cards: cardList(capture) })),
        capture.map((code) => cardFace(code, ui.faces, { class: 'face mini' })),
      ),
    ),
  );
}

export function renderGame(view, ui) {
  renderInfo(view, ui.series);
  renderSeats(view, ui);
  renderTurn(view, ui);
  renderTable(view, ui);
  renderLastMove(view, ui);
  renderHand(view, ui);
  renderChoices(view, ui);
  renderDeclare(view, ui);
}

/** Cirulla: the declarations you may make before you play (C3), one control a kind; when
 * the 7C is among your cards, you say what it counts as (one entry of the legal moves for
 * each value it may take, C3.2). The buttons carry `data-declare`, the menus `name=matta_as`. */
function renderDeclare(view, ui) {
  const box = $('#declare');
  const list = $('#declare-list');
  const mine = view.status === 'playing' && view.turn === view.you && ui.legal !== null;
  const offered = mine ? (ui.declarations ?? []) : [];
  if (!offered.length) {
    box.hidden = true;
    fill(list);
    return;
  }
  const kinds = new Map();
  for (const entry of offered) {
    if (!kinds.has(entry.declare)) kinds.set(entry.declare, []);
    kinds.get(entry.declare).push(entry);
  }
  const rows = [...kinds].map(([kind, entries]) => {
    const values = entries.map((entry) => entry.matta_as).filter((value) => value !== null);
    let menu = null;
    if (values.length === 1) {
      menu = h('span', { class: 'matta-as' }, t('mattaCounts', { card: cardName(MATTA), n: values[0] }));
    } else if (values.length > 1) {
      // Keep what the player chose across redraws; else the highest value (as C3.5 would).
      const before = list.querySelector(`select[data-declare="${kind}"]`)?.value;
      const chosen = values.map(String).includes(before) ? before : String(Math.max(...values));
      menu = h(
        'label',
        { class: 'matta-as' },
        h('span', { class: 'matta-label' }, `${t('mattaAs', { card: cardName(MATTA) })} `),
        h(
          'select',
          { name: 'matta_as', 'aria-label': t('mattaAs', { card: cardName(MATTA) }), dataset: { declare: kind } },
          values.map((value) => h('option', { value, selected: String(value) === chosen }, value)),
        ),
      );
    }
    return h(
      'div',
      { class: 'declaration', dataset: { declare: kind } },
      menu,
      h(
        'button',
        { type: 'button', class: 'primary', dataset: { declare: kind } },
        t(`declare_${kind}`, { n: entries[0].points }),
      ),
    );
  });
  fill(list, rows);
  box.hidden = false;
}

/** Light up the table cards `cards` (what a move would take). Its own mark: a capture
 * being shown (`showing`, while a move is animated) is not wiped by it. */
export function preview(cards) {
  const taking = new Set(cards);
  for (const el of $$('#table .card')) el.classList.toggle('preview', taking.has(el.dataset.card));
}
