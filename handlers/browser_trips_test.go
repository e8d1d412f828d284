package handlers_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"concierge/handlers/browsertest"
)

// TestBrowserTripAcrossConversations: in real Chromium with the built-in
// model, Priya plans Lisbon in one conversation with a trip-only wish,
// continues "my Lisbon trip" in a second, whose model call carries the
// wish; the memory page lists the trip with its note and conversations,
// and deleting it there removes the wish.
func TestBrowserTripAcrossConversations(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := browsertest.New(t, 60*time.Second)
	acceptDialogs(ctx)
	browserSignIn(t, ctx, e, "priya@example.com")
	// /chat opens the conversation still open, composer and all: the new
	// one is known by its own address, or the next message would be typed
	// into the old page as it navigates away and its answer counted against
	// the wrong transcript.
	start := func() {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.Navigate(e.srv.URL+"/chat"), chromedp.WaitVisible(`[data-testid="chat-page"]`)); err != nil {
			t.Fatalf("open the chat: %v", err)
		}
		from, _ := chromedp.Run(ctx, chromedp.Location())
		if err := chromedp.Do(ctx, chromedp.Click(`[data-testid="start-session"], [data-testid="new-session"]`)); err != nil {
			t.Fatalf("start a conversation: %v", err)
		}
		waitNewPage(t, ctx, from)
		if err := chromedp.Do(ctx, chromedp.WaitVisible(`[data-testid="composer"]`)); err != nil {
			t.Fatalf("start a conversation: %v", err)
		}
	}
	start()
	sendMessage(t, ctx, "I'm planning a trip to Lisbon from 3 to 9 May.")
	sendMessage(t, ctx, "This time I want a hotel with a rooftop.")
	start()
	sendMessage(t, ctx, "Let's continue with my Lisbon trip. Show me some hotels.")

	u, err := e.store.UserByEmail(t.Context(), "priya@example.com")
	if err != nil {
		t.Fatal(err)
	}
	open, _ := e.store.OpenTrips(t.Context(), u.ID)
	if len(open) != 1 {
		t.Fatalf("open trips = %+v, want the Lisbon trip", open)
	}
	sessions, _ := e.store.TripSessions(t.Context(), open[0].ID)
	if len(sessions) != 2 {
		t.Fatalf("%d conversations on the trip, want 2", len(sessions))
	}
	snaps, _ := e.store.Snapshots(t.Context(), sessions[1].ID)
	if len(snaps) == 0 || !strings.Contains(snaps[len(snaps)-1].Instructions, "rooftop") {
		t.Fatal("conversation 2's model call lacks the trip's wish")
	}

	if err := chromedp.Do(ctx, chromedp.Navigate(e.srv.URL+"/memory"), chromedp.WaitVisible(`[data-testid="trips"]`)); err != nil {
		t.Fatalf("memory page: %v", err)
	}
	if got := text(t, ctx, `[data-testid="trip"]`); !strings.Contains(got, "Lisbon") || !strings.Contains(got, "rooftop") || !strings.Contains(got, "planning") {
		t.Fatalf("trip on the memory page: %q", got)
	}
	if n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="trip-conversation"]').length`)); n != 2 {
		t.Errorf("%d conversations linked, want 2", n)
	}
	browsertest.Screenshot(t, ctx, "memory-trips")
	if err := chromedp.Do(ctx, chromedp.Click(`[data-testid="trip-delete"]`), chromedp.WaitVisible(`[data-testid="memory-page"]`),
		chromedp.WaitNotPresent(`[data-testid="trips"]`)); err != nil {
		t.Fatalf("delete the trip: %v", err)
	}
	if tn, _ := e.store.TripNotes(t.Context(), open[0].ID); len(tn) != 0 {
		t.Fatalf("the trip's notes survive its deletion: %v", tn)
	}
}
