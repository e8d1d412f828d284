package handlers_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"concierge/memory"
	"concierge/models"
	"concierge/models/dbtest"
)

// TestDeletedNoteLeavesEveryCopy: a note the assistant saved, that went to
// long-term memory and into later prompts, is deleted — by the traveler or
// by support — and then its text is in no prompt snapshot, no tool-call
// record and no export; only what the traveler typed stays in the
// transcript. On SQLite and on PostgreSQL.
func TestDeletedNoteLeavesEveryCopy(t *testing.T) {
	t.Parallel()
	backends := map[string]func(testing.TB) *models.Store{"sqlite": dbtest.SQLite, "postgres": func(tb testing.TB) *models.Store { return dbtest.Postgres(tb) }}
	for _, backend := range []string{"sqlite", "postgres"} {
		for _, deleter := range []string{"owner", "support"} {
			t.Run(backend+"/"+deleter, func(t *testing.T) {
				e := newEnvWith(t, envOptions{store: backends[backend](t)})
				testDeletedNoteLeavesEveryCopy(t, e, deleter)
			})
		}
	}
}

func testDeletedNoteLeavesEveryCopy(t *testing.T, e *env, deleter string) {
	ctx := context.Background()
	john := e.token("john@example.com")
	say := func(session, text string) map[string]any {
		t.Helper()
		status, out := e.apiCall("POST", "/api/v1/sessions/"+session+"/messages", john, `{"content":"`+text+`"}`)
		if status != http.StatusOK {
			t.Fatalf("say %q: %d %v", text, status, out)
		}
		return out
	}
	newSession := func() string {
		t.Helper()
		status, out := e.apiCall("POST", "/api/v1/sessions", john, "")
		if status != http.StatusCreated {
			t.Fatalf("new session: %d %v", status, out)
		}
		return out["id"].(string)
	}
	typed := "Remember that I am vegetarian."
	first := newSession()
	out := say(first, typed)
	saved, _ := out["memory"].(map[string]any)["saved"].([]any)
	if len(saved) != 1 {
		t.Fatalf("the assistant saved %v, want one note", out["memory"])
	}
	note := saved[0].(map[string]any)
	noteID, text := note["id"].(string), note["text"].(string)
	if strings.Contains(typed, text) {
		t.Fatalf("the note %q repeats the typed message word for word; the test needs them apart", text)
	}
	say(first, "What do you know about me?")
	if status, out := e.apiCall("POST", "/api/v1/sessions/"+first+"/close", john, ""); status != http.StatusOK {
		t.Fatalf("close: %d %v", status, out)
	}
	second := newSession()
	say(second, "What do you know about me?")

	u, err := e.store.UserByEmail(ctx, "john@example.com")
	if err != nil {
		t.Fatal(err)
	}
	needles := []string{text, memory.Neutralize(text)}
	// Before: the text is in the prompts and the tool-call records, or the
	// test would prove nothing.
	if hits, _ := e.store.ScanTables(ctx, needles...); hits["turn_snapshots"] == 0 || hits["messages"] == 0 {
		t.Fatalf("before the deletion the note is not where the test looks: %v", hits)
	}
	if n := chatCopies(t, e.store, u.ID, text); n == 0 {
		t.Fatalf("no assistant or tool message mentions %q before the deletion", text)
	}

	switch deleter {
	case "owner":
		if status, out := e.apiCall("DELETE", "/api/v1/users/me/notes/"+noteID, john, ""); status != http.StatusNoContent {
			t.Fatalf("delete as the owner: %d %v", status, out)
		}
	case "support":
		if status, out := e.apiCall("DELETE", "/api/v1/users/"+u.ID+"/notes/"+noteID, e.token("support@example.com"), `{"reason":"the traveler asked by phone"}`); status != http.StatusNoContent {
			t.Fatalf("delete as support: %d %v", status, out)
		}
	}

	hits, err := e.store.ScanTables(ctx, needles...)
	if err != nil {
		t.Fatal(err)
	}
	if hits["turn_snapshots"] != 0 {
		t.Errorf("%d prompt snapshots still hold the deleted note's text", hits["turn_snapshots"])
	}
	if n := chatCopies(t, e.store, u.ID, text); n != 0 {
		t.Errorf("%d assistant or tool messages still hold the deleted note's text", n)
	}
	for table, n := range hits {
		if table != "messages" {
			t.Errorf("%s: %d rows still hold the deleted note's text", table, n)
		}
	}
	if red, _ := e.store.ScanTables(ctx, models.DeletedText); red["turn_snapshots"] == 0 {
		t.Errorf("no snapshot says %q where the note was", models.DeletedText)
	}
	// What the traveler typed stays.
	if typedHits, _ := e.store.ScanTables(ctx, typed); typedHits["messages"] == 0 {
		t.Error("the traveler's own message left the transcript")
	}

	status, body := e.request("GET", "/api/v1/users/me/export", john, "")
	if status != http.StatusOK {
		t.Fatalf("export: %d %s", status, body)
	}
	var exp map[string]any
	if err := json.Unmarshal(body, &exp); err != nil {
		t.Fatal(err)
	}
	// The transcript's traveler messages are theirs to keep; everything else
	// in the export must be free of the note.
	for _, s := range exp["sessions"].([]any) {
		msgs := s.(map[string]any)["messages"].([]any)
		kept := msgs[:0]
		for _, m := range msgs {
			if m.(map[string]any)["role"] != "user" {
				kept = append(kept, m)
			}
		}
		s.(map[string]any)["messages"] = kept
	}
	rest, _ := json.Marshal(exp)
	for _, n := range needles {
		if c := strings.Count(string(rest), n); c != 0 {
			t.Errorf("the export holds the deleted note's text %d times", c)
		}
	}
	if !strings.Contains(string(body), typed) {
		t.Error("the export lost what the traveler typed")
	}
}

// chatCopies counts the assistant and tool messages of a user that mention s.
func chatCopies(t *testing.T, s *models.Store, userID, text string) int64 {
	t.Helper()
	var n int64
	like := "%" + text + "%"
	if err := s.DB().Model(&models.Message{}).Where("user_id = ? AND role <> 'user' AND (content LIKE ? OR tool_calls LIKE ?)", userID, like, like).
		Count(&n).Error; err != nil {
		t.Fatal(err)
	}
	return n
}
