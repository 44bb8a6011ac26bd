// The score sheet (a dialog: a hand's score, the scores so far, the match's result, a
// series' tally) and the end of the match on the table's screen.

import { api } from './api.js';
import { $, fill } from './dom.js';
import { abortedText, matchOverText } from './events.js';
import { page, showError } from './page.js';
import { handTable, matchTable, sideName } from './scores.js';
import { seriesLine, tally } from './series.js';
import { t } from './strings.js';

/** On the game screen once the match is over: its result and what next (the score sheet
 * may be closed). An aborted match: why it stopped (the organiser's words, as text). */
export function renderFinal(game) {
  const view = game.view;
  const box = $('#final');
  const aborted = view.status === 'aborted';
  const over = view.status === 'finished' || aborted;
  box.hidden = !over;
  box.dataset.aborted = String(aborted);
  $('#status').hidden = over; // its last words (why the match ended) are the box's
  if (!over) return;
  $('#final-scores').hidden = aborted && view.hand_number < 2;
  if (aborted) {
    fill($('#final-result'), abortedText(view));
    fill($('#final-reason'));
    $('#final-reason').hidden = true;
    $('#final-rematch').hidden = true;
    $('#final-rematch-note').hidden = true;
    return;
  }
  fill($('#final-result'), resultText(view) || t('finalNote'));
  const reason = matchOverText(view, game.over);
  fill($('#final-reason'), reason);
  $('#final-reason').hidden = !reason;
  $('#final-rematch').hidden = view.you === null || view.you === undefined;
  $('#final-rematch-note').hidden = !(view.next && view.you !== null && view.you !== undefined);
}

export function openDialog(game, title, fillBody, { holds = false } = {}) {
  const dialog = $('#scores-dialog');
  const before = page.dialog;
  let release;
  const closed = new Promise((resolve) => {
    release = resolve;
  });
  dialog.dataset.holds = String(holds);
  page.dialog = {
    game,
    holds, // the game's next events wait until it is closed
    closed,
    release() {
      release();
      before?.release?.();
    },
    fill() {
      fill($('#scores-title'), title());
      fillBody();
      const view = game.view;
      const rematch = view.status === 'finished' && view.you !== null;
      $('#rematch').hidden = !rematch;
      $('#rematch-note').hidden = !(rematch && view.next);
      $('#dialog-new-game').hidden = view.status !== 'finished';
      fill($('#close-scores'), view.status === 'finished' ? t('close') : t('continue'));
    },
  };
  page.dialog.fill();
  if (!dialog.open) dialog.showModal();
}

export function closeDialog() {
  const dialog = $('#scores-dialog');
  if (dialog.open) dialog.close();
  page.dialog?.release();
  page.dialog = null;
}

export function showHand(game, score) {
  openDialog(game, () => t('handScore', { n: score.hand }), () => {
    fill($('#result'));
    fill($('#reason'));
    $('#reason').hidden = true;
    fill($('#series'));
    $('#series').hidden = true;
    fill($('#scores-body'), handTable(game.view, score, page.faces));
  }, { holds: true });
}

export async function showScores(game, { result = false } = {}) {
  let hands = [];
  try {
    hands = await api.hands(game.id, game.token, game.stop.signal);
    if (result && !game.over) game.over = await matchOver(game);
  } catch (error) {
    if (game.failed(error)) return;
    showError(error);
  }
  if (game.closed) return;
  game.draw();
  openDialog(game, () => (result ? t('matchOver') : t('scores')), () => {
    const view = game.view;
    if (result) fill($('#result'), resultText(view));
    else fill($('#result'));
    const reason = result ? matchOverText(view, game.over) : '';
    fill($('#reason'), reason);
    $('#reason').hidden = !reason;
    const wins = result ? tally(view) : null;
    fill($('#series'), wins ? seriesLine(view, wins) : null);
    $('#series').hidden = !wins;
    const last = hands[hands.length - 1];
    fill($('#scores-body'), last ? handTable(view, last, page.faces) : null, hands.length > 1 ? matchTable(view, hands) : null);
  });
}

/** The match_over event of a finished match opened afresh: near the end of its log. */
async function matchOver(game) {
  const after = game.seq === null ? null : Math.max(-1, game.seq - 4);
  const log = await api.events(game.id, game.token, after, null).catch(() => ({ events: [] }));
  return log.events.findLast((event) => event.type === 'match_over') ?? null;
}

export function showResult(game) {
  return showScores(game, { result: true });
}

export function resultText(view) {
  if (view.winner === null) return '';
  if (view.you !== null) {
    return view.seats[view.you].team === view.winner ? t('youWon') : t('youLost');
  }
  return t('won', { names: sideName(view, view.winner) });
}
