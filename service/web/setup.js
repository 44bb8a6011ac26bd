// The screens before a match: the new-game form sent, the join form a share link (or a
// room code typed on the home screen) opens, and the room code shared from the waiting room.

import { ApiError, api } from './api.js';
import { $, fill, h } from './dom.js';
import { newGame, openGame } from './game.js';
import { creation, groupCode, seatList } from './lobby.js';
import { variantName } from './names.js';
import { page, screen, showError } from './page.js';
import * as saved from './saved.js';
import { t } from './strings.js';

/** The join form of the game `id`, for its join `code`; `found`: its invitation, read
 * already (a room code typed), else read here. */
export async function showJoin(id, code, found = null) {
  screen('join');
  const form = $('#join-form');
  form.dataset.game = id;
  form.dataset.code = code;
  form.elements.name.value = saved.prefs().name ?? '';
  form.querySelector('button').disabled = false;
  fill($('#join-seats'));
  fill($('#join-game'));
  try {
    const view = found ?? (await api.invitation(id, code));
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

/** What a join link leads to: the game, how many play and how many seats are open, the
 * target, the clock. */
function joinedGame(view) {
  const variant = page.variants.find((v) => v.name === view.variant);
  const open = view.seats.filter((seat) => seat.open).length;
  return [
    variantName(view.variant, variant?.title),
    `${t('players')}: ${view.seats.length}`,
    t('openSeatsCount', { n: open }),
    t('toTarget', { n: view.target }),
    view.clock ? `${t('clock')}: ${t('seconds', { n: view.clock.seconds })}` : t('clockOff'),
  ].join(' · ');
}

/** The room code as typed: its spaces and dashes left out, in capitals. */
const typedCode = (text) => text.replace(/[\s-]+/g, '').toUpperCase();

/** Say what is wrong with the room code typed (null: nothing), by its field. */
export function codeError(text) {
  const input = $('#code-form').elements.code;
  fill($('#code-error'), text ?? '');
  if (text) input.setAttribute('aria-invalid', 'true');
  else input.removeAttribute('aria-invalid');
}

/** The game waiting with room code `code` found (GET /v1/invitations/{code}) and its join
 * form opened (its table, if this browser holds a seat there); false if no game waits
 * with that code. */
async function joinRoom(code) {
  let view;
  try {
    view = await api.invitationByCode(code);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return false;
    throw error;
  }
  const seat = saved.seatIn(view.id);
  if (seat) openGame(view.id, seat);
  else {
    history.replaceState(null, '', `/play?${new URLSearchParams({ game: view.id, code })}`);
    await showJoin(view.id, code, view);
  }
  return true;
}

/** The home screen's room code: its game found and its join form opened, or said in
 * words that no game waits with it. */
export async function findByCode(form) {
  const input = form.elements.code;
  const code = typedCode(input.value);
  if (!code) {
    codeError(t('codeMissing'));
    input.focus();
    return;
  }
  const button = form.querySelector('[type=submit]');
  button.disabled = true;
  codeError(null);
  try {
    if (!(await joinRoom(code))) {
      codeError(t('codeUnknown'));
      input.focus();
    }
  } catch (error) {
    showError(error);
  } finally {
    button.disabled = false;
  }
}

/** A room's short link opened (/play?room=CODE): its join form, or the home screen with
 * the code in its field and said not found. */
export async function openRoom(text) {
  const code = typedCode(text);
  try {
    if (await joinRoom(code)) return;
  } catch (error) {
    showError(error);
    return;
  }
  await page.ready; // (the home screen, in words)
  newGame();
  const input = $('#code-form').elements.code;
  input.value = groupCode(code);
  codeError(t('codeUnknown'));
  input.focus();
}

/** The waiting room's Share: the phone's share sheet where there is one, else the link
 * copied (and said so), else the link selected to copy by hand. */
export async function shareRoom() {
  const link = $('#share-link');
  const said = $('#share-said');
  fill(said);
  const code = groupCode(new URL(link.value).searchParams.get('room') ?? '');
  if (navigator.share) {
    try {
      await navigator.share({ title: t('shareTitle'), text: t('shareText', { code }), url: link.value });
      return;
    } catch (error) {
      if (error?.name === 'AbortError') return; // the person closed the sheet
    }
  }
  try {
    await navigator.clipboard.writeText(link.value);
    fill(said, t('linkCopied'));
  } catch {
    link.select(); // no clipboard here: the link is selected, ready to copy by hand
  }
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
