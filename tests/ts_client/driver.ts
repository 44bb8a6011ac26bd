// Plays a whole match on a running service with a client generated from
// openapi/openapi.json (openapi-typescript, openapi-fetch): Ana against Bruno, a
// greedy computer player; Ana plays her first legal move until the match is over. Then
// the same at Cirulla, where Ana also declares her cards whenever she may.
// tests/test_ts_client.py compiles it with tsc --strict and checks that it needs no
// type assertion, non-null assertion or escape to an untyped value: the contract's
// types are enough. Usage: node driver.js <base URL>
import createClient from "openapi-fetch";
import type { components, paths } from "./schema.js";

type Event = components["schemas"]["Event"];
type Card = components["schemas"]["Card"];

const baseUrl = process.argv[2];
if (baseUrl === undefined) throw new Error("usage: node driver.js <base URL>");
const anyone = createClient<paths>({ baseUrl });

const created = await anyone.POST("/v1/games", {
  body: { seats: [{ name: "Ana" }, { name: "Bruno", bot: "greedy" }] },
});
if (created.error !== undefined) throw new Error(`createGame: ${created.error.detail}`);
const game = { path: { game_id: created.data.id } };
const token = created.data.seats[0]?.token;
if (token === undefined || token === null) throw new Error("Ana has no token");
const ana = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${token}` } });

// A card on the table is not in Ana's hand: the move is refused, with a typed problem.
const onTable: Card | undefined = created.data.state.table[0];
if (onTable !== undefined) {
  const refused = await ana.POST("/v1/games/{game_id}/moves", {
    params: game,
    body: { card: onTable },
  });
  if (refused.error?.type !== "/problems/illegal-move") throw new Error("not refused");
}

// What each kind of event tells, narrowed by its type.
const seen = new Map<Event["type"], number>();
function tell(event: Event): string {
  seen.set(event.type, (seen.get(event.type) ?? 0) + 1);
  switch (event.type) {
    case "move":
      return `seat ${event.seat} plays ${event.card}${event.scopa ? ": scopa" : ""}`;
    case "hand_over":
      return `hand ${event.hand} over: ${event.score.scores.join("-")}`;
    case "match_over":
      return `team ${event.winner} wins ${event.scores.join("-")}`;
    default:
      return event.type;
  }
}

// Bruno's moves come in the answers: to the creation if he plays first, then to Ana's.
const told: string[] = created.data.events.map(tell);
let state = created.data.state;
let moves = 0;
while (state.status !== "finished") {
  const legal = await ana.GET("/v1/games/{game_id}/legal-moves", { params: game });
  if (legal.error !== undefined) throw new Error(`listLegalMoves: ${legal.error.detail}`);
  const first = legal.data.moves[0];
  if (first === undefined) {
    // Bruno's turn, past his allowance in the request that gave it to him: let him play.
    const bots = await anyone.POST("/v1/games/{game_id}/bots", { params: game });
    if (bots.data !== undefined) {
      told.push(...bots.data.events.map(tell));
      state = bots.data.state;
    }
    continue;
  }
  const played = await ana.POST("/v1/games/{game_id}/moves", {
    params: game,
    body: { card: first.card, capture: first.capture },
  });
  if (played.error !== undefined) throw new Error(`playMove: ${played.error.detail}`);
  moves += 1;
  told.push(...played.data.events.map(tell));
  state = played.data.state;
}

// Cirulla: a declaration, when the legal moves offer one, is sent as it is; it is
// still Ana's turn after it.
const cirulla = await anyone.POST("/v1/games", {
  body: {
    variant: "cirulla",
    target: 11,
    seats: [{ name: "Ana" }, { name: "Bruno", bot: "greedy" }],
    // The spec's Cirulla example deck: Ana, first to play, holds a buona (2S 3C 4B).
    first_dealer: 1,
    deck: [
      "3C", "2S", "4B", "10S", "5B", "9C", "4D", "3B", "6C", "1S",
      "7D", "1D", "2D", "3D", "4C", "5D", "6D", "8D", "9D", "10D",
      "1C", "2C", "5C", "7C", "8C", "9S", "10C", "1B", "2B", "6B",
      "7B", "8B", "9B", "10B", "3S", "4S", "5S", "6S", "7S", "8S",
    ],
  },
});
if (cirulla.error !== undefined) throw new Error(`createGame: ${cirulla.error.detail}`);
const cirullaGame = { path: { game_id: cirulla.data.id } };
const cirullaToken = cirulla.data.seats[0]?.token;
if (cirullaToken === undefined || cirullaToken === null) throw new Error("Ana has no token");
const anaAtCirulla = createClient<paths>({
  baseUrl,
  headers: { Authorization: `Bearer ${cirullaToken}` },
});
let cirullaState = cirulla.data.state;
let declared = 0;
let shown = 0;
while (cirullaState.status !== "finished") {
  const legal = await anaAtCirulla.GET("/v1/games/{game_id}/legal-moves", {
    params: cirullaGame,
  });
  if (legal.error !== undefined) throw new Error(`listLegalMoves: ${legal.error.detail}`);
  const declaration = legal.data.declarations[0];
  if (declaration !== undefined) {
    const made = await anaAtCirulla.POST("/v1/games/{game_id}/declarations", {
      params: cirullaGame,
      body: declaration,
    });
    if (made.error !== undefined) throw new Error(`declare: ${made.error.detail}`);
    declared += 1;
    shown += made.data.state.seats[0]?.exposed?.length ?? 0;
    continue;
  }
  const first = legal.data.moves[0];
  if (first === undefined) {
    const bots = await anyone.POST("/v1/games/{game_id}/bots", { params: cirullaGame });
    if (bots.data !== undefined) cirullaState = bots.data.state;
    continue;
  }
  const played = await anaAtCirulla.POST("/v1/games/{game_id}/moves", {
    params: cirullaGame,
    body: first,
  });
  if (played.error !== undefined) throw new Error(`playMove: ${played.error.detail}`);
  cirullaState = played.data.state;
}

const log = await anyone.GET("/v1/games/{game_id}/events", { params: game });
if (log.error !== undefined) throw new Error(`getEventLog: ${log.error.detail}`);
console.log(
  JSON.stringify({
    game: created.data.id,
    status: state.status,
    winner: state.winner,
    scores: state.teams.map((team) => team.score),
    moves,
    events: Object.fromEntries(seen),
    logged: log.data.events.length,
    last: told.at(-1),
    cirulla: { status: cirullaState.status, declared, shown },
  }),
);
