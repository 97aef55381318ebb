// jobctrl: the extension's client of the local jobctrl API (the issue 32 contract), and
// what it keeps in chrome.storage.local.
//
// Stored: server (the jobctrl address), token and name (from pairing), recent (the last
// saves), sites (where background pages are allowed), stopped (the Stop switch), queue
// (the pages jobctrl last asked for), skipped and lastTaskAt (the background pace), and
// revoked (jobctrl refused the token: the popup asks to pair again and says why).

export const DEFAULT_SERVER = "http://127.0.0.1:8765";
const TIMEOUT_MS = 15000;

/** A failed call, in words for the person; `kind` for the code that handles it. */
export class ApiError extends Error {
  constructor(kind, message, status = 0) {
    super(message);
    this.kind = kind; // unpaired | revoked | unreachable | refused | server
    this.status = status;
  }
}

export async function getState(...keys) {
  return chrome.storage.local.get(keys.length ? keys : null);
}

export async function setState(values) {
  await chrome.storage.local.set(values);
}

/** The address as typed, normalised to scheme://host[:port] with no path. */
export function normaliseServer(text) {
  let value = (text || "").trim();
  if (!value) return DEFAULT_SERVER;
  if (!/^https?:\/\//i.test(value)) value = "http://" + value;
  const u = new URL(value);
  return `${u.protocol}//${u.host}`;
}

async function call(server, method, path, { token, body, query } = {}) {
  const url = new URL(path, server);
  for (const [k, v] of Object.entries(query || {})) url.searchParams.set(k, v);
  const headers = { Accept: "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let response;
  try {
    response = await fetch(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: "omit",
      cache: "no-store",
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch {
    throw new ApiError(
      "unreachable",
      `jobctrl did not answer at ${server}. Is it running? Start it with "jobctrl up".`,
    );
  }
  let payload = null;
  try {
    payload = await response.json();
  } catch {
    payload = null;
  }
  if (response.ok) return payload;
  const said = payload && payload.error && payload.error.message;
  if (response.status >= 500) {
    throw new ApiError("server", "jobctrl could not do that just now. Try again in a minute.",
      response.status);
  }
  throw new ApiError("refused", said || `jobctrl refused this (${response.status}).`,
    response.status);
}

async function paired() {
  const { server, token } = await getState("server", "token");
  if (!server || !token) {
    throw new ApiError("unpaired", "Connect this browser to jobctrl first.");
  }
  return { server, token };
}

const REVOKED = "This browser is no longer connected to jobctrl. Connect it again with a " +
  "new pairing code.";
const STATUS_PATH = "/v1/captures/status";

function denied(err) {
  return err instanceof ApiError && (err.status === 401 || err.status === 403);
}

/** Whether jobctrl still takes `token`: the status route refuses nothing else. */
async function tokenRefused(server, token) {
  try {
    await call(server, "GET", STATUS_PATH, { token, query: { url: server } });
    return false;
  } catch (err) {
    return denied(err);
  }
}

/** Runs an authorised call; a revoked token is forgotten so the popup asks to pair again.
 * A refusal elsewhere (a site jobctrl does not take captures from) is not a revocation:
 * the status route tells them apart. */
async function authorised(method, path, options = {}) {
  const { server, token } = await paired();
  try {
    return await call(server, method, path, { ...options, token });
  } catch (err) {
    if (!denied(err)) throw err;
    if (path !== STATUS_PATH && !(await tokenRefused(server, token))) throw err;
    await chrome.storage.local.remove(["token", "name", "queue"]);
    await setState({ revoked: true }); // the popup says why it asks to pair again
    throw new ApiError("revoked", REVOKED, err.status);
  }
}

/** POST /v1/extension/pair {code, name?} -> {token, name}; keeps both. */
export async function pair(serverText, code, name) {
  const server = normaliseServer(serverText);
  const body = { code: (code || "").trim() };
  if (name && name.trim()) body.name = name.trim();
  if (!body.code) throw new ApiError("refused", "Type the pairing code jobctrl showed you.");
  let answer;
  try {
    answer = await call(server, "POST", "/v1/extension/pair", { body });
  } catch (err) {
    if (err instanceof ApiError && (err.status === 400 || err.status === 401 ||
      err.status === 403 || err.status === 404 || err.status === 422)) {
      throw new ApiError("refused", "That pairing code did not work: it may be mistyped, " +
        "used already, or older than 10 minutes. Ask jobctrl for a new one.", err.status);
    }
    throw err;
  }
  await setState({ server, token: answer.token, name: answer.name, revoked: false });
  return { server, name: answer.name };
}

/** Forgets the token on this browser (jobctrl keeps it until revoked there). */
export async function forget() {
  await chrome.storage.local.remove(["token", "name", "queue"]);
}

const BODY_LIMIT = 1900000; // bytes: under jobctrl's 2 MB limit on a capture

function bytes(value) {
  return new TextEncoder().encode(JSON.stringify(value)).length;
}

/** Only the contract's fields leave the browser, under jobctrl's size limit: the page's
 * markup goes first, then the JSON-LD (its fields are already read out). */
export function captureBody(capture) {
  const body = { url: capture.url };
  for (const key of ["title", "company", "location", "description", "html"]) {
    if (capture[key]) body[key] = capture[key];
  }
  if (capture.jsonld) body.jsonld = capture.jsonld;
  if (bytes(body) > BODY_LIMIT) delete body.html;
  if (bytes(body) > BODY_LIMIT) delete body.jsonld;
  return body;
}

/** POST /v1/captures -> {jobId, created}. */
export async function postCapture(capture) {
  return authorised("POST", "/v1/captures", { body: captureBody(capture) });
}

/** GET /v1/captures/status?url= -> {known, jobId?, score?, nextAction?}. */
export async function captureStatus(url) {
  return authorised("GET", "/v1/captures/status", { query: { url } });
}

/** GET /v1/extension/tasks -> {items: [{jobId, url, condition, errorCode, since}], enabled}:
 * the pages waiting for the person's browser. */
export async function fetchTasks() {
  const answer = await authorised("GET", "/v1/extension/tasks");
  const items = ((answer && answer.items) || [])
    .map((item) => (typeof item === "string" ? { url: item } : item))
    .filter((item) => item && typeof item.url === "string");
  // enabled false: the person stopped the queue in jobctrl (`jobctrl extension tasks --stop`).
  return { items, enabled: !answer || answer.enabled !== false };
}

/** The Job page of jobctrl for `jobId`. */
export async function jobPage(jobId) {
  const { server } = await getState("server");
  return new URL(`/jobs/${encodeURIComponent(jobId)}`, server || DEFAULT_SERVER).href;
}
