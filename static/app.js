// Concierge's own few lines of JavaScript, for what htmx attributes cannot
// express. Loaded with defer; no inline scripts (the CSP forbids them).
(function () {
  "use strict";
  // Send the CSRF token with every htmx request.
  document.addEventListener("htmx:configRequest", function (evt) {
    var meta = document.querySelector('meta[name="csrf-token"]');
    if (meta) evt.detail.headers["X-CSRF-Token"] = meta.content;
  });
})();
