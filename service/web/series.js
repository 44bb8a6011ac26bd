// A series of matches: a rematch follows a finished match (its view's `previous` names
// it), and the view's `series` counts the matches of the series that are over and how
// many each team won, so the table and the final score sheet tally them on every device.

import { h } from './dom.js';
import { sideLabel } from './scores.js';
import { t } from './strings.js';

/** The matches each team won in the series `view` is part of, up to it (it too once
 * finished): an array by team, or null when it is no rematch. */
export function tally(view) {
  if (!view?.previous || !view.series) return null;
  return view.series.wins;
}

/** "Series: Ann 2 – Bruno 1" (its nodes, in one flat list): each side named as the score
 * sheet names it. */
export function seriesLine(view, wins) {
  const sides = view.teams.map((team, i) => [i ? ' – ' : '', sideLabel(view, team.team), ' ', h('strong', {}, wins[team.team])]);
  return [`${t('series')} `, sides].flat(3);
}
