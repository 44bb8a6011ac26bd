// The screens before a match: the new-game form sent, the join form a share link opens.

import { ApiError, api } from './api.js';
import { $, fill, h } from './dom.js';
import { openGame } from './game.js';
import { creation, seatList } from './lobby.js';
import { variantName } from './names.js';
import { page, screen, showError } from './page.js';
import * as saved from './saved.js';
import { t } from './strings.js';

export async function showJoin(id, code) {
  screen('join');
  const form = $('#join-form');
  form.dataset.game = id;
  form.dataset.code = code;
  form.elements.name.value = saved.prefs().name ?? '';
  form.querySelector('button').disabled = false;
  fill($('#join-seats'));
  fill($('#join-game'));
  try {
    const view = await api.invitation(id, code);
    await page.ready;
    fill($('#join-game'), joinedGame(view));
    fill($('#join-seats'), h('span', {}, t('seatsNow')), h('ul', {}, seatList(view, null)));
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) showError(new Error(t('gameGone')));
    else if (error instanceof ApiError && error.status === 409) {
      showError(new Error(t('alreadyStarted')));
      form.querySelector('button').disabled = true;
    } else showError(error);
  }
}

/** What a join link leads to: the game, how many play, the target, the clock. */
function joinedGame(view) {
  const variant = page.variants.find((v) => v.name === view.variant);
  return [
    variantName(view.variant, variant?.title),
    `${t('players')}: ${view.seats.length}`,
    t('toTarget', { n: view.target }),
    view.clock ? `${t('clock')}: ${t('seconds', { n: view.clock.seconds })}` : t('clockOff'),
  ].join(' · ');
}

export async function join(form) {
  const { game, code } = form.dataset;
  const name = form.elements.name.value.trim();
  saved.savePrefs({ name });
  try {
    const joined = await api.join(game, name, code);
    saved.keepSeat(game, { token: joined.token, seat: joined.seat });
    openGame(game, { token: joined.token, seat: joined.seat });
  } catch (error) {
    if (error instanceof ApiError && error.status === 403) showError(new Error(t('wrongCode')));
    else if (error instanceof ApiError && error.status === 409) showError(new Error(t('noSeat')));
    else showError(error);
  }
}

export async function start(form) {
  const body = creation(form.elements, page.variants);
  saved.savePrefs({ name: body.seats[0].name });
  const button = form.querySelector('[type=submit]');
  button.disabled = true;
  try {
    const created = await api.create(body);
    const mine = { token: created.seats[0].token, seat: 0, code: created.join?.code ?? null };
    saved.keepSeat(created.id, mine);
    openGame(created.id, mine);
  } catch (error) {
    showError(error);
  } finally {
    button.disabled = false;
  }
}
