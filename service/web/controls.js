// The page's controls wired: the menus, the forms, the hand and the capture choices by
// pointer and keyboard (the focus kept where the player is), the reactions.

import { network } from './api.js';
import { $, $$ } from './dom.js';
import { fitCards } from './fit.js';
import { newGame } from './game.js';
import { sayHintAgain } from './hint.js';
import { againstChanged, fillSetup, seatsChanged, variantChanged } from './lobby.js';
import { setSound } from './moments.js';
import { useNames } from './names.js';
import { keepFocus, page, sayAgain, showError, showMode } from './page.js';
import { showReactions } from './reactions.js';
import * as saved from './saved.js';
import { codeError, findByCode, join, shareRoom, start } from './setup.js';
import { closeDialog, showResult, showScores } from './sheet.js';
import { language, loadStrings, setLanguage, translatePage } from './strings.js';
import { preview } from './table.js';

/** The page in the words of its language (and its cards' names, for its faces). */
export async function useWords() {
  const lang = language();
  const read = await Promise.allSettled([loadStrings(lang), useNames(lang, page.faces)]);
  // The page still works: a key is then said in English, a card named by its code.
  for (const failed of read.filter((result) => result.status === 'rejected')) showError(failed.reason);
  if (lang !== language()) return; // another language was chosen meanwhile
  page.speaking = true; // the game may be drawn
  translatePage();
  $('#rules-link').href = `/play/rules?${new URLSearchParams({ lang: language() })}`;
  fillSetup($('#setup-form').elements, page.variants);
  page.game?.refresh();
  page.dialog?.fill();
  sayAgain();
  sayHintAgain();
  showMode();
  page.tournament?.redraw();
}

/** Arrow keys move the focus along a row of buttons (one of them in the tab order). */
function roving(container, event) {
  const buttons = $$('button', container);
  const at = buttons.indexOf(document.activeElement);
  if (at < 0) return false;
  const moves = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };
  let to = null;
  if (event.key in moves) to = (at + moves[event.key] + buttons.length) % buttons.length;
  else if (event.key === 'Home') to = 0;
  else if (event.key === 'End') to = buttons.length - 1;
  if (to === null) return false;
  event.preventDefault();
  buttons.forEach((button, i) => button.setAttribute('tabindex', i === to ? '0' : '-1'));
  buttons[to].focus();
  return true;
}

function previewCard(card) {
  const game = page.game;
  const options = game?.legal?.get(card);
  preview(options && !game.selected ? options.flat() : []);
}

export function wire() {
  const lang = $('#lang');
  const faces = $('#faces');
  lang.addEventListener('change', () => {
    setLanguage(lang.value);
    saved.savePrefs({ lang: lang.value });
    useWords();
  });
  faces.addEventListener('change', () => {
    page.faces = faces.value;
    saved.savePrefs({ faces: faces.value });
    useWords();
  });
  $('#new-game').addEventListener('click', newGame);

  const setup = $('#setup-form');
  setup.addEventListener('submit', (event) => {
    event.preventDefault();
    start(setup);
  });
  setup.elements.variant.addEventListener('change', () => variantChanged(setup.elements, page.variants));
  setup.elements.players.addEventListener('change', () => seatsChanged(setup.elements));
  setup.elements.bots.addEventListener('change', () => againstChanged(setup.elements));
  for (const radio of setup.elements.against) {
    radio.addEventListener('change', () => againstChanged(setup.elements));
  }
  $('#join-form').addEventListener('submit', (event) => {
    event.preventDefault();
    join(event.target);
  });

  const byCode = $('#code-form');
  byCode.addEventListener('submit', (event) => {
    event.preventDefault();
    findByCode(byCode);
  });
  byCode.elements.code.addEventListener('input', () => codeError(null));
  $('#share-button').addEventListener('click', shareRoom);
  $('#leave').addEventListener('click', () => page.game?.leave().catch(showError));

  const hand = $('#hand');
  document.addEventListener('pointerdown', (event) => {
    page.pointer = event.pointerType;
  }, { capture: true });
  hand.addEventListener('click', (event) => {
    const button = event.target.closest('button[data-card]');
    // A click made by a touch (event.detail: not the keyboard's Enter or Space).
    const touch = event.detail > 0 && page.pointer === 'touch';
    if (button) page.game?.choose(button.dataset.card, touch);
  });
  hand.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') page.game?.cancel();
    else roving(hand, event);
  });
  for (const kind of ['pointerover', 'focusin']) {
    hand.addEventListener(kind, (event) => {
      if (event.pointerType === 'touch') return; // a tap shows it (select, then confirm)
      const button = event.target.closest('button[data-card]');
      if (button) previewCard(button.dataset.card);
    });
  }
  hand.addEventListener('pointerleave', () => preview([]));

  const choices = $('#choice-list');
  choices.addEventListener('click', (event) => {
    const button = event.target.closest('button.choice');
    const game = page.game;
    if (button && game?.selected) game.send(game.selected, button.dataset.capture.split(' '));
  });
  choices.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') page.game?.cancel();
    else roving(choices, event);
  });
  for (const kind of ['pointerover', 'focusin']) {
    choices.addEventListener(kind, (event) => {
      const button = event.target.closest('button.choice');
      if (button) preview(button.dataset.capture.split(' '));
    });
  }
  $('#cancel-choice').addEventListener('click', () => page.game?.cancel());

  $('#declare-list').addEventListener('click', (event) => {
    const button = event.target.closest('button[data-declare]');
    const game = page.game;
    if (!button || !game) return;
    const kind = button.dataset.declare;
    const menu = $(`#declare-list select[data-declare="${kind}"]`);
    const entry = game.declarations.find(
      (d) => d.declare === kind && (menu ? String(d.matta_as) === menu.value : true),
    );
    if (entry) game.declare(entry);
  });

  $('#show-scores').addEventListener('click', () => page.game && showScores(page.game));
  $('#final-scores').addEventListener('click', () => page.game && showResult(page.game));
  $('#close-scores').addEventListener('click', closeDialog);
  $('#scores-dialog').addEventListener('close', () => {
    page.dialog?.release();
    page.dialog = null;
    keepFocus();
  });
  document.addEventListener('keydown', (event) => {
    if (!['Shift', 'Control', 'Alt', 'Meta'].includes(event.key)) page.keyboard = true;
  }, true);
  document.addEventListener('pointerdown', () => {
    page.keyboard = false;
  }, true);
  for (const id of ['#rematch', '#final-rematch']) {
    $(id).addEventListener('click', () => page.game?.rematch().catch(showError));
  }
  for (const id of ['#dialog-new-game', '#final-new-game']) $(id).addEventListener('click', newGame);

  $('#hint').addEventListener('click', () => page.game?.hint());
  // The reactions: one button opens them, a reaction sent (a click elsewhere, Escape)
  // closes them.
  $('#react').addEventListener('click', () => showReactions($('#reactions').hidden));
  $('#reactions').addEventListener('click', (event) => {
    const button = event.target.closest('button[data-emote]');
    if (!button) return;
    page.game?.react(button.dataset.emote);
    showReactions(false, true);
  });
  document.addEventListener('click', (event) => {
    if (!$('#reactions').hidden && !event.target.closest('.react-box')) showReactions(false);
  });
  $('.react-box').addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && !$('#reactions').hidden) showReactions(false, true);
  });

  const sound = $('#sound');
  sound.addEventListener('change', () => {
    setSound(sound.checked);
    saved.savePrefs({ sound: sound.checked });
  });
  const oneTap = $('#one-tap');
  oneTap.addEventListener('change', () => {
    page.oneTap = oneTap.checked;
    saved.savePrefs({ oneTap: oneTap.checked });
  });

  // The menu closes as menus do: a click elsewhere, or Escape.
  const menu = $('#menu');
  document.addEventListener('click', (event) => {
    if (menu.open && !menu.contains(event.target)) menu.open = false;
  });
  menu.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && menu.open) {
      menu.open = false;
      menu.querySelector('summary').focus();
    }
  });
  $('#new-game').addEventListener('click', () => {
    menu.open = false;
  });

  network.listeners.add(() => {
    showMode();
    page.game?.refresh(); // a card waiting to be sent says so
  });
  window.addEventListener('online', () => {
    network.wake();
    showMode();
    page.game?.refresh();
  });
  window.addEventListener('offline', () => {
    showMode();
    page.game?.refresh();
  });
  window.addEventListener('resize', () => fitCards());
}
