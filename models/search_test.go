package models_test

import (
	"fmt"
	"testing"

	"concierge/memory/longchat"
	"concierge/models"
	"concierge/models/dbtest"
)

func TestSearchMessages(t *testing.T) {
	dbtest.Backends(t, func(t *testing.T, s *models.Store) {
		alice, _ := s.CreateUser(ctx, "alice@example.com", "Alice", models.RoleTraveler, "right-pass")
		bob, _ := s.CreateUser(ctx, "bob@example.com", "Bob", models.RoleTraveler, "right-pass")
		mine, _ := s.CreateChatSession(ctx, alice.ID)
		other, _ := s.CreateChatSession(ctx, alice.ID)
		bobs, _ := s.CreateChatSession(ctx, bob.ID)
		add := func(sid, role, content string, turn int) *models.Message {
			t.Helper()
			m := &models.Message{SessionID: sid, Role: role, Content: content, Turn: turn}
			if err := s.AppendMessage(ctx, m); err != nil {
				t.Fatal(err)
			}
			return m
		}
		add(mine.ID, "user", "Hello there.", 1)
		liked := add(mine.ID, "user", "I liked the Hôtel Lutetia in Saint-Germain.", 2)
		add(mine.ID, "assistant", "The Lutetia is a classic; the Hotel Bel Ami is a cheaper option.", 2)
		add(mine.ID, "tool", `{"ok":true,"hotel":"tool results are not searched"}`, 2)
		for i := 3; i <= 10; i++ {
			add(mine.ID, "user", fmt.Sprintf("Question %d about museums.", i), i)
		}
		add(other.ID, "user", "I liked the hotel in Rome.", 1)
		add(bobs.ID, "user", "I liked the hotel Lutetia too.", 2)

		terms := longchat.SearchTerms("which hotel did I like")
		got, err := s.SearchMessages(ctx, mine.ID, 8, terms, 50)
		if err != nil {
			t.Fatal(err)
		}
		var turns []string
		for _, f := range got {
			turns = append(turns, fmt.Sprintf("%d:%s", f.Turn, f.Role))
		}
		if want := "[2:assistant 2:user]"; fmt.Sprint(turns) != want {
			t.Errorf("found %v, want %s (only this session, no tool results, newest first)", turns, want)
		}
		if len(got) == 2 && got[1].Text != liked.Content {
			t.Errorf("fragment = %q, want the verbatim message", got[1].Text)
		}
		// SQLite's tokeniser folds accents ("hôtel" finds "Hotel" too);
		// PostgreSQL's simple configuration keeps them.
		want := 2
		if s.IsPostgres() {
			want = 1
		}
		if got, _ := s.SearchMessages(ctx, mine.ID, 8, []string{"hôtel"}, 50); len(got) != want {
			t.Errorf("hôtel found %d messages, want %d", len(got), want)
		}
		// Turns still in the window are not searched.
		if got, _ := s.SearchMessages(ctx, mine.ID, 2, terms, 50); len(got) != 0 {
			t.Errorf("before turn 2 found %d, want 0", len(got))
		}
		// A deleted conversation is gone from the index.
		if err := s.DB().Exec("DELETE FROM messages WHERE session_id = ?", mine.ID).Error; err != nil {
			t.Fatal(err)
		}
		if err := s.Scrub(ctx, "messages"); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.SearchMessages(ctx, mine.ID, 8, terms, 50); len(got) != 0 {
			t.Errorf("after deleting, found %d, want 0", len(got))
		}
	})
}

func TestSummaryAndPastLengths(t *testing.T) {
	dbtest.Backends(t, func(t *testing.T, s *models.Store) {
		u, _ := s.CreateUser(ctx, "carol@example.com", "Carol", models.RoleTraveler, "right-pass")
		for _, turns := range []int{3, 7} {
			cs, _ := s.CreateChatSession(ctx, u.ID)
			for i := 1; i <= turns; i++ {
				if err := s.AppendMessage(ctx, &models.Message{SessionID: cs.ID, Role: "user", Content: "hi", Turn: i}); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := s.CloseSession(ctx, cs.ID, "test"); err != nil {
				t.Fatal(err)
			}
			if err := s.DB().Model(&models.ChatSession{}).Where("id = ?", cs.ID).Update("status", models.SessionClosed).Error; err != nil {
				t.Fatal(err)
			}
		}
		open, _ := s.CreateChatSession(ctx, u.ID)
		got, err := s.PastConversationLengths(ctx, u.ID, 10)
		if err != nil || fmt.Sprint(got) != "[7 3]" {
			t.Errorf("PastConversationLengths = %v, %v; want [7 3]", got, err)
		}
		if err := s.SaveSummary(ctx, open.ID, "- turn 1, safety: allergic to shellfish", 4, 12); err != nil {
			t.Fatal(err)
		}
		cs, _ := s.ChatSessionByID(ctx, open.ID)
		if cs.Summary == "" || cs.SummaryThrough != 4 || cs.SummaryTokens != 12 {
			t.Errorf("session = %+v", cs)
		}
	})
}
