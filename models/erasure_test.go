package models_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"concierge/memory"
	"concierge/memory/consolidate"
	"concierge/models"
	"concierge/models/dbtest"
)

// seeded is a traveler with something in every table that holds user data.
type seeded struct {
	user   *models.User
	canary string
}

// seedEverything gives a new traveler a profile, notes with history, a
// closed session with messages, a prompt snapshot and a consolidation
// report, an open session with a session note, a blocked write, a trip,
// tokens, a browser session and audit events — all carrying the canary.
func seedEverything(t *testing.T, s *models.Store, email, name, canary string) seeded {
	t.Helper()
	u, err := s.CreateUser(ctx, email, name, models.RoleTraveler, "right-pass")
	if err != nil {
		t.Fatal(err)
	}
	staff := models.Actor{ID: "staff-x", Kind: models.ActorSupport}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.SetProfile(ctx, u.ID, memory.Profile{"name": name, "email": email, "home_city": "Lisbon", "preferred_tone": canary}, staff, "import "+canary))
	_, _, err = s.Notes(memory.Limits{}).Trips().Create(ctx, u.ID, memory.Trip{Route: "Lisbon – Oslo", StartDate: "2026-01-02", EndDate: "2026-01-09", Name: canary}, models.Actor{Kind: models.ActorSystem}, "test")
	must(err)
	g, err := s.Notes(memory.Limits{}).Add(ctx, models.NewNote{UserID: u.ID, Kind: models.KindGlobal,
		Note: memory.Note{Text: "Likes " + canary + " on trips.", Keywords: []string{"canary"}, Source: memory.SourceStaff}}, staff, "asked")
	must(err)
	txt := "Really likes " + canary + " on trips."
	_, err = s.Notes(memory.Limits{}).Edit(ctx, u.ID, g.ID, models.NotePatch{Text: &txt}, staff, "reworded")
	must(err)

	cs, err := s.CreateChatSession(ctx, u.ID)
	must(err)
	msg := &models.Message{SessionID: cs.ID, Role: "user", Content: "I always want " + canary + ", I'm " + name, Turn: 1}
	must(s.AppendMessage(ctx, msg))
	must(s.AppendMessage(ctx, &models.Message{SessionID: cs.ID, Role: "assistant", Content: "Noted, " + name + ": " + canary, Turn: 1}))
	must(s.SaveSnapshot(ctx, &models.TurnSnapshot{SessionID: cs.ID, UserID: u.ID, Turn: 1, Round: 1, Model: "offline",
		Instructions: "<user_profile>name: " + name + "</user_profile> " + canary, Messages: `[{"role":"user","content":"` + canary + `"}]`,
		Response: `{"content":"` + canary + `"}`, PromptTokens: 10, CompletionTokens: 5}))
	_, err = s.Notes(memory.Limits{}).Add(ctx, models.NewNote{UserID: u.ID, Kind: models.KindSession,
		Note: memory.Note{Text: "Wants " + canary + " every time.", Keywords: []string{"canary"}, Source: memory.SourceAssistant},
		Prov: models.Provenance{SessionID: cs.ID, MessageID: msg.ID}}, models.Actor{Kind: models.ActorAssistant}, "stated by the traveler")
	must(err)
	must(s.RecordBlockedWrite(ctx, u.ID, cs.ID, "", memory.CategorySecret))
	job, err := s.CloseSession(ctx, cs.ID, "ended by the traveler")
	must(err)
	claimed, err := s.ClaimJob(ctx, "w1", time.Minute)
	must(err)
	if claimed.ID != job.ID {
		t.Fatalf("claimed %s, want %s", claimed.ID, job.ID)
	}
	global, _ := s.GlobalNotes(ctx, u.ID)
	session, _ := s.SessionNotes(ctx, cs.ID)
	res := consolidate.ByRules(global, session, consolidate.Options{Today: "2026-01-10"})
	version, err := s.MemoryVersion(ctx, u.ID)
	must(err)
	rep, err := s.Notes(memory.Limits{}).ApplyConsolidation(ctx, claimed, "w1", res, version)
	must(err)
	if !bytes.Contains([]byte(rep.Report), []byte(canary)) {
		t.Fatalf("the report does not carry the canary, so the test would prove nothing: %s", rep.Report)
	}

	open, err := s.CreateChatSession(ctx, u.ID)
	must(err)
	must(s.AppendMessage(ctx, &models.Message{SessionID: open.ID, Role: "user", Content: "Still " + canary, Turn: 1}))
	_, _, err = s.CreateAPIToken(ctx, u.ID, time.Hour)
	must(err)
	_, err = s.CreateWebSession(ctx, u.ID, time.Hour, 0)
	must(err)
	_, _, err = s.RequestErasure(ctx, u.ID, models.Actor{ID: u.ID, Kind: models.ActorTraveler}, "please forget me, "+name)
	must(err)
	return seeded{user: u, canary: canary}
}

func TestEraseUserLeavesNothing(t *testing.T) {
	dbtest.Backends(t, func(t *testing.T, s *models.Store) {
		const (
			email  = "zelda.erasable@example.com"
			name   = "Zelda Erasable"
			canary = "quokka-saxophone"
		)
		victim := seedEverything(t, s, email, name, canary)
		other := seedEverything(t, s, "olaf.keeper@example.com", "Olaf Keeper", "wombat-trombone")
		admin, err := s.CreateUser(ctx, "boss@example.com", "Boss", models.RoleAdmin, "right-pass")
		if err != nil {
			t.Fatal(err)
		}
		before, err := s.ScanTables(ctx, email, name, canary, victim.user.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, table := range []string{"users", "profiles", "notes", "note_versions", "chat_sessions", "messages",
			"turn_snapshots", "audit_events", "consolidation_reports", "trips", "erasure_requests"} {
			if before[table] == 0 {
				t.Errorf("seed: %s holds nothing of the victim; the test would not prove it is erased", table)
			}
		}

		start := time.Now()
		rec, err := s.EraseUser(ctx, victim.user.ID, models.Actor{ID: admin.ID, Kind: models.ActorAdmin}, models.ErasureWhy{Reason: models.ErasureDataSubjectRequest, Ticket: "DSR-1"})
		if err != nil {
			t.Fatalf("EraseUser: %v", err)
		}
		t.Logf("erased in %v: %v", time.Since(start), rec.RowsDeleted)
		wantRows := map[string]int64{"users": 1, "profiles": 1, "chat_sessions": 2, "messages": 3, "turn_snapshots": 1,
			"consolidation_jobs": 1, "consolidation_reports": 1, "blocked_writes": 1, "trips": 1, "api_tokens": 1, "web_sessions": 1}
		for table, want := range wantRows {
			if got := rec.RowsDeleted[table]; got != want {
				t.Errorf("rows_deleted[%s] = %d, want %d", table, got, want)
			}
		}
		if rec.RowsDeleted["notes"] < 2 || rec.RowsDeleted["audit_events"] < 3 || rec.RowsDeleted["note_versions"] < 3 {
			t.Errorf("rows_deleted = %v: notes, versions or audit events missing", rec.RowsDeleted)
		}
		if rec.RequestedBy != models.ActorTraveler || rec.ExecutedBy != admin.ID || rec.CompletedAt.IsZero() {
			t.Errorf("receipt = %+v: want requested by the traveler, executed by the admin, with a time", rec)
		}

		after, err := s.ScanTables(ctx, email, name, canary, victim.user.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(after) != 0 {
			t.Errorf("after erasure, tables still hold the user's email, name, canary or id: %v", after)
		}
		if kept, _ := s.ScanTables(ctx, "wombat-trombone"); kept["messages"] == 0 || kept["notes"] == 0 {
			t.Errorf("the other traveler's data went too: %v", kept)
		}

		reqs, err := s.ErasureRequests(ctx, "", 10)
		if err != nil || len(reqs) != 2 {
			t.Fatalf("ErasureRequests = %d, %v; want the receipt and the other traveler's pending request", len(reqs), err)
		}
		done := reqs[1]
		if reqs[0].Status == models.ErasureDone {
			done = reqs[0]
		}
		if done.Status != models.ErasureDone || done.UserID != "" || done.CompletedAt == nil {
			t.Errorf("completed request = %+v: want done, user id emptied", done)
		}
		stored, err := done.DecodeReceipt()
		if err != nil || stored.RowsDeleted["messages"] != 3 {
			t.Errorf("stored receipt = %+v, %v", stored, err)
		}

		if path := s.Path(); path != "" {
			for _, file := range []string{path, path + "-wal"} {
				b, err := os.ReadFile(file)
				if errors.Is(err, os.ErrNotExist) {
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				for _, needle := range []string{email, name, canary, victim.user.ID} {
					if n := bytes.Count(b, []byte(needle)); n != 0 {
						t.Errorf("%s (%d bytes) still holds %q %d times", file, len(b), needle, n)
					}
				}
				if !bytes.Contains(b, []byte("wombat-trombone")) && file == path {
					t.Errorf("%s does not hold the other traveler's canary: the byte scan may be looking at the wrong file", file)
				}
			}
		}

		if _, err := s.EraseUser(ctx, victim.user.ID, models.Actor{ID: admin.ID, Kind: models.ActorAdmin}, models.ErasureWhy{Reason: models.ErasureOther}); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("erasing twice: got %v, want ErrNotFound", err)
		}
		if _, err := s.EraseUser(ctx, admin.ID, models.Actor{ID: admin.ID, Kind: models.ActorAdmin}, models.ErasureWhy{Reason: models.ErasureOther}); !errors.Is(err, models.ErrSelfErasure) {
			t.Errorf("self-erasure: got %v, want ErrSelfErasure", err)
		}
		_ = other
	})
}

// TestEraseTenThousandMessages measures erasing a traveler with 10,000
// messages in 50 sessions (and a snapshot per turn), and logs the time.
func TestEraseTenThousandMessages(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: seeds 10,000 messages")
	}
	dbtest.Backends(t, func(t *testing.T, s *models.Store) {
		u, err := s.CreateUser(ctx, "many@example.com", "Many Messages", models.RoleTraveler, "right-pass")
		if err != nil {
			t.Fatal(err)
		}
		admin, _ := s.CreateUser(ctx, "boss@example.com", "Boss", models.RoleAdmin, "right-pass")
		now := time.Now().UTC()
		var msgs []models.Message
		var snaps []models.TurnSnapshot
		for si := 0; si < 50; si++ {
			cs, err := s.CreateChatSession(ctx, u.ID)
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 200; i++ {
				role := "user"
				if i%2 == 1 {
					role = "assistant"
				}
				msgs = append(msgs, models.Message{ID: models.NewID(), SessionID: cs.ID, UserID: u.ID, Seq: i + 1, Turn: i/2 + 1,
					Role: role, Content: fmt.Sprintf("message %d of session %d: a few words about a trip to Oslo and back", i, si), CreatedAt: now})
				if role == "assistant" {
					snaps = append(snaps, models.TurnSnapshot{ID: models.NewID(), SessionID: cs.ID, UserID: u.ID, Turn: i/2 + 1, Round: 1,
						Model: "offline", Instructions: "instructions", Messages: "[]", Response: "{}", CreatedAt: now})
				}
			}
		}
		if err := s.DB().CreateInBatches(msgs, 500).Error; err != nil {
			t.Fatal(err)
		}
		if err := s.DB().CreateInBatches(snaps, 500).Error; err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		rec, err := s.EraseUser(ctx, u.ID, models.Actor{ID: admin.ID, Kind: models.ActorAdmin}, models.ErasureWhy{Reason: models.ErasureAccountClosure})
		if err != nil {
			t.Fatal(err)
		}
		elapsed := time.Since(start)
		if rec.RowsDeleted["messages"] != 10000 || rec.RowsDeleted["turn_snapshots"] != 5000 {
			t.Errorf("rows_deleted = %v", rec.RowsDeleted)
		}
		t.Logf("erased a traveler with 10,000 messages and 5,000 snapshots in %v (incl. scrub and verification)", elapsed)
	})
}

// TestErasureRequestRules: a traveler asks for their own account only, an
// admin for anyone's but their own, nobody else; asking twice returns the
// one pending request, also when two ask at once.
func TestErasureRequestRules(t *testing.T) {
	dbtest.Backends(t, func(t *testing.T, s *models.Store) {
		ctx := t.Context()
		u, err := s.CreateUser(ctx, "er-rules@example.com", "Er Rules", models.RoleTraveler, "pw-long-enough-1")
		if err != nil {
			t.Fatal(err)
		}
		admin := models.Actor{ID: models.NewID(), Kind: models.ActorAdmin}
		if _, _, err := s.RequestErasure(ctx, u.ID, models.Actor{ID: models.NewID(), Kind: models.ActorTraveler}, ""); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("another traveler asks: %v, want ErrNotFound", err)
		}
		if _, _, err := s.RequestErasure(ctx, admin.ID, admin, ""); !errors.Is(err, models.ErrSelfErasure) {
			t.Errorf("an admin asks for their own account: %v, want ErrSelfErasure", err)
		}
		if _, _, err := s.RequestErasure(ctx, u.ID, models.Actor{ID: models.NewID(), Kind: models.ActorSupport}, ""); memory.ErrorCode(err) != memory.EINVALID {
			t.Errorf("support asks: %v, want invalid", err)
		}
		var wg sync.WaitGroup
		ids := make([]string, 2)
		made := make([]bool, 2)
		for i := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r, created, err := s.RequestErasure(ctx, u.ID, models.Actor{ID: u.ID, Kind: models.ActorTraveler}, "")
				if err != nil {
					t.Errorf("request %d: %v", i, err)
					return
				}
				ids[i], made[i] = r.ID, created
			}()
		}
		wg.Wait()
		if ids[0] != ids[1] || made[0] == made[1] {
			t.Errorf("two requests at once: ids %v created %v, want one request created once", ids, made)
		}
		r, created, err := s.RequestErasure(ctx, u.ID, admin, "")
		if err != nil || created || r.ID != ids[0] || r.RequestedBy != models.ActorTraveler {
			t.Errorf("admin asks after the traveler: %v created=%v %+v, want the traveler's request", err, created, r)
		}
	})
}
