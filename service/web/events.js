// What each event of a game's log does to the view the page shows, and what it says.
//
// The page shows the view the server gave it (the stream's `state`, or a fresh read),
// then applies each event of the log after it, one at a time, animated: `applyEvent`
// is that step. Whenever it is our turn the page reads the view again, so a view the
// page built is never what a move is played on.

import { cardList, cardName } from './names.js';
import { t } from './strings.js';

const SUITS = 'DCSB';
/** Cirulla's wild card (C1.1). */
export const MATTA = '7C';

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
        for (const seat of seats) if ('declared_points' in seat) seat.declared_points = 0;
        if (next.matta_as) next.matta_as = null;
      }
      for (const seat of seats) if (seat.exposed) seat.exposed = [];
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
      // Cirulla scores the bonus on a line of its own (C7), not among the seat's scopas.
      if (next.variant !== 'cirulla') seats[event.seat].scopas += event.scopas;
      break;
    case 'declaration': {
      // Cirulla (C3): the cards go face up until played; the points are the seat's side's.
      const seat = seats[event.seat];
      seat.exposed = sortCards(event.cards);
      seat.declared_points = (seat.declared_points ?? 0) + event.points;
      if (next.rules?.matta_keeps_value && event.matta_as != null && event.cards.includes(MATTA)) {
        next.matta_as = event.matta_as;
      }
      break;
    }
    case 'move': {
      const seat = seats[event.seat];
      seat.hand_count = Math.max(0, seat.hand_count - 1);
      if (seat.exposed) seat.exposed = without(seat.exposed, [event.card]);
      if (next.you === event.seat && next.hand) next.hand = without(next.hand, [event.card]);
      const mattaTaken = event.capture.includes(MATTA) || (event.card === MATTA && event.capture.length);
      if (next.matta_as && mattaTaken) next.matta_as = null; // an ordinary seven again (C5.2)
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
      if (next.series) {
        // The series counts this match now, as the service's view of it does.
        const wins = next.series.wins.map((won, team) => won + (team === event.winner ? 1 : 0));
        next.series = { matches: next.series.matches + 1, wins };
      }
      break;
    case 'rematch':
      next.next = event.game;
      break;
    case 'aborted': // its organiser (a service key) stopped it: nothing more happens
      next.status = 'aborted';
      next.abort_reason = event.reason;
      next.turn = null;
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

/** Why the match ended (`match_over`'s reason), or '' for a log from before reasons. */
export function matchOverText(view, event) {
  if (!event?.reason || event.winner == null) return '';
  const seats = view.teams[event.winner]?.seats ?? [];
  const names = seats.map((seat) => seatName(view, seat)).join(t('and'));
  return t(`reason_${event.reason}`, { names, n: view.target });
}

/** Why the match stopped before its end (its organiser aborted it), or '' if it did not. */
export function abortedText(view) {
  if (view?.status !== 'aborted') return '';
  return t('aborted', { reason: view.abort_reason ?? '' });
}

export function seatName(view, seat) {
  return view.seats[seat]?.name ?? `#${seat + 1}`;
}

/** `text`, and what the 7C counted as in `event` (Cirulla: a declaration, a dealer's bonus). */
function withMatta(text, event) {
  if (event.matta_as == null) return text;
  return `${text} ${t('mattaCounts', { card: cardName(MATTA), n: event.matta_as })}`;
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
      if (event.kind && event.capture.length) {
        text = `${text.replace(/\.$/, '')} (${t(`kind_${event.kind}`)}).`; // Cirulla (C4.4)
      }
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
    case 'declaration': {
      const name = seatName(view, event.seat);
      const cards = cardList(sortCards(event.cards));
      return withMatta(t(`declared_${event.kind}`, { name, cards, n: event.points }), event);
    }
    case 'dealer_bonus': {
      const name = seatName(view, event.seat);
      const scopas = t('scopas', { n: event.scopas });
      return withMatta(t('dealerBonus', { name, cards: cardList(event.capture), scopas }), event);
    }
    case 'match_over':
      return matchOverText(view, event);
    default:
      return null;
  }
}
