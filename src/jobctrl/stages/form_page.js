// What the browser prefill runs inside a form page (stages/apply_browser.py): an object of
// functions, each called as `(arg) => (<this file>).name(arg)` in one frame.
//
// scan(tag)     every usable form control, marked with data-jobctrl-field="<tag>:<n>" so
//               Python finds it again: its kind, the words that describe it, required or
//               not, filled or not, and its options. Open shadow roots are searched too.
//               A control the person cannot see is never returned (a honeypot: type=hidden,
//               display:none, visibility:hidden, zero size, off-screen, inside aria-hidden,
//               or named like a trap); radios, checkboxes and file inputs count as seen when
//               their label or container is (sites hide them behind styled buttons).
// guard(flag)   cancel every form submission in this document until handOver(flag): submit
//               events are stopped in the capture phase, form.submit()/requestSubmit() and
//               navigator.sendBeacon() do nothing, fetch keep-alive is dropped. (The network
//               guard in Python stops the requests as well.)
// handOver(flag) the page is the person's: the original behaviour returns.
// setValues(items) type text, choose an option, tick a box, press a Yes/No button.
// captcha()     "visible" when the page shows a challenge the person must solve (a reCAPTCHA
//               v2 checkbox or challenge frame, a visible hCaptcha, a Turnstile widget, an
//               Arkose/FunCaptcha or GeeTest frame, a Cloudflare "verify you are human"
//               page); "invisible" when only an invisible one is there (a v3/Enterprise
//               script with render=KEY, data-size="invisible", a widget bound to a button,
//               the .grecaptcha-badge, hidden challenge frames, response fields): the
//               person's own submit click runs it; "" when there is none.
// firstSubmit() scroll the first submit button into view (nothing left for the person).
(() => {
  const MARK = "data-jobctrl-field";
  const SKIP = new Set(["hidden", "submit", "button", "reset", "image", "password", "search"]);
  const TRAP = /honey|(^|[^a-z])hp([^a-z]|$)|trap|bot[_-]?(check|field)|leave[\s_-]*(this|blank|empty)|do[\s_-]*not[\s_-]*fill|gotcha/i;
  const CAPTCHA = /recaptcha|hcaptcha|turnstile|challenges\.cloudflare\.com|challenge-platform|funcaptcha|arkoselabs|geetest/i;
  // A challenge widget (visible unless the site asked for the invisible kind).
  const WIDGETS = ".g-recaptcha,.h-captcha,.cf-turnstile,[data-sitekey],#FunCaptcha,.geetest_holder";
  // Only ever there for an invisible challenge, or a hidden part of one.
  const TRACES = ".grecaptcha-badge,[name=g-recaptcha-response],[name=h-captcha-response]," +
    "[name=cf-turnstile-response],iframe[title*=captcha i],iframe[title*=challenge i]";
  // A whole page that stands between the person and the site (Cloudflare and the like).
  const INTERSTITIAL = "#challenge-form,#cf-challenge-running,#challenge-stage,.cf-browser-verification";
  const HUMAN = /^just a moment|verify (that )?you are (a )?human|checking (if the site connection is secure|your browser)|are you a robot/i;

  function* walk(root) {
    for (const el of root.querySelectorAll("*")) {
      yield el;
      if (el.shadowRoot) yield* walk(el.shadowRoot);
    }
  }
  const squash = (s) => (s || "").replace(/\s+/g, " ").trim();
  function ownText(node) {
    let out = "";
    const visit = (n) => {
      for (const c of n.childNodes) {
        if (c.nodeType === 3) out += c.textContent + " ";
        else if (c.nodeType === 1 && !c.matches("input,select,textarea,option,script,style,button"))
          visit(c);
      }
    };
    visit(node);
    return squash(out);
  }
  function byIds(el, ids) {
    const root = el.getRootNode();
    return squash(ids.split(/\s+/).map((id) => root.getElementById(id)).filter(Boolean)
      .map(ownText).join(" "));
  }
  function shown(el) {
    if (el.closest("[aria-hidden=true],[hidden],[inert]")) return false;
    const opts = { checkOpacity: true, checkVisibilityCSS: true, opacityProperty: true,
                   visibilityProperty: true };
    if (el.checkVisibility && !el.checkVisibility(opts)) return false;
    const r = el.getBoundingClientRect();
    if (r.width < 2 || r.height < 2) return false;
    const doc = document.documentElement;
    const w = Math.max(doc.scrollWidth, innerWidth), h = Math.max(doc.scrollHeight, innerHeight);
    const x = r.left + scrollX, y = r.top + scrollY;
    return x + r.width > 0 && y + r.height > 0 && x < w && y < h;
  }
  function usable(el, kind) {
    if (TRAP.test([el.name, el.id, el.className].join(" "))) return false;
    if (shown(el)) return true;
    if (!["radio", "checkbox", "file"].includes(kind)) return false;
    if (el.closest("[aria-hidden=true],[hidden],[inert]")) return false;
    const near = [...(el.labels || []), el.parentElement].filter(Boolean);
    return near.some(shown);
  }
  function labelOf(el) {
    const by = el.getAttribute("aria-labelledby");
    if (by) { const t = byIds(el, by); if (t) return t; }
    const aria = squash(el.getAttribute("aria-label"));
    if (aria) return aria;
    const labels = [...(el.labels || [])].map(ownText).filter(Boolean);
    if (labels.length) return labels.join(" ");
    let node = el.parentElement;
    for (let depth = 0; node && depth < 3; depth++, node = node.parentElement) {
      const near = node.querySelector(":scope > label, :scope > legend, :scope > [class*=label], " +
                                      ":scope > [class*=question], :scope > [class*=title]");
      if (near && !near.contains(el)) { const t = ownText(near); if (t) return t; }
    }
    return "";
  }
  function commonAncestor(nodes) {
    let node = nodes[0].parentElement;
    while (node && !nodes.every((n) => node.contains(n))) node = node.parentElement;
    return node;
  }
  function groupQuestion(inputs, optionTexts) {
    const set = inputs[0].closest("fieldset");
    if (set) { const legend = set.querySelector("legend"); if (legend) return ownText(legend); }
    const group = inputs[0].closest("[role=radiogroup],[role=group]");
    if (group) {
      const by = group.getAttribute("aria-labelledby");
      if (by) { const t = byIds(group, by); if (t) return t; }
      if (group.getAttribute("aria-label")) return squash(group.getAttribute("aria-label"));
    }
    let node = commonAncestor(inputs);
    for (let depth = 0; node && depth < 4; depth++, node = node.parentElement) {
      for (const c of node.querySelectorAll("label,legend,[class*=label],[class*=question],p,h3,h4,h5,span,div")) {
        if (inputs.some((i) => c.contains(i))) continue;
        const t = ownText(c);
        if (t && !optionTexts.includes(t)) return t;
      }
    }
    return "";
  }
  const REQUIRED_MARK = /\s*(\*|✱|\(required\))\s*$/i;
  function describe(el, label) {
    const required = el.required || el.getAttribute("aria-required") === "true" ||
      REQUIRED_MARK.test(label);
    return {
      label: label.replace(REQUIRED_MARK, ""), name: el.getAttribute("name") || "",
      id: el.id || "", autocomplete: el.getAttribute("autocomplete") || "",
      placeholder: el.getAttribute("placeholder") || "", required,
    };
  }
  function optionText(el) {
    const labels = [...(el.labels || [])].map(ownText).filter(Boolean);
    return labels[0] || squash(el.getAttribute("aria-label")) || el.value || "";
  }

  function scan(tag) {
    const fields = [];
    const groups = new Map();
    const buttons = new Map();
    let hidden = 0, n = 0;
    const mark = (el) => { const m = `${tag}:${n++}`; el.setAttribute(MARK, m); return m; };
    for (const el of walk(document)) {
      if (el.tagName === "BUTTON" && el.type === "button" && /^(yes|no)$/i.test(squash(el.textContent))) {
        if (!shown(el)) continue;
        const key = el.parentElement;
        if (!buttons.has(key)) buttons.set(key, []);
        buttons.get(key).push(el);
        continue;
      }
      if (!el.matches("input,select,textarea")) continue;
      const kind = el.tagName === "SELECT" ? "select" : el.tagName === "TEXTAREA" ? "textarea"
        : (el.getAttribute("type") || "text").toLowerCase();
      if (SKIP.has(kind) || el.disabled || el.readOnly) continue;
      if (!usable(el, kind)) { hidden++; continue; }
      if ((kind === "radio" || kind === "checkbox") && el.name) {
        const key = `${kind}|${el.form ? "f" : "n"}|${el.name}`;
        if (!groups.has(key)) { groups.set(key, { kind, inputs: [] }); fields.push(groups.get(key)); }
        groups.get(key).inputs.push(el);
        continue;
      }
      if (kind === "radio" || kind === "checkbox") { fields.push({ kind, inputs: [el] }); continue; }
      fields.push({ kind, el });
    }
    const out = [];
    for (const f of fields) {
      if (f.inputs) {
        const texts = f.inputs.map(optionText);
        if (f.kind === "checkbox" && f.inputs.length === 1) {
          const el = f.inputs[0];
          out.push({ mark: mark(el), control: "checkbox", filled: el.checked,
                     ...describe(el, labelOf(el) || texts[0]), options: [] });
          continue;
        }
        const question = groupQuestion(f.inputs, texts);
        const d = describe(f.inputs[0], question);
        d.required = d.required || f.inputs.some((i) => i.required);
        out.push({ ...d, mark: "", control: f.kind === "radio" ? "radio" : "checkboxes",
                   filled: f.inputs.some((i) => i.checked),
                   options: f.inputs.map((i, k) => ({ mark: mark(i), text: texts[k] })) });
        out[out.length - 1].mark = out[out.length - 1].options[0].mark;
        continue;
      }
      const el = f.el;
      const label = labelOf(el);
      if (TRAP.test(label)) { hidden++; continue; }
      let control = "text", filled = squash(el.value) !== "", options = [];
      if (f.kind === "select") {
        control = "select";
        options = [...el.options].map((o, k) => ({ mark: String(k), text: squash(o.textContent) }));
        const chosen = el.selectedIndex >= 0 ? el.options[el.selectedIndex] : null;
        filled = !!chosen && chosen.value !== "" && !/^(-+|select|choose|please select)/i.test(squash(chosen.textContent));
      } else if (f.kind === "textarea") control = "textarea";
      else if (f.kind === "file") { control = "file"; filled = el.files && el.files.length > 0; }
      out.push({ mark: mark(el), control, filled, options, ...describe(el, label) });
    }
    for (const [parent, group] of buttons) {
      const texts = group.map((b) => squash(b.textContent));
      if (!texts.some((t) => /^yes$/i.test(t)) || !texts.some((t) => /^no$/i.test(t))) continue;
      const question = groupQuestion(group, texts);
      const d = describe(parent, question);
      const options = group.map((b, k) => ({ mark: mark(b), text: texts[k] }));
      out.push({ ...d, mark: options[0].mark, control: "yesno", options,
                 filled: group.some((b) => b.getAttribute("aria-pressed") === "true") });
    }
    // A Yes/No pair often keeps its answer in a hidden checkbox labelled by the same
    // question: the buttons are the field.
    const asked = new Set(out.filter((f) => f.control === "yesno").map((f) => f.label));
    const fieldsOut = out.filter((f) => f.control !== "checkbox" || !asked.has(f.label));
    return { fields: fieldsOut, hidden, forms: document.forms.length };
  }

  // Installed at the start of every document (an init script) while the program fills;
  // inert once window[flag] is true (set at hand-over, in every document after it too).
  function guard(flag) {
    if (window.__jobctrlGuarded) return;
    window.__jobctrlGuarded = true;
    const off = () => window[flag] === true;
    const proto = HTMLFormElement.prototype;
    const submit = proto.submit, requestSubmit = proto.requestSubmit;
    proto.submit = function () { if (off()) return submit.call(this); };
    proto.requestSubmit = function (...a) { if (off()) return requestSubmit.apply(this, a); };
    window.addEventListener("submit", (e) => {
      if (!off()) { e.preventDefault(); e.stopImmediatePropagation(); }
    }, true);
    if (navigator.sendBeacon) {
      const beacon = navigator.sendBeacon;
      navigator.sendBeacon = function (...a) { return off() ? beacon.apply(navigator, a) : true; };
    }
    const fetch = window.fetch;
    window.fetch = function (input, init) {
      // A keep-alive request may outlive its page and the network guard with it.
      if (!off() && init && init.keepalive) init = { ...init, keepalive: false };
      return fetch.call(this, input, init);
    };
  }
  function handOver(flag) { window[flag] = true; }

  // Set values the way a person's typing ends: the native setter (so frameworks that
  // track it see the change), then input and change events. No focus moves, so no blur
  // handler runs. items: [{mark, kind: "type"|"choose"|"check"|"click", value, index}].
  function setValues(items) {
    const byMark = new Map();
    for (const el of walk(document)) {
      const m = el.getAttribute && el.getAttribute(MARK);
      if (m) byMark.set(m, el);
    }
    const done = [];
    for (const item of items) {
      const el = byMark.get(item.mark);
      if (!el) { done.push(false); continue; }
      if (item.kind === "type" || item.kind === "choose") {
        if (item.kind === "choose") el.selectedIndex = item.index;
        else {
          const proto = Object.getPrototypeOf(el);
          const setter = Object.getOwnPropertyDescriptor(proto, "value").set;
          setter.call(el, item.value);
        }
        el.dispatchEvent(new Event("input", { bubbles: true, composed: true }));
        el.dispatchEvent(new Event("change", { bubbles: true, composed: true }));
      } else if (item.kind === "check") {
        if (!el.checked) el.click();
      } else if (item.kind === "click") {
        el.click();
      }
      done.push(true);
    }
    return done;
  }

  // Whether the site asked for the invisible kind: data-size="invisible" (on the widget or
  // around it), a widget that is the submit button itself (reCAPTCHA's button binding),
  // reCAPTCHA's badge, or a frame loaded as invisible (size=invisible, checkbox-invisible).
  function invisibleKind(el) {
    const sized = el.closest("[data-size]");
    if (sized && /^invisible$/i.test(sized.getAttribute("data-size"))) return true;
    if (el.matches("button,input[type=submit],input[type=button]")) return true;
    if (el.closest(".grecaptcha-badge")) return true;
    return /[?&#](size=invisible|frame=checkbox-invisible)\b/i.test(el.getAttribute("src") || "");
  }
  function captcha() {
    if (document.querySelector(INTERSTITIAL)) return "visible";
    const headings = [document.title, ...[...document.querySelectorAll("h1,h2")].map((h) => h.textContent)];
    if (headings.some((t) => HUMAN.test(squash(t)))) return "visible";
    let invisible = !!document.querySelector(TRACES);
    for (const el of document.querySelectorAll(WIDGETS)) {
      // An empty container counts (its script may not have drawn it yet); a hidden one not.
      const hidden = el.closest("[hidden],[aria-hidden=true]") ||
        (el.checkVisibility && !el.checkVisibility({ visibilityProperty: true }));
      if (invisibleKind(el) || hidden) { invisible = true; continue; }
      return "visible";
    }
    for (const el of document.querySelectorAll("iframe[src]")) {
      if (!CAPTCHA.test(el.getAttribute("src"))) continue;
      if (invisibleKind(el) || !shown(el)) { invisible = true; continue; }
      return "visible";  // a checkbox, or a challenge frame that has come up
    }
    for (const el of document.querySelectorAll("script[src]")) {
      if (CAPTCHA.test(el.getAttribute("src"))) invisible = true;
    }
    return invisible ? "invisible" : "";
  }
  function firstSubmit() {
    const b = document.querySelector("button[type=submit],input[type=submit],form button:not([type])");
    if (b) b.scrollIntoView({ block: "center" });
    return !!b;
  }
  return { scan, guard, handOver, setValues, captcha, firstSubmit };
})()
