package models_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"concierge/memory"
	"concierge/memory/prompt"
	"concierge/models"
	"concierge/models/dbtest"
)

// TestDeleteNoteScrubsEveryCopy deletes a note that consolidation promoted,
// and checks its text is gone from notes, history, audit payloads and the
// consolidation report, while the transcript keeps what was said.
func TestDeleteNoteScrubsEveryCopy(t *testing.T) {
	dbtest.Backends(t, func(t *testing.T, s *models.Store) {
		const canary = "platypus-harmonica"
		v := seedEverything(t, s, "del@example.com", "Del Eter", canary)
		var notes []models.Note
		if err := s.DB().Where("user_id = ? AND text LIKE ?", v.user.ID, "%"+canary+"%").Find(&notes).Error; err != nil || len(notes) == 0 {
			t.Fatalf("no notes carry the canary: %v", err)
		}
		staff := models.Actor{ID: "staff-1", Kind: models.ActorSupport}
		for _, n := range notes {
			if err := s.Notes(memory.Limits{}).Delete(ctx, v.user.ID, n.ID, staff, "customer asked"); err != nil {
				t.Fatal(err)
			}
		}
		hits, err := s.ScanTables(ctx, canary)
		if err != nil {
			t.Fatal(err)
		}
		// The profile carries the canary too (and its audit event), so audit
		// payloads are checked for note events only.
		var noteEvents int64
		s.DB().Model(&models.AuditEvent{}).Where("action LIKE ? AND (before LIKE ? OR after LIKE ?)", "note.%", "%"+canary+"%", "%"+canary+"%").Count(&noteEvents)
		if noteEvents != 0 {
			t.Errorf("%d note audit payloads still hold the deleted text", noteEvents)
		}
		for _, table := range []string{"notes", "note_versions", "consolidation_reports"} {
			if hits[table] != 0 {
				t.Errorf("%s still holds the deleted text in %d rows", table, hits[table])
			}
		}
		if hits["messages"] == 0 {
			t.Errorf("the transcript lost what was said; only erasure or retention may remove it")
		}
		events, err := s.AuditEvents(ctx, models.AuditFilter{UserID: v.user.ID, Action: "note.delete"})
		if err != nil || len(events) != len(notes) {
			t.Fatalf("note.delete events = %d, %v; want %d", len(events), err, len(notes))
		}
		if events[0].Reason != "customer asked" || events[0].ActorID != "staff-1" || events[0].Before != "" {
			t.Errorf("delete event = %+v: want who and why, without content", events[0])
		}
	})
}

func TestAuditFilters(t *testing.T) {
	dbtest.Backends(t, func(t *testing.T, s *models.Store) {
		now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
		s.Now = func() time.Time { return now }
		u, _ := s.CreateUser(ctx, "a@example.com", "A", models.RoleTraveler, "right-pass")
		staff := models.Actor{ID: "s1", Kind: models.ActorSupport}
		n, err := s.Notes(memory.Limits{}).Add(ctx, models.NewNote{UserID: u.ID, Kind: models.KindGlobal, Note: memory.Note{Text: "Likes tea.", Keywords: []string{"tea"}}}, staff, "asked")
		if err != nil {
			t.Fatal(err)
		}
		now = now.Add(48 * time.Hour)
		pin := true
		if _, err := s.Notes(memory.Limits{}).Edit(ctx, u.ID, n.ID, models.NotePatch{Pinned: &pin}, models.Actor{ID: "a1", Kind: models.ActorAdmin}, "important"); err != nil {
			t.Fatal(err)
		}
		tests := []struct {
			name string
			f    models.AuditFilter
			want []string
		}{
			{"all", models.AuditFilter{UserID: u.ID}, []string{"note.update", "note.create"}},
			{"by actor", models.AuditFilter{UserID: u.ID, ActorKind: "support"}, []string{"note.create"}},
			{"by action", models.AuditFilter{Action: "note.update"}, []string{"note.update"}},
			{"from", models.AuditFilter{UserID: u.ID, From: time.Date(2026, 3, 11, 0, 0, 0, 0, time.UTC)}, []string{"note.update"}},
			{"to", models.AuditFilter{UserID: u.ID, To: time.Date(2026, 3, 11, 0, 0, 0, 0, time.UTC)}, []string{"note.create"}},
			{"nobody", models.AuditFilter{UserID: models.NewID()}, nil},
		}
		for _, tt := range tests {
			got, err := s.AuditEvents(ctx, tt.f)
			if err != nil {
				t.Fatal(err)
			}
			var actions []string
			for _, e := range got {
				actions = append(actions, e.Action)
			}
			if strings.Join(actions, ",") != strings.Join(tt.want, ",") {
				t.Errorf("%s: actions %v, want %v", tt.name, actions, tt.want)
			}
		}
		if err := s.ChangeUserRole(ctx, u.ID, models.RoleSupport, models.Actor{ID: "a1", Kind: models.ActorAdmin}, "joined the team"); err != nil {
			t.Fatal(err)
		}
		ev, _ := s.AuditEvents(ctx, models.AuditFilter{UserID: u.ID, Action: "account.role"})
		if len(ev) != 1 || !strings.Contains(ev[0].Before, "traveler") || !strings.Contains(ev[0].After, "support") || ev[0].Reason != "joined the team" {
			t.Errorf("role change audit = %+v", ev)
		}
		if err := s.ChangeUserRole(ctx, models.NewID(), models.RoleAdmin, models.Actor{Kind: models.ActorAdmin}, "x"); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("unknown account: %v, want ErrNotFound", err)
		}
	})
}

func TestMemoryHealth(t *testing.T) {
	dbtest.Backends(t, func(t *testing.T, s *models.Store) {
		v := seedEverything(t, s, "h@example.com", "H", "ibis-kazoo-3")
		// A new traveler: two turns without memory, then one with it.
		u, _ := s.CreateUser(ctx, "new@example.com", "New", models.RoleTraveler, "right-pass")
		cs, _ := s.CreateChatSession(ctx, u.ID)
		tea := []memory.Note{{ID: "n1", Text: "Likes tea.", LastUpdateDate: "2026-01-01"}}
		for turn, global := range [][]memory.Note{nil, nil, tea} {
			in := prompt.BuildInstructions(memory.NewState(nil, global, nil, nil), prompt.InjectOptions{})
			sn := &models.TurnSnapshot{SessionID: cs.ID, UserID: u.ID, Turn: turn + 1, Round: 1, Model: "m",
				Instructions: in.Text, Messages: "[]", Response: "{}"}
			sn.SetInjection(in)
			if err := s.SaveSnapshot(ctx, sn); err != nil {
				t.Fatal(err)
			}
		}
		snaps, _ := s.Snapshots(ctx, cs.ID)
		if notes, tokens, ok := snaps[2].Injection(); !ok || len(notes) != 1 || notes[0].ID != "n1" || tokens.GlobalNotes == 0 || !snaps[2].MemoryInjected {
			t.Errorf("stored injection = %+v %+v %v", notes, tokens, ok)
		}
		if notes, _, ok := snaps[0].Injection(); !ok || len(notes) != 0 || snaps[0].MemoryInjected {
			t.Errorf("stored injection of an empty prompt = %+v %v", notes, ok)
		}
		h, err := s.MemoryHealthSince(ctx, time.Now(), 30)
		if err != nil {
			t.Fatal(err)
		}
		if len(h.Days) != 30 {
			t.Fatalf("%d days, want 30", len(h.Days))
		}
		today := h.Days[29]
		if today.Day != time.Now().UTC().Format("2006-01-02") {
			t.Errorf("last day %s, want today", today.Day)
		}
		if today.Turns != 2 || today.Blocked[memory.CategorySecret] != 1 || today.Runs != 1 || today.MemoryWrites != 1 {
			t.Errorf("today = %+v: want 2 turns, 1 blocked secret, 1 run, 1 assistant write", today)
		}
		if today.Personalized != 1 || today.TurnsToPersonalize != 2 {
			t.Errorf("personalization = %d travelers, %d turns; want 1 traveler after 2 turns", today.Personalized, today.TurnsToPersonalize)
		}
		if h.Travelers != 2 || len(h.Categories) != 1 {
			t.Errorf("travelers %d, categories %v", h.Travelers, h.Categories)
		}
		tot, err := s.Totals(ctx)
		if err != nil || tot.Turns != 2 || tot.Blocked[memory.CategorySecret] != 1 || tot.Runs["rules"] != 1 || tot.Jobs["done"] != 1 {
			t.Errorf("totals = %+v, %v", tot, err)
		}
		_ = v
	})
}

// TestSnapshotInjectionBackfill takes the snapshot table back to before
// migration 6, stores snapshots as the old code did (text only), and checks
// that the upgrade marks which of them carried memory.
func TestSnapshotInjectionBackfill(t *testing.T) {
	dbtest.Backends(t, func(t *testing.T, s *models.Store) {
		u, _ := s.CreateUser(ctx, "old@example.com", "Old", models.RoleTraveler, "right-pass")
		cs, _ := s.CreateChatSession(ctx, u.ID)
		db := s.DB().WithContext(ctx)
		for _, stmt := range []string{"ALTER TABLE turn_snapshots DROP COLUMN injected_notes", "ALTER TABLE turn_snapshots DROP COLUMN section_tokens",
			"ALTER TABLE turn_snapshots DROP COLUMN memory_injected", "ALTER TABLE turn_snapshots DROP COLUMN session_block",
			"DELETE FROM schema_migrations WHERE version = 6"} {
			if err := db.Exec(stmt).Error; err != nil {
				t.Fatal(err)
			}
		}
		old := map[string]string{
			"empty":   "<memories>\nGLOBAL:\n- (none yet)\n</memories>\n",
			"global":  "<memories>\nGLOBAL:\n- Likes tea.\n</memories>\n",
			"trimmed": "<memories>\nGLOBAL:\n- (none yet)\nSESSION:\n- Is vegetarian. [durable]\n</memories>\n",
		}
		for id, text := range old {
			if err := db.Exec(`INSERT INTO turn_snapshots (id, session_id, user_id, turn, round, model, instructions, messages, response,
				prompt_tokens, completion_tokens, created_at) VALUES (?, ?, ?, 1, 1, 'm', ?, '[]', '{}', 0, 0, ?)`,
				id, cs.ID, u.ID, text, time.Now()).Error; err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		snaps, err := s.Snapshots(ctx, cs.ID)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]bool{"empty": false, "global": true, "trimmed": true}
		for _, sn := range snaps {
			if sn.MemoryInjected != want[sn.ID] {
				t.Errorf("%s: memory_injected = %v, want %v", sn.ID, sn.MemoryInjected, want[sn.ID])
			}
			if _, _, ok := sn.Injection(); ok {
				t.Errorf("%s: an old snapshot claims a stored structure", sn.ID)
			}
		}
	})
}
