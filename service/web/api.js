// The public API, as any frontend calls it: JSON in and out, a seat's token as a bearer
// token, errors as RFC 9457 problems.

/** An answer that is not a success: `status`, and the problem the service sent. */
export class ApiError extends Error {
  constructor(status, problem) {
    super(problem?.detail || problem?.title || `HTTP ${status}`);
    this.status = status;
    this.problem = problem || {};
  }
}

/** The network failed (offline, connection refused): no answer at all. */
export class NetworkError extends Error {}

async function call(method, path, { token, body, headers = {} } = {}) {
  const init = { method, headers: { Accept: 'application/json', ...headers }, cache: 'no-store' };
  if (token) init.headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (error) {
    throw new NetworkError(error.message);
  }
  if (response.status === 304 || response.status === 204) {
    return { status: response.status, body: null, headers: response.headers };
  }
  const type = response.headers.get('Content-Type') || '';
  const data = type.includes('json') ? await response.json() : null;
  if (!response.ok) throw new ApiError(response.status, data);
  return { status: response.status, body: data, headers: response.headers };
}

/** A new Idempotency-Key: a retry of the same request gets the first answer again. */
export function newKey() {
  if (crypto.randomUUID) return crypto.randomUUID();
  return [...crypto.getRandomValues(new Uint8Array(16))]
    .map((b) => b.toString(16).padStart(2, '0'))
    .join('');
}

/** `request()` sent again once if the network failed, with the same Idempotency-Key. */
async function retried(request) {
  try {
    return await request();
  } catch (error) {
    if (!(error instanceof NetworkError)) throw error;
    await new Promise((resolve) => setTimeout(resolve, 1000));
    return request();
  }
}

const game = (id, suffix = '') => `/v1/games/${encodeURIComponent(id)}${suffix}`;

export const api = {
  async variants() {
    return (await call('GET', '/v1/variants')).body.variants;
  },
  async cards(lang, faces) {
    const query = new URLSearchParams({ lang, faces });
    return (await call('GET', `/v1/cards?${query}`)).body;
  },
  async create(body) {
    const key = newKey();
    const send = () => call('POST', '/v1/games', { body, headers: { 'Idempotency-Key': key } });
    return (await retried(send)).body;
  },
  async view(id, token) {
    return (await call('GET', game(id), { token })).body;
  },
  /** The game as its join code shows it, before taking a seat (even without spectators). */
  async invitation(id, code) {
    return (await call('GET', game(id, `/join?${new URLSearchParams({ code })}`))).body;
  },
  /** The log after `after`; null when it has not changed since version `version`. */
  async events(id, token, after, version) {
    const headers = version == null ? {} : { 'If-None-Match': `"${version}"` };
    const query = after == null ? '' : `?after=${after}`;
    return (await call('GET', game(id, `/events${query}`), { token, headers })).body;
  },
  /** {moves, declarations}: the card moves, and (Cirulla) the declarations to make first. */
  async legalMoves(id, token) {
    const body = (await call('GET', game(id, '/legal-moves'), { token })).body;
    return { moves: body.moves, declarations: body.declarations ?? [] };
  },
  /** A move, conditional on the version it was chosen on: sent again after a network
   * failure, it cannot land twice (a 412 says the first one did). */
  async move(id, token, card, capture, version) {
    const headers = {};
    if (version != null) headers['If-Match'] = `"${version}"`;
    const send = () => call('POST', game(id, '/moves'), { token, body: { card, capture }, headers });
    return (await retried(send)).body;
  },
  /** A declaration (Cirulla), an entry of the legal moves' `declarations` sent as it is:
   * {declaration, state}. Conditional on the version, as a move. */
  async declare(id, token, declaration, version) {
    const headers = { 'Idempotency-Key': newKey() };
    if (version != null) headers['If-Match'] = `"${version}"`;
    const send = () => call('POST', game(id, '/declarations'), { token, body: declaration, headers });
    return (await retried(send)).body;
  },
  async hands(id, token) {
    return (await call('GET', game(id, '/hands'), { token })).body.hands;
  },
  async join(id, name, code) {
    const key = newKey();
    const send = () =>
      call('POST', game(id, '/join'), { body: { name, code }, headers: { 'Idempotency-Key': key } });
    return (await retried(send)).body;
  },
  async leave(id, token) {
    await call('POST', game(id, '/leave'), { token });
  },
  async rematch(id, token) {
    return (await retried(() => call('POST', game(id, '/rematch'), { token }))).body;
  },
  /** The URL of the game's event stream, for EventSource (which sends no headers). */
  streamUrl(id, token, after) {
    const query = new URLSearchParams();
    if (token) query.set('access_token', token);
    if (after != null) query.set('after', String(after));
    return `${game(id, '/stream')}?${query}`;
  },
};
