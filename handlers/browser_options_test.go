package handlers_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"concierge/handlers/browsertest"
)

// TestBrowserOptionsAnswer: an answer with a list of options, as Chromium
// renders it. The disclaimer, the follow-up question and the trip line sit
// after the list, not inside its last item, and Rome gets no beaches; in
// Spanish too.
func TestBrowserOptionsAnswer(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := browsertest.New(t, 45*time.Second)
	browserSignIn(t, ctx, e, "john@example.com")
	if err := chromedp.Do(ctx, chromedp.Click(`[data-testid="start-session"]`), chromedp.WaitVisible(`[data-testid="composer"]`)); err != nil {
		t.Fatalf("start a conversation: %v", err)
	}
	sendMessage(t, ctx, "I'm planning a trip to Rome in May.")
	sendMessage(t, ctx, "Show me some hotels.")
	const last = `[data-testid="assistant-message"]:last-of-type [data-testid="answer"]`
	items, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('`+last+` li').length`))
	if err != nil || items < 2 {
		t.Fatalf("%d options in a list (%v), want at least 2: %q", items, err, text(t, ctx, last))
	}
	lastItem := text(t, ctx, last+` li:last-child`)
	after := text(t, ctx, last+` ul ~ p`)
	for _, s := range []string{"Illustrative", "not live", "Trip so far", "?"} {
		if strings.Contains(lastItem, s) {
			t.Errorf("the last option %q holds %q: the list runs on", lastItem, s)
		}
	}
	if !strings.Contains(after, "live") {
		t.Errorf("after the list %q, want the disclaimer", after)
	}
	if all := strings.ToLower(text(t, ctx, last)); strings.Contains(all, "beach") {
		t.Errorf("options for Rome mention a beach: %q", all)
	}
	browsertest.Screenshot(t, ctx, "chat-options-desktop")

	// In Spanish the answer is in Spanish, and the list still ends before
	// the disclaimer.
	sendMessage(t, ctx, "Muéstrame algunos hoteles, por favor.")
	if after := text(t, ctx, last+` ul ~ p`); !strings.Contains(after, "precios") {
		t.Errorf("after the Spanish list %q, want the Spanish disclaimer", after)
	}
	if lastItem := text(t, ctx, last+` li:last-child`); strings.Contains(lastItem, "precios") || strings.Contains(lastItem, "?") {
		t.Errorf("the last Spanish option %q runs on into the disclaimer", lastItem)
	}
	browsertest.Screenshot(t, ctx, "chat-options-desktop-es")
}
