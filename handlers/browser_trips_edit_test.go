package handlers_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"concierge/handlers/browsertest"
	"concierge/memory"
	"concierge/models"
)

// tripWithNote gives Priya an open trip to dest with a trip-only wish, said
// in a conversation of that trip, and returns the trip and the note.
func tripWithNote(t *testing.T, e *env, dest, wish string) (userID, tripID, noteID string) {
	t.Helper()
	ctx := t.Context()
	u, err := e.store.UserByEmail(ctx, "priya@example.com")
	if err != nil {
		t.Fatal(err)
	}
	notes := e.store.Notes(memory.Limits{})
	tr, _, err := notes.Trips().Create(ctx, u.ID, memory.Trip{Destination: dest, StartDate: "2027-05-03", EndDate: "2027-05-09"},
		models.Actor{Kind: models.ActorTraveler, ID: u.ID}, "added by the traveler")
	if err != nil {
		t.Fatal(err)
	}
	if wish == "" {
		return u.ID, tr.ID, ""
	}
	cs, err := e.store.CreateChatSession(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := notes.Trips().Attach(ctx, u.ID, cs.ID, tr.ID, models.Actor{Kind: models.ActorTraveler, ID: u.ID}); err != nil {
		t.Fatal(err)
	}
	n, err := notes.Add(ctx, models.NewNote{UserID: u.ID, Kind: models.KindSession, Prov: models.Provenance{SessionID: cs.ID},
		Note: memory.Note{Text: wish, Keywords: []string{"hotel"}, Scope: memory.ScopeThisTrip, Source: memory.SourceAssistant}},
		models.Actor{Kind: models.ActorAssistant}, "stated")
	if err != nil {
		t.Fatal(err)
	}
	return u.ID, tr.ID, n.ID
}

// TestBrowserStaffEditsTrip: in Chromium, support opens Priya's customer
// page, corrects her trip's destination, end date and status (refused
// without a reason, saved with one, audited as the API's edits are), and
// rewrites the trip's wish through the note form; at a desktop's and a
// phone's size, without sideways scrolling.
func TestBrowserStaffEditsTrip(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	uid, tripID, noteID := tripWithNote(t, e, "Lisbon", "Wants a hotel with a rooftop on this trip.")
	ctx := browsertest.New(t, 90*time.Second)
	if err := chromedp.Do(ctx, chromedp.Navigate(e.srv.URL+"/login?next=/console"), signIn("support@example.com")); err != nil {
		t.Fatalf("sign in: %v", err)
	}
	open := func() {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.Navigate(e.srv.URL+"/console/customers/"+uid), chromedp.WaitVisible(`[data-testid="customer-trip"]`), htmxReady()); err != nil {
			t.Fatalf("customer page: %v", err)
		}
	}
	open()
	row := `[data-trip="` + tripID + `"]`
	if got := text(t, ctx, row); !strings.Contains(got, "Lisbon") || !strings.Contains(got, "planning") || !strings.Contains(got, "rooftop") {
		t.Fatalf("trip row %q, want Lisbon, planning and its wish", got)
	}
	err := chromedp.Do(ctx,
		htmxProcessed(row+` [data-testid="customer-trip-edit"]`),
		chromedp.Click(row+` [data-testid="customer-trip-edit"]`),
		chromedp.WaitVisible(`[data-testid="trip-edit-form"]`),
		chromedp.SetValue(`[data-testid="trip-destination"]`, "Porto"),
		chromedp.SetValue(`[data-testid="trip-end"]`, "2027-05-11"),
		chromedp.SetValue(`[data-testid="trip-status-select"]`, "booked"),
		htmxProcessed(`[data-testid="trip-save"]`),
		chromedp.Click(`[data-testid="trip-save"]`),
		chromedp.WaitVisible(`[data-testid="trip-error"]`),
	)
	if err != nil {
		t.Fatalf("save without a reason: %v", err)
	}
	if got := text(t, ctx, `[data-testid="trip-error"]`); !strings.Contains(strings.ToLower(got), "reason") {
		t.Errorf("error without a reason: %q", got)
	}
	if v, _ := chromedp.Run(ctx, chromedp.Value(`[data-testid="trip-destination"]`)); v != "Porto" {
		t.Errorf("the refused form lost what was typed: destination %q", v)
	}
	browsertest.Screenshot(t, ctx, "customer-trip-edit")
	checkAxe(t, ctx, "trip edit form with its error")
	err = chromedp.Do(ctx,
		focusOn("treason-"+tripID), // the refusal moves the focus to the reason
		chromedp.SendKeys(`[data-testid="trip-reason"]`, "Customer called: Porto instead"),
		htmxProcessed(`[data-testid="trip-save"]`),
		chromedp.Click(`[data-testid="trip-save"]`),
		chromedp.WaitNotPresent(`[data-testid="trip-edit-form"]`),
	)
	if err != nil {
		t.Fatalf("save: %v", err)
	}
	if got := text(t, ctx, row); !strings.Contains(got, "Porto") || !strings.Contains(got, "booked") {
		t.Errorf("trip row after save %q, want Porto, booked", got)
	}
	trip, err := e.store.TripByID(t.Context(), uid, tripID)
	if err != nil || trip.Destination != "Porto" || trip.EndDate != "2027-05-11" || trip.StartDate != "2027-05-03" || trip.Status != "booked" {
		t.Fatalf("stored trip = %+v, %v", trip, err)
	}
	var ev models.AuditEvent
	if err := e.store.DB().Where("user_id = ? AND action = ?", uid, "trip.update").Order("created_at DESC").Take(&ev).Error; err != nil ||
		ev.Reason != "Customer called: Porto instead" || ev.ActorKind != models.ActorSupport || !strings.Contains(ev.Before, "Lisbon") || !strings.Contains(ev.After, "Porto") {
		t.Fatalf("audit event = %+v, %v", ev, err)
	}

	// The trip's wish is corrected as any note is: with a reason.
	const rewritten = "Wants a hotel with a rooftop bar on this trip."
	note := `[data-note-id="` + noteID + `"]`
	err = chromedp.Do(ctx,
		htmxProcessed(note+` [data-testid="note-edit"]`),
		chromedp.Click(note+` [data-testid="note-edit"]`),
		chromedp.WaitVisible(`[data-testid="note-edit-form"]`),
		focusOn("text-"+noteID), // the form takes the focus once swapped in: type after it did
		chromedp.SetValue(`[data-testid="note-edit-form"] textarea`, rewritten),
		chromedp.SendKeys(`[data-testid="note-edit-form"] [data-testid="note-reason"]`, "Customer clarified"),
		htmxProcessed(`[data-testid="note-save"]`),
		chromedp.Click(`[data-testid="note-save"]`),
		chromedp.WaitNotPresent(`[data-testid="note-edit-form"]`),
	)
	if err != nil {
		t.Fatalf("edit the trip's note: %v", err)
	}
	if tn, _ := e.store.TripNotes(t.Context(), tripID); len(tn) != 1 || tn[0].Text != rewritten || tn[0].Scope != memory.ScopeThisTrip {
		t.Fatalf("trip notes after the edit = %+v", tn)
	}
	if g, _ := e.store.GlobalNotes(t.Context(), uid); len(g) != 0 {
		t.Fatalf("editing a trip note made global notes: %+v", g)
	}
	browsertest.Screenshot(t, ctx, "customer-trip-desktop")
	emulate(t, ctx, 390, 844, true)
	open()
	checkFits(t, ctx, "customer page with a trip", 390)
	if err := chromedp.Do(ctx, htmxProcessed(row+` [data-testid="customer-trip-edit"]`), chromedp.Click(row+` [data-testid="customer-trip-edit"]`),
		chromedp.WaitVisible(`[data-testid="trip-edit-form"]`)); err != nil {
		t.Fatalf("edit form at phone size: %v", err)
	}
	checkFits(t, ctx, "trip edit form", 390)
	checkAxe(t, ctx, "trip edit form at phone size")
	browsertest.Screenshot(t, ctx, "customer-trip-phone")
}

// TestBrowserPanelTripPicker: in Chromium, Priya puts a conversation on
// one of her open trips from the chat's side panel, which then shows it
// and the model is given that trip's wish; she takes it off again, and
// picks another trip, which a sent message's panel refresh keeps; at a
// desktop's and a phone's size.
func TestBrowserPanelTripPicker(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	uid, lisbon, _ := tripWithNote(t, e, "Lisbon", "Wants a hotel with a rooftop on this trip.")
	_, oslo, _ := tripWithNote(t, e, "Oslo", "")
	ctx := browsertest.New(t, 90*time.Second)
	browserSignIn(t, ctx, e, "priya@example.com")
	// The chat opens on Priya's latest conversation (the Lisbon one): a new
	// conversation is a new page, waited for by its address.
	from, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, htmxReady(), chromedp.Click(`[data-testid="start-session"], [data-testid="new-session"]`)); err != nil {
		t.Fatalf("start a conversation: %v", err)
	}
	waitNewPage(t, ctx, from)
	if err := chromedp.Do(ctx, chromedp.WaitVisible(`[data-testid="composer"]`), htmxReady()); err != nil {
		t.Fatalf("new conversation: %v", err)
	}
	sid, err := chromedp.Run(ctx, chromedp.Evaluate[string](`location.pathname.split("/").pop()`))
	if err != nil {
		t.Fatal(err)
	}
	current := `[data-testid="panel-trip-current"]`
	if got := text(t, ctx, current); !strings.Contains(got, "not part of a trip") {
		t.Errorf("panel before picking: %q", got)
	}
	pick := func(tripID string) {
		t.Helper()
		err := chromedp.Do(ctx,
			htmxProcessed(`[data-testid="panel-trip-form"]`),
			chromedp.SetValue(`[data-testid="panel-trip-select"]`, tripID),
			chromedp.Click(`[data-testid="panel-trip-save"]`),
			chromedp.WaitVisible(current+`[data-trip="`+tripID+`"]`),
		)
		if err != nil {
			t.Fatalf("pick trip %q: %v", tripID, err)
		}
		cs, err := e.store.ChatSessionByID(t.Context(), sid)
		if err != nil || cs.TripID != tripID {
			t.Fatalf("conversation on trip %q (%v), want %q", cs.TripID, err, tripID)
		}
	}
	pick(lisbon)
	if got := text(t, ctx, current); !strings.Contains(got, "Lisbon") {
		t.Errorf("panel after picking Lisbon: %q", got)
	}
	if got := text(t, ctx, `[data-testid="panel-trip-notes"]`); !strings.Contains(got, "rooftop") {
		t.Errorf("the panel lacks the trip's wish: %q", got)
	}
	// The focus comes back once the swap settles.
	if _, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](`document.activeElement && document.activeElement.id === "panel-trip-select"`,
		chromedp.WithPollingTimeout(3*time.Second))); err != nil {
		focused, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.activeElement && document.activeElement.id`))
		t.Errorf("focus after picking is on %q, want the trip picker", focused)
	}
	browsertest.Screenshot(t, ctx, "panel-trip-desktop")
	checkAxe(t, ctx, "chat with the trip picker")
	sendMessage(t, ctx, "Show me some hotels.")
	snaps, _ := e.store.Snapshots(t.Context(), sid)
	if len(snaps) == 0 || !strings.Contains(snaps[len(snaps)-1].Instructions, "rooftop") {
		var last string
		if len(snaps) > 0 {
			last = snaps[len(snaps)-1].Instructions
		}
		t.Fatalf("the model was not given the picked trip's wish (%d snapshots):\n%s", len(snaps), last)
	}
	pick("")
	if got := text(t, ctx, current); !strings.Contains(got, "not part of a trip") {
		t.Errorf("panel after taking it off: %q", got)
	}
	pick(oslo)
	sendMessage(t, ctx, "Any museums there?")
	if got := text(t, ctx, current); !strings.Contains(got, "Oslo") {
		t.Errorf("panel after a message: %q, want Oslo still", got)
	}
	if snaps, _ := e.store.Snapshots(t.Context(), sid); strings.Contains(snaps[len(snaps)-1].Instructions, "rooftop") {
		t.Error("the Lisbon wish reached the conversation moved to Oslo")
	}
	var evs int64
	e.store.DB().Model(&models.AuditEvent{}).Where("user_id = ? AND action IN ?", uid, []string{"trip.attach", "trip.detach"}).Count(&evs)
	if evs < 4 {
		t.Errorf("%d attach/detach audit events, want at least 4", evs)
	}
	emulate(t, ctx, 390, 844, true)
	if err := chromedp.Do(ctx, chromedp.Reload(), chromedp.WaitVisible(`[data-testid="panel-trip"]`), htmxReady()); err != nil {
		t.Fatal(err)
	}
	checkFits(t, ctx, "chat with the trip picker", 390)
	checkAxe(t, ctx, "chat with the trip picker at phone size")
	if err := chromedp.Do(ctx, chromedp.ScrollIntoView(`[data-testid="panel-trip"]`)); err != nil {
		t.Fatal(err)
	}
	browsertest.Screenshot(t, ctx, "panel-trip-phone")
}

// focusOn waits until the element with id has the focus.
func focusOn(id string) chromedp.Action[chromedp.Void] {
	return chromedp.Poll[chromedp.Void](`document.activeElement && document.activeElement.id === ` + strconv.Quote(id))
}

// checkAxe fails on any serious or critical WCAG 2.2 AA violation of the
// page as it is now.
func checkAxe(t *testing.T, ctx context.Context, where string) {
	t.Helper()
	vs, err := browsertest.Axe(ctx)
	if err != nil {
		t.Fatalf("axe on %s: %v", where, err)
	}
	for _, v := range browsertest.Serious(vs) {
		t.Errorf("%s: %s", where, v)
	}
}
