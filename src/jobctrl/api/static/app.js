// jobctrl pages: live refresh from the event stream, and the buttons and forms that call
// the JSON API (same-origin fetch: the server accepts it by its Origin and Sec-Fetch-Site).
"use strict";

function flash(text, isError) {
  const el = document.getElementById("flash");
  el.textContent = text;
  el.className = isError ? "error" : "ok";
  el.hidden = !text;
}

async function callApi(method, url, body) {
  const res = await fetch(url, {
    method,
    headers: { "Content-Type": "application/json", Accept: "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  let data = null;
  try {
    data = await res.json();
  } catch (_) {
    // not JSON: the status line says enough
  }
  if (!res.ok) {
    const detail = data && typeof data.detail === "string" ? data.detail : null;
    throw new Error((data && data.error && data.error.message) || detail || `${res.status} ${res.statusText}`);
  }
  return data;
}

// -- live regions: [data-live=NAME] is re-rendered from ?fragment=NAME -------------------

let pending = null;
let busy = false;
const rendered = new WeakMap();

async function refresh() {
  if (busy) return soon();
  busy = true;
  try {
    for (const el of document.querySelectorAll("[data-live]")) {
      const url = new URL(location.href);
      url.searchParams.set("fragment", el.dataset.live);
      const res = await fetch(url, { headers: { Accept: "text/html" } });
      // A text area being edited is never replaced under the person's hands.
      if ([...el.querySelectorAll("form[data-material-edit] textarea, form[data-contact-research] textarea")].some((t) => t.value !== t.defaultValue)) continue;
      const html = res.ok ? await res.text() : null;
      // An unchanged fragment is left alone (no flicker, embedded PDFs are not reloaded).
      if (html === null || html === rendered.get(el)) continue;
      rendered.set(el, html);
      const opened = [...el.querySelectorAll("details")].map((d) => d.open);
      el.innerHTML = html;
      el.querySelectorAll("details").forEach((d, i) => { d.open = d.open || !!opened[i]; });
      const total = res.headers.get("X-Total-Count");
      if (total !== null) document.querySelectorAll("[data-total]").forEach((t) => { t.textContent = total; });
    }
  } finally {
    busy = false;
  }
}

// Coalesce a burst of events into one refresh ~300 ms after the first.
function soon() {
  if (pending === null) pending = setTimeout(() => { pending = null; refresh(); }, 300);
}

function wants(el, type, data) {
  const job = el.dataset.liveJob;
  if (job && data.jobId !== job) return false;
  const prefixes = el.dataset.liveTypes;
  return !prefixes || prefixes.split(" ").some((p) => type.startsWith(p));
}

function listen() {
  const regions = [...document.querySelectorAll("[data-live]")];
  if (!regions.length || !window.EventSource) return;
  const source = new EventSource("/v1/events/stream");
  const onEvent = (ev) => {
    let data = {};
    try {
      data = JSON.parse(ev.data);
    } catch (_) {
      return;
    }
    if (regions.some((el) => wants(el, ev.type, data))) soon();
  };
  // Messages carry a named `event:` field, so each type needs its own listener.
  for (const type of document.body.dataset.eventTypes.split(" ")) source.addEventListener(type, onEvent);
  window.addEventListener("pagehide", () => source.close());
}

// -- commands ------------------------------------------------------------------------

function formatSetting(kind, value) {
  if (kind === "list") return value.join(", ");
  if (kind === "map") return Object.entries(value).map(([k, v]) => `${k}=${v}`).join(", ");
  return String(value);
}

function parseSetting(kind, raw) {
  const text = raw.trim();
  const number = (s) => {
    if (s.trim() === "" || Number.isNaN(Number(s))) throw new Error(`${s.trim() || "an empty value"} is not a number`);
    return Number(s);
  };
  const parts = text.split(",").map((s) => s.trim()).filter(Boolean);
  switch (kind) {
    case "bool": return text === "true";
    case "int": case "number": return number(text);
    case "list": return parts;
    case "map": return Object.fromEntries(parts.map((part) => {
      const [lane, tokens] = part.split("=");
      if (tokens === undefined) throw new Error(`use LANE=TOKENS, not ${part}`);
      return [lane.trim(), number(tokens)];
    }));
    default: return text;
  }
}

document.addEventListener("click", async (ev) => {
  const button = ev.target.closest("button[data-post]");
  if (!button) return;
  // data-confirm: asked first; data-prompt: an optional reason sent as {reason}.
  if (button.dataset.confirm && !window.confirm(button.dataset.confirm)) return;
  let reason = null;
  if (button.dataset.prompt) {
    reason = window.prompt(button.dataset.prompt, "");
    if (reason === null) return;
  }
  button.disabled = true;
  try {
    let body;
    if (button.dataset.stage) body = { stage: button.dataset.stage };
    else if (button.dataset.body) body = JSON.parse(button.dataset.body);
    else if (reason) body = { reason };
    const data = await callApi(button.dataset.method || "POST", button.dataset.post, body);
    if (button.dataset.then) {
      location.assign(button.dataset.then);
      return;
    }
    // A send says what became of it (sent, or in doubt and what to check); a decision on
    // materials says what was decided.
    const decided = button.dataset.decision && data && Array.isArray(data.items)
      ? `${button.dataset.decision === "approve" ? "Approved" : "Rejected"}: ${data.items.map((d) => `${d.kind === "cover" ? "letter" : d.kind} generation ${d.generation}`).join(", ")}.`
      : null;
    const said = decided || (data && typeof data.message === "string" && data.status ? `${data.status}: ${data.message}` : null);
    flash(said || `${button.textContent.trim()}: requested.`, data && data.status === "unknown");
    refresh();
  } catch (err) {
    flash(err.message, true);
  } finally {
    button.disabled = false;
  }
});

document.addEventListener("submit", async (ev) => {
  const form = ev.target;
  if (form.matches("[data-add-job]")) {
    ev.preventDefault();
    try {
      const job = await callApi("POST", "/v1/jobs", { url: form.elements.url.value.trim() });
      flash(job.created === false ? `Already tracked: job ${job.jobId}.` : `Added job ${job.jobId}.`);
      form.reset();
      refresh();
    } catch (err) {
      flash(err.message, true);
    }
  } else if (form.matches("[data-material-edit]")) {
    // An edited resume or letter (PUT /v1/jobs/{id}/materials/{kind}): saved as a new
    // draft and checked; what the profile does not support is listed with why.
    ev.preventDefault();
    const out = form.querySelector("output");
    const list = form.querySelector(".edit-findings");
    const area = form.elements.text;
    const button = form.querySelector("button[type=submit]");
    button.disabled = true;
    try {
      const done = await callApi("PUT", form.dataset.materialEdit, { text: area.value });
      list.replaceChildren(...done.findings.map((f) => {
        const li = document.createElement("li");
        li.textContent = `“${f.sentence}” — it ${f.reason} (${f.claim})`;
        return li;
      }));
      out.textContent = done.passed
        ? `saved as generation ${done.generation}: every sentence is supported by your profile`
        : `saved as generation ${done.generation}: ${done.findings.length} sentence(s) your profile does not support; approval waits until you remove them or add the facts to your profile`;
      out.className = done.passed ? "ok" : "error";
      flash(out.textContent, !done.passed);
      area.defaultValue = area.value;
      refresh();
    } catch (err) {
      out.textContent = err.message;
      out.className = "error";
    } finally {
      button.disabled = false;
    }
  } else if (form.matches("[data-outcome]")) {
    // An application's outcome, note and follow-up date (POST /v1/applications/{ref}/outcome).
    ev.preventDefault();
    const out = form.querySelector("output");
    const { outcome, note, followUp } = form.elements;
    try {
      const body = { outcome: outcome.value, note: note.value };
      if (followUp.value) body.followUp = followUp.value;
      await callApi("POST", form.dataset.outcome, body);
      out.textContent = "saved";
      out.className = "ok";
      refresh();
    } catch (err) {
      out.textContent = err.message;
      out.className = "error";
    }
  } else if (form.matches("[data-apply-edit]")) {
    // An email application's recipients and text (POST /v1/apply/{job}/prepare): any
    // change clears the approval, so the message must be approved again.
    ev.preventDefault();
    const out = form.querySelector("output");
    const { to, subject, body } = form.elements;
    try {
      const fields = { channel: "email", to: to.value.split(",").map((s) => s.trim()).filter(Boolean) };
      if (subject) fields.subject = subject.value;
      if (body) fields.body = body.value;
      await callApi("POST", form.dataset.applyEdit, fields);
      out.textContent = "saved: approve the message again before sending";
      out.className = "ok";
      refresh();
    } catch (err) {
      out.textContent = err.message;
      out.className = "error";
    }
  } else if (form.matches("[data-contact-research]")) {
    // A contact research run over the pages named and the text pasted (issue 33).
    ev.preventDefault();
    const out = form.querySelector("output");
    const { sources, paste } = form.elements;
    const body = { sources: sources.value.split(/\s+/).filter(Boolean) };
    if (paste.value.trim()) body.paste = paste.value;
    try {
      await callApi("POST", form.dataset.contactResearch, body);
      sources.value = "";  // sent: the section may be refreshed under it now
      paste.value = "";
      out.textContent = "started: the people found appear here in a moment";
      out.className = "ok";
      refresh();
    } catch (err) {
      out.textContent = err.message;
      out.className = "error";
    }
  } else if (form.matches("[data-answers]")) {
    // The profile's saved answers (PATCH /v1/profile/answers): every field at once.
    ev.preventDefault();
    const out = form.querySelector("output");
    const body = { questions: [] };
    for (const el of form.querySelectorAll("[name]")) {
      body[el.name] = el.dataset.kind === "yesno" ? (el.value === "" ? null : el.value === "true") : el.value.trim();
    }
    for (const row of form.querySelectorAll(".saved-question")) {
      const question = row.querySelector("[data-question]").value.trim();
      if (question) body.questions.push({ question, answer: row.querySelector("[data-answer]").value.trim() });
    }
    try {
      await callApi("PATCH", form.dataset.answers, body);
      out.textContent = "saved";
      out.className = "ok";
    } catch (err) {
      out.textContent = err.message;
      out.className = "error";
    }
  } else if (form.matches("[data-target-search]")) {
    // What discovery looks for (PATCH /v1/target-search): lists as comma-separated text.
    ev.preventDefault();
    const out = form.querySelector("output");
    const body = {};
    for (const el of form.querySelectorAll("[name]")) {
      body[el.name] = el.dataset.kind === "bool" ? el.value === "true" : el.value.trim();
    }
    try {
      await callApi("PATCH", form.dataset.targetSearch, body);
      out.textContent = "saved";
      out.className = "ok";
    } catch (err) {
      out.textContent = err.message;
      out.className = "error";
    }
  } else if (form.matches("[data-setting]")) {
    ev.preventDefault();
    const { setting: key, kind } = form.dataset;
    const out = form.querySelector("output");
    try {
      const input = form.elements.value;
      const all = await callApi("PATCH", "/v1/settings", { [key]: parseSetting(kind, input.value) });
      if (all && key in all && kind !== "bool") input.value = formatSetting(kind, all[key]);
      out.textContent = "saved";
      out.className = "ok";
    } catch (err) {
      out.textContent = err.message;
      out.className = "error";
    }
  }
});

listen();
