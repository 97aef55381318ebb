// jobctrl: the extension's service worker. It wakes for a click in the popup, a page that
// finished loading (the badge) and a chrome.alarms tick (the background pages); between
// them it holds no timer and no open request, so the browser puts it to sleep.

import {
  ApiError,
  captureStatus,
  fetchTasks,
  forget,
  getState,
  jobPage,
  pair,
  postCapture,
  setState,
} from "./api.js";
import { isLoopback, looksLikePosting, originPattern, postingAddress, siteOf } from "./sites.js";

// How often jobctrl is asked for pages waiting for this browser: each ask wakes the
// service worker for about 30 s, so it asks rarely while nothing it may open waits.
const BUSY_POLL_MINUTES = 1; // pages wait on a site the person allowed
const IDLE_POLL_MINUTES = 5; // nothing to open
const PACE_MS = 20000; // at most one background page every 20 seconds (three a minute)
// A page must load within 25 s: under the 30 s after which the browser may stop an idle
// service worker, so the wait never outlives the worker that would close the tab.
const LOAD_TIMEOUT_MS = 25000;
const TASK_TAB_MS = 120000; // a background tab older than this was left by a stopped worker
const READ_TRIES = 8; // a page that draws its posting late is read again, once a second
const SKIP_MS = 6 * 3600 * 1000; // a page that showed no posting is not opened again soon
const RECENT = 10;

// -- reading and saving a page ----------------------------------------------------------

async function readTab(tabId) {
  const [frame] = await chrome.scripting.executeScript({
    target: { tabId },
    files: ["extract.js"],
  });
  return frame && frame.result;
}

function unreadable(capture) {
  if (capture && capture.signInWall) {
    return "This page asks you to sign in before it shows the job. Sign in to the site " +
      "in this browser, open the job again and save it.";
  }
  return "No job description was found on this page. Open the job's own page (not a " +
    "list of jobs) and try again.";
}

async function remember(entry) {
  const { recent = [] } = await getState("recent");
  const kept = recent.filter((r) => r.url !== entry.url);
  await setState({ recent: [entry, ...kept].slice(0, RECENT) });
}

async function saveCapture(capture, via) {
  const answer = await postCapture(capture);
  await remember({
    url: capture.url,
    title: capture.title || "",
    company: capture.company || "",
    jobId: answer.jobId,
    created: !!answer.created,
    applyOnSite: !!capture.applyOnSite,
    via,
    at: Date.now(),
  });
  return answer;
}

/** Reads the posting in `tabId` and sends it to jobctrl. */
async function saveTab(tabId) {
  const tab = await chrome.tabs.get(tabId);
  let capture;
  try {
    capture = await readTab(tabId);
  } catch {
    return {
      ok: false,
      kind: "unreadable",
      message: "This page cannot be read by extensions (a browser page or a file).",
    };
  }
  if (!capture || (!capture.description && !capture.jsonld)) {
    return { ok: false, kind: "unreadable", message: unreadable(capture) };
  }
  capture.url = postingAddress(tab.url || capture.url);
  const answer = await saveCapture(capture, "click");
  refreshBadge(tabId, capture.url, true).catch(() => {}); // the person need not wait for it
  return {
    ok: true,
    jobId: answer.jobId,
    created: !!answer.created,
    title: capture.title,
    company: capture.company,
    link: await jobPage(answer.jobId),
  };
}

// -- the badge --------------------------------------------------------------------------

async function showBadge(tabId, status) {
  let text = "";
  let title = "Save this job to jobctrl";
  if (status && status.known) {
    const score = typeof status.score === "number" ? Math.round(status.score) : null;
    text = score === null ? "✓" : String(score);
    title = score === null ? "jobctrl has this job" : `jobctrl has this job — fit ${score}`;
  }
  await chrome.action.setBadgeBackgroundColor({ tabId, color: "#2f6f4f" });
  await chrome.action.setBadgeText({ tabId, text });
  await chrome.action.setTitle({ tabId, title });
}

/** Asks jobctrl whether it has the posting at `url` and shows the answer on the icon.
 * Unasked (a page loaded), only for addresses that look like a job posting. */
async function refreshBadge(tabId, url, asked = false) {
  const { token } = await getState("token");
  if (!token || !/^https?:/.test(url) || !(asked || looksLikePosting(url))) return null;
  try {
    const status = await captureStatus(postingAddress(url));
    await showBadge(tabId, status);
    return status;
  } catch (err) {
    await chrome.action.setBadgeText({ tabId, text: "" }).catch(() => {});
    // Asked in the popup: the person is told (jobctrl not running, the token revoked).
    // Unasked: no badge, and no error for a page the person is only reading.
    if (asked || (err instanceof ApiError && err.kind === "revoked")) throw err;
    return null;
  }
}

chrome.tabs.onUpdated.addListener((tabId, change, tab) => {
  if (change.status === "complete" && tab.url) refreshBadge(tabId, tab.url).catch(() => {});
});

// -- pages waiting for the person's browser -----------------------------------------------

async function allowed(url, sites) {
  const site = siteOf(url);
  if (!site || !sites[site]) return false;
  return chrome.permissions.contains({ origins: [originPattern(url)] });
}

function loaded(tabId) {
  return new Promise((resolve) => {
    const done = (ok) => {
      clearTimeout(timer);
      chrome.tabs.onUpdated.removeListener(listener);
      chrome.tabs.onRemoved.removeListener(closed);
      resolve(ok);
    };
    const listener = (id, change) => {
      if (id === tabId && change.status === "complete") done(true);
    };
    const closed = (id) => {
      if (id === tabId) done(false);
    };
    const timer = setTimeout(() => done(false), LOAD_TIMEOUT_MS);
    chrome.tabs.onUpdated.addListener(listener);
    chrome.tabs.onRemoved.addListener(closed);
    chrome.tabs.get(tabId).then((t) => t.status === "complete" && done(true), () => done(false));
  });
}

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function readWhenDrawn(tabId) {
  let capture = null;
  for (let i = 0; i < READ_TRIES; i++) {
    capture = await readTab(tabId);
    // Read once the posting is drawn; a sign-in wall will not go away by waiting.
    if (capture && (capture.description || capture.jsonld || capture.signInWall)) break;
    await pause(1000);
  }
  return capture;
}

async function openAndCapture(task) {
  const tab = await chrome.tabs.create({ url: task.url, active: false });
  await setState({ taskTab: tab.id, taskTabAt: Date.now() });
  try {
    if (!(await loaded(tab.id))) return { ok: false, reason: "The page did not load." };
    const capture = await readWhenDrawn(tab.id);
    if (!capture || (!capture.description && !capture.jsonld)) {
      return { ok: false, reason: capture && capture.signInWall ? "sign-in" : "no posting" };
    }
    capture.url = task.url; // the address jobctrl knows the job by
    return { ok: true, capture };
  } finally {
    await chrome.tabs.remove(tab.id).catch(() => {});
    await chrome.storage.local.remove(["taskTab", "taskTabAt"]);
  }
}

async function refreshQueue() {
  const { items, enabled } = await fetchTasks();
  const queue = items.map((t) => ({ url: t.url, site: siteOf(t.url), jobId: t.jobId }));
  await setState({ queue, queueAt: Date.now(), queueEnabled: enabled });
  return queue;
}

/** One step of the background loop: asks jobctrl for waiting pages and, at the pace
 * limit, opens one of them on an allowed site, reads it, closes it and sends it. */
async function runNextTask() {
  const state = await getState(
    "token", "stopped", "sites", "lastTaskAt", "skipped", "taskTab", "taskTabAt");
  if (!state.token || state.stopped) return { ran: false, why: "stopped" };
  if (state.taskTab !== undefined) {
    const open = await chrome.tabs.get(state.taskTab).then(() => true, () => false);
    if (open && Date.now() - (state.taskTabAt || 0) < TASK_TAB_MS) {
      return { ran: false, why: "busy" }; // one tab at a time
    }
    // Left open by a worker the browser stopped mid-task: closed, and the loop goes on.
    if (open) await chrome.tabs.remove(state.taskTab).catch(() => {});
    await chrome.storage.local.remove(["taskTab", "taskTabAt"]);
  }
  const queue = await refreshQueue();
  const now = Date.now();
  const skipped = Object.fromEntries(
    Object.entries(state.skipped || {}).filter(([, s]) => now - s.at < SKIP_MS),
  );
  const sites = state.sites || {};
  let next = null;
  for (const task of queue) {
    if (!skipped[task.url] && (await allowed(task.url, sites))) {
      next = task;
      break;
    }
  }
  await pollEvery(next ? BUSY_POLL_MINUTES : IDLE_POLL_MINUTES);
  if (!next) return { ran: false, why: "nothing allowed" };
  const wait = (state.lastTaskAt || 0) + PACE_MS - now;
  if (wait > 0) {
    chrome.alarms.create("tasks-next", { when: now + wait });
    return { ran: false, why: "pace" };
  }
  await setState({ lastTaskAt: now });
  const result = await openAndCapture(next);
  if (result.ok) {
    try {
      await saveCapture(result.capture, "background");
    } catch (err) {
      // jobctrl refused this page (a site it takes no captures from, no posting in it):
      // not opened again soon. Away or revoked: the next tick finds out.
      if (!(err instanceof ApiError && err.kind === "refused")) throw err;
      result.ok = false;
      skipped[next.url] = { at: now, reason: "refused" };
    }
  } else {
    skipped[next.url] = { at: now, reason: result.reason };
  }
  await setState({ skipped });
  if (queue.length > 1) chrome.alarms.create("tasks-next", { when: Date.now() + PACE_MS });
  return { ran: true, url: next.url, ok: result.ok };
}

async function runQuietly() {
  try {
    await runNextTask();
  } catch (err) {
    if (!(err instanceof ApiError)) throw err; // jobctrl away or unpaired: try next tick
  }
}

async function pollEvery(minutes) {
  const existing = await chrome.alarms.get("tasks");
  if (!existing || existing.periodInMinutes !== minutes) {
    await chrome.alarms.create("tasks", { periodInMinutes: minutes });
  }
}

async function schedule() {
  const { token, stopped } = await getState("token", "stopped");
  if (token && !stopped) {
    // Newly paired or started again: the first ask comes soon, then the pace above.
    if (!(await chrome.alarms.get("tasks"))) await pollEvery(BUSY_POLL_MINUTES);
  } else {
    await chrome.alarms.clearAll();
  }
}

chrome.alarms.onAlarm.addListener((alarm) => {
  if (alarm.name === "tasks" || alarm.name === "tasks-next") runQuietly();
});
chrome.runtime.onInstalled.addListener(schedule);
chrome.runtime.onStartup.addListener(schedule);
chrome.storage.onChanged.addListener((changes, area) => {
  if (area === "local" && (changes.token || changes.stopped)) schedule();
});

// -- the popup's requests -----------------------------------------------------------------

async function allowSite(url, on) {
  const { sites = {} } = await getState("sites");
  const site = siteOf(url);
  if (!site) return { ok: false, message: "That is not a web page." };
  if (on) {
    sites[site] = true;
    await pollEvery(BUSY_POLL_MINUTES); // its pages are opened from the next minute
  } else {
    delete sites[site];
    if (!isLoopback(url)) {
      await chrome.permissions.remove({ origins: [originPattern(url)] }).catch(() => false);
    }
  }
  await setState({ sites });
  return { ok: true, sites };
}

const HANDLERS = {
  pair: (m) => pair(m.server, m.code, m.name).then((r) => ({ ok: true, ...r })),
  forget: () => forget().then(() => ({ ok: true })),
  save: (m) => saveTab(m.tabId),
  status: async (m) => {
    const status = await refreshBadge(m.tabId, m.url, true);
    return { ok: true, status, link: status && status.jobId ? await jobPage(status.jobId) : "" };
  },
  recent: async () => {
    const { recent = [] } = await getState("recent");
    const rows = [];
    for (const r of recent) {
      let status = null;
      try {
        status = await captureStatus(r.url);
      } catch (err) {
        if (err instanceof ApiError && err.kind === "revoked") throw err;
      }
      rows.push({ ...r, status, link: await jobPage((status && status.jobId) || r.jobId) });
    }
    return { ok: true, recent: rows };
  },
  queue: async () => ({ ok: true, queue: await refreshQueue() }),
  allowSite: (m) => allowSite(m.url, m.on),
  stop: async (m) => {
    await setState({ stopped: !!m.on });
    return { ok: true };
  },
};

chrome.runtime.onMessage.addListener((message, sender, reply) => {
  // Only the extension's own pages (the popup): never a script running in a web page.
  const ours = (sender.url || "").startsWith(chrome.runtime.getURL(""));
  if (sender.id !== chrome.runtime.id || !ours) return false;
  const handler = HANDLERS[message && message.type];
  if (!handler) return false;
  handler(message)
    .then(reply)
    .catch((err) =>
      reply({
        ok: false,
        kind: err instanceof ApiError ? err.kind : "error",
        message: err instanceof ApiError ? err.message : "Something went wrong in the extension.",
      }),
    );
  return true; // the answer comes later
});

// For the tests and for a curious person in the service worker's console.
self.jobctrl = {
  saveTab,
  refreshBadge,
  runNextTask,
  refreshQueue,
  postingAddress,
  originPattern,
  looksLikePosting,
};
