// What the page keeps in the browser (localStorage): the player's choices, the seat
// token of each game they sit in, so that a reload or a lost connection carries on, and
// who won each match seen to its end (a series of rematches tallied, series.js).

const PREFS = 'scopa.prefs';
const SEATS = 'scopa.seats';
const CURRENT = 'scopa.current';
const RESULTS = 'scopa.results';
const KEPT = 20;
const KEPT_RESULTS = 100;

function read(key, fallback) {
  try {
    return JSON.parse(localStorage.getItem(key)) ?? fallback;
  } catch {
    return fallback;
  }
}

function write(key, value) {
  try {
    if (value === null) localStorage.removeItem(key);
    else localStorage.setItem(key, JSON.stringify(value));
  } catch {
    // Private browsing with storage off: the page works, a reload forgets.
  }
}

/** {lang, faces, name}: what the player chose last time. */
export function prefs() {
  return read(PREFS, {});
}

export function savePrefs(changes) {
  write(PREFS, { ...prefs(), ...changes });
}

/** The seat kept for `gameId`: {token, seat, code?}, or null. */
export function seatIn(gameId) {
  return read(SEATS, {})[gameId] ?? null;
}

/** Keep a seat's token (and the join code, for whoever created the game). */
export function keepSeat(gameId, seat) {
  const seats = read(SEATS, {});
  delete seats[gameId];
  const kept = Object.entries(seats).slice(-(KEPT - 1));
  write(SEATS, Object.fromEntries([...kept, [gameId, { ...seat, at: Date.now() }]]));
  write(CURRENT, gameId);
}

export function forgetSeat(gameId) {
  const seats = read(SEATS, {});
  delete seats[gameId];
  write(SEATS, seats);
  if (currentGame() === gameId) write(CURRENT, null);
}

/** The game the player was last at, if they have not left it. */
export function currentGame() {
  return read(CURRENT, null);
}

export function leaveCurrent() {
  write(CURRENT, null);
}

/** The matches seen to their end: {winner, previous} by game id (the winning team, and
 * the match it is the rematch of, or null). */
export function results() {
  return read(RESULTS, {});
}

export function keepResult(gameId, result) {
  const kept = read(RESULTS, {});
  const before = kept[gameId];
  if (before && before.winner === result.winner && before.previous === result.previous) return;
  delete kept[gameId];
  const rest = Object.entries(kept).slice(-(KEPT_RESULTS - 1));
  write(RESULTS, Object.fromEntries([...rest, [gameId, result]]));
}
