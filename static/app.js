// Concierge's own few lines of JavaScript, for what htmx attributes cannot
// express. Loaded with defer; no inline scripts (the CSP forbids them).
(function () {
  "use strict";
  // Send the CSRF token with every htmx request.
  document.addEventListener("htmx:configRequest", function (evt) {
    var meta = document.querySelector('meta[name="csrf-token"]');
    if (meta) evt.detail.headers["X-CSRF-Token"] = meta.content;
  });

  // After Undo, Delete, Edit, a review's claim or resolution and the like
  // the server names what to say and where the focus goes
  // (HX-Trigger-After-Settle, see handlers.announce):
  // the live region speaks, and the focus never falls back to the body.
  function announce(say, focus) {
    var live = document.getElementById("announce");
    if (live && say) {
      live.textContent = "";
      window.setTimeout(function () { live.textContent = say; }, 50);
    }
    var el = focus && document.querySelector(focus);
    if (el) el.focus();
  }
  document.addEventListener("concierge:announce", function (evt) {
    announce(evt.detail.say, evt.detail.focus);
  });
})();
