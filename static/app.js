// Concierge's own few lines of JavaScript, for what htmx attributes cannot
// express. Loaded with defer on every page; no inline scripts (the CSP
// forbids them).
(function () {
  "use strict";
  // Send the CSRF token with every htmx request.
  document.addEventListener("htmx:configRequest", function (evt) {
    var meta = document.querySelector('meta[name="csrf-token"]');
    if (meta) evt.detail.headers["X-CSRF-Token"] = meta.content;
  });

  // The focus rule: after any action that replaces part of a page, the
  // focus goes to its result (the outcome, the saved item, the error at its
  // field) and the page's live region (#announce, in the layout) says what
  // happened. The server names both, in one of two ways that end here:
  //  - an htmx answer sends HX-Trigger-After-Settle
  //    {"concierge:announce": {"say", "focus"}} (handlers.announce);
  //  - a form that posts and redirects lands on a page whose live region
  //    carries data-say and data-focus (handlers.announceNext).
  function announce(say, focus) {
    var live = document.getElementById("announce");
    if (live && say) {
      live.textContent = "";
      window.setTimeout(function () { live.textContent = say; }, 50);
    }
    // "?selector": only when the focus fell to the page body (the element
    // that had it was replaced), never taking it from where the person is.
    if (focus && focus.charAt(0) === "?") {
      focus = focus.slice(1);
      var at = document.activeElement;
      if (at && at !== document.body && document.contains(at)) focus = null;
    }
    var el = focus && document.querySelector(focus);
    if (el) {
      if (el.tabIndex < 0 && !el.hasAttribute("tabindex")) el.setAttribute("tabindex", "-1");
      el.focus();
      if (el.scrollIntoView && !inView(el)) el.scrollIntoView({ block: "center" });
    }
  }
  function inView(el) {
    var r = el.getBoundingClientRect();
    return r.top >= 0 && r.bottom <= window.innerHeight;
  }
  document.addEventListener("concierge:announce", function (evt) {
    announce(evt.detail.say, evt.detail.focus);
  });
  function announceOnLoad() {
    var live = document.getElementById("announce");
    if (live && (live.dataset.say || live.dataset.focus)) announce(live.dataset.say, live.dataset.focus);
  }

  // Errors show next to the control that caused them: a form (or one of its
  // ancestors) names its error slot in data-errors, and an error answer is
  // swapped there instead of the page's flash area; the control is marked
  // invalid until the next try, and takes the focus.
  function errorSlot(elt) {
    var holder = elt && elt.closest && elt.closest("[data-errors]");
    return holder && document.querySelector(holder.getAttribute("data-errors"));
  }
  document.addEventListener("htmx:beforeSwap", function (evt) {
    var cfg = evt.detail.requestConfig;
    var slot = errorSlot(cfg && cfg.elt);
    if (!slot) return;
    if (evt.detail.isError) {
      evt.detail.shouldSwap = true;
      evt.detail.target = slot;
      evt.detail.swapOverride = "innerHTML";
      var field = slot.id && document.querySelector('[aria-describedby~="' + slot.id + '"]');
      if (field) field.setAttribute("aria-invalid", "true");
    } else {
      slot.textContent = "";
      var marked = slot.id && document.querySelector('[aria-describedby~="' + slot.id + '"][aria-invalid]');
      if (marked) marked.removeAttribute("aria-invalid");
    }
  });
  document.addEventListener("htmx:afterSettle", function (evt) {
    if (!evt.detail.failed && !(evt.detail.xhr && evt.detail.xhr.status >= 400)) return;
    var slot = evt.detail.target;
    var field = slot && slot.id && document.querySelector('[aria-describedby~="' + slot.id + '"]');
    if (field && field.id) announce("", "#" + field.id); // the slot's role="alert" speaks
  });

  // A Copy button (data-copy names the field) copies the field's text and
  // says so; where the clipboard API is refused (plain http) the text is
  // left selected for Ctrl+C.
  document.addEventListener("click", function (evt) {
    var btn = evt.target.closest && evt.target.closest("[data-copy]");
    var field = btn && document.querySelector(btn.getAttribute("data-copy"));
    if (!field) return;
    field.select();
    var done = function () { btn.textContent = "Copied"; announce("Copied to the clipboard.", null); };
    var fallback = function () {
      try { if (document.execCommand("copy")) { done(); return; } } catch (e) { /* fall through */ }
      announce("Press Ctrl+C to copy the selected token.", null);
    };
    if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(field.value).then(done, fallback);
    else fallback();
  });

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", announceOnLoad);
  else announceOnLoad();
})();
