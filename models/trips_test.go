package models_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"concierge/memory"
	"concierge/models"
	"concierge/models/dbtest"
)

func strp(s string) *string { return &s }

// TestTripAttachRace: two instances whose conversations each say "Lisbon"
// at the same moment leave one trip, with both conversations attached.
func TestTripAttachRace(t *testing.T) {
	dbtest.BackendsTwice(t, func(t *testing.T, a, b *models.Store) {
		u, err := a.CreateUser(ctx, "race@example.com", "Race", models.RoleTraveler, "secret-pass")
		if err != nil {
			t.Fatal(err)
		}
		for round := range 5 {
			c1, _ := a.CreateChatSession(ctx, u.ID)
			c2, _ := b.CreateChatSession(ctx, u.ID)
			dest := fmt.Sprintf("Lisbon %d", round)
			var wg sync.WaitGroup
			errs := make([]error, 2)
			for i, p := range []struct {
				s  *models.Store
				cs string
			}{{a, c1.ID}, {b, c2.ID}} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, errs[i] = p.s.Notes(memory.Limits{}).Trips().UpdateFromChat(ctx, u.ID, p.cs,
						memory.UpdateTripArgs{Destination: strp(dest)}, models.Actor{Kind: models.ActorAssistant})
				}()
			}
			wg.Wait()
			if errs[0] != nil || errs[1] != nil {
				t.Fatalf("round %d: %v / %v", round, errs[0], errs[1])
			}
			open, err := a.OpenTrips(ctx, u.ID)
			if err != nil || len(open) != round+1 {
				t.Fatalf("round %d: %d open trips (%v), want %d", round, len(open), err, round+1)
			}
			s1, _ := a.ChatSessionByID(ctx, c1.ID)
			s2, _ := b.ChatSessionByID(ctx, c2.ID)
			if s1.TripID == "" || s1.TripID != s2.TripID || s1.TripID != open[round].ID {
				t.Fatalf("round %d: conversations on trips %q and %q, want both on %q", round, s1.TripID, s2.TripID, open[round].ID)
			}
		}
	})
}

// TestTripNotesLifecycle: a this_trip note of a conversation with a trip
// belongs to the trip (never a session note, never global); another trip's
// conversation does not see it; a conversation without a trip keeps it as
// a session note; a booked trip past its end becomes travelled, and after
// the grace its notes are gone with an audit event.
func TestTripNotesLifecycle(t *testing.T) {
	dbtest.Backends(t, func(t *testing.T, s *models.Store) {
		now := time.Date(2027, 4, 20, 10, 0, 0, 0, time.UTC)
		s.Now = func() time.Time { return now }
		u, _ := s.CreateUser(ctx, "trip@example.com", "Trip", models.RoleTraveler, "secret-pass")
		notes := s.Notes(memory.Limits{})
		trips := notes.Trips()
		asst := models.Actor{Kind: models.ActorAssistant}
		c1, _ := s.CreateChatSession(ctx, u.ID)
		// A wish staged before the trip exists moves into it on attach.
		wish, err := notes.Add(ctx, models.NewNote{UserID: u.ID, Kind: models.KindSession, Prov: models.Provenance{SessionID: c1.ID},
			Note: memory.Note{Text: "Wants a hotel with a rooftop on this trip.", Keywords: []string{"hotel"}, Scope: memory.ScopeThisTrip, Source: memory.SourceAssistant}},
			asst, "stated")
		if err != nil {
			t.Fatal(err)
		}
		up, err := trips.UpdateFromChat(ctx, u.ID, c1.ID, memory.UpdateTripArgs{Destination: strp("Lisbon"),
			StartDate: strp("2027-05-03"), EndDate: strp("2027-05-09")}, asst)
		if err != nil || !up.Created || !up.Attached || up.Handle != "t1" {
			t.Fatalf("update = %+v, %v", up, err)
		}
		if got, _ := s.TripNotes(ctx, up.Trip.ID); len(got) != 1 || got[0].ID != wish.ID {
			t.Fatalf("trip notes = %v, want the wish", got)
		}
		if got, _ := s.SessionNotes(ctx, c1.ID); len(got) != 0 {
			t.Fatalf("session notes = %v, want none (the wish is the trip's)", got)
		}
		// A second conversation names the trip by handle and adds a wish.
		c2, _ := s.CreateChatSession(ctx, u.ID)
		if _, err := trips.UpdateFromChat(ctx, u.ID, c2.ID, memory.UpdateTripArgs{Trip: strp("t1")}, asst); err != nil {
			t.Fatal(err)
		}
		if _, err := notes.Add(ctx, models.NewNote{UserID: u.ID, Kind: models.KindSession, Prov: models.Provenance{SessionID: c2.ID},
			Note: memory.Note{Text: "Wants a window seat on this trip.", Keywords: []string{"seat"}, Scope: memory.ScopeThisTrip, Source: memory.SourceAssistant}},
			asst, "stated"); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.TripNotes(ctx, up.Trip.ID); len(got) != 2 {
			t.Fatalf("trip notes = %d, want 2", len(got))
		}
		// Attached once: another trip's handle is refused.
		now = now.Add(time.Minute) // handles follow creation order
		other, _, err := trips.Create(ctx, u.ID, memory.Trip{Destination: "Oslo", StartDate: "2027-08-01", EndDate: "2027-08-04"}, models.Actor{Kind: models.ActorSystem}, "test")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := trips.UpdateFromChat(ctx, u.ID, c2.ID, memory.UpdateTripArgs{Trip: strp("t2")}, asst); !errors.Is(err, models.ErrTripAttached) {
			t.Fatalf("attach to a second trip: %v, want ErrTripAttached", err)
		}
		if got, _ := s.TripNotes(ctx, other.ID); len(got) != 0 {
			t.Fatalf("the other trip has %d notes", len(got))
		}
		// A conversation without a trip keeps today's behaviour.
		c3, _ := s.CreateChatSession(ctx, u.ID)
		if _, err := notes.Add(ctx, models.NewNote{UserID: u.ID, Kind: models.KindSession, Prov: models.Provenance{SessionID: c3.ID},
			Note: memory.Note{Text: "Wants a quiet room on this trip.", Keywords: []string{"room"}, Scope: memory.ScopeThisTrip, Source: memory.SourceAssistant}},
			asst, "stated"); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.SessionNotes(ctx, c3.ID); len(got) != 1 {
			t.Fatalf("no-trip conversation: %d session notes, want 1", len(got))
		}
		if g, _ := s.GlobalNotes(ctx, u.ID); len(g) != 0 {
			t.Fatalf("global notes = %v, want none", g)
		}

		booked := memory.TripBooked
		if _, err := trips.Edit(ctx, u.ID, up.Trip.ID, models.TripPatch{UpdateTripArgs: memory.UpdateTripArgs{Status: &booked}}, models.Actor{Kind: models.ActorTraveler}, ""); err != nil {
			t.Fatal(err)
		}
		// The day after the end: travelled, notes kept through the grace.
		now = time.Date(2027, 5, 10, 9, 0, 0, 0, time.UTC)
		if _, err := trips.EndTrips(ctx, now, 7*24*time.Hour, 100); err != nil {
			t.Fatal(err)
		}
		if tr, _ := s.TravelledTrips(ctx, u.ID, 3); len(tr) != 1 || tr[0].ID != up.Trip.ID {
			t.Fatalf("travelled = %v, want the Lisbon trip", tr)
		}
		if got, _ := s.TripNotes(ctx, up.Trip.ID); len(got) != 2 {
			t.Fatalf("within the grace: %d notes, want 2", len(got))
		}
		now = time.Date(2027, 5, 20, 9, 0, 0, 0, time.UTC)
		if _, err := trips.EndTrips(ctx, now, 7*24*time.Hour, 100); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.TripNotes(ctx, up.Trip.ID); len(got) != 0 {
			t.Fatalf("after the grace: %d notes, want none", len(got))
		}
		if _, err := s.NoteByID(ctx, u.ID, wish.ID); !errors.Is(err, models.ErrNotFound) {
			t.Fatalf("the wish is still stored: %v", err)
		}
		var ended int64
		s.DB().Model(&models.AuditEvent{}).Where("user_id = ? AND action = ?", u.ID, "trip.notes_ended").Count(&ended)
		if ended != 1 {
			t.Fatalf("trip.notes_ended events = %d, want 1", ended)
		}
		// Once: a second sweep changes nothing.
		if n, err := trips.EndTrips(ctx, now, 7*24*time.Hour, 100); err != nil || n != 0 {
			t.Fatalf("second sweep ended %d (%v), want 0", n, err)
		}
	})
}

// TestTripDeleteRemovesNotesEverywhere: deleting a trip deletes its notes
// as deleting a note does; its conversations stay, without a trip.
func TestTripDeleteRemovesNotesEverywhere(t *testing.T) {
	dbtest.Backends(t, func(t *testing.T, s *models.Store) {
		u, _ := s.CreateUser(ctx, "del-trip@example.com", "Del", models.RoleTraveler, "secret-pass")
		notes := s.Notes(memory.Limits{})
		asst := models.Actor{Kind: models.ActorAssistant}
		c1, _ := s.CreateChatSession(ctx, u.ID)
		up, err := notes.Trips().UpdateFromChat(ctx, u.ID, c1.ID, memory.UpdateTripArgs{Destination: strp("Kyoto")}, asst)
		if err != nil {
			t.Fatal(err)
		}
		const canary = "Wants a ryokan with a zebracanary bath on this trip."
		n, err := notes.Add(ctx, models.NewNote{UserID: u.ID, Kind: models.KindSession, Prov: models.Provenance{SessionID: c1.ID},
			Note: memory.Note{Text: canary, Keywords: []string{"hotel"}, Scope: memory.ScopeThisTrip, Source: memory.SourceAssistant}}, asst, "stated")
		if err != nil {
			t.Fatal(err)
		}
		if err := notes.Trips().Delete(ctx, u.ID, up.Trip.ID, models.Actor{Kind: models.ActorTraveler, ID: u.ID}, "no longer going"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.NoteByID(ctx, u.ID, n.ID); !errors.Is(err, models.ErrNotFound) {
			t.Fatalf("note after trip delete: %v", err)
		}
		var left int64
		s.DB().Model(&models.AuditEvent{}).Where("user_id = ? AND (before LIKE ? OR after LIKE ? OR before LIKE ? OR after LIKE ?)",
			u.ID, "%zebracanary%", "%zebracanary%", "%Kyoto%", "%Kyoto%").Count(&left)
		if left != 0 {
			t.Fatalf("%d audit payloads still hold the trip or its note", left)
		}
		cs, _ := s.ChatSessionByID(ctx, c1.ID)
		if cs == nil || cs.TripID != "" {
			t.Fatalf("conversation after delete = %+v, want kept without a trip", cs)
		}
	})
}

// TestTripEndsOnceAcrossInstances: a planning trip whose end date passed
// becomes travelled in the sweep, and its notes go after the grace; two
// instances sweeping at the same moment change, audit and count each
// trip once. A trip ending today, or without an end date, stays planning.
func TestTripEndsOnceAcrossInstances(t *testing.T) {
	dbtest.BackendsTwice(t, func(t *testing.T, a, b *models.Store) {
		u, err := a.CreateUser(ctx, "sweep-trip@example.com", "Sweep", models.RoleTraveler, "secret-pass")
		if err != nil {
			t.Fatal(err)
		}
		sys := models.Actor{Kind: models.ActorSystem}
		mk := func(dest, start, end string) string {
			t.Helper()
			tr, _, err := a.Notes(memory.Limits{}).Trips().Create(ctx, u.ID, memory.Trip{Destination: dest, StartDate: start, EndDate: end}, sys, "test")
			if err != nil {
				t.Fatal(err)
			}
			return tr.ID
		}
		past := mk("Porto", "2027-03-01", "2027-03-05")
		today := mk("Faro", "2027-03-08", "2027-03-10")
		undated := mk("Braga", "", "")
		c, _ := a.CreateChatSession(ctx, u.ID)
		if err := a.Notes(memory.Limits{}).Trips().Attach(ctx, u.ID, c.ID, past, models.Actor{Kind: models.ActorTraveler, ID: u.ID}); err != nil {
			t.Fatal(err)
		}
		if _, err := a.Notes(memory.Limits{}).Add(ctx, models.NewNote{UserID: u.ID, Kind: models.KindSession, Prov: models.Provenance{SessionID: c.ID},
			Note: memory.Note{Text: "Wants a river view on this trip.", Keywords: []string{"hotel"}, Scope: memory.ScopeThisTrip, Source: memory.SourceAssistant}},
			models.Actor{Kind: models.ActorAssistant}, "stated"); err != nil {
			t.Fatal(err)
		}
		sweep := func(day time.Time) int {
			t.Helper()
			var wg sync.WaitGroup
			counts, errs := make([]int, 2), make([]error, 2)
			for i, s := range []*models.Store{a, b} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					counts[i], errs[i] = s.Notes(memory.Limits{}).Trips().EndTrips(ctx, day, models.DefaultTripGrace, 100)
				}()
			}
			wg.Wait()
			if errs[0] != nil || errs[1] != nil {
				t.Fatalf("sweeps: %v / %v", errs[0], errs[1])
			}
			return counts[0] + counts[1]
		}
		events := func(action, reason string) int64 {
			var n int64
			a.DB().Model(&models.AuditEvent{}).Where("user_id = ? AND action = ? AND reason LIKE ?", u.ID, action, reason+"%").Count(&n)
			return n
		}
		status := func(id string) memory.TripStatus {
			tr, err := a.TripByID(ctx, u.ID, id)
			if err != nil {
				t.Fatal(err)
			}
			return memory.TripStatus(tr.Status)
		}

		if got := sweep(time.Date(2027, 3, 10, 12, 0, 0, 0, time.UTC)); got != 1 {
			t.Errorf("first sweeps changed %d trips together, want 1", got)
		}
		if got := status(past); got != memory.TripTravelled {
			t.Errorf("past planning trip is %q, want travelled", got)
		}
		for _, id := range []string{today, undated} {
			if got := status(id); got != memory.TripPlanning {
				t.Errorf("trip %s is %q, want planning", id, got)
			}
		}
		if got := events("trip.update", "end date passed"); got != 1 {
			t.Errorf("%d 'end date passed' events, want 1", got)
		}
		if tr, _ := a.TravelledTrips(ctx, u.ID, memory.MaxTrips); len(tr) != 1 || tr[0].ID != past {
			t.Errorf("travelled trips = %v, want Porto", tr)
		}
		if n, _ := a.TripNotes(ctx, past); len(n) != 1 {
			t.Errorf("within the grace: %d trip notes, want 1", len(n))
		}
		// After the grace the notes go, once.
		if got := sweep(time.Date(2027, 3, 13, 12, 0, 0, 0, time.UTC)); got != 2 {
			t.Errorf("sweeps after the grace changed %d trips, want 2 (Faro travelled, Porto's notes ended)", got)
		}
		if n, _ := a.TripNotes(ctx, past); len(n) != 0 {
			t.Errorf("after the grace: %d trip notes, want none", len(n))
		}
		if got := events("trip.notes_ended", "trip ended"); got != 1 {
			t.Errorf("%d trip.notes_ended events, want 1", got)
		}
		if got := sweep(time.Date(2027, 3, 14, 12, 0, 0, 0, time.UTC)); got != 0 {
			t.Errorf("a later sweep changed %d trips, want 0", got)
		}
		// Faro had no notes: its grace ends without an event that says
		// nothing was deleted, and only once.
		if got := sweep(time.Date(2027, 3, 20, 12, 0, 0, 0, time.UTC)); got != 1 {
			t.Errorf("the sweep after Faro's grace changed %d trips, want 1", got)
		}
		if got := events("trip.notes_ended", ""); got != 1 {
			t.Errorf("%d trip.notes_ended events after a trip without notes ended, want Porto's only", got)
		}
		if got := sweep(time.Date(2027, 3, 21, 12, 0, 0, 0, time.UTC)); got != 0 {
			t.Errorf("a sweep after that changed %d trips, want 0", got)
		}
	})
}

// TestTripPickMovesItsOwnNotes: the side panel's pick takes an open
// conversation off its trip or moves it to another, with the this_trip
// notes said in it (those of the trip's other conversations stay); a
// closed conversation keeps its trip; a cancelled trip cannot be picked.
func TestTripPickMovesItsOwnNotes(t *testing.T) {
	dbtest.Backends(t, func(t *testing.T, s *models.Store) {
		u, _ := s.CreateUser(ctx, "pick@example.com", "Pick", models.RoleTraveler, "secret-pass")
		notes := s.Notes(memory.Limits{})
		trips := notes.Trips()
		me := models.Actor{Kind: models.ActorTraveler, ID: u.ID}
		asst := models.Actor{Kind: models.ActorAssistant}
		mk := func(dest string) string {
			t.Helper()
			tr, _, err := trips.Create(ctx, u.ID, memory.Trip{Destination: dest}, me, "added by the traveler")
			if err != nil {
				t.Fatal(err)
			}
			return tr.ID
		}
		wish := func(sid, text string) string {
			t.Helper()
			n, err := notes.Add(ctx, models.NewNote{UserID: u.ID, Kind: models.KindSession, Prov: models.Provenance{SessionID: sid},
				Note: memory.Note{Text: text, Keywords: []string{"hotel"}, Scope: memory.ScopeThisTrip, Source: memory.SourceAssistant}}, asst, "stated")
			if err != nil {
				t.Fatal(err)
			}
			return n.ID
		}
		tripOf := func(sid string) string {
			t.Helper()
			cs, err := s.ChatSessionByID(ctx, sid)
			if err != nil {
				t.Fatal(err)
			}
			return cs.TripID
		}
		ids := func(nn []memory.Note) string {
			var out []string
			for _, n := range nn {
				out = append(out, n.ID)
			}
			return fmt.Sprint(out)
		}
		lisbon, oslo := mk("Lisbon"), mk("Oslo")
		c1, _ := s.CreateChatSession(ctx, u.ID)
		c2, _ := s.CreateChatSession(ctx, u.ID)
		for _, c := range []string{c1.ID, c2.ID} {
			if err := trips.Attach(ctx, u.ID, c, lisbon, me); err != nil {
				t.Fatal(err)
			}
		}
		mine, theirs := wish(c2.ID, "Wants a rooftop hotel on this trip."), wish(c1.ID, "Wants a quiet room on this trip.")

		if err := trips.Attach(ctx, u.ID, c2.ID, lisbon, me); err != nil {
			t.Fatalf("picking the trip it is on: %v", err)
		}
		if err := trips.Attach(ctx, u.ID, c2.ID, "", me); err != nil {
			t.Fatalf("take off the trip: %v", err)
		}
		if got := tripOf(c2.ID); got != "" {
			t.Fatalf("conversation 2 on trip %q, want none", got)
		}
		if got, want := ids(must(t)(s.TripNotes(ctx, lisbon))), fmt.Sprint([]string{theirs}); got != want {
			t.Errorf("Lisbon's notes = %s, want %s (conversation 1's only)", got, want)
		}
		if got, want := ids(must(t)(s.SessionNotes(ctx, c2.ID))), fmt.Sprint([]string{mine}); got != want {
			t.Errorf("conversation 2's session notes = %s, want %s", got, want)
		}
		if err := trips.Attach(ctx, u.ID, c2.ID, oslo, me); err != nil {
			t.Fatal(err)
		}
		if err := trips.Attach(ctx, u.ID, c2.ID, lisbon, me); err != nil {
			t.Fatalf("move Oslo → Lisbon: %v", err)
		}
		if got := tripOf(c2.ID); got != lisbon {
			t.Fatalf("conversation 2 on %q, want Lisbon", got)
		}
		if got := must(t)(s.TripNotes(ctx, lisbon)); len(got) != 2 {
			t.Errorf("Lisbon has %d notes after the move back, want 2", len(got))
		}
		if got := must(t)(s.TripNotes(ctx, oslo)); len(got) != 0 {
			t.Errorf("Oslo kept %d notes", len(got))
		}
		var detached int64
		s.DB().Model(&models.AuditEvent{}).Where("user_id = ? AND action = ?", u.ID, "trip.detach").Count(&detached)
		if detached != 2 {
			t.Errorf("%d trip.detach events, want 2", detached)
		}

		if _, err := s.CloseSession(ctx, c1.ID, "ended"); err != nil {
			t.Fatal(err)
		}
		if err := trips.Attach(ctx, u.ID, c1.ID, "", me); !errors.Is(err, models.ErrSessionClosed) {
			t.Errorf("detach an ended conversation: %v, want ErrSessionClosed", err)
		}
		cancelled := memory.TripCancelled
		if _, err := trips.Edit(ctx, u.ID, oslo, models.TripPatch{UpdateTripArgs: memory.UpdateTripArgs{Status: &cancelled}}, me, "changed by the traveler"); err != nil {
			t.Fatal(err)
		}
		if err := trips.Attach(ctx, u.ID, c2.ID, oslo, me); !errors.Is(err, models.ErrTripNotOpen) {
			t.Errorf("pick a cancelled trip: %v, want ErrTripNotOpen", err)
		}
	})
}

// must fails the test on a read's error and returns what it read.
func must(t *testing.T) func([]memory.Note, error) []memory.Note {
	return func(nn []memory.Note, err error) []memory.Note {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return nn
	}
}

// TestTurnTripsMatchesItsTwoReads: the one statement a turn reads trips
// with gives what TravelledTrips and OpenTrips give, in their orders.
func TestTurnTripsMatchesItsTwoReads(t *testing.T) {
	dbtest.Backends(t, func(t *testing.T, s *models.Store) {
		u, _ := openSession(t, s)
		other, _ := openSession(t, s)
		trips := s.Notes(memory.Limits{}).Trips()
		sys := models.Actor{Kind: models.ActorSystem}
		for i, tr := range []memory.Trip{
			{Destination: "Porto", StartDate: "2024-05-01", EndDate: "2024-05-04", Status: memory.TripTravelled},
			{Destination: "Oslo", StartDate: "2027-08-01", EndDate: "2027-08-04"},
			{Destination: "Faro", StartDate: "2025-02-01", EndDate: "2025-02-03", Status: memory.TripTravelled},
			{Destination: "Rome", StartDate: "2023-09-01", EndDate: "2023-09-05", Status: memory.TripTravelled},
			{Destination: "Kyiv", StartDate: "2028-01-01", EndDate: "2028-01-09", Status: memory.TripBooked},
			{Destination: "Bern", StartDate: "2022-03-01", EndDate: "2022-03-02", Status: memory.TripTravelled},
			{Destination: "Nice", Status: memory.TripCancelled},
			{Destination: "Riga", StartDate: "2027-10-01", EndDate: "2027-10-02"},
		} {
			if _, _, err := trips.Create(ctx, u.ID, tr, sys, "test"); err != nil {
				t.Fatalf("trip %d: %v", i, err)
			}
		}
		if _, _, err := trips.Create(ctx, other.ID, memory.Trip{Destination: "Lima", StartDate: "2027-01-01", EndDate: "2027-01-02"}, sys, "test"); err != nil {
			t.Fatal(err)
		}
		dest := func(ts []memory.Trip) string {
			var out []string
			for _, tr := range ts {
				out = append(out, tr.Destination)
			}
			return strings.Join(out, " ")
		}
		travelled, open, err := s.TurnTrips(ctx, u.ID, memory.MaxTrips)
		if err != nil {
			t.Fatal(err)
		}
		wantTravelled, _ := s.TravelledTrips(ctx, u.ID, memory.MaxTrips)
		wantOpen, _ := s.OpenTrips(ctx, u.ID)
		if got, want := dest(travelled), dest(wantTravelled); got != want || got != "Faro Porto Rome" {
			t.Errorf("travelled %q, want %q (Faro Porto Rome)", got, want)
		}
		if got, want := dest(open), dest(wantOpen); got != want || got != "Oslo Kyiv Riga" {
			t.Errorf("open %q, want %q (Oslo Kyiv Riga)", got, want)
		}
	})
}
