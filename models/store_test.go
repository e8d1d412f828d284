package models_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"concierge/memory"
	"concierge/models"
	"concierge/models/dbtest"
)

var ctx = context.Background()

func TestUserRoundTrip(t *testing.T) {
	dbtest.Backends(t, func(t *testing.T, s *models.Store) {
		u, err := s.CreateUser(ctx, " Ada@Example.com ", "Ada Lovelace", models.RoleSupport, "secret-pass")
		if err != nil {
			t.Fatalf("CreateUser: %v", err)
		}
		if len(u.ID) != 26 {
			t.Errorf("id %q: want 26 opaque characters", u.ID)
		}
		got, err := s.UserByEmail(ctx, "ada@example.com")
		if err != nil {
			t.Fatalf("UserByEmail: %v", err)
		}
		if got.ID != u.ID || got.Name != "Ada Lovelace" || got.Role != models.RoleSupport {
			t.Errorf("got %+v, want the created user", got)
		}
		if _, err := s.CreateUser(ctx, "ada@example.com", "Twin", models.RoleTraveler, "secret-pass"); !errors.Is(err, models.ErrConflict) {
			t.Errorf("duplicate email: got %v, want ErrConflict", err)
		}
		found, err := s.SearchUsers(ctx, "LOVE", 10)
		if err != nil || len(found) != 1 {
			t.Errorf("SearchUsers: got %d users, err %v; want 1", len(found), err)
		}
		if _, err := s.UserByID(ctx, models.NewID()); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("unknown id: got %v, want ErrNotFound", err)
		}
	})
}

// TestTokensExpire lets a token's hour pass by moving its expiry into the
// past: expiry compares against the shared clock, which is the database's
// on PostgreSQL and cannot be moved by the test.
func TestTokensExpire(t *testing.T) {
	dbtest.Backends(t, func(t *testing.T, s *models.Store) {
		u, err := s.CreateUser(ctx, "tok@example.com", "Tok", models.RoleTraveler, "right-pass")
		if err != nil {
			t.Fatal(err)
		}
		token, tok, err := s.CreateAPIToken(ctx, u.ID, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := s.UserByAPIToken(ctx, token); err != nil || got.ID != u.ID {
			t.Fatalf("fresh token: got %v, %v", got, err)
		}
		var stored int64
		s.DB().Model(&models.APIToken{}).Where("hash = ?", token).Count(&stored)
		if stored != 0 {
			t.Errorf("the raw token is stored; only its hash may be")
		}
		if err := s.DB().Model(&models.APIToken{}).Where("id = ?", tok.ID).Update("expires_at", tok.ExpiresAt.Add(-61*time.Minute)).Error; err != nil {
			t.Fatal(err)
		}
		if _, err := s.UserByAPIToken(ctx, token); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("expired token: got %v, want ErrNotFound", err)
		}
		if n, err := s.DeleteExpiredCredentials(ctx); err != nil || n != 1 {
			t.Errorf("DeleteExpiredCredentials = %d, %v; want 1", n, err)
		}
	})
}

func TestNotesLifecycle(t *testing.T) {
	dbtest.Backends(t, func(t *testing.T, s *models.Store) {
		u, err := s.CreateUser(ctx, "n@example.com", "N", models.RoleTraveler, "right-pass")
		if err != nil {
			t.Fatal(err)
		}
		staff := models.Actor{ID: "staff1", Kind: models.ActorSupport}
		n, err := s.Notes(memory.Limits{}).Add(ctx, models.NewNote{UserID: u.ID, Kind: models.KindGlobal,
			Note: memory.Note{Text: "Likes the canary phrase zebra-umbrella.", Keywords: []string{"canary"}, Source: memory.SourceStaff}}, staff, "customer asked")
		if err != nil {
			t.Fatal(err)
		}
		text := "Likes quiet rooms."
		if _, err := s.Notes(memory.Limits{}).Edit(ctx, u.ID, n.ID, models.NotePatch{Text: &text}, staff, "typo"); err != nil {
			t.Fatal(err)
		}
		hist, err := s.NoteHistory(ctx, n.ID)
		if err != nil || len(hist) != 2 {
			t.Fatalf("history: %d versions, %v; want 2", len(hist), err)
		}
		notes, err := s.GlobalNotes(ctx, u.ID)
		if err != nil || len(notes) != 1 || notes[0].Text != text || notes[0].Keywords[0] != "canary" {
			t.Fatalf("GlobalNotes = %+v, %v", notes, err)
		}
		if err := s.Notes(memory.Limits{}).Delete(ctx, u.ID, n.ID, staff, "customer asked"); err != nil {
			t.Fatal(err)
		}
		for _, table := range []string{"notes", "note_versions", "audit_events"} {
			var hits int64
			s.DB().Table(table).Where("CAST(text AS TEXT) LIKE ?", "%zebra%").Count(&hits)
			if table == "audit_events" {
				s.DB().Table(table).Where("before LIKE ? OR after LIKE ?", "%zebra%", "%zebra%").Count(&hits)
			}
			if hits != 0 {
				t.Errorf("%s still holds the deleted text (%d rows)", table, hits)
			}
		}
		if _, err := s.NoteByID(ctx, u.ID, n.ID); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("deleted note: got %v, want ErrNotFound", err)
		}
	})
}

// TestTurnNotes: the one read a turn makes of notes returns what
// GlobalNotes and SessionNotes return, in their orders: the user's active
// global notes by last update, and only that session's active notes by
// creation.
func TestTurnNotes(t *testing.T) {
	dbtest.Backends(t, func(t *testing.T, s *models.Store) {
		u, err := s.CreateUser(ctx, "tn@example.com", "T", models.RoleTraveler, "right-pass")
		if err != nil {
			t.Fatal(err)
		}
		other, err := s.CreateUser(ctx, "other@example.com", "O", models.RoleTraveler, "right-pass")
		if err != nil {
			t.Fatal(err)
		}
		a, err := s.CreateChatSession(ctx, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		b, err := s.CreateChatSession(ctx, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		actor := models.Actor{Kind: models.ActorSystem}
		add := func(user, kind, session, text, date string) *models.Note {
			t.Helper()
			n, err := s.Notes(memory.Limits{}).Add(ctx, models.NewNote{UserID: user, Kind: kind, Prov: models.Provenance{SessionID: session},
				Note: memory.Note{Text: text, Keywords: []string{"k"}, LastUpdateDate: date}}, actor, "")
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		add(u.ID, models.KindGlobal, "", "global, updated later", "2026-11-20")
		add(u.ID, models.KindGlobal, "", "global, updated earlier", "2026-10-01")
		gone := add(u.ID, models.KindGlobal, "", "global, deleted", "2026-09-01")
		add(other.ID, models.KindGlobal, "", "another traveler's", "2026-01-01")
		add(u.ID, models.KindSession, a.ID, "session a, first", "2026-12-01")
		add(u.ID, models.KindSession, a.ID, "session a, second", "2026-01-01")
		add(u.ID, models.KindSession, b.ID, "session b", "2026-01-01")
		if err := s.Notes(memory.Limits{}).Delete(ctx, u.ID, gone.ID, actor, ""); err != nil {
			t.Fatal(err)
		}
		// Conversation b plans a trip with two wishes: they are the trip's.
		asst := models.Actor{Kind: models.ActorAssistant}
		up, err := s.Notes(memory.Limits{}).Trips().UpdateFromChat(ctx, u.ID, b.ID, memory.UpdateTripArgs{Destination: strp("Oslo"),
			StartDate: strp("2027-08-01"), EndDate: strp("2027-08-04")}, asst)
		if err != nil {
			t.Fatal(err)
		}
		for _, wish := range []string{"Wants a sauna on this trip.", "Wants a fjord cruise on this trip."} {
			if _, err := s.Notes(memory.Limits{}).Add(ctx, models.NewNote{UserID: u.ID, Kind: models.KindSession, Prov: models.Provenance{SessionID: b.ID},
				Note: memory.Note{Text: wish, Keywords: []string{"k"}, Scope: memory.ScopeThisTrip, Source: memory.SourceAssistant}}, asst, ""); err != nil {
				t.Fatal(err)
			}
		}
		got, err := s.TurnNotes(ctx, u.ID, a.ID, up.Trip.ID)
		if err != nil {
			t.Fatal(err)
		}
		global, session := got.Global, got.Session
		texts := func(ns []memory.Note) string {
			var out []string
			for _, n := range ns {
				out = append(out, n.Text)
			}
			return strings.Join(out, " | ")
		}
		wantG, _ := s.GlobalNotes(ctx, u.ID)
		wantS, _ := s.SessionNotes(ctx, a.ID)
		if got, want := texts(global), "global, updated earlier | global, updated later"; got != want || got != texts(wantG) {
			t.Errorf("global = %q, want %q (GlobalNotes: %q)", got, want, texts(wantG))
		}
		if got, want := texts(session), "session a, first | session a, second"; got != want || got != texts(wantS) {
			t.Errorf("session = %q, want %q (SessionNotes: %q)", got, want, texts(wantS))
		}
		wantT, _ := s.TripNotes(ctx, up.Trip.ID)
		if got, want := texts(got.Trip), "Wants a sauna on this trip. | Wants a fjord cruise on this trip."; got != want || got != texts(wantT) {
			t.Errorf("trip = %q, want %q (TripNotes: %q)", got, want, texts(wantT))
		}
		if none, err := s.TurnNotes(ctx, u.ID, a.ID, ""); err != nil || len(none.Trip) != 0 {
			t.Errorf("without a trip: trip notes %q, %v", texts(none.Trip), err)
		}
		theirs, err := s.TurnNotes(ctx, other.ID, b.ID, up.Trip.ID)
		if err != nil || texts(theirs.Global) != "another traveler's" || len(theirs.Session) != 0 || len(theirs.Trip) != 0 {
			t.Errorf("another traveler with someone else's session and trip = %q, %q, %q, %v", texts(theirs.Global), texts(theirs.Session), texts(theirs.Trip), err)
		}
	})
}

func TestSeedDemo(t *testing.T) {
	dbtest.Backends(t, func(t *testing.T, s *models.Store) {
		seeded, err := s.SeedDemo(ctx, "demo")
		if err != nil || !seeded {
			t.Fatalf("SeedDemo = %v, %v", seeded, err)
		}
		again, err := s.SeedDemo(ctx, "demo")
		if err != nil || again {
			t.Fatalf("second SeedDemo = %v, %v; want false (already seeded)", again, err)
		}
		john, err := s.Authenticate(ctx, "john@example.com", "demo", "127.0.0.1", models.DefaultLoginPolicy)
		if err != nil {
			t.Fatal(err)
		}
		notes, _ := s.GlobalNotes(ctx, john.ID)
		if len(notes) != 5 {
			t.Errorf("John has %d global notes, want 5", len(notes))
		}
		p, _ := s.Profile(ctx, john.ID)
		if p["home_city"] != "San Francisco" || p["seat_preference"] != "aisle" {
			t.Errorf("John's profile = %v", p)
		}
		trips, _ := s.Trips(ctx, john.ID, 3)
		if len(trips) != 1 || !strings.Contains(trips[0].Route, "Paris") {
			t.Errorf("John's trips = %+v", trips)
		}
	})
}

// TestMigrationUpgrade builds a database at schema version 1, the first
// release, puts an account in it, then upgrades it to the latest schema.
func TestMigrationUpgrade(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	s, err := models.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.MigrateTo(ctx, 3); err != nil {
		t.Fatal(err)
	}
	// Rows as the old schema held them: an account with the old lockout
	// columns, and an erasure receipt whose reason an admin typed freely.
	u := &models.User{ID: models.NewID()}
	old := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := s.DB().Exec(`INSERT INTO users (id, email, name, role, password_hash, failed_logins, created_at, updated_at)
		VALUES (?, 'old@example.com', 'Old', 'traveler', 'x', 2, ?, ?)`, u.ID, old, old).Error; err != nil {
		t.Fatal(err)
	}
	if err := s.DB().Exec(`INSERT INTO erasure_requests (id, requested_by, status, reason, created_at)
		VALUES ('r1', 'admin', 'done', 'Jane Roe (jane@example.com) asked by phone', ?), ('r2', 'admin', 'done', 'legal_obligation', ?)`, old, old).Error; err != nil {
		t.Fatal(err)
	}
	s.Close()

	s, err = models.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if v, _ := s.SchemaVersion(ctx); v != 3 {
		t.Fatalf("schema version before upgrade = %d, want 3", v)
	}
	if err := s.Migrate(ctx); err != nil {
		t.Fatalf("upgrade: %v", err)
	}
	if err := s.Migrate(ctx); err != nil {
		t.Fatalf("second migrate must be a no-op: %v", err)
	}
	if v, _ := s.SchemaVersion(ctx); v != models.LatestSchemaVersion() {
		t.Errorf("schema version = %d, want %d", v, models.LatestSchemaVersion())
	}
	if _, err := s.Notes(memory.Limits{}).Add(ctx, models.NewNote{UserID: u.ID, Kind: models.KindGlobal,
		Note: memory.Note{Text: "Prefers trains.", Keywords: []string{"train"}}}, models.Actor{Kind: models.ActorSystem}, ""); err != nil {
		t.Errorf("the upgraded schema cannot hold a note for the old account: %v", err)
	}
	if hits, _ := s.ScanTables(ctx, "jane", "Jane Roe"); len(hits) != 0 {
		t.Errorf("the free-text erasure reason survived the upgrade: %v", hits)
	}
	for id, want := range map[string]string{"r1": "other", "r2": "legal_obligation"} {
		r, err := s.ErasureRequestByID(ctx, id)
		if err != nil || r.Reason != want {
			t.Errorf("erasure %s reason after upgrade = %+v, %v; want %q", id, r, err, want)
		}
	}
	if _, err := s.Authenticate(ctx, "old@example.com", "x", "127.0.0.1", models.DefaultLoginPolicy); !errors.Is(err, models.ErrBadCredentials) {
		t.Errorf("signing in to the upgraded account: %v", err)
	}
}

func TestSQLitePragmas(t *testing.T) {
	s := dbtest.SQLite(t)
	for pragma, want := range map[string]string{"journal_mode": "wal", "foreign_keys": "1", "secure_delete": "1", "busy_timeout": "10000"} {
		var got string
		if err := s.DB().Raw("PRAGMA " + pragma).Scan(&got).Error; err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("PRAGMA %s = %q, want %q", pragma, got, want)
		}
	}
}

func TestSearchUsersEscapesPatterns(t *testing.T) {
	dbtest.Backends(t, func(t *testing.T, s *models.Store) {
		if _, err := s.CreateUser(ctx, "pct@example.com", "Hundred Percent", models.RoleTraveler, "right-pass"); err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{`\`, `%`, `_`, `a\`} {
			users, err := s.SearchUsers(ctx, q, 10)
			if err != nil {
				t.Errorf("search %q: %v", q, err)
			}
			if len(users) != 0 {
				t.Errorf("search %q matched %d users; wildcards must be literal", q, len(users))
			}
		}
	})
}

func TestExportHasEverything(t *testing.T) {
	dbtest.Backends(t, func(t *testing.T, s *models.Store) {
		if _, err := s.SeedDemo(ctx, "demo"); err != nil {
			t.Fatal(err)
		}
		john, _ := s.UserByEmail(ctx, "john@example.com")
		cs, _ := s.CreateChatSession(ctx, john.ID)
		if err := s.AppendMessage(ctx, &models.Message{SessionID: cs.ID, Role: "user", Content: "hello there", Turn: 1}); err != nil {
			t.Fatal(err)
		}
		if err := s.SaveSnapshot(ctx, &models.TurnSnapshot{SessionID: cs.ID, UserID: john.ID, Turn: 1, Round: 1, Model: "m",
			Instructions: "<memories>", Messages: "[]", Response: "{}"}); err != nil {
			t.Fatal(err)
		}
		ex, err := s.ExportUserData(ctx, john.ID)
		if err != nil {
			t.Fatal(err)
		}
		if ex.User.Email != "john@example.com" || len(ex.Notes) != 5 || len(ex.NoteHistory) != 5 || len(ex.Snapshots) != 1 ||
			len(ex.Sessions) != 1 || len(ex.Sessions[0].Messages) != 1 || len(ex.Trips) != 1 || ex.Profile["home_city"] != "San Francisco" {
			t.Errorf("export: %d notes, %d versions, %d snapshots, %d sessions, %d trips", len(ex.Notes), len(ex.NoteHistory),
				len(ex.Snapshots), len(ex.Sessions), len(ex.Trips))
		}
	})
}

// TestMigrationRepairsDuplicateTurns: a database from before unique turns,
// where the old race gave two user messages one turn, upgrades: that
// session's turns are renumbered in transcript order, others are untouched.
func TestMigrationRepairsDuplicateTurns(t *testing.T) {
	dbtest.BackendsAt(t, 4, func(t *testing.T, s *models.Store) {
		now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
		exec := func(q string, args ...any) {
			t.Helper()
			if err := s.DB().Exec(q, args...).Error; err != nil {
				t.Fatal(err)
			}
		}
		exec(`INSERT INTO users (id, email, name, role, password_hash, created_at, updated_at) VALUES ('u', 'u@example.com', 'U', 'traveler', 'x', ?, ?)`, now, now)
		for _, sid := range []string{"dup", "fine"} {
			exec(`INSERT INTO chat_sessions (id, user_id, title, status, last_activity_at, created_at) VALUES (?, 'u', '', 'open', ?, ?)`, sid, now, now)
		}
		// dup: two sends raced and both took turn 1; fine: as it should be.
		rows := []struct {
			sid, role string
			seq, turn int
		}{
			{"dup", "user", 1, 1}, {"dup", "user", 2, 1}, {"dup", "assistant", 3, 1}, {"dup", "assistant", 4, 1}, {"dup", "user", 5, 2}, {"dup", "assistant", 6, 2},
			{"fine", "user", 1, 1}, {"fine", "assistant", 2, 1},
		}
		for _, r := range rows {
			exec(`INSERT INTO messages (id, session_id, user_id, seq, turn, role, content, created_at) VALUES (?, ?, 'u', ?, ?, ?, 'x', ?)`,
				fmt.Sprint(r.sid, r.seq), r.sid, r.seq, r.turn, r.role, now)
		}
		if err := s.Migrate(ctx); err != nil {
			t.Fatalf("upgrade with duplicated turns: %v", err)
		}
		for sid, want := range map[string]string{"dup": "[1 2 2 2 3 3]", "fine": "[1 1]"} {
			msgs, err := s.Messages(ctx, sid)
			if err != nil {
				t.Fatal(err)
			}
			var turns []int
			for _, m := range msgs {
				turns = append(turns, m.Turn)
			}
			if fmt.Sprint(turns) != want {
				t.Errorf("session %s turns %v, want %s", sid, turns, want)
			}
		}
	})
}

// TestLeanWritesMigration: migration 10 keeps what the dropped and narrowed
// indexes guaranteed. An idempotency key is still unique in its session
// (keyless messages are not limited), and the rebuilt full-text index
// holds the messages stored before it and those stored after.
func TestLeanWritesMigration(t *testing.T) {
	dbtest.BackendsAt(t, 9, func(t *testing.T, s *models.Store) {
		u, err := s.CreateUser(ctx, "lean@example.com", "L", models.RoleTraveler, "right-pass")
		if err != nil {
			t.Fatal(err)
		}
		cs, err := s.CreateChatSession(ctx, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		before := &models.Message{SessionID: cs.ID, Role: "user", Content: "A ryokan near Kanazawa station, please"}
		if err := s.AppendMessage(ctx, before); err != nil {
			t.Fatal(err)
		}
		if err := s.Migrate(ctx); err != nil {
			t.Fatalf("migrate 9 → %d: %v", models.LatestSchemaVersion(), err)
		}
		for _, content := range []string{"Something with an onsen", "And a quiet room"} {
			if err := s.AppendMessage(ctx, &models.Message{SessionID: cs.ID, Role: "assistant", Content: content, Turn: 1}); err != nil {
				t.Fatalf("keyless message after the migration: %v", err)
			}
		}
		key := "k1"
		if _, err := s.SubmitHolding(ctx, models.UserMessage{SessionID: cs.ID, Content: "Two nights", IdempotencyKey: key}, nil); err != nil {
			t.Fatal(err)
		}
		twin := &models.Message{ID: models.NewID(), SessionID: cs.ID, UserID: u.ID, Seq: 99, Turn: 99, Role: "user",
			Content: "Two nights", IdempotencyKey: &key, CreatedAt: time.Now()}
		if err := s.DB().Create(twin).Error; err == nil {
			t.Error("a second message with the same key in one session was stored")
		}
		for term, want := range map[string]string{"kanazawa": before.Content, "onsen": "Something with an onsen"} {
			found, err := s.SearchMessages(ctx, cs.ID, 5, []string{term}, 5)
			if err != nil || len(found) != 1 || found[0].Text != want {
				t.Errorf("search %q after the migration = %+v, %v; want the message %q", term, found, err, want)
			}
		}
	})
}

// TestSnapshotSharesStaticText: a snapshot's standing orders and policy
// are stored once for all snapshots that share them, and every reader
// (the session's snapshots, one turn's, the export, and a store that
// never wrote them) gets the instructions back byte for byte.
func TestSnapshotSharesStaticText(t *testing.T) {
	dbtest.BackendsTwice(t, func(t *testing.T, s, other *models.Store) {
		u, err := s.CreateUser(ctx, "snap@example.com", "S", models.RoleTraveler, "right-pass")
		if err != nil {
			t.Fatal(err)
		}
		cs, err := s.CreateChatSession(ctx, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		head, tail := "You are Concierge.\n\n", "<memory_policy>\nRules.\n</memory_policy>\n"
		sent := map[int]string{}
		for turn := 1; turn <= 3; turn++ {
			sent[turn] = head + fmt.Sprintf("<user_profile>turn %d, Zoë</user_profile>\n", turn) + tail
			sn := &models.TurnSnapshot{SessionID: cs.ID, UserID: u.ID, Turn: turn, Round: 1, Model: "m",
				Instructions: sent[turn], Messages: "[]", Response: "{}"}
			sn.ShareStatic(len(head), len(tail))
			if err := s.SaveSnapshot(ctx, sn); err != nil {
				t.Fatal(err)
			}
		}
		var texts, stored int64
		s.DB().Model(&models.PromptText{}).Count(&texts)
		s.DB().Model(&models.TurnSnapshot{}).Where("session_id = ? AND instructions LIKE ?", cs.ID, "%Rules.%").Count(&stored)
		if texts != 2 || stored != 0 {
			t.Errorf("%d shared texts for 3 snapshots (want 2), %d snapshots holding the policy themselves (want 0)", texts, stored)
		}
		check := func(who string, got []models.TurnSnapshot) {
			t.Helper()
			if len(got) == 0 {
				t.Errorf("%s: no snapshots", who)
			}
			for _, sn := range got {
				if sn.Instructions != sent[sn.Turn] {
					t.Errorf("%s: turn %d instructions = %q, want %q", who, sn.Turn, sn.Instructions, sent[sn.Turn])
				}
			}
		}
		all, err := s.Snapshots(ctx, cs.ID)
		if err != nil {
			t.Fatal(err)
		}
		check("Snapshots", all)
		one, err := s.TurnSnapshots(ctx, cs.ID, 2)
		if err != nil {
			t.Fatal(err)
		}
		check("TurnSnapshots", one)
		ex, err := s.ExportUserData(ctx, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		var exported []models.TurnSnapshot
		for _, sn := range ex.Snapshots {
			exported = append(exported, models.TurnSnapshot{Turn: sn.Turn, Instructions: sn.Instructions})
		}
		check("export", exported)

		// Another instance on the same database has none of them in memory.
		fresh, err := other.Snapshots(ctx, cs.ID)
		if err != nil {
			t.Fatal(err)
		}
		check("another store", fresh)
	})
}
