package handlers_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"concierge/handlers/browsertest"
)

// watchPrefix records whether the streaming bubble ever shows text that is
// not the beginning of the answer (a repeated or misplaced piece).
var watchPrefix = fmt.Sprintf(`(() => { const want = %q; window.misplaced = "";
  new MutationObserver(() => { const s = document.querySelector('[data-testid="stream"]');
    if (s && !want.startsWith(s.textContent)) window.misplaced = s.textContent; })
    .observe(document.getElementById("transcript"), {childList: true, subtree: true, characterData: true}); return true; })()`, slowAnswer)

// TestBrowserStreamSurvivesReload: in Chromium, with a model that takes a
// few seconds to stream, (1) the connection drops mid-answer and
// EventSource resumes it without repeating a word, (2) the page is reloaded
// mid-answer and shows the text so far, then the rest; each answer costs
// exactly one model call.
func TestBrowserStreamSurvivesReload(t *testing.T) {
	t.Parallel()
	fake, provider := slowModel(t, 120*time.Millisecond)
	logs := &lockedBuffer{}
	e := newEnvWith(t, envOptions{provider: provider, logTo: logs})
	ctx := browsertest.New(t, 60*time.Second)
	browserSignIn(t, ctx, e, "john@example.com")
	if err := chromedp.Do(ctx, chromedp.Click(`[data-testid="start-session"]`), chromedp.WaitVisible(`[data-testid="composer"]`)); err != nil {
		t.Fatal(err)
	}
	streamed := `(document.querySelector('[data-testid="stream"]') || {textContent: ""}).textContent.length`
	answered := func(n int) chromedp.Action[chromedp.Void] {
		return chromedp.Poll[chromedp.Void](fmt.Sprintf(`document.querySelector('[data-testid="streaming"]') === null &&
			document.querySelectorAll('[data-testid="assistant-message"]').length === %d`, n))
	}

	// 1. The connection drops while the answer streams.
	err := chromedp.Do(ctx,
		chromedp.Evaluate[chromedp.Void](watchPrefix),
		chromedp.SendKeys(`#message`, "Find me a hotel in Lisbon"+kb.Enter),
		chromedp.Poll[chromedp.Void](streamed+` > 10`),
	)
	if err != nil {
		t.Fatalf("send: %v", err)
	}
	e.srv.CloseClientConnections()
	if err := chromedp.Do(ctx, answered(1)); err != nil {
		t.Fatalf("the answer did not arrive after the connection dropped: %v", err)
	}
	if bad, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`window.misplaced`)); bad != "" {
		t.Errorf("after the reconnect the bubble showed %q, not a beginning of the answer", bad)
	}
	if got := text(t, ctx, `[data-testid="answer"]`); !strings.Contains(got, "Lisbon has fine small hotels") {
		t.Errorf("answer %q", got)
	}
	if got := len(fake.Requests()); got != 1 {
		t.Errorf("the model got %d calls for one answer", got)
	}
	if !strings.Contains(logs.String(), `"resume_at":`) || strings.Count(logs.String(), `"msg":"stream joined a turn"`) < 2 {
		t.Fatal("the browser did not reconnect the stream")
	}
	if !regexp.MustCompile(`"resume_at":[1-9]`).MatchString(logs.String()) {
		t.Error("the browser reconnected without resuming from its last event id")
	}

	// 2. The traveler reloads the page while the answer streams.
	err = chromedp.Do(ctx,
		chromedp.SendKeys(`#message`, "And one near the castle?"+kb.Enter),
		chromedp.Poll[chromedp.Void](streamed+` > 10`),
		chromedp.Reload(),
		chromedp.WaitVisible(`[data-testid="chat-page"]`),
		chromedp.Evaluate[chromedp.Void](watchPrefix),
		chromedp.Poll[chromedp.Void](streamed+` > 10`),
	)
	if err != nil {
		t.Fatalf("reload mid-answer: %v", err)
	}
	if err := chromedp.Do(ctx, answered(2)); err != nil {
		t.Fatalf("the answer did not arrive after the reload: %v", err)
	}
	if bad, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`window.misplaced`)); bad != "" {
		t.Errorf("after the reload the bubble showed %q, not a beginning of the answer", bad)
	}
	if got := len(fake.Requests()); got != 2 {
		t.Errorf("the model got %d calls for two answers", got)
	}
}
