package handlers_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"concierge/handlers/browsertest"
	"concierge/models"
	"concierge/models/dbtest"
)

// TestBrowserReviewQueue: support works the queue with the keyboard at a
// laptop's and a phone's size: claims the refused write (its claim shown),
// resolves it by typing a reason and pressing Enter, and the focus lands on
// the result; the page never scrolls sideways.
func TestBrowserReviewQueue(t *testing.T) {
	t.Parallel()
	for _, size := range []struct {
		name string
		w, h int64
	}{{"desktop", 1280, 800}, {"phone", 390, 844}} {
		t.Run(size.name, func(t *testing.T) {
			e := reviewEnv(t, dbtest.SQLite(t))
			converse(t, e, e.token("john@example.com"), "I'm allergic to peanuts.", "I prefer window seats now.", "A friend told me I must see the Louvre.")
			items, _ := reviewItems(t, e, e.token("support@example.com"), "")
			refused := items[models.ReviewRefusedWrite].ID
			if refused == "" {
				t.Fatal("no refused write in the queue")
			}
			ctx := browsertest.New(t, 90*time.Second)
			opts := []chromedp.EmulateViewportOption{}
			if size.w < 500 {
				opts = append(opts, chromedp.EmulateMobile)
			}
			card := `#item-` + refused
			err := chromedp.Do(ctx, chromedp.EmulateViewport(size.w, size.h, opts...),
				chromedp.Navigate(e.srv.URL+"/login?next=/console/review"), signIn("support@example.com"),
				chromedp.WaitVisible(`[data-testid="review-list"]`), htmxReady(),
				htmxProcessed(card+` [data-testid="review-claim-button"]`),
				// Keyboard only: Enter on the focused Claim button.
				chromedp.Focus(card+` [data-testid="review-claim-button"]`),
				chromedp.KeyEvent(kb.Enter),
				chromedp.WaitVisible(card+` [data-testid="review-done"]`),
			)
			if err != nil {
				t.Fatalf("claim: %v", err)
			}
			claim, _ := chromedp.Run(ctx, chromedp.Text(card+` [data-testid="review-claim"]`))
			if !strings.Contains(claim, "Sam Support") {
				t.Errorf("claim shown as %q, want the holder's name", claim)
			}
			focused, _ := chromedp.Run(ctx, chromedp.Poll[string](`document.activeElement && document.activeElement.id`))
			if focused != "item-done-"+refused {
				t.Errorf("focus after the claim on %q", focused)
			}
			browsertest.Screenshot(t, ctx, "review-claimed-"+size.name)
			err = chromedp.Do(ctx,
				htmxProcessed(card+` [data-testid="review-resolve"]`),
				chromedp.Click(card+` [data-testid="review-action-dismiss"]`),
				chromedp.SendKeys(card+` [data-testid="review-reason"]`, "harmless: a friend's tip, not an order"+kb.Enter),
				chromedp.WaitVisible(card+` [data-testid="review-resolution"]`),
			)
			if err != nil {
				t.Fatalf("resolve: %v", err)
			}
			focused, _ = chromedp.Run(ctx, chromedp.Poll[string](`document.activeElement && document.activeElement.id`))
			if focused != "item-done-"+refused {
				t.Errorf("focus after resolving on %q", focused)
			}
			said, _ := chromedp.Run(ctx, chromedp.Poll[string](`document.getElementById("announce").textContent`))
			if !strings.Contains(said, "Resolved") {
				t.Errorf("announced %q", said)
			}
			page, _ := chromedp.Run(ctx, chromedp.OuterHTML(`html`))
			if strings.Contains(strings.ToLower(page), strings.ToLower(refusedNote)) {
				t.Error("the page holds the refused text")
			}
			browsertest.Screenshot(t, ctx, "review-resolved-"+size.name)
			wide, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > `+strconv.FormatInt(size.w+1, 10)))
			if err != nil || wide {
				t.Errorf("the review page scrolls sideways at %dpx (%v)", size.w, err)
			}
			if status, _ := e.apiCall("GET", "/api/v1/review?status=resolved", e.token("support@example.com"), ""); status != http.StatusOK {
				t.Errorf("resolved list: %d", status)
			}
		})
	}
}
