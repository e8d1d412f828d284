package handlers_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"concierge/handlers/browsertest"
	"concierge/models"
	"concierge/models/dbtest"
)

// TestBrowserForgetAndUntil: in Chromium, with the built-in model on
// SQLite and PostgreSQL, "forget" shows a Forgot chip whose Undo brings the
// note back, and on the memory page the traveler gives a note an end date
// ("until 31 Mar 2027" shown) and clears it.
func TestBrowserForgetAndUntil(t *testing.T) {
	t.Parallel()
	dbtest.Backends(t, func(t *testing.T, s *models.Store) {
		e := newEnvWith(t, envOptions{store: s})
		ctx := browsertest.New(t, 60*time.Second)
		acceptDialogs(ctx)
		browserSignIn(t, ctx, e, "john@example.com")
		if err := chromedp.Do(ctx, chromedp.Click(`[data-testid="start-session"]`), chromedp.WaitVisible(`[data-testid="composer"]`)); err != nil {
			t.Fatalf("start a conversation: %v", err)
		}
		sendMessage(t, ctx, "Please forget that I prefer rooms on high floors.")
		chip := `[data-testid="memory-chip"][data-state="forgotten"]`
		if err := chromedp.Do(ctx, chromedp.WaitVisible(chip)); err != nil {
			t.Fatalf("no Forgot chip: %v", err)
		}
		if got := text(t, ctx, chip); !strings.Contains(got, "Forgot:") || !strings.Contains(got, "high floors") {
			t.Errorf("chip %q", got)
		}
		err := chromedp.Do(ctx,
			htmxProcessed(`[data-testid="chip-undo-forget"]`),
			chromedp.Click(`[data-testid="chip-undo-forget"]`),
			chromedp.WaitVisible(`[data-testid="memory-chip"][data-state="restored"]`),
		)
		if err != nil {
			t.Fatalf("undo forgetting: %v", err)
		}
		global, err := s.GlobalNotes(t.Context(), e.userID("john@example.com"))
		if err != nil {
			t.Fatal(err)
		}
		var floor string
		for _, n := range global {
			if strings.Contains(n.Text, "high floors") {
				floor = n.ID
			}
		}
		if floor == "" {
			t.Fatalf("after Undo the note is not active again")
		}

		row := `[data-note-id="` + floor + `"]`
		err = chromedp.Do(ctx,
			chromedp.Navigate(e.srv.URL+"/memory"),
			chromedp.WaitVisible(row),
			htmxProcessed(row+` [data-testid="edit-note"]`),
			chromedp.Click(row+` [data-testid="edit-note"]`),
			chromedp.WaitVisible(row+` [data-testid="edit-note-until"]`),
			chromedp.SetValue(row+` [data-testid="edit-note-until"]`, "2027-03-31"),
			chromedp.Click(row+` [data-testid="save-note"]`),
			chromedp.WaitVisible(row+` [data-testid="note-until"]`),
		)
		if err != nil {
			t.Fatalf("set an end date: %v", err)
		}
		if got := text(t, ctx, row+` [data-testid="note-until"]`); got != "until 31 Mar 2027" {
			t.Errorf("until badge = %q", got)
		}
		err = chromedp.Do(ctx,
			htmxProcessed(row+` [data-testid="edit-note"]`),
			chromedp.Click(row+` [data-testid="edit-note"]`),
			chromedp.WaitVisible(row+` [data-testid="edit-note-until"]`),
			chromedp.SetValue(row+` [data-testid="edit-note-until"]`, ""),
			chromedp.Click(row+` [data-testid="save-note"]`),
			chromedp.WaitVisible(row+` [data-testid="edit-note"]`),
			chromedp.WaitNotPresent(row+` [data-testid="note-until"]`),
		)
		if err != nil {
			t.Fatalf("clear the end date: %v", err)
		}
	})
}
