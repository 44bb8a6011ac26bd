// The public API, as any frontend calls it: JSON in and out, a seat's token as a bearer
// token, errors as RFC 9457 problems.
//
// Every call the page makes is `persistent`: a failure that may pass (no network, a 429,
// a 5xx, a read left unanswered) is retried with back-off (Retry-After when the service
// says it) until it succeeds, the match is gone (404, 410: a final answer), or the caller stops caring (its
// AbortSignal). `network.wake()` retries at once (the browser came back online, the
// stream reconnected). Writes carry an Idempotency-Key kept across their retries: a
// move whose answer was lost is answered again as it was, not as a stale version.

/** An answer that is not a success: `status`, and the problem the service sent. */
export class ApiError extends Error {
  constructor(status, problem, retryAfter = null) {
    super(problem?.detail || problem?.title || `HTTP ${status}`);
    this.status = status;
    this.problem = problem || {};
    /** Seconds to wait before asking again (Retry-After), or null. */
    this.retryAfter = retryAfter;
  }
}

/** The network failed (offline, connection refused): no answer at all. */
export class NetworkError extends Error {}

/** The caller stopped waiting (the game was closed): nothing to show. */
export class Cancelled extends Error {}

/** Whether `error` may pass if the request is sent again. */
export function transient(error) {
  if (error instanceof NetworkError) return true;
  if (!(error instanceof ApiError)) return false;
  return error.status === 408 || error.status === 429 || error.status >= 500;
}

/** Whether `error` says the game is no more (it expired, or never was). */
export function gone(error) {
  return error instanceof ApiError && (error.status === 404 || error.status === 410);
}

function retryAfter(headers) {
  const value = headers.get('Retry-After');
  if (!value) return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, (at - Date.now()) / 1000);
}

/** How long one read waits for its answer before it is asked again (a connection gone
 * silent never answers, nor fails); doubled after each such wait, for slow networks. */
const READ_WAIT_MS = 2000;
const READ_WAIT_MOST_MS = 16000;

/** A network failure that is a read left unanswered for `waited` ms: asked again at once. */
class Unanswered extends NetworkError {}

async function call(method, path, { token, body, headers = {}, wait = null } = {}) {
  const init = { method, headers: { Accept: 'application/json', ...headers }, cache: 'no-store' };
  // A read gives up after `wait` ms (it changes nothing: it is asked again). A write
  // waits for its answer: computer players may reply within it.
  const late = wait == null ? null : new AbortController();
  const timer = late && setTimeout(() => late.abort(), wait);
  if (late) init.signal = late.signal;
  if (token) init.headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let response;
  let data = null;
  try {
    response = await fetch(path, init);
    if (response.status === 304 || response.status === 204) {
      return { status: response.status, body: null, headers: response.headers };
    }
    const type = response.headers.get('Content-Type') || '';
    if (type.includes('json')) data = await response.json();
  } catch (error) {
    if (late?.signal.aborted) throw new Unanswered(`no answer in ${wait} ms`);
    throw new NetworkError(error.message); // no answer, or an answer cut short
  } finally {
    clearTimeout(timer);
  }
  if (!response.ok) throw new ApiError(response.status, data, retryAfter(response.headers));
  return { status: response.status, body: data, headers: response.headers };
}

/** A new Idempotency-Key: a retry of the same request gets the first answer again. */
export function newKey() {
  if (crypto.randomUUID) return crypto.randomUUID();
  return [...crypto.getRandomValues(new Uint8Array(16))]
    .map((b) => b.toString(16).padStart(2, '0'))
    .join('');
}

// -- retrying ---------------------------------------------------------------------------

const FIRST_MS = 500;
const MOST_MS = 8000;

/** The page's connection as its requests see it: who listens, and the waits to cut short. */
export const network = {
  failing: 0, // requests now waiting to be sent again
  listeners: new Set(),
  sleepers: new Set(),
  /** Retry every waiting request now. */
  wake() {
    for (const wake of [...this.sleepers]) wake();
  },
  changed() {
    for (const listener of this.listeners) listener(this.failing > 0);
  },
};

function nap(ms, signal) {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      network.sleepers.delete(done);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    network.sleepers.add(done);
    signal?.addEventListener('abort', done);
  });
}

/** `request(wait)`, sent again while it fails in a way that may pass. `wait` is how long
 * a read waits for its answer this time (longer after each read left unanswered). */
export async function persistent(request, signal) {
  let delay = FIRST_MS;
  let wait = READ_WAIT_MS;
  let waiting = false;
  try {
    for (;;) {
      if (signal?.aborted) throw new Cancelled();
      try {
        return await request(wait);
      } catch (error) {
        if (!transient(error) || signal?.aborted) throw signal?.aborted ? new Cancelled() : error;
        if (!waiting) {
          waiting = true;
          network.failing += 1;
          network.changed();
        }
        if (error instanceof Unanswered) {
          wait = Math.min(wait * 2, READ_WAIT_MOST_MS); // asked again now: it waited already
          continue;
        }
        const asked = error instanceof ApiError && error.retryAfter != null;
        await nap(asked ? Math.min(error.retryAfter * 1000, 30000) : delay, signal);
        delay = Math.min(delay * 2, MOST_MS);
      }
    }
  } finally {
    if (waiting) {
      network.failing -= 1;
      network.changed();
    }
  }
}

const game = (id, suffix = '') => `/v1/games/${encodeURIComponent(id)}${suffix}`;

/** The API. The last argument of each call, `signal`, stops its retries. */
export const api = {
  async variants(signal) {
    return (await persistent((wait) => call('GET', '/v1/variants', { wait }), signal)).body.variants;
  },
  async cards(lang, faces, signal) {
    const query = new URLSearchParams({ lang, faces });
    return (await persistent((wait) => call('GET', `/v1/cards?${query}`, { wait }), signal)).body;
  },
  async create(body, signal) {
    const key = newKey();
    const send = () => call('POST', '/v1/games', { body, headers: { 'Idempotency-Key': key } });
    return (await persistent(send, signal)).body;
  },
  async view(id, token, signal) {
    return (await persistent((wait) => call('GET', game(id), { token, wait }), signal)).body;
  },
  /** The game as its join code shows it, before taking a seat (even without spectators). */
  async invitation(id, code, signal) {
    const path = game(id, `/join?${new URLSearchParams({ code })}`);
    return (await persistent((wait) => call('GET', path, { wait }), signal)).body;
  },
  /** The game waiting for people that a room code lets in, found by the code alone
   * (GET /v1/invitations/{code}): the invitation's view, its `id` in it. */
  async invitationByCode(code, signal) {
    const path = `/v1/invitations/${encodeURIComponent(code)}`;
    return (await persistent((wait) => call('GET', path, { wait }), signal)).body;
  },
  /** The log after `after`; null when it has not changed since version `version`. Once:
   * the caller (polling) retries it. */
  async events(id, token, after, version) {
    const headers = version == null ? {} : { 'If-None-Match': `"${version}"` };
    const query = after == null ? '' : `?after=${after}`;
    return (await call('GET', game(id, `/events${query}`), { token, headers, wait: 2 * READ_WAIT_MS })).body;
  },
  /** {moves, declarations}: the card moves, and (Cirulla) the declarations to make first. */
  async legalMoves(id, token, signal) {
    const body = (await persistent((wait) => call('GET', game(id, '/legal-moves'), { token, wait }), signal)).body;
    return { moves: body.moves, declarations: body.declarations ?? [] };
  },
  /** A move, conditional on the version it was chosen on, with one Idempotency-Key for
   * all its retries: one that had landed is answered as it was (not as a 412). */
  async move(id, token, card, capture, version, signal) {
    const headers = { 'Idempotency-Key': newKey() };
    if (version != null) headers['If-Match'] = `"${version}"`;
    const send = () => call('POST', game(id, '/moves'), { token, body: { card, capture }, headers });
    return (await persistent(send, signal)).body;
  },
  /** A declaration (Cirulla), an entry of the legal moves' `declarations` sent as it is:
   * {declaration, state}. Conditional on the version, and keyed, as a move. */
  async declare(id, token, declaration, version, signal) {
    const headers = { 'Idempotency-Key': newKey() };
    if (version != null) headers['If-Match'] = `"${version}"`;
    const send = () => call('POST', game(id, '/declarations'), { token, body: declaration, headers });
    return (await persistent(send, signal)).body;
  },
  async hands(id, token, signal) {
    return (await persistent((wait) => call('GET', game(id, '/hands'), { token, wait }), signal)).body.hands;
  },
  /** The expert's move for our seat now ({move, declaration, value}). Once: a 429 is the
   * player's to wait out (its `retryAfter`), not the page's. */
  async hint(id, token) {
    return (await call('GET', game(id, '/hint'), { token })).body;
  },
  /** A quick reaction (one of a fixed set of emotes) to every viewer of the game. Once. */
  async react(id, token, emote) {
    return (await call('POST', game(id, '/reactions'), { token, body: { emote } })).body;
  },
  async join(id, name, code, signal) {
    const key = newKey();
    const send = () =>
      call('POST', game(id, '/join'), { body: { name, code }, headers: { 'Idempotency-Key': key } });
    return (await persistent(send, signal)).body;
  },
  async leave(id, token, signal) {
    await persistent(() => call('POST', game(id, '/leave'), { token }), signal);
  },
  async rematch(id, token, signal) {
    return (await persistent(() => call('POST', game(id, '/rematch'), { token }), signal)).body;
  },
  /** A public tournament (GET /v1/tournaments/{id}) as {status, body, etag}: `body` null
   * on a 304 (unchanged since `etag`). Once: the caller (polling) retries it. */
  async tournament(id, etag) {
    const headers = etag ? { 'If-None-Match': etag } : {};
    const path = `/v1/tournaments/${encodeURIComponent(id)}`;
    const answer = await call('GET', path, { headers, wait: 2 * READ_WAIT_MS });
    return { status: answer.status, body: answer.body, etag: answer.headers.get('ETag') ?? etag };
  },
  /** The URL of the game's event stream, for EventSource (which sends no headers). */
  streamUrl(id, token, after) {
    const query = new URLSearchParams();
    if (token) query.set('access_token', token);
    if (after != null) query.set('after', String(after));
    return `${game(id, '/stream')}?${query}`;
  },
};
