// jobctrl: the popup (also opened as a page, popup.html?tab=ID, to act on tab ID). Every
// text from a page or from jobctrl is set as text, never as markup.

import { DEFAULT_SERVER, getState, normaliseServer } from "./api.js";
import { isLoopback, looksLikePosting, originPattern, siteOf } from "./sites.js";

const $ = (id) => document.getElementById(id);
const REVOKED = "This browser is no longer connected to jobctrl. Connect it again with a " +
  "new pairing code.";

function say(text, isError = false) {
  $("message").textContent = text || "";
  $("message").className = isError ? "error" : "";
}

async function ask(message) {
  const answer = await chrome.runtime.sendMessage(message);
  if (answer && !answer.ok && (answer.kind === "revoked" || answer.kind === "unpaired")) {
    await show();
  }
  return answer || { ok: false, message: "The extension did not answer. Reload it." };
}

async function targetTab() {
  const asked = new URLSearchParams(location.search).get("tab");
  if (asked) return chrome.tabs.get(Number(asked));
  const [tab] = await chrome.tabs.query({ active: true, currentWindow: true });
  return tab;
}

function link(href, text) {
  const a = document.createElement("a");
  a.href = href;
  a.target = "_blank";
  a.rel = "noopener";
  a.textContent = text;
  return a;
}

// jobctrl's next action for a job (its inbox groups), in the inbox's words.
const NEXT = {
  needs_you: "needs you",
  needs_browser: "needs your browser",
  review: "ready for your review",
  ready_to_apply: "ready to apply",
  follow_up: "time to follow up",
  in_progress: "being prepared",
  applied: "applied",
  not_a_fit: "not a fit",
  closed: "posting closed",
  hidden: "hidden",
};

function words(code) {
  return NEXT[code] || String(code || "").replace(/_/g, " ");
}

function stateText(row) {
  const s = row.status;
  if (!s) return "jobctrl did not say";
  if (!s.known) return "not in jobctrl any more";
  const parts = [];
  if (typeof s.score === "number") parts.push(`fit ${Math.round(s.score)}`);
  if (s.nextAction) parts.push(words(s.nextAction));
  if (!parts.length) parts.push(row.created ? "saved, being read" : "already in jobctrl");
  if (row.applyOnSite) parts.push("apply on the site");
  return parts.join(" · ");
}

// -- this page ----------------------------------------------------------------------------

let tab = null;

async function showPage() {
  tab = await targetTab().catch(() => null);
  const status = $("page-status");
  if (!tab || !/^https?:/.test(tab.url || "")) {
    status.textContent = "Open a job posting to save it.";
    $("save").disabled = true;
    return;
  }
  $("save").disabled = false;
  status.textContent = looksLikePosting(tab.url) ? "Checking whether jobctrl has this job…" : "";
  const answer = await ask({ type: "status", tabId: tab.id, url: tab.url });
  if (answer.ok && answer.status && answer.status.known) {
    const score = answer.status.score;
    status.textContent = typeof score === "number"
      ? `jobctrl has this job (fit ${Math.round(score)}). `
      : "jobctrl has this job. ";
    status.append(link(answer.link, "Open it in jobctrl"));
  } else if (answer.ok) {
    status.textContent = "This job is not in jobctrl yet.";
  } else {
    status.textContent = answer.message || "";
  }
}

async function save() {
  $("save").disabled = true;
  say("Saving…");
  const answer = await ask({ type: "save", tabId: tab.id });
  $("save").disabled = false;
  if (!answer.ok) {
    say(answer.message, true);
    return;
  }
  say(answer.created ? "Saved. jobctrl is reading it now. " : "jobctrl already had this job. ");
  $("message").append(link(answer.link, "Open it in jobctrl"));
  await Promise.all([showPage(), showRecent()]);
}

// -- recent saves and the queue -------------------------------------------------------------

async function showRecent() {
  const answer = await ask({ type: "recent" });
  const list = $("recent");
  list.replaceChildren();
  const rows = answer.ok ? answer.recent : [];
  $("recent-empty").hidden = rows.length > 0;
  for (const row of rows) {
    const li = document.createElement("li");
    const label = [row.title || row.url, row.company].filter(Boolean).join(" — ");
    li.append(link(row.link, label));
    const state = document.createElement("span");
    state.className = "state";
    state.textContent = stateText(row);
    li.append(state);
    list.append(li);
  }
}

async function allow(url, on) {
  if (on && !isLoopback(url)) {
    // Asked while the person's click is still being handled: the browser shows its prompt.
    const granted = await chrome.permissions.request({ origins: [originPattern(url)] });
    if (!granted) {
      say(`The browser did not allow pages on ${siteOf(url)}.`, true);
      return;
    }
  }
  await ask({ type: "allowSite", url, on });
  await showQueue();
}

async function showQueue() {
  const answer = await ask({ type: "queue" });
  const { sites = {}, stopped = false, skipped = {}, queueEnabled = true } = await getState(
    "sites", "stopped", "skipped", "queueEnabled");
  $("stopped").checked = stopped;
  const queue = answer.ok ? answer.queue : [];
  const list = $("queue");
  list.replaceChildren();
  $("queue-empty").hidden = queue.length > 0;
  $("queue-empty").textContent = queueEnabled
    ? "No pages are waiting."
    : "jobctrl is not offering pages to this browser (jobctrl extension tasks --resume).";
  const bySite = new Map();
  for (const task of queue) {
    if (!bySite.has(task.site)) bySite.set(task.site, []);
    bySite.get(task.site).push(task);
  }
  for (const [site, tasks] of bySite) {
    const li = document.createElement("li");
    li.dataset.site = site;
    const count = tasks.length === 1 ? "1 page" : `${tasks.length} pages`;
    li.append(`${site}: ${count}`);
    const notes = tasks.map((t) => skipped[t.url]).filter(Boolean);
    if (notes.length) {
      const state = document.createElement("span");
      state.className = "state";
      const why = new Set(notes.map((n) => n.reason));
      state.textContent = why.has("sign-in")
        ? `Sign in to ${site} in this browser; jobctrl will try again later.`
        : why.has("refused")
          ? `jobctrl did not take pages from ${site} (is it among the sites it takes saves ` +
            "from, setting extension.capture_hosts?); it will try again later."
          : "Some pages showed no posting; jobctrl will try again later.";
      li.append(state);
    }
    const label = document.createElement("label");
    label.className = "switch";
    const box = document.createElement("input");
    box.type = "checkbox";
    box.checked = !!sites[site];
    box.addEventListener("change", () => allow(tasks[0].url, box.checked));
    label.append(box, ` Open pages on ${site} in the background`);
    li.append(label);
    list.append(li);
  }
}

// -- connecting -------------------------------------------------------------------------------

async function connect(event) {
  event.preventDefault();
  let server;
  try {
    server = normaliseServer($("server").value);
  } catch {
    say("That address does not look right. It is usually http://127.0.0.1:8765.", true);
    return;
  }
  if (!isLoopback(server)) {
    const granted = await chrome.permissions.request({ origins: [`${server}/*`] });
    if (!granted) {
      say("The browser did not allow the extension to reach that address.", true);
      return;
    }
  }
  say("Connecting…");
  const answer = await ask({
    type: "pair", server, code: $("code").value, name: $("name").value,
  });
  if (!answer.ok) {
    say(answer.message, true);
    return;
  }
  $("code").value = "";
  say(`Connected. This browser is "${answer.name}" in jobctrl.`);
  await show();
}

async function show() {
  const { token, server, name, revoked } = await getState("token", "server", "name", "revoked");
  $("connect").hidden = !!token;
  $("paired").hidden = !token;
  $("who").textContent = token ? `${name || "this browser"} · ${server}` : "";
  if (!token) {
    $("server").value = server || DEFAULT_SERVER;
    if (revoked) say(REVOKED, true);
    return;
  }
  await Promise.all([showPage(), showRecent(), showQueue()]);
}

document.addEventListener("DOMContentLoaded", () => {
  $("pair-form").addEventListener("submit", connect);
  $("save").addEventListener("click", save);
  $("stopped").addEventListener("change", async (e) => {
    await ask({ type: "stop", on: e.target.checked });
    say(e.target.checked ? "jobctrl will not open pages in this browser." : "");
  });
  $("forget").addEventListener("click", async () => {
    await ask({ type: "forget" });
    say("Disconnected. jobctrl keeps this browser's name until you revoke it there.");
    await show();
  });
  show().catch(() => say("Something went wrong in the extension.", true));
});
