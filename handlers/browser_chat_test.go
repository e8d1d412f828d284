package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"concierge/agent/openai"
	"concierge/agent/openai/fakeopenai"
	"concierge/handlers/browsertest"
)

// browserSignIn signs in through the login form and waits for the chat.
func browserSignIn(t *testing.T, ctx context.Context, e *env, email string) {
	t.Helper()
	err := chromedp.Do(ctx,
		chromedp.Navigate(e.srv.URL+"/login"),
		chromedp.WaitVisible(`[data-testid="login-form"]`),
		chromedp.SendKeys(`#email`, email),
		chromedp.SendKeys(`#password`, "demo"),
		chromedp.Click(`[data-testid="login-form"] button`),
		chromedp.WaitVisible(`[data-testid="chat-page"]`),
	)
	if err != nil {
		t.Fatalf("sign in as %s: %v", email, err)
	}
}

// acceptDialogs confirms every hx-confirm dialog the page opens.
func acceptDialogs(ctx context.Context) {
	dialogs := chromedp.Events(ctx, page.JavascriptDialogOpening)
	go func() {
		for _, err := range dialogs {
			if err != nil {
				return
			}
			_, _ = chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true})
		}
	}()
}

// countDeltas starts counting the streamed pieces that reach the page
// before the final answer replaces them.
const countDeltas = `(() => { window.deltas = 0;
  new MutationObserver(ms => ms.forEach(m => { if (m.target.classList && m.target.classList.contains("stream")) window.deltas++; }))
    .observe(document.getElementById("transcript"), {childList: true, subtree: true}); return true; })()`

func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Text(sel))
	if err != nil {
		t.Fatalf("text of %s: %v", sel, err)
	}
	return s
}

// sendMessage types a message and sends it with Enter, then waits for the
// finished answer (the streaming bubble is gone).
func sendMessage(t *testing.T, ctx context.Context, msg string) {
	t.Helper()
	const answers = `document.querySelectorAll('[data-testid="assistant-message"]').length`
	before, err := chromedp.Run(ctx, chromedp.Evaluate[int](answers))
	if err != nil {
		t.Fatal(err)
	}
	err = chromedp.Do(ctx,
		chromedp.WaitVisible(`#message`),
		chromedp.Evaluate[chromedp.Void](countDeltas),
		chromedp.SendKeys(`#message`, msg+kb.Enter),
		chromedp.Poll[chromedp.Void](fmt.Sprintf(`document.querySelector('[data-testid="streaming"]') === null && %s > %d`, answers, before)),
	)
	if err != nil {
		dump, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("chat-footer").outerHTML + "\n----\n" + (document.activeElement && document.activeElement.outerHTML.slice(0,200)) + "\n" + document.getElementById("message").value`))
		t.Fatalf("send %q: %v\n%s", msg, err, dump)
	}
}

// TestBrowserChatMemory is the traveler's story in Chromium: the streamed
// answer and its chip, undo, saying it again, the end-of-conversation
// summary, and deleting the note on the memory page.
func TestBrowserChatMemory(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := browsertest.New(t, 45*time.Second)
	acceptDialogs(ctx)
	browserSignIn(t, ctx, e, "john@example.com")

	if err := chromedp.Do(ctx, chromedp.Click(`[data-testid="start-session"]`), chromedp.WaitVisible(`[data-testid="composer"]`)); err != nil {
		t.Fatalf("start a conversation: %v", err)
	}
	// The offline model has usually answered before the stream opens, so
	// pieces are not always seen here: TestBrowserStreamSurvivesReload
	// watches a slow model stream.
	sendMessage(t, ctx, "Remember that I am vegetarian")
	if got := text(t, ctx, `[data-testid="answer"]`); !strings.Contains(got, "vegetarian") {
		t.Errorf("answer %q", got)
	}
	chip := text(t, ctx, `[data-testid="memory-chip"]`)
	if !strings.Contains(chip, "Saved:") || !strings.Contains(strings.ToLower(chip), "vegetarian") || !strings.Contains(chip, "All trips") {
		t.Errorf("chip %q", chip)
	}
	if left, _ := chromedp.Run(ctx, chromedp.Value(`#message`)); left != "" {
		t.Errorf("message box still holds %q after sending", left)
	}
	if err := chromedp.Do(ctx, chromedp.WaitVisible(`[data-testid="panel-session"]`)); err != nil {
		t.Errorf("the panel did not show the session note: %v", err)
	}
	if shown, err := chromedp.Run(ctx, chromedp.Evaluate[int](`[...document.querySelectorAll(".phone-only")].filter(el => getComputedStyle(el).display !== "none").length`)); err != nil || shown != 0 {
		t.Errorf("%d phone-only controls shown on a wide screen (%v)", shown, err)
	}
	browsertest.Screenshot(t, ctx, "chat-desktop")

	err := chromedp.Do(ctx,
		htmxProcessed(`[data-testid="chip-undo"]`),
		chromedp.Click(`[data-testid="chip-undo"]`),
		chromedp.WaitVisible(`[data-testid="memory-chip"][data-state="undone"]`),
		chromedp.WaitNotPresent(`[data-testid="panel-session"]`),
		// The focus lands on the undone chip (not the page body) and the
		// change is announced.
		chromedp.Poll[chromedp.Void](`document.activeElement && document.activeElement.dataset.state === "undone" &&
			document.getElementById("announce").textContent.includes("will not be remembered")`),
	)
	if err != nil {
		t.Fatalf("undo: %v", err)
	}

	// Said again in the same conversation: the undone note no longer
	// counts as remembered, so it is saved afresh.
	sendMessage(t, ctx, "Remember that I am vegetarian")
	if err := chromedp.Do(ctx, chromedp.WaitVisible(`[data-testid="memory-chip"][data-state="saved"]`)); err != nil {
		t.Fatalf("saying it again: %v", err)
	}
	err = chromedp.Do(ctx,
		htmxProcessed(`[data-testid="end-session"]`),
		chromedp.Click(`[data-testid="end-session"]`),
		chromedp.WaitVisible(`[data-testid="outcome-added"]`),
	)
	if err != nil {
		t.Fatalf("end the conversation: %v", err)
	}
	if got := strings.ToLower(text(t, ctx, `[data-testid="outcome-added"]`)); !strings.Contains(got, "added to long-term memory") || !strings.Contains(got, "vegetarian") {
		t.Errorf("outcome %q", got)
	}
	browsertest.Screenshot(t, ctx, "end-desktop")

	err = chromedp.Do(ctx,
		chromedp.Navigate(e.srv.URL+"/memory"),
		chromedp.WaitVisible(`[data-testid="memory-page"]`),
	)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.ToLower(text(t, ctx, `[data-testid="notes"] li:first-child`)); !strings.Contains(got, "vegetarian") {
		t.Fatalf("newest note %q, want the vegetarian note", got)
	}
	browsertest.Screenshot(t, ctx, "memory-desktop")
	err = chromedp.Do(ctx,
		chromedp.Click(`[data-testid="notes"] li:first-child [data-testid="delete-note"]`),
		chromedp.Poll[chromedp.Void](`!document.querySelector('[data-testid="notes"]').textContent.toLowerCase().includes("vegetarian")`),
		chromedp.Reload(),
		chromedp.WaitVisible(`[data-testid="notes"]`),
	)
	if err != nil {
		t.Fatalf("delete the note: %v", err)
	}
	if got := strings.ToLower(text(t, ctx, `[data-testid="notes"]`)); strings.Contains(got, "vegetarian") {
		t.Error("the deleted note is back after a reload")
	}
}

// TestBrowserChatPhone takes the phone-width screenshots and checks the
// layout does not overflow sideways.
func TestBrowserChatPhone(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := browsertest.New(t, 45*time.Second)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile)); err != nil {
		t.Fatal(err)
	}
	browserSignIn(t, ctx, e, "john@example.com")
	if err := chromedp.Do(ctx, chromedp.Click(`[data-testid="start-session"]`), chromedp.WaitVisible(`[data-testid="composer"]`)); err != nil {
		t.Fatal(err)
	}
	sendMessage(t, ctx, "Remember that I am vegetarian")
	sendMessage(t, ctx, "This time, I like to have a window seat. I really want to sleep")
	if n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="memory-chip"]').length`)); n != 2 {
		t.Errorf("%d chips, want 2", n)
	}
	checkNoSidewaysScroll(t, ctx, "chat")
	// Every control of the conversation's header is on the screen, and
	// the transcript keeps most of it: the chrome above stays short.
	out, err := chromedp.Run(ctx, chromedp.Evaluate[string](`[...document.querySelectorAll(".chat-head a, .chat-head button")].filter(el => {
		const r = el.getBoundingClientRect(); return r.width > 0 && (r.left < 0 || r.right > innerWidth); }).map(el => el.textContent.trim()).join(", ")`))
	if err != nil || out != "" {
		t.Errorf("header controls off the screen at 390px: %q (%v)", out, err)
	}
	if share, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`document.getElementById("transcript").getBoundingClientRect().height / innerHeight`)); err != nil || share < 0.62 {
		t.Errorf("the transcript is %.2f of the screen's height, want at least 0.62 (%v)", share, err)
	} else {
		t.Logf("the transcript is %.2f of the screen's height", share)
	}
	browsertest.Screenshot(t, ctx, "chat-phone")
	err = chromedp.Do(ctx,
		htmxProcessed(`[data-testid="end-session"]`),
		chromedp.Click(`[data-testid="end-session"]`),
		chromedp.WaitVisible(`[data-testid="outcome-trip"]`),
	)
	if err != nil {
		t.Fatalf("end: %v", err)
	}
	checkNoSidewaysScroll(t, ctx, "end")
	browsertest.Screenshot(t, ctx, "end-phone")
	if err := chromedp.Do(ctx, chromedp.Navigate(e.srv.URL+"/memory"), chromedp.WaitVisible(`[data-testid="memory-page"]`)); err != nil {
		t.Fatal(err)
	}
	checkNoSidewaysScroll(t, ctx, "memory")
	browsertest.Screenshot(t, ctx, "memory-phone")
}

// checkNoSidewaysScroll checks a page opened at the 390px phone width.
func checkNoSidewaysScroll(t *testing.T, ctx context.Context, where string) {
	t.Helper()
	checkFits(t, ctx, where+" page", 390)
}

// TestBrowserChatModelFailure: the model server answers 500; the message
// stays in the conversation with a clear error, and Retry answers it.
func TestBrowserChatModelFailure(t *testing.T) {
	t.Parallel()
	fake := fakeopenai.New(t)
	e := newEnvWith(t, envOptions{provider: openai.New(openai.Config{BaseURL: fake.URL(), APIKey: "k", Model: "m", MaxRetries: openai.NoRetries})})
	ctx := browsertest.New(t, 45*time.Second)
	browserSignIn(t, ctx, e, "john@example.com")
	if err := chromedp.Do(ctx, chromedp.Click(`[data-testid="start-session"]`), chromedp.WaitVisible(`[data-testid="composer"]`)); err != nil {
		t.Fatal(err)
	}
	fake.Fail(http.StatusInternalServerError, "")
	err := chromedp.Do(ctx,
		chromedp.SendKeys(`#message`, "Find me a hotel in Lisbon"+kb.Enter),
		chromedp.WaitVisible(`[data-testid="answer-failed"]`),
	)
	if err != nil {
		t.Fatalf("send: %v", err)
	}
	if got := text(t, ctx, `[data-testid="user-message"]`); !strings.Contains(got, "Find me a hotel in Lisbon") {
		t.Errorf("the message is gone: %q", got)
	}
	if got := text(t, ctx, `[data-testid="answer-failed"]`); !strings.Contains(got, "not answering") || !strings.Contains(got, "saved") {
		t.Errorf("error bubble %q", got)
	}
	browsertest.Screenshot(t, ctx, "chat-failed")

	fake.Reply("Here are **three** hotels in Lisbon to compare.")
	err = chromedp.Do(ctx,
		htmxProcessed(`[data-testid="retry"]`),
		chromedp.Click(`[data-testid="retry"]`),
		chromedp.WaitVisible(`[data-testid="answer"] strong`),
	)
	if err != nil {
		t.Fatalf("retry: %v", err)
	}
	if got := text(t, ctx, `[data-testid="answer"]`); !strings.Contains(got, "three hotels in Lisbon") {
		t.Errorf("answer after retry %q", got)
	}
	if n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="user-message"]').length`)); n != 1 {
		t.Errorf("%d user messages on the page, want 1", n)
	}
}

// htmxProcessed waits until htmx has wired up the element sel matches: an
// element swapped in by an SSE event is visible a moment before htmx
// attaches its handlers, and a click in that moment would be lost.
func htmxProcessed(sel string) chromedp.Action[chromedp.Void] {
	return chromedp.Poll[chromedp.Void](fmt.Sprintf(`(function(){ var el = document.querySelector(%q); return !!el && !!el["htmx-internal-data"]; })()`, sel))
}
