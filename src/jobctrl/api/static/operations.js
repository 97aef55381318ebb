// The Operations page: the workers' runtime report changes without an event, so the live
// part is also refreshed every data-live-every ms (soon() is app.js's coalescing refresh;
// an unchanged fragment is left alone).
"use strict";

document.addEventListener("DOMContentLoaded", () => {
  const el = document.querySelector("[data-live-every]");
  const every = el ? Number(el.dataset.liveEvery) : 0;
  if (every > 0) setInterval(() => soon(), every);
});
