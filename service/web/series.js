// A series of matches: a rematch follows a finished match (its view's `previous` names
// it), and the page keeps who won each match it saw end (saved.js), so the table and the
// final score sheet tally the matches each side has won so far, across reloads.

import { h } from './dom.js';
import * as saved from './saved.js';
import { sideLabel } from './scores.js';
import { t } from './strings.js';

/** The match `view` (game `id`) seen finished: its winner kept for its series. */
export function keepResult(id, view) {
  if (view?.status !== 'finished' || view.winner === null || view.winner === undefined) return;
  saved.keepResult(id, { winner: view.winner, previous: view.previous ?? null });
}

/** The matches each team won in the series game `id` is part of, up to it (it too once
 * finished): an array by team, or null when it is no rematch of a match seen to its end. */
export function tally(id, view) {
  if (!view?.previous) return null;
  const results = saved.results();
  if (!results[view.previous]) return null;
  const wins = view.teams.map(() => 0);
  const seen = new Set();
  let at = view.status === 'finished' ? { winner: view.winner, previous: view.previous } : results[view.previous];
  let key = view.status === 'finished' ? id : view.previous;
  while (at && !seen.has(key)) {
    seen.add(key);
    if (wins[at.winner] !== undefined) wins[at.winner] += 1;
    key = at.previous;
    at = key ? results[key] : null;
  }
  return wins;
}

/** "Series: Ann 2 – Bruno 1" (its nodes, in one flat list): each side named as the score
 * sheet names it. */
export function seriesLine(view, wins) {
  const sides = view.teams.map((team, i) => [i ? ' – ' : '', sideLabel(view, team.team), ' ', h('strong', {}, wins[team.team])]);
  return [`${t('series')} `, sides].flat(3);
}
