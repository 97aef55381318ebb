// Settings: a one-time pairing code for the browser extension (POST /v1/extension/codes),
// shown beside its button. callApi and flash are app.js's.
document.addEventListener("click", async (ev) => {
  const button = ev.target.closest("button[data-pair-extension]");
  if (!button) return;
  const out = button.parentElement.querySelector("output");
  button.disabled = true;
  try {
    const made = await callApi("POST", "/v1/extension/codes", {});
    const until = new Date(made.expiresAt).toLocaleTimeString();
    out.textContent = `${made.code} — type it in the extension; it works once, until ${until}.`;
  } catch (err) {
    flash(err.message, true);
  } finally {
    button.disabled = false;
  }
});
