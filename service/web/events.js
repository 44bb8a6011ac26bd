// What each event of a game's log does to the view the page shows, and what it says.
//
// The page shows the view the server gave it (the stream's `state`, or a fresh read),
// then applies each event of the log after it, one at a time, animated: `applyEvent`
// is that step. Whenever it is our turn the page reads the view again, so a view the
// page built is never what a move is played on.

import { cardList, cardName } from './names.js';
import { t } from './strings.js';

const SUITS = 'DCSB';

export const valueOf = (code) => Number.parseInt(code, 10);
export const suitOf = (code) => code.slice(-1);

/** Cards as the API lists them: by value, then suit (D, C, S, B). */
export function sortCards(codes) {
  return [...codes].sort(
    (a, b) => valueOf(a) - valueOf(b) || SUITS.indexOf(suitOf(a)) - SUITS.indexOf(suitOf(b)),
  );
}

const without = (codes, gone) => codes.filter((code) => !gone.includes(code));

/** The view after `event` (a new object; `view` is left as it was). */
export function applyEvent(view, event) {
  const next = structuredClone(view);
  const seats = next.seats;
  const players = seats.length;
  switch (event.type) {
    case 'seat_joined':
      Object.assign(seats[event.seat], { name: event.name, open: false });
      break;
    case 'seat_left':
      Object.assign(seats[event.seat], { name: null, open: true });
      break;
    case 'match_started':
      next.status = 'playing';
      next.dealer = event.dealer;
      next.target = event.target;
      for (const seat of event.seats) Object.assign(seats[seat.seat], { name: seat.name, open: false });
      break;
    case 'redeal':
      next.table = [];
      break;
    case 'deal':
      if (event.hand !== next.hand_number) {
        next.hand_number = event.hand;
        next.last_move = null;
        for (const seat of seats) Object.assign(seat, { captured_count: 0, scopas: 0 });
      }
      if (event.table.length) next.table = sortCards(event.table);
      next.dealer = event.dealer;
      next.stock_count = event.stock_count;
      for (const seat of seats) seat.hand_count = event.cards_each;
      if (event.cards) next.hand = sortCards(event.cards);
      next.turn = (event.dealer + 1) % players;
      break;
    case 'dealer_bonus':
      next.table = without(next.table, event.capture);
      seats[event.seat].captured_count += event.capture.length;
      seats[event.seat].scopas += event.scopas;
      break;
    case 'move': {
      const seat = seats[event.seat];
      seat.hand_count = Math.max(0, seat.hand_count - 1);
      if (next.you === event.seat && next.hand) next.hand = without(next.hand, [event.card]);
      if (event.capture.length) {
        next.table = without(next.table, event.capture);
        seat.captured_count += event.capture.length + 1;
      } else {
        next.table = sortCards([...next.table, event.card]);
      }
      if (event.scopa) seat.scopas += 1;
      next.last_move = { seat: event.seat, card: event.card, capture: event.capture, scopa: event.scopa };
      next.turn = (event.seat + 1) % players;
      break;
    }
    case 'hand_over':
      if (event.remainder.seat !== null) {
        seats[event.remainder.seat].captured_count += event.remainder.cards.length;
      }
      next.table = [];
      next.turn = null;
      event.score.scores.forEach((score, team) => {
        if (next.teams[team]) next.teams[team].score = score;
      });
      break;
    case 'match_over':
      next.status = 'finished';
      next.winner = event.winner;
      next.turn = null;
      event.scores.forEach((score, team) => {
        if (next.teams[team]) next.teams[team].score = score;
      });
      break;
    case 'rematch':
      next.next = event.game;
      break;
    default:
      break;
  }
  if (next.clock && next.turn !== view.turn) {
    // The server tells the new deadline in the view; until it is read again, count from now.
    const person = next.turn !== null && !seats[next.turn]?.bot && next.status === 'playing';
    next.clock = {
      ...next.clock,
      deadline: person ? new Date(Date.now() + next.clock.seconds * 1000).toISOString() : null,
    };
  }
  return next;
}

export function seatName(view, seat) {
  return view.seats[seat]?.name ?? `#${seat + 1}`;
}

/** A sentence on `event` for the page's status line (null: nothing worth saying). */
export function describe(view, event) {
  switch (event.type) {
    case 'move': {
      const name = seatName(view, event.seat);
      const card = cardName(event.card);
      let text = event.capture.length
        ? t('playedTook', { name, card, cards: cardList(event.capture) })
        : t('played', { name, card });
      if (event.scopa) text += ` ${t('scopa')}`;
      if (event.timeout) text = `${t('timedOut', { name })} ${text}`;
      return text;
    }
    case 'deal':
      return event.table.length ? t('newHand', { n: event.hand }) : null;
    case 'hand_over':
      if (event.remainder.seat !== null && event.remainder.cards.length) {
        return t('remainder', { name: seatName(view, event.remainder.seat) });
      }
      return null;
    default:
      return null;
  }
}
