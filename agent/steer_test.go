package agent_test

import (
	"strings"
	"testing"
	"time"

	"concierge/agent"
	"concierge/agent/offline"
	"concierge/memory"
	"concierge/memory/prompt"
	"concierge/models"
	"concierge/models/dbtest"
)

// offlineAgent is an agent with the built-in model on a clock set to day.
func offlineAgent(t *testing.T, s *models.Store, day string) *agent.Agent {
	t.Helper()
	a := agent.New(agent.DefaultConfig("gpt-4o-mini"), s, offline.New(memory.NewTokenCounter("gpt-4o-mini")), quietLog())
	at, err := time.Parse(memory.DateLayout, day)
	if err != nil {
		t.Fatal(err)
	}
	a.SetClock(func() time.Time { return at.Add(10 * time.Hour) })
	return a
}

func sayTo(t *testing.T, a *agent.Agent, sid, text string) *agent.TurnResult {
	t.Helper()
	res, err := a.Turn(ctx, sid, text, nil)
	if err != nil {
		t.Fatalf("%q: %v", text, err)
	}
	return res
}

func activeTexts(t *testing.T, s *models.Store, uid, sid string) string {
	t.Helper()
	got, err := s.TurnNotes(ctx, uid, sid, "")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, n := range append(got.Global, got.Session...) {
		out = append(out, n.Text)
	}
	return strings.Join(out, " | ")
}

// TestForgetByTalking: with the built-in model, "forget" takes a session
// note and a global note out in the turn that asks, the recap no longer
// mentions them, Undo (Restore) brings one back, and the conversation's
// end deletes the rest for good.
func TestForgetByTalking(t *testing.T) {
	dbtest.Backends(t, func(t *testing.T, db *models.Store) {
		s, uid, sid := seededIn(t, db)
		a := offlineAgent(t, s, "2026-12-01")
		sayTo(t, a, sid, "I always travel with my guitar.")
		if got := activeTexts(t, s, uid, sid); !strings.Contains(got, "guitar") {
			t.Fatalf("notes after the statement: %s; want the guitar saved", got)
		}
		res := sayTo(t, a, sid, "Please forget that I travel with my guitar.")
		if len(res.Forgotten) != 1 || !strings.Contains(res.Forgotten[0].Text, "guitar") {
			t.Fatalf("forgotten = %+v, reply %q; want the guitar note", res.Forgotten, res.Reply)
		}
		res = sayTo(t, a, sid, "Actually, forget that I prefer rooms on high floors.")
		if len(res.Forgotten) != 1 || !strings.Contains(res.Forgotten[0].Text, "high floors") {
			t.Fatalf("forgotten = %+v, reply %q; want the global high-floor note", res.Forgotten, res.Reply)
		}
		if got := activeTexts(t, s, uid, sid); strings.Contains(got, "guitar") || strings.Contains(got, "high floors") {
			t.Fatalf("notes after forgetting: %s", got)
		}
		recap := sayTo(t, a, sid, "What do you know about me?").Reply
		t.Logf("recap: %s", recap)
		if strings.Contains(recap, "guitar") || strings.Contains(recap, "high floor") {
			t.Errorf("recap still mentions a forgotten note: %q", recap)
		}
		forgotten, err := s.ForgottenInSession(ctx, sid)
		if err != nil || len(forgotten) != 2 {
			t.Fatalf("forgotten in session = %d, %v; want 2", len(forgotten), err)
		}
		var floor models.Note
		for _, n := range forgotten {
			if strings.Contains(n.Text, "high floors") {
				floor = n
			}
		}
		if _, err := a.Notes().Restore(ctx, uid, sid, floor.ID, models.Actor{ID: uid, Kind: models.ActorTraveler}); err != nil {
			t.Fatalf("restore: %v", err)
		}
		if got := activeTexts(t, s, uid, sid); !strings.Contains(got, "high floors") {
			t.Fatalf("after Undo the notes are %s; want the high-floor note back", got)
		}
		if hist, _ := s.NoteHistory(ctx, floor.ID); len(hist) < 3 {
			t.Errorf("restored note has %d history entries, want its original, the forget and the restore", len(hist))
		}
		if _, err := s.CloseSession(ctx, sid, "ended"); err != nil {
			t.Fatal(err)
		}
		n, err := a.Notes().PurgeForgotten(ctx)
		if err != nil || n != 1 {
			t.Fatalf("purge = %d, %v; want the guitar note deleted", n, err)
		}
		for _, f := range forgotten {
			if _, err := s.NoteByID(ctx, uid, f.ID); f.ID != floor.ID && err == nil {
				t.Errorf("the purged note is still stored")
			}
		}
		// Deleting is deleting: the tool records and the instructions lose
		// the text too. (The assistant's own paraphrase, "you always travel
		// with your guitar", is not the note's text and stays: a known gap
		// of every deletion, see the issue-23 note.)
		msgs, _ := s.Messages(ctx, sid)
		for _, m := range msgs {
			if m.Role == "tool" && strings.Contains(m.Content, "guitar") || strings.Contains(m.ToolCalls, "guitar") {
				t.Errorf("a %s message still holds the forgotten note: %s %s", m.Role, m.Content, m.ToolCalls)
			}
		}
		snaps, _ := s.Snapshots(ctx, sid)
		for _, sn := range snaps {
			if strings.Contains(sn.Instructions, "guitar") || strings.Contains(sn.Response, "travels with a guitar") {
				t.Errorf("snapshot of turn %d still holds the forgotten note", sn.Turn)
			}
		}
	})
}

// TestForgetPinnedNeedsALaterConfirmation: a pinned allergy is forgotten
// only when the traveler confirms in the turn after the request.
func TestForgetPinnedNeedsALaterConfirmation(t *testing.T) {
	dbtest.Backends(t, func(t *testing.T, db *models.Store) {
		s, uid, sid := seededIn(t, db)
		staff := models.Actor{Kind: models.ActorSystem}
		n, err := s.Notes(memory.Limits{}).Add(ctx, models.NewNote{UserID: uid, Kind: models.KindGlobal,
			Note: memory.Note{Text: "Is allergic to peanuts.", Keywords: []string{"allergy", "peanuts"}, Pinned: true, Source: memory.SourceSeed}}, staff, "seed")
		if err != nil {
			t.Fatal(err)
		}
		a := offlineAgent(t, s, "2026-12-01")
		res := sayTo(t, a, sid, "Please forget that I'm allergic to peanuts.")
		if len(res.Forgotten) != 0 || !strings.Contains(res.Reply, "confirm") {
			t.Fatalf("first request: forgotten %d, reply %q; want a question", len(res.Forgotten), res.Reply)
		}
		if got := activeTexts(t, s, uid, sid); !strings.Contains(got, "peanuts") {
			t.Fatalf("the allergy went before any confirmation: %s", got)
		}
		t.Logf("asked: %s", res.Reply)
		res = sayTo(t, a, sid, "Yes, I'm sure.")
		if len(res.Forgotten) != 1 || res.Forgotten[0].ID != n.ID {
			t.Fatalf("after confirming: forgotten %+v, reply %q", res.Forgotten, res.Reply)
		}
	})
}

// TestUntilMonthSetsExpiry: "until the end of March" gives the note March's
// last day; it is injected before that day, and the worker deletes it
// after, with an "expired" audit event.
func TestUntilMonthSetsExpiry(t *testing.T) {
	dbtest.Backends(t, func(t *testing.T, db *models.Store) {
		s, uid, sid := seededIn(t, db)
		a := offlineAgent(t, s, "2026-12-01")
		res := sayTo(t, a, sid, "I'm on crutches until the end of March, so I need step-free access.")
		// An end date is never a trip date: neither this answer nor the
		// next plans a trip in March.
		next := sayTo(t, a, sid, "We want a hotel in Lisbon.")
		for _, r := range []string{res.Reply, next.Reply} {
			if strings.Contains(r, "March") {
				t.Errorf("reply %q takes the end date for trip dates", r)
			}
		}
		if len(res.Saved) == 0 {
			t.Fatalf("nothing saved; reply %q", res.Reply)
		}
		for _, n := range res.Saved {
			if n.ExpiresOn != "2027-03-31" {
				t.Errorf("note %q expires_on = %q, want 2027-03-31", n.Text, n.ExpiresOn)
			}
		}
		if _, err := s.CloseSession(ctx, sid, "ended"); err != nil {
			t.Fatal(err)
		}
		w := agent.NewWorker(agent.DefaultWorkerConfig(), s, nil, quietLog())
		w.SetClock(func() time.Time { return time.Date(2027, 3, 31, 12, 0, 0, 0, time.UTC) })
		for w.RunOnce(ctx) {
		}
		global, err := s.GlobalNotes(ctx, uid)
		if err != nil {
			t.Fatal(err)
		}
		var kept *memory.Note
		for i := range global {
			if global[i].ExpiresOn == "2027-03-31" {
				kept = &global[i]
			}
		}
		if kept == nil {
			t.Fatalf("consolidation lost the end date: %+v", global)
		}
		in := prompt.BuildInstructions(memory.NewState(nil, global, nil, nil), prompt.InjectOptions{Today: "2027-03-31"})
		if !strings.Contains(in.Text, kept.Text) {
			t.Errorf("on its last day the note is not injected")
		}
		w.SetClock(func() time.Time { return time.Date(2027, 4, 1, 9, 0, 0, 0, time.UTC) })
		w.Sweep(ctx)
		if _, err := s.NoteByID(ctx, uid, kept.ID); err == nil {
			t.Fatalf("the expired note is still stored after the sweep")
		}
		evs, err := s.AuditEvents(ctx, models.AuditFilter{UserID: uid})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, ev := range evs {
			found = found || ev.NoteID == kept.ID && ev.Action == "note.expired"
		}
		if !found {
			t.Errorf("no note.expired audit event for the note")
		}
	})
}

// TestCorrectionWinsAtOnce: John's notes and profile say aisle; he says he
// now prefers window seats, and the recap in the same conversation gives
// window only, saying it overrides the profile.
func TestCorrectionWinsAtOnce(t *testing.T) {
	dbtest.Backends(t, func(t *testing.T, db *models.Store) {
		s, _, sid := seededIn(t, db)
		a := offlineAgent(t, s, "2026-12-01")
		sayTo(t, a, sid, "These days I prefer window seats.")
		recap := sayTo(t, a, sid, "What do you know about me?").Reply
		t.Logf("recap: %s", recap)
		if strings.Contains(strings.ToLower(recap), "aisle seats") || !strings.Contains(recap, "window") {
			t.Errorf("recap = %q; want window and not the aisle note", recap)
		}
		if !strings.Contains(recap, "overrides your profile") {
			t.Errorf("recap = %q; want it to say the profile's aisle is overridden", recap)
		}
	})
}
