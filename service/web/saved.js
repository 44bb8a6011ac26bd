// What the page keeps in the browser (localStorage): the player's choices, and the seat
// token of each game they sit in, so that a reload or a lost connection carries on.

const PREFS = 'scopa.prefs';
const SEATS = 'scopa.seats';
const CURRENT = 'scopa.current';
const KEPT = 20;

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
