// The Profile page: add and remove entries, save the whole profile (PUT /v1/profile, a new
// version) and import a resume file (POST /v1/profile/import, the file as the body).
// callApi and flash are app.js's.
"use strict";

// An input's value: a [data-lines] textarea is a list (one item a line, blanks dropped).
function fieldValue(el) {
  if (el.hasAttribute("data-lines")) return el.value.split("\n").map((s) => s.trim()).filter(Boolean);
  return el.value.trim();
}

// "contact.email" → obj.contact.email
function setPath(obj, path, value) {
  const parts = path.split(".");
  let node = obj;
  for (const part of parts.slice(0, -1)) node = node[part] = node[part] || {};
  node[parts[parts.length - 1]] = value;
}

function gatherProfile(form) {
  const profile = {};
  for (const el of form.querySelectorAll("[data-part=top] [data-key]")) setPath(profile, el.dataset.key, fieldValue(el));
  for (const list of form.querySelectorAll("[data-list]")) {
    profile[list.dataset.list] = [...list.querySelectorAll(":scope > [data-item]")]
      .map((item) => {
        const entry = {};
        for (const el of item.querySelectorAll("[data-key]")) entry[el.dataset.key] = fieldValue(el);
        return entry;
      })
      .filter((entry) => Object.values(entry).some((v) => (Array.isArray(v) ? v.length : v)));
  }
  return profile;
}

document.addEventListener("click", (ev) => {
  const add = ev.target.closest("[data-add]");
  if (add) {
    const list = document.querySelector(`[data-list="${add.dataset.add}"]`);
    const fresh = list.querySelector("template").content.firstElementChild.cloneNode(true);
    list.insertBefore(fresh, list.querySelector("template"));
    const first = fresh.querySelector("input, textarea");
    if (first) first.focus();
  }
  const remove = ev.target.closest("[data-remove]");
  if (remove) remove.closest("[data-item]").remove();
});

document.addEventListener("submit", async (ev) => {
  const form = ev.target;
  if (form.matches("[data-profile]")) {
    ev.preventDefault();
    const out = form.querySelector("output");
    try {
      const saved = await callApi("PUT", form.dataset.profile, gatherProfile(form));
      document.querySelectorAll("[data-profile-version]").forEach((el) => { el.textContent = saved.version; });
      out.textContent = saved.changed ? `saved: profile version ${saved.version}` : "saved: nothing had changed";
      out.className = "ok";
    } catch (err) {
      out.textContent = err.message;
      out.className = "error";
    }
  } else if (form.matches("[data-profile-import]")) {
    ev.preventDefault();
    const out = form.querySelector("output");
    const file = form.elements.file.files[0];
    if (!file) {
      out.textContent = "choose a resume file first";
      out.className = "error";
      return;
    }
    try {
      const url = `${form.dataset.profileImport}?filename=${encodeURIComponent(file.name)}`;
      const res = await fetch(url, { method: "POST", body: file, headers: { Accept: "application/json" } });
      const data = await res.json().catch(() => null);
      if (!res.ok) throw new Error((data && data.error && data.error.message) || `${res.status} ${res.statusText}`);
      // Shown after the reload: what was read, and what could not be placed or was dropped.
      sessionStorage.setItem("jobctrl.profileImported", JSON.stringify(data));
      location.reload();
    } catch (err) {
      out.textContent = err.message;
      out.className = "error";
    }
  }
});

// After an import: say what was read, list what could not be placed (and what the model
// said that the resume does not), so nothing is dropped silently.
document.addEventListener("DOMContentLoaded", () => {
  const raw = sessionStorage.getItem("jobctrl.profileImported");
  if (!raw) return;
  sessionStorage.removeItem("jobctrl.profileImported");
  const result = JSON.parse(raw);
  const out = document.querySelector("form[data-profile-import] output");
  const report = document.createElement("div");
  report.className = "import-report";
  const head = document.createElement("p");
  head.textContent = `Imported ${result.name || "your resume"}: ${result.experience} roles, ` +
    `${result.education} education entries, ${result.skills} skills (profile version ${result.version}). ` +
    "Check it below and save any fix.";
  report.append(head);
  const listed = (title, items) => {
    if (!items.length) return;
    const p = document.createElement("p");
    p.textContent = title;
    const ul = document.createElement("ul");
    for (const item of items) {
      const li = document.createElement("li");
      li.textContent = item;
      ul.append(li);
    }
    report.append(p, ul);
  };
  listed("Lines that could not be placed (add what belongs yourself):", result.unplaced || []);
  listed("Left out: the model gave these, but your resume does not say them:",
    (result.dropped || []).map((d) => `${d.field}: ${d.value}`));
  if (result.note) listed("Note:", [result.note]);
  out.replaceWith(report);
});
