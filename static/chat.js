// The traveler's chat: what htmx attributes cannot say. Enter sends and
// Shift+Enter adds a line; the message box is cleared only once the server
// stored the message; the transcript follows the newest message unless the
// traveler scrolled up to read. Loaded with defer; no inline scripts.
(function () {
  "use strict";

  function transcript() { return document.getElementById("transcript"); }
  function streaming() { var t = transcript(); return t && t.querySelector(".msg.streaming"); }

  // Scroll following: stick to the bottom while the reader is near it.
  var stuck = true;
  function nearBottom(el) { return el.scrollHeight - el.scrollTop - el.clientHeight < 80; }
  function follow() {
    var t = transcript();
    if (t && stuck) t.scrollTop = t.scrollHeight;
  }

  function init() {
    var t = transcript();
    if (!t) return;
    t.scrollTop = t.scrollHeight;
    t.addEventListener("scroll", function () { stuck = nearBottom(t); }, { passive: true });
    new MutationObserver(follow).observe(t, { childList: true, subtree: true, characterData: true });
    // The transcript shrinks when the outcome replaces the message form.
    if (window.ResizeObserver) new ResizeObserver(follow).observe(t);
    var box = document.getElementById("message");
    if (box && !streaming()) box.focus({ preventScroll: true });
  }

  // Set by an Enter that sent the message, so the line break some input
  // paths still deliver after the keydown (synthetic keys, some IMEs) is
  // dropped instead of landing in the emptied box.
  var sentByEnter = false;
  document.addEventListener("keydown", function (evt) {
    var box = evt.target;
    if (box.id !== "message" || evt.key !== "Enter" || evt.shiftKey || evt.isComposing) return;
    evt.preventDefault();
    sentByEnter = true;
    window.setTimeout(function () { sentByEnter = false; }, 500);
    if (box.value.trim() !== "" && box.form) box.form.requestSubmit();
  });
  document.addEventListener("beforeinput", function (evt) {
    if (evt.target.id === "message" && sentByEnter &&
        (evt.inputType === "insertLineBreak" || (evt.inputType === "insertText" && evt.data === "\n"))) {
      evt.preventDefault();
    }
  });

  // One answer at a time: a message sent while one streams would only wait.
  document.addEventListener("htmx:confirm", function (evt) {
    if (evt.target.id === "composer" && streaming()) {
      evt.preventDefault();
      var hint = document.getElementById("composer-hint");
      if (hint) hint.textContent = "Wait for the answer to finish, then send.";
    }
  });

  // newKey makes a random Idempotency-Key (getRandomValues works on plain
  // http too, unlike randomUUID).
  function newKey() {
    var b = new Uint8Array(16);
    window.crypto.getRandomValues(b);
    return Array.prototype.map.call(b, function (x) { return ("0" + x.toString(16)).slice(-2); }).join("");
  }

  document.addEventListener("htmx:afterRequest", function (evt) {
    var form = evt.detail.elt;
    if (!form || form.id !== "composer") return;
    if (evt.detail.successful) {
      form.reset();
      // The next message is a new one: give it its own Idempotency-Key.
      var key = form.querySelector("input[name=idempotency_key]");
      if (key) key.value = newKey();
      stuck = true;
      follow();
      var flash = document.getElementById("flash");
      if (flash) flash.textContent = "";
      var hint = document.getElementById("composer-hint");
      if (hint) hint.textContent = "Enter to send · Shift+Enter for a new line";
    }
    // On failure the text stays in the box and the error shows in #flash.
  });

  // When the stream of an answer ends, give the message box back.
  document.addEventListener("htmx:sseClose", function () {
    var box = document.getElementById("message");
    if (box && document.activeElement === document.body) box.focus({ preventScroll: true });
  });

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
