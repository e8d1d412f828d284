package handlers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"concierge/agent/openai"
	"concierge/agent/openai/fakeopenai"
	"concierge/handlers/browsertest"
)

// viewports are the two sizes every traveler page is checked at.
var viewports = []struct {
	name          string
	width, height int64
	phone         bool
}{
	{"desktop", 1280, 800, false},
	{"phone", 390, 844, true},
}

func emulate(t *testing.T, ctx context.Context, width, height int64, phone bool) {
	t.Helper()
	opts := []chromedp.EmulateViewportOption{}
	if phone {
		opts = append(opts, chromedp.EmulateMobile)
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, height, opts...)); err != nil {
		t.Fatal(err)
	}
}

// inView measures the newest message against the transcript and the
// window, and the message box against the window.
const inView = `(() => {
  const t = document.getElementById("transcript"), msgs = t.querySelectorAll(".msg");
  const last = msgs[msgs.length - 1].getBoundingClientRect(), tr = t.getBoundingClientRect();
  const box = document.getElementById("message").getBoundingClientRect();
  return JSON.stringify({last: last.bottom, transcript: tr.bottom, box: box.bottom, window: innerHeight, scrollY: scrollY,
    ok: last.bottom <= tr.bottom + 1 && tr.bottom <= innerHeight && box.bottom <= innerHeight && box.top >= 0});
})()`

// TestBrowserChatScrollAndFit: at both sizes, after each of five answers
// the newest message is fully in view and the message box is on screen
// without scrolling the page; on a phone the list of conversations fits
// the width.
func TestBrowserChatScrollAndFit(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := browsertest.New(t, 90*time.Second)
	browserSignIn(t, ctx, e, "john@example.com")
	messages := []string{
		"I'm planning a trip to Lisbon in May with my partner.",
		"Compare two hotels in Alfama and Baixa side by side, please.",
		"Remember that I am vegetarian",
		"What do you know about me?",
		"Find me a flight from San Francisco to Lisbon on May 3rd.",
	}
	for _, vp := range viewports {
		t.Run(vp.name, func(t *testing.T) {
			emulate(t, ctx, vp.width, vp.height, vp.phone)
			err := chromedp.Do(ctx,
				chromedp.Navigate(e.srv.URL+"/chat"),
				chromedp.WaitVisible(`[data-testid="chat-page"]`),
				htmxReady(),
			)
			if err != nil {
				t.Fatal(err)
			}
			from, _ := chromedp.Run(ctx, chromedp.Location())
			if err := chromedp.Do(ctx, chromedp.Click(`[data-testid="new-session"]`)); err != nil {
				t.Fatal(err)
			}
			waitNewPage(t, ctx, from)
			for i, m := range messages {
				sendMessage(t, ctx, m)
				got, err := chromedp.Run(ctx, chromedp.Poll[string](`(() => { const r = `+inView+`; return JSON.parse(r).ok ? r : false; })()`,
					chromedp.WithPollingTimeout(time.Second)))
				if err != nil {
					now, _ := chromedp.Run(ctx, chromedp.Evaluate[string](inView))
					t.Errorf("answer %d: the newest message is not fully in view: %s", i+1, now)
				} else if i == 0 {
					t.Logf("after answer 1: %s", got)
				}
			}
			checkFits(t, ctx, "chat", int(vp.width))
			browsertest.Screenshot(t, ctx, "scroll-"+vp.name)
			if vp.phone {
				var right float64
				if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`document.getElementById("conversations").scrollIntoView()`)); err != nil {
					t.Fatal(err)
				}
				right, _ = chromedp.Run(ctx, chromedp.Evaluate[float64](`Math.max(...[...document.querySelectorAll('[data-testid="session-link"]')].map(a => a.getBoundingClientRect().right))`))
				if right > float64(vp.width) {
					t.Errorf("the conversation list reaches %.0fpx on a %dpx screen", right, vp.width)
				}
				browsertest.Screenshot(t, ctx, "scroll-phone-conversations")
			}
		})
	}
}

// TestBrowserBackAfterSignOut: Back after Sign out shows the sign-in page,
// not the previous traveler's chat from the browser cache.
func TestBrowserBackAfterSignOut(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := browsertest.New(t, 45*time.Second)
	browserSignIn(t, ctx, e, "john@example.com")
	err := chromedp.Do(ctx,
		chromedp.Click(`[data-testid="start-session"]`),
		chromedp.WaitVisible(`[data-testid="composer"]`),
		chromedp.Navigate(e.srv.URL+"/memory"),
		chromedp.WaitVisible(`[data-testid="memory-page"]`),
		chromedp.Click(`[data-testid="account-menu"] summary`), // Sign out is in the account menu
		chromedp.Click(`[data-testid="logout"]`),
		chromedp.WaitVisible(`[data-testid="login-form"]`),
		chromedp.NavigateBack(),
		chromedp.WaitVisible(`[data-testid="login-form"]`),
	)
	if err != nil {
		t.Fatalf("back after sign out: %v", err)
	}
	if body, _ := chromedp.Run(ctx, chromedp.Text(`body`)); strings.Contains(body, "Prefers aisle seats") {
		t.Error("the previous traveler's memory is shown after Sign out and Back")
	}
}

// closedConversation gives John an ended conversation whose note went to
// long-term memory, and returns its id.
func closedConversation(t *testing.T, e *env) string {
	t.Helper()
	tok := e.token("john@example.com")
	status, out := e.apiCall("POST", "/api/v1/sessions", tok, "")
	if status != http.StatusCreated {
		t.Fatalf("create session: %d %v", status, out)
	}
	id := out["id"].(string)
	if status, out := e.apiCall("POST", "/api/v1/sessions/"+id+"/messages", tok, `{"content":"Remember that I am vegetarian"}`); status != http.StatusOK {
		t.Fatalf("message: %d %v", status, out)
	}
	if status, out := e.apiCall("PATCH", "/api/v1/sessions/"+id, tok, `{"title":"Food on the road"}`); status != http.StatusOK {
		t.Fatalf("rename: %d %v", status, out)
	}
	if status, out := e.apiCall("POST", "/api/v1/sessions/"+id+"/close", tok, ""); status != http.StatusOK {
		t.Fatalf("close: %d %v", status, out)
	}
	return id
}

// focused says which element has the focus, for the failure messages.
const focused = `(document.activeElement.id || document.activeElement.tagName) + " " + (document.activeElement.dataset.testid || "")`

// TestBrowserTravelerNotes: a traveler adds a note (a refused one first,
// with the error under the box), edits it, deletes one, and follows a note
// to the conversation it came from; the focus lands on a sensible element
// after each change and the change is announced.
func TestBrowserTravelerNotes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	sessionID := closedConversation(t, e)
	ctx := browsertest.New(t, 60*time.Second)
	acceptDialogs(ctx)
	browserSignIn(t, ctx, e, "john@example.com")
	err := chromedp.Do(ctx,
		chromedp.Navigate(e.srv.URL+"/memory"),
		chromedp.WaitVisible(`[data-testid="memory-page"]`),
		htmxReady(),
		// A card number is refused next to the box, and what was typed stays.
		chromedp.SendKeys(`#new-note`, "My card is 4111 1111 1111 1111"),
		chromedp.Click(`[data-testid="add-note-submit"]`),
		chromedp.WaitVisible(`[data-testid="add-note-error"] .alert`),
	)
	if err != nil {
		t.Fatalf("refused note: %v", err)
	}
	if got := text(t, ctx, `[data-testid="add-note-error"]`); !strings.Contains(got, "payment card") {
		t.Errorf("error under the box: %q", got)
	}
	if v, _ := chromedp.Run(ctx, chromedp.Value(`#new-note`)); !strings.Contains(v, "4111") {
		t.Errorf("the typed text was lost: %q", v)
	}
	if flash, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("flash").textContent.trim()`)); flash != "" {
		t.Errorf("the error also went to the top of the page: %q", flash)
	}

	const added = "I prefer trains to flights under four hours."
	err = chromedp.Do(ctx,
		clearField(`#new-note`),
		chromedp.SendKeys(`#new-note`, added),
		chromedp.Click(`[data-testid="add-note-submit"]`),
		chromedp.Poll[chromedp.Void](`document.activeElement.dataset.testid === "note" && document.activeElement.textContent.includes("trains") &&
			document.getElementById("announce").textContent.includes("Added: “I prefer trains")`),
	)
	if err != nil {
		f, _ := chromedp.Run(ctx, chromedp.Evaluate[string](focused))
		t.Fatalf("add a note: %v (focus on %s)", err, f)
	}
	if got := text(t, ctx, `[data-testid="notes"]`); !strings.Contains(got, added) || !strings.Contains(got, "You added this") {
		t.Errorf("notes after adding: %q", got)
	}
	browsertest.Screenshot(t, ctx, "notes-added-desktop")

	const edited = "I prefer trains to flights under five hours."
	err = chromedp.Do(ctx,
		chromedp.Click(fmt.Sprintf(`[data-testid="note"]:nth-child(%d) [data-testid="edit-note"]`, noteIndex(t, ctx, "four hours"))),
		chromedp.WaitVisible(`[data-testid="edit-form"]`),
		chromedp.Poll[chromedp.Void](`document.activeElement.dataset.testid === "edit-note-text"`),
	)
	if err != nil {
		t.Fatalf("open the edit form: %v", err)
	}
	browsertest.Screenshot(t, ctx, "notes-edit-desktop")
	err = chromedp.Do(ctx,
		clearField(`[data-testid="edit-note-text"]`),
		chromedp.SendKeys(`[data-testid="edit-note-text"]`, edited),
		chromedp.Click(`[data-testid="save-note"]`),
		chromedp.WaitNotPresent(`[data-testid="edit-form"]`),
		chromedp.Poll[chromedp.Void](`document.activeElement.dataset.testid === "edit-note" &&
			document.getElementById("announce").textContent.includes("updated")`),
	)
	if err != nil {
		f, _ := chromedp.Run(ctx, chromedp.Evaluate[string](focused))
		t.Fatalf("edit: %v (focus on %s)", err, f)
	}
	if got := text(t, ctx, `[data-testid="notes"]`); !strings.Contains(got, edited) || strings.Contains(got, "four hours") {
		t.Errorf("notes after the edit: %q", got)
	}

	// Delete the edited note: the focus moves to the note that took its place.
	count := func() int {
		n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="note"]').length`))
		return n
	}
	before := count()
	err = chromedp.Do(ctx,
		chromedp.Click(fmt.Sprintf(`[data-testid="note"]:nth-child(%d) [data-testid="delete-note"]`, noteIndex(t, ctx, "five hours"))),
		chromedp.Poll[chromedp.Void](fmt.Sprintf(`document.querySelectorAll('[data-testid="note"]').length === %d`, before-1)),
		chromedp.Poll[chromedp.Void](`document.activeElement.dataset.testid === "note" &&
			document.getElementById("announce").textContent.includes("deleted")`),
	)
	if err != nil {
		f, _ := chromedp.Run(ctx, chromedp.Evaluate[string](focused))
		t.Fatalf("delete: %v (focus on %s)", err, f)
	}
	if got := text(t, ctx, `[data-testid="notes"]`); strings.Contains(got, "five hours") {
		t.Error("the deleted note is still listed")
	}

	// The vegetarian note shows where it came from and links there.
	src := text(t, ctx, `[data-testid="note"]:has([data-testid="note-source-link"])`)
	if !strings.Contains(src, "Food on the road") || !strings.Contains(src, "Remember that I am vegetarian") {
		t.Errorf("note source %q, want the conversation's title and the message", src)
	}
	browsertest.Screenshot(t, ctx, "notes-desktop")
	emulate(t, ctx, 390, 844, true)
	checkFits(t, ctx, "memory", 390)
	browsertest.Screenshot(t, ctx, "notes-phone")
	err = chromedp.Do(ctx,
		chromedp.Click(`[data-testid="note-source-link"]`),
		chromedp.WaitVisible(`[data-testid="transcript"]`),
	)
	if err != nil {
		t.Fatalf("follow the source: %v", err)
	}
	if url, _ := chromedp.Run(ctx, chromedp.Location()); !strings.HasSuffix(url, "/chat/"+sessionID) {
		t.Errorf("the source link led to %s, want the conversation %s", url, sessionID)
	}
	if got := text(t, ctx, `[data-testid="transcript"]`); !strings.Contains(got, "Remember that I am vegetarian") {
		t.Errorf("the conversation shown lacks the message: %q", got)
	}
}

// checkFits fails when the page is wider than the device: a mobile
// browser widens innerWidth to fit overflowing content, so both are
// measured against the width the page was opened at.
func checkFits(t *testing.T, ctx context.Context, where string, width int) {
	t.Helper()
	over, err := chromedp.Run(ctx, chromedp.Evaluate[int](fmt.Sprintf(`Math.max(document.scrollingElement.scrollWidth, innerWidth) - %d`, width)))
	if err != nil || over > 0 {
		wide, _ := chromedp.Run(ctx, chromedp.Evaluate[string](fmt.Sprintf(`[...document.querySelectorAll("main *")].filter(el => el.getBoundingClientRect().right > %d + 1 &&
			![...el.children].some(c => c.getBoundingClientRect().right > %d + 1)).slice(0, 5).map(el => el.tagName + "." + el.className + " " + Math.round(el.getBoundingClientRect().right)).join("; ")`, width, width)))
		t.Errorf("%s scrolls sideways by %dpx at %dpx (%v): %s", where, over, width, err, wide)
	}
}

// waitNewPage waits until the tab has left the page at from and the new
// page is loaded with htmx ready; evaluations that race the navigation are
// retried.
func waitNewPage(t *testing.T, ctx context.Context, from string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		url, err := chromedp.Run(ctx, chromedp.Location())
		if err == nil && url != from {
			ready, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.readyState === "complete" && !!window.htmx`))
			if err == nil && ready {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("still on %s", from)
}

// clearField empties a text field as a traveler selecting all and deleting would.
func clearField(sel string) chromedp.Action[chromedp.Void] {
	return chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => { const el = document.querySelector(%q); el.value = "";
		el.dispatchEvent(new Event("input", {bubbles: true})); })()`, sel))
}

// noteIndex is the 1-based position of the note whose text contains s.
func noteIndex(t *testing.T, ctx context.Context, s string) int {
	t.Helper()
	i, err := chromedp.Run(ctx, chromedp.Evaluate[int](fmt.Sprintf(
		`[...document.querySelectorAll('[data-testid="note"]')].findIndex(li => li.textContent.includes(%q)) + 1`, s)))
	if err != nil || i == 0 {
		t.Fatalf("no note with %q (%v)", s, err)
	}
	return i
}

// TestBrowserConversationControls: on a phone, the traveler sees the open
// conversation's trip note on the memory page with its fate, a 20,000
// character paste is refused with a visible message, and the conversation
// is renamed and deleted.
func TestBrowserConversationControls(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := browsertest.New(t, 60*time.Second)
	acceptDialogs(ctx)
	emulate(t, ctx, 390, 844, true)
	browserSignIn(t, ctx, e, "john@example.com")
	if err := chromedp.Do(ctx, chromedp.Click(`[data-testid="start-session"]`), chromedp.WaitVisible(`[data-testid="composer"]`), htmxReady()); err != nil {
		t.Fatal(err)
	}
	// On a phone the message box is on screen without scrolling.
	if got, _ := chromedp.Run(ctx, chromedp.Evaluate[string](inView)); !strings.Contains(got, `"ok":true`) {
		t.Errorf("message box off screen on a phone: %s", got)
	}
	sendMessage(t, ctx, "This time, I like to have a window seat. I really want to sleep")

	// A paste over the limit is refused, visibly, and nothing is sent.
	long := strings.Repeat("Lisbon ", 20000/7+1)[:20000]
	b, _ := json.Marshal(long)
	err := chromedp.Do(ctx,
		chromedp.Evaluate[chromedp.Void](`(() => { const box = document.getElementById("message"); box.focus(); box.value = `+string(b)+`;
			box.dispatchEvent(new InputEvent("input", {bubbles: true, inputType: "insertFromPaste"})); })()`),
		chromedp.WaitVisible(`[data-testid="over-limit"]`),
		chromedp.Click(`[data-testid="send"]`),
	)
	if err != nil {
		t.Fatalf("paste: %v", err)
	}
	if got := text(t, ctx, `[data-testid="over-limit"]`); !strings.Contains(got, "20,000") || !strings.Contains(got, "4,000") {
		t.Errorf("over-limit message %q", got)
	}
	if n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="user-message"]').length`)); n != 1 {
		t.Errorf("%d messages in the conversation after the refused paste, want 1", n)
	}
	if v, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.getElementById("message").value.length`)); v != 20000 {
		t.Errorf("the box holds %d characters, want all 20000 kept", v)
	}
	checkFits(t, ctx, "chat with a refused paste", 390)
	browsertest.Screenshot(t, ctx, "chat-over-limit-phone")

	// The open conversation's trip note is on the memory page, with its fate.
	chatURL, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	err = chromedp.Do(ctx,
		chromedp.Navigate(e.srv.URL+"/memory"),
		chromedp.WaitVisible(`[data-testid="trip-notes"]`),
	)
	if err != nil {
		t.Fatalf("memory page: %v", err)
	}
	if got := text(t, ctx, `[data-testid="trip-notes"]`); !strings.Contains(strings.ToLower(got), "window") || !strings.Contains(got, "dropped when it ends") {
		t.Errorf("trip notes %q", got)
	}
	if got := text(t, ctx, `[data-testid="notes"]`); strings.Contains(strings.ToLower(got), "window seat") {
		t.Errorf("a trip note is listed as remembered for all trips: %q", got)
	}
	checkFits(t, ctx, "memory page with trip notes", 390)
	browsertest.Screenshot(t, ctx, "memory-trip-phone")

	// Rename, then delete the conversation.
	err = chromedp.Do(ctx,
		chromedp.Navigate(chatURL),
		chromedp.WaitVisible(`[data-testid="rename-session"]`),
		htmxReady(),
		chromedp.Click(`[data-testid="rename-session"]`),
		chromedp.WaitVisible(`[data-testid="rename-input"]`),
		clearField(`[data-testid="rename-input"]`),
		chromedp.SendKeys(`[data-testid="rename-input"]`, "Sleeping on the plane"),
		chromedp.Click(`[data-testid="rename-save"]`),
		chromedp.Poll[chromedp.Void](`document.getElementById("chat-title")?.textContent === "Sleeping on the plane" &&
			document.activeElement.id === "rename-session" && document.getElementById("announce").textContent.includes("renamed")`),
	)
	if err != nil {
		f, _ := chromedp.Run(ctx, chromedp.Evaluate[string](focused))
		t.Fatalf("rename: %v (focus on %s)", err, f)
	}
	if got := text(t, ctx, `[data-testid="session-list"]`); !strings.Contains(got, "Sleeping on the plane") {
		t.Errorf("the list still shows the old name: %q", got)
	}
	browsertest.Screenshot(t, ctx, "chat-renamed-phone")
	err = chromedp.Do(ctx,
		chromedp.Click(`[data-testid="delete-session"]`),
		chromedp.WaitVisible(`[data-testid="notice"]`),
	)
	if err != nil {
		t.Fatalf("delete the conversation: %v", err)
	}
	if body := text(t, ctx, `body`); strings.Contains(body, "Sleeping on the plane") {
		t.Error("the deleted conversation is still listed")
	}
	checkFits(t, ctx, "chat after deleting", 390)
	browsertest.Screenshot(t, ctx, "chat-deleted-phone")
}

// TestBrowserConsolePhone: no console page scrolls sideways at 390px and
// no button is cut off at the right edge.
func TestBrowserConsolePhone(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	seedConversation(t, e)
	john, err := e.store.UserByEmail(t.Context(), "john@example.com")
	if err != nil {
		t.Fatal(err)
	}
	sessions, err := e.store.ChatSessions(t.Context(), john.ID, 5)
	if err != nil || len(sessions) == 0 {
		t.Fatalf("sessions: %v", err)
	}
	if status, out := e.apiCall("POST", "/api/v1/users/me/erasure-request", e.token("priya@example.com"), ""); status != http.StatusCreated {
		t.Fatalf("erasure request: %d %v", status, out)
	}
	ctx := browsertest.New(t, 90*time.Second)
	emulate(t, ctx, 390, 844, true)
	if err := chromedp.Do(ctx, chromedp.Navigate(e.srv.URL+"/login?next=/console"), signIn("admin@example.com")); err != nil {
		t.Fatal(err)
	}
	pages := []struct{ name, path string }{
		{"search", "/console?q=john"},
		{"customer", "/console/customers/" + john.ID},
		{"customer-audit", "/console/customers/" + john.ID + "/audit"},
		{"reports", "/console/customers/" + john.ID + "/consolidations"},
		{"session", "/console/sessions/" + sessions[0].ID},
		{"turn", "/console/sessions/" + sessions[0].ID + "/turns/1"},
		{"audit", "/console/audit"},
		{"health", "/console/health"},
		{"erasure", "/console/erasure"},
		{"accounts", "/console/accounts"},
	}
	for _, p := range pages {
		if err := chromedp.Do(ctx, chromedp.Navigate(e.srv.URL+p.path), chromedp.WaitReady(`main`)); err != nil {
			t.Fatalf("%s: %v", p.name, err)
		}
		// Measured against the device width: a mobile browser widens
		// innerWidth to fit content that overflows.
		over, err := chromedp.Run(ctx, chromedp.Evaluate[int](`Math.max(document.scrollingElement.scrollWidth, innerWidth) - 390`))
		if err != nil || over > 0 {
			wide, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`[...document.querySelectorAll("main *")].filter(el => el.getBoundingClientRect().right > 391 &&
				![...el.children].some(c => c.getBoundingClientRect().right > 391)).slice(0, 6).map(el => el.tagName + "." + el.className + " " + Math.round(el.getBoundingClientRect().right)).join("; ")`))
			t.Errorf("%s scrolls sideways by %dpx at 390px (%v): %s", p.name, over, err, wide)
		}
		clipped, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`[...document.querySelectorAll("main button, main .btn")].filter(b => {
			const r = b.getBoundingClientRect(); if (r.width === 0) return false;
			let el = b.parentElement;
			while (el && el !== document.body) { const s = getComputedStyle(el); if (s.overflowX !== "visible") { const p = el.getBoundingClientRect(); if (r.right > p.right + 1 || r.left < p.left - 1) return true; } el = el.parentElement; }
			return r.right > innerWidth + 1 || r.left < -1; }).map(b => b.textContent.trim()).join(", ")`))
		if clipped != "" {
			t.Errorf("%s: buttons cut off: %s", p.name, clipped)
		}
		browsertest.Screenshot(t, ctx, "console-"+p.name+"-phone")
	}
}

// followScript grows a pretend answer piece by piece, as a stream does, and counts the frames where its end was not in view; then the
// reader scrolls up and more lines arrive: the transcript must stay
// where the reader put it; back at the bottom it follows again.
const followScript = `(async () => {
  const t = document.getElementById("transcript");
  const frame = () => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  const msg = document.createElement("article"); msg.className = "msg assistant";
  const bubble = document.createElement("div"); bubble.className = "bubble";
  const stream = document.createElement("div"); stream.className = "stream";
  bubble.appendChild(stream); msg.appendChild(bubble); t.appendChild(msg);
  const inView = () => msg.getBoundingClientRect().bottom <= t.getBoundingClientRect().bottom + 1;
  let missed = 0;
  // Pieces of one to six lines: a model sends a table row or a paragraph at once.
  for (let i = 0; i < 30; i++) { stream.appendChild(document.createTextNode(("Line " + i + " of a long answer.\n").repeat(1 + i % 6))); await frame(); if (!inView()) missed++; }
  t.scrollTop = t.scrollTop - 300; await frame();
  const readerAt = t.scrollTop;
  for (let i = 0; i < 10; i++) { stream.appendChild(document.createTextNode("More " + i + "\n")); await frame(); }
  const stayed = Math.abs(t.scrollTop - readerAt) < 2;
  t.scrollTop = t.scrollHeight; await frame();
  for (let i = 0; i < 10; i++) { stream.appendChild(document.createTextNode("Again " + i + "\n")); await frame(); }
  return JSON.stringify({missed, stayed, followsAgain: inView()});
})()`

// TestBrowserChatFollowsStream: a model's table answer renders as a table
// and is in view; while an answer grows the scroll follows it, unless the
// traveler scrolled up to read.
func TestBrowserChatFollowsStream(t *testing.T) {
	t.Parallel()
	fake := fakeopenai.New(t)
	e := newEnvWith(t, envOptions{provider: openai.New(openai.Config{BaseURL: fake.URL(), APIKey: "k", Model: "m", MaxRetries: openai.NoRetries})})
	ctx := browsertest.New(t, 45*time.Second)
	browserSignIn(t, ctx, e, "john@example.com")
	if err := chromedp.Do(ctx, chromedp.Click(`[data-testid="start-session"]`), chromedp.WaitVisible(`[data-testid="composer"]`), htmxReady()); err != nil {
		t.Fatal(err)
	}
	fake.Reply("Here are both, side by side:\n\n| Hotel | Area | Price |\n|:--|:--|--:|\n| Memmo Alfama | Alfama | 240 |\n" +
		"| Lumiares | Bairro Alto | 210 |\n\nWant me to hold one? [Map](https://www.openstreetmap.org/) · [bad](javascript:alert(1))")
	sendMessage(t, ctx, "Compare two hotels in Lisbon side by side")
	if n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="answer"] table td').length`)); n != 6 {
		t.Errorf("the table answer has %d cells, want 6", n)
	}
	if n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="answer"] a[href^="javascript"]').length`)); n != 0 {
		t.Error("a javascript: link became clickable")
	}
	if got, _ := chromedp.Run(ctx, chromedp.Evaluate[string](inView)); !strings.Contains(got, `"ok":true`) {
		t.Errorf("the table answer is not fully in view: %s", got)
	}
	browsertest.Screenshot(t, ctx, "chat-table-desktop")
	got, err := chromedp.Run(ctx, chromedp.Evaluate[string](followScript, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Missed       int
		Stayed       bool
		FollowsAgain bool
	}
	if err := json.Unmarshal([]byte(got), &res); err != nil {
		t.Fatal(err)
	}
	if res.Missed != 0 || !res.Stayed || !res.FollowsAgain {
		t.Errorf("following a growing answer: %s (want 0 frames missed, the reader's place kept, following again at the bottom)", got)
	}

	// The conversation ends elsewhere (another tab): sending now is refused
	// under the message box, where the traveler is looking, and the text stays.
	url, _ := chromedp.Run(ctx, chromedp.Location())
	id := url[strings.LastIndex(url, "/")+1:]
	if status, out := e.apiCall("POST", "/api/v1/sessions/"+id+"/close", e.token("john@example.com"), ""); status != http.StatusOK && status != http.StatusAccepted {
		t.Fatalf("close: %d %v", status, out)
	}
	err = chromedp.Do(ctx,
		chromedp.SendKeys(`#message`, "One more thing"+kb.Enter),
		chromedp.WaitVisible(`[data-testid="composer-error"] .alert`),
	)
	if err != nil {
		t.Fatalf("send to an ended conversation: %v", err)
	}
	if got := text(t, ctx, `[data-testid="composer-error"]`); !strings.Contains(got, "ended") {
		t.Errorf("error under the box: %q", got)
	}
	if v, _ := chromedp.Run(ctx, chromedp.Value(`#message`)); v != "One more thing" {
		t.Errorf("the message box holds %q, want the unsent text kept", v)
	}
	browsertest.Screenshot(t, ctx, "chat-error-desktop")
}
