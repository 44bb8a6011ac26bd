// A tournament, read-only and live (/play?tournament=<id>): its name and progress, its
// standings and every round's pairings (the current round first and open), each table's
// result, and a link to watch each game being played (/play?game=<id>&watch=1).
//
// GET /v1/tournaments/{id} (a public tournament needs no credential) is polled every few
// seconds with If-None-Match: a 304 changes nothing. A failure that may pass is asked
// again later and later (Retry-After when the service says it), up to 30 s; a 404 (no
// such tournament, or not public) stops it, and so does the end of the tournament. What
// changed since the last answer (results in, a round started, the end) is said in one
// sentence in a polite live region: the tables are drawn again, never read out again.

import { api, gone, transient } from './api.js';
import { $, fill, h } from './dom.js';
import { variantName } from './names.js';
import { page, screen, showError } from './page.js';
import { language, t } from './strings.js';

const POLL_MS = 3000;
const MOST_MS = 30000;
const OVER = ['finished', 'cancelled'];
const SAID_ONE_BY_ONE = 3; // more results at once are counted, not listed

/** Follow the tournament `id` (the page's only screen while it does). */
export function openTournament(id) {
  page.tournament?.close();
  screen('loading');
  page.tournament = new Tournament(id);
}

class Tournament {
  constructor(id) {
    this.id = id;
    this.view = null;
    this.etag = null;
    this.timer = null;
    this.closed = false;
    this.failing = false;
    this.delay = POLL_MS;
    this.told = null; // the last sentence said (a function: said again in another language)
    this.opened = new Map(); // round -> open, as the reader left it (else the current one)
    this.online = () => this.poke();
    window.addEventListener('online', this.online);
    this.poll();
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    window.removeEventListener('online', this.online);
  }

  over() {
    return OVER.includes(this.view?.status);
  }

  /** Ask now (the browser is back online), the back-off forgotten. */
  poke() {
    if (this.closed || this.over()) return;
    clearTimeout(this.timer);
    this.delay = POLL_MS;
    this.timer = setTimeout(() => this.poll(), 0);
  }

  async poll() {
    let next = POLL_MS;
    try {
      const answer = await api.tournament(this.id, this.etag);
      if (this.closed) return;
      if (this.failing) showError(null);
      this.failing = false;
      this.delay = POLL_MS;
      if (answer.status !== 304) {
        this.etag = answer.etag;
        this.adopt(answer.body);
      }
    } catch (error) {
      if (this.closed) return;
      if (gone(error)) {
        this.close();
        screen('setup');
        showError(new Error(t('tournamentGone')));
        return;
      }
      this.failing = true;
      if (!transient(error)) showError(error);
      next = error.retryAfter != null ? Math.min(error.retryAfter * 1000, MOST_MS) : this.delay;
      this.delay = Math.min(this.delay * 2, MOST_MS);
    }
    this.showMode();
    clearTimeout(this.timer);
    if (!this.over()) this.timer = setTimeout(() => this.poll(), next);
  }

  /** A new version of the tournament: drawn, and what changed said. */
  adopt(view) {
    const before = this.view;
    this.view = view;
    const news = before ? changes(before, view) : [];
    if (news.length) this.told = () => news.map((say) => say()).join(' ');
    this.draw();
    if (news.length) fill($('#tournament-news'), this.told());
  }

  showMode() {
    const el = $('#tournament-mode');
    const mode = this.over() ? null : this.failing ? 'reconnecting' : 'live';
    if (mode) el.dataset.mode = mode;
    else delete el.dataset.mode;
    fill(el, mode ? t(mode) : null);
  }

  /** Draw it all (again: on each version, and in another language). */
  draw() {
    const view = this.view;
    if (!view || this.closed || !page.speaking) return; // drawn when the words come
    screen('tournament');
    document.title = `${view.name} · Scopa`;
    const section = $('#tournament');
    section.dataset.status = view.status;
    section.dataset.round = view.round;
    fill($('#tournament-name'), view.name);
    fill($('#tournament-facts'), facts(view).map((text) => h('li', {}, text)));
    fill($('#standings tbody'), view.standings.map((line) => standing(line)));
    const focused = document.activeElement?.dataset?.key; // kept where it was
    const names = new Map(view.entrants.map((e) => [e.number, e.name]));
    const rounds = [...view.pairings].reverse().map((round) => this.round(round, names));
    fill($('#rounds'), rounds);
    if (focused) $(`#rounds [data-key="${focused}"]`)?.focus();
    this.showMode();
  }

  /** Drawn again in another language, the last news said again in it. */
  redraw() {
    this.draw();
    if (this.told && this.view) fill($('#tournament-news'), this.told());
  }

  /** A round's pairings: a disclosure, open for the current round (or as the reader left
   * it), its table scrolling sideways in its own box on a narrow screen. */
  round(round, names) {
    const title = t('roundN', { n: round.round });
    const open = this.opened.get(round.round) ?? round.round === this.view.round;
    const state = h('span', { class: 'round-state' }, roundState(round));
    const summary = h('summary', { dataset: { key: `round-${round.round}` } }, title, ' ', state);
    const columns = ['colTable', 'colFirst', 'colSecond', 'colResult', 'colGame'];
    const table = h(
      'table',
      { class: 'pairings' },
      h('caption', { class: 'visually-hidden' }, title),
      h('thead', {}, h('tr', {}, columns.map((key) => h('th', { scope: 'col' }, t(key))))),
      h('tbody', {}, round.tables.map((one) => pairing(round, one, names))),
    );
    const box = { class: 'scroll', role: 'region', tabindex: 0, 'aria-label': title, dataset: { key: `pairs-${round.round}` } };
    const details = h('details', { class: 'round', open, dataset: { round: round.round } }, summary, h('div', box, table));
    summary.addEventListener('click', () => this.opened.set(round.round, !details.open));
    return details;
  }
}

// -- what is shown --------------------------------------------------------------------

function number(value) {
  return new Intl.NumberFormat(language(), { maximumFractionDigits: 2 }).format(value);
}

function time(at) {
  return new Intl.DateTimeFormat(language(), { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(at));
}

function facts(view) {
  const shown = [t(`format_${view.format}`), variantName(view.variant)];
  if (view.players_per_side === 2) shown.push(t('pairsOfTwo'));
  if (view.round > 0) shown.push(t('roundOf', { n: view.round, of: view.rounds }));
  shown.push(t(`tournament_${view.status}`));
  return shown;
}

function standing(line) {
  const name = [h('span', { class: 'name' }, line.name)];
  if (line.withdrawn) name.push(' ', h('span', { class: 'tag' }, t('withdrawn')));
  return h(
    'tr',
    { class: line.withdrawn ? 'withdrawn' : null, dataset: { entrant: line.entrant } },
    h('td', {}, line.rank),
    h('th', { scope: 'row' }, name),
    h('td', {}, number(line.points)),
    h('td', {}, number(line.buchholz)),
    h('td', {}, number(line.sonneborn_berger)),
    h('td', {}, number(line.game_points)),
    h('td', {}, number(line.scopas)),
    h('td', {}, `${number(line.wins)}–${number(line.losses)}`),
  );
}

function roundState(round) {
  if (round.finished_at) return t('roundFinished');
  const start = round.start_at ? Date.parse(round.start_at) : 0;
  if (start > Date.now()) return t('roundStartsAt', { time: time(start) });
  return t('roundPlaying');
}

/** A side of a table: its entrant's name, the winner's marked (and said so). */
function side(table, entrant, names) {
  if (entrant === null) return h('td', { class: 'bye' }, t('bye'));
  const won = table.result?.winner === entrant;
  return h(
    'td',
    { class: won ? 'winner' : null, dataset: { entrant } },
    h(won ? 'strong' : 'span', { class: 'name' }, names.get(entrant) ?? `#${entrant}`),
    won ? h('span', { class: 'visually-hidden' }, ` (${t('winner')})`) : null,
  );
}

function result(table) {
  const { result } = table;
  if (!result) return table.game_id ? t('roundPlaying') : '—';
  if (table.second === null) return t('byeResult');
  const points = `${number(result.points[0])}–${number(result.points[1])}`;
  return result.forfeit ? t('forfeit') : points;
}

function pairing(round, table, names) {
  const watch =
    table.game_id && !table.result
      ? h(
          'a',
          {
            class: 'watch',
            href: `/play?${new URLSearchParams({ game: table.game_id, watch: '1' })}`,
            dataset: { key: `watch-${round.round}-${table.table}` },
          },
          t('watch'),
          h('span', { class: 'visually-hidden' }, ` ${t('tableN', { n: table.table })}`),
        )
      : null;
  return h(
    'tr',
    { dataset: { table: table.table, game: table.game_id ?? '' } },
    h('td', {}, table.table),
    side(table, table.first, names),
    side(table, table.second, names),
    h('td', { class: 'outcome' }, result(table)),
    h('td', {}, watch),
  );
}

// -- what changed -----------------------------------------------------------------------

/** The sentences (functions of the words of the moment) that tell what changed. */
function changes(before, after) {
  const news = [];
  const seen = new Map(before.pairings.map((r) => [r.round, r]));
  const names = new Map(after.entrants.map((e) => [e.number, e.name]));
  const results = [];
  for (const round of after.pairings) {
    const old = seen.get(round.round);
    if (!old) {
      news.push(() => t('roundStarted', { n: round.round }));
      continue;
    }
    for (const table of round.tables) {
      const was = old.tables.find((x) => x.table === table.table);
      if (table.result && !was?.result && table.second !== null) results.push([round.round, table]);
    }
  }
  if (results.length > SAID_ONE_BY_ONE) news.unshift(() => t('resultsIn', { n: results.length }));
  else news.unshift(...results.map(([round, table]) => () => told(round, table, names)));
  if (after.status !== before.status && after.status === 'finished') {
    const first = after.standings[0]?.name ?? '';
    news.push(() => t('tournamentWon', { name: first }));
  } else if (after.status !== before.status && after.status === 'cancelled') {
    news.push(() => t('tournament_cancelled'));
  }
  return news;
}

/** A table's result in one sentence: the round, the table, who beat whom and by how much. */
function told(round, table, names) {
  const { winner, points, forfeit } = table.result;
  const loser = winner === table.first ? table.second : table.first;
  const values = { round, table: table.table, winner: names.get(winner), loser: names.get(loser) };
  if (forfeit) return t('resultForfeit', values);
  const [won, lost] = winner === table.first ? points : [...points].reverse();
  return t('resultIn', { ...values, points: `${number(won)}–${number(lost)}` });
}
