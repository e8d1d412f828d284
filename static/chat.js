// The traveler's chat: what htmx attributes cannot say. Enter sends and
// Shift+Enter adds a line; the message box is cleared only once the server
// stored the message; the transcript follows the newest message unless the
// traveler scrolled up to read. Loaded with defer; no inline scripts.
(function () {
  "use strict";

  function transcript() { return document.getElementById("transcript"); }
  function streaming() { var t = transcript(); return t && t.querySelector(".msg.streaming"); }

  // Scroll following: the transcript sticks to its bottom, so the newest
  // message is always fully in view, until the reader scrolls up. Only a
  // move up from where we last put it unsticks: a growing answer changes
  // scrollHeight without a scroll event, so it can never unstick by itself.
  // Jumps are instant (a smooth scroll still under way when the next piece
  // of the answer arrives would land short of the end).
  var stuck = true;
  var placed = 0; // scrollTop we last set
  function nearBottom(el) { return el.scrollHeight - el.scrollTop - el.clientHeight < 24; }
  function follow() {
    var t = transcript();
    if (!t || !stuck) return;
    t.scrollTo({ top: t.scrollHeight, behavior: "instant" });
    placed = t.scrollTop;
  }
  function onTranscriptScroll() {
    var t = transcript();
    if (!t) return;
    if (nearBottom(t)) stuck = true;
    else if (t.scrollTop < placed - 2) stuck = false;
  }
  function watchTranscript(t) {
    t.addEventListener("scroll", onTranscriptScroll, { passive: true });
    new MutationObserver(follow).observe(t, { childList: true, subtree: true, characterData: true });
    if (window.ResizeObserver) {
      // The transcript shrinks when the outcome replaces the message form,
      // and its messages grow as an answer streams or a table lays out.
      var ro = new ResizeObserver(follow);
      ro.observe(t);
      new MutationObserver(function () {
        var last = t.lastElementChild;
        if (last) ro.observe(last);
      }).observe(t, { childList: true });
      if (t.lastElementChild) ro.observe(t.lastElementChild);
    }
  }

  // fitChat sizes the conversation to the window below where it starts, so
  // the message box is on screen without scrolling the page, whatever the
  // height of the top bar and banner above it (they wrap on a phone).
  function fitChat() {
    var main = document.querySelector(".chat-main:not(.chat-welcome)");
    if (!main) return;
    var root = document.documentElement;
    var top = main.getBoundingClientRect().top + window.scrollY;
    root.style.setProperty("--chat-top", Math.round(top) + "px");
    // On a wide screen the three columns fit the window: whatever still
    // sticks out below (the page's bottom padding, a border) is taken off
    // the conversation's height, so the page has no second scrollbar.
    root.style.setProperty("--chat-fix", "0px");
    if (window.innerWidth > 1100) {
      var over = root.scrollHeight - window.innerHeight;
      if (over > 0 && over < 80) root.style.setProperty("--chat-fix", over + "px");
    }
  }

  function init() {
    fitChat();
    window.addEventListener("resize", fitChat, { passive: true });
    var t = transcript();
    if (!t) return;
    follow();
    watchTranscript(t);
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

  // A text over its limit (data-max-chars, typed or pasted) is refused with
  // a visible message under the box instead of being cut silently: the box
  // keeps all of it so nothing is lost, and sending waits until it fits.
  function overLimit(box) {
    var max = parseInt(box.getAttribute("data-max-chars"), 10);
    var n = Array.from(box.value).length;
    return max && n > max ? { max: max, n: n } : null;
  }
  function checkLimit(box) {
    var slot = null;
    (box.getAttribute("aria-describedby") || "").split(/\s+/).some(function (id) {
      var el = id && document.getElementById(id);
      if (el && el.classList.contains("field-error")) { slot = el; return true; }
      return false;
    });
    var over = overLimit(box);
    if (over) {
      box.setAttribute("aria-invalid", "true");
      if (slot) {
        slot.innerHTML = "";
        var p = document.createElement("div");
        p.className = "alert error";
        p.setAttribute("role", "alert");
        p.setAttribute("data-testid", "over-limit");
        p.textContent = "Too long: " + over.n.toLocaleString("en") + " characters, the limit is " + over.max.toLocaleString("en") +
          ". Shorten it or split it into several messages; nothing was sent.";
        slot.appendChild(p);
      }
    } else if (box.getAttribute("aria-invalid") === "true" && slot && slot.querySelector('[data-testid="over-limit"]')) {
      box.removeAttribute("aria-invalid");
      slot.textContent = "";
    }
    return !over;
  }
  document.addEventListener("input", function (evt) {
    if (evt.target.hasAttribute && evt.target.hasAttribute("data-max-chars")) checkLimit(evt.target);
  });
  document.addEventListener("htmx:confirm", function (evt) {
    var form = evt.target;
    if (!form.querySelectorAll) return;
    var boxes = form.querySelectorAll("[data-max-chars]");
    for (var i = 0; i < boxes.length; i++) {
      if (!checkLimit(boxes[i])) { evt.preventDefault(); boxes[i].focus(); return; }
    }
  });

  // A form swapped in to correct something (a note, a title) opens with the
  // caret after the text, where a correction usually starts.
  document.addEventListener("htmx:load", function (evt) {
    var el = evt.detail.elt && evt.detail.elt.querySelector && evt.detail.elt.querySelector("textarea[autofocus], input[autofocus]");
    if (el && document.activeElement === el && el.setSelectionRange) el.setSelectionRange(el.value.length, el.value.length);
  });

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
