package models_test

import (
	"testing"
	"time"

	"concierge/models"
	"concierge/models/dbtest"
)

// indexed counts the messages of the full-text index that hold word, read
// from the index itself, as the background step left it (SearchMessages
// would index what is pending first). On PostgreSQL the index is the
// messages' generated column.
func indexed(t *testing.T, s *models.Store, word string) int {
	t.Helper()
	var n int
	q := `SELECT COUNT(*) FROM message_fts WHERE message_fts MATCH ?`
	if s.IsPostgres() {
		q = `SELECT COUNT(*) FROM messages WHERE search @@ to_tsquery('simple', ?)`
	}
	if err := s.DB().Raw(q, word).Row().Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// integrity merges the index's segments (what Scrub does after every
// deletion), which reads every doclist. FTS4's own 'integrity-check'
// does not apply: it expects every row of the content table indexed, and
// tool results never are.
func integrity(t *testing.T, s *models.Store) {
	t.Helper()
	if err := s.Scrub(ctx, "messages"); err != nil {
		t.Fatalf("merge the full-text index: %v", err)
	}
}

// A stored message becomes searchable within seconds without any search
// asking for it (SQLite indexes in a background step), and a deleted or
// redacted one leaves the index at once, whether it was indexed by then
// or still waiting.
func TestSearchIndexFollowsMessages(t *testing.T) {
	dbtest.Backends(t, func(t *testing.T, s *models.Store) {
		u, _ := s.CreateUser(ctx, "ines@example.com", "Ines", models.RoleTraveler, "right-pass")
		cs, err := s.CreateChatSession(ctx, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		add := func(role, content string, turn int) *models.Message {
			t.Helper()
			m := &models.Message{SessionID: cs.ID, Role: role, Content: content, Turn: turn}
			if err := s.AppendMessage(ctx, m); err != nil {
				t.Fatal(err)
			}
			return m
		}
		within := func(word string, want int) {
			t.Helper()
			deadline := time.Now().Add(5 * time.Second)
			for indexed(t, s, word) != want {
				if time.Now().After(deadline) {
					t.Fatalf("%q is in %d indexed messages after 5s, want %d", word, indexed(t, s, word), want)
				}
				time.Sleep(50 * time.Millisecond)
			}
		}
		now := func(word string, want int) {
			t.Helper()
			if got := indexed(t, s, word); got != want {
				t.Errorf("%q is in %d indexed messages at once, want %d", word, got, want)
			}
		}

		kept := add("user", "We loved the funicular in Lisbon", 1)
		add("assistant", "The funicular climbs to the Bairro Alto", 1)
		add("tool", `{"ok":true,"note":"funicular"}`, 1)
		within("funicular", 2) // the tool result is never indexed
		integrity(t, s)

		// Indexed, then redacted and deleted: out at once.
		if err := s.DB().Model(&models.Message{}).Where("id = ?", kept.ID).Update("content", "We loved the tram").Error; err != nil {
			t.Fatal(err)
		}
		now("funicular", 1)
		now("tram", 1)
		if err := s.DB().Where("id = ?", kept.ID).Delete(&models.Message{}).Error; err != nil {
			t.Fatal(err)
		}
		now("tram", 0)
		integrity(t, s)

		// Stored and deleted or redacted before the step ran: never in
		// the index, and the index stays whole. Two at once, so at least
		// the second is still waiting for the step (it runs every second).
		gone := add("user", "Book the azulejo museum", 2)
		changed := add("assistant", "The azulejo museum opens at ten", 2)
		if err := s.DB().Where("id = ?", gone.ID).Delete(&models.Message{}).Error; err != nil {
			t.Fatal(err)
		}
		if err := s.DB().Model(&models.Message{}).Where("id = ?", changed.ID).Update("content", "The tile museum opens at ten").Error; err != nil {
			t.Fatal(err)
		}
		if _, err := s.IndexPendingMessages(ctx); err != nil {
			t.Fatal(err)
		}
		now("azulejo", 0)
		now("tile", 1)
		integrity(t, s)

		// A deleted conversation takes its words out of the index at once.
		add("user", "And the pastel de nata", 3)
		if _, err := s.IndexPendingMessages(ctx); err != nil {
			t.Fatal(err)
		}
		now("nata", 1)
		if err := s.DeleteChatSession(ctx, u.ID, cs.ID); err != nil {
			t.Fatal(err)
		}
		now("nata", 0)
		now("tile", 0)
		integrity(t, s)
	})
}
