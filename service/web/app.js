// The page: start or join a match, follow it live, play it, read its scores. It uses
// the public API only (api.js). Its parts: the page's state and lines (page.js), the game
// followed (followed.js) and played (game.js), the score sheet (sheet.js), the hint
// (hint.js), the screens before a match (setup.js), the controls (controls.js); a
// tournament's standings and pairings, followed live (tournament.js).

import { api } from './api.js';
import { useWords, wire } from './controls.js';
import { $ } from './dom.js';
import { newGame, openGame, watchGame } from './game.js';
import { fillSetup } from './lobby.js';
import { setSound } from './moments.js';
import { page, showError } from './page.js';
import { fillEmotes } from './reactions.js';
import * as saved from './saved.js';
import { openRoom, showJoin } from './setup.js';
import { language, onWords, preferredLanguage, setLanguage } from './strings.js';
import { openTournament } from './tournament.js';

async function boot() {
  const prefs = saved.prefs();
  setLanguage(preferredLanguage(prefs.lang));
  page.faces = prefs.faces === 'french' ? 'french' : 'italian';
  $('#lang').value = language();
  $('#faces').value = page.faces;
  setSound(prefs.sound === true);
  $('#sound').checked = prefs.sound === true;
  page.oneTap = prefs.oneTap === true;
  $('#one-tap').checked = page.oneTap;
  fillEmotes();
  $('#setup-form').elements.name.value = prefs.name ?? '';
  wire();
  onWords(useWords);
  // Everything the page starts with, asked for at once: the variants, the page's words and
  // the cards' names, and the game being played (drawn once the words are here).
  const variants = api.variants().then((found) => {
    page.variants = found;
  }, showError);
  page.ready = Promise.all([variants, useWords()]).then(() => {
    fillSetup($('#setup-form').elements, page.variants);
  });
  const params = new URLSearchParams(location.search);
  const id = params.get('game');
  const code = params.get('code');
  const room = params.get('room');
  const seat = id ? saved.seatIn(id) : null;
  const current = saved.currentGame();
  const kept = current ? saved.seatIn(current) : null;
  const tournament = params.get('tournament');
  if (tournament) openTournament(tournament); // read-only, live: drawn once the words are here
  else if (id && seat) openGame(id, seat);
  else if (id && params.has('watch')) watchGame(id); // a spectator: no seat of ours
  else if (id && code) showJoin(id, code); // (its form filled once the words are here)
  else if (room) openRoom(room); // a room's short link
  else if (kept) openGame(current, kept);
  else {
    await page.ready; // the form, usable: in words, its variants listed
    newGame();
  }
}

boot();
