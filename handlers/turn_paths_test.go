package handlers_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	"concierge/models"
)

// TestAPIAndPageSendStoreTheSame sends the same message once through the
// JSON API and once through the chat page, each into a new conversation of
// the same traveler, and compares what each left in the database: the
// transcript (roles, turns, texts, tool results without their note ids),
// the notes the assistant saved, the snapshots of the model rounds and the
// audit events. Both go through one runner entry (Runner.Submit), so the
// records must be the same.
func TestAPIAndPageSendStoreTheSame(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const text = "I always prefer aisle seats on long flights."

	token := e.token("priya@example.com")
	viaAPI := e.openSession(token)
	e.say(token, viaAPI, text)

	tr := e.signIn("priya@example.com")
	viaPage := tr.newChat()
	tr.send(viaPage, text)
	// The page's answer is the runner's work: wait until it is stored.
	deadline := time.Now().Add(10 * time.Second)
	for !answered(t, e.store, viaPage) {
		if time.Now().After(deadline) {
			t.Fatal("the page's message was not answered within 10 s")
		}
		time.Sleep(20 * time.Millisecond)
	}

	api, page := records(t, e.store, viaAPI), records(t, e.store, viaPage)
	if len(api.Notes) == 0 {
		t.Fatalf("the message saved no note through the API; the comparison would prove little: %+v", api)
	}
	for _, part := range []struct {
		name      string
		api, page any
	}{
		{"transcript", api.Messages, page.Messages},
		{"notes", api.Notes, page.Notes},
		{"snapshots", api.Snapshots, page.Snapshots},
		{"audit events", api.Audit, page.Audit},
	} {
		if !reflect.DeepEqual(part.api, part.page) {
			t.Errorf("%s differ:\n API:  %v\n page: %v", part.name, part.api, part.page)
		}
	}
}

// answered reports whether the session's last message is a final answer.
func answered(t *testing.T, s *models.Store, sessionID string) bool {
	t.Helper()
	msgs, err := s.Messages(t.Context(), sessionID)
	if err != nil {
		t.Fatal(err)
	}
	last := len(msgs) - 1
	return last >= 0 && msgs[last].Role == "assistant" && msgs[last].ToolCalls == ""
}

// stored is what a conversation left behind, without ids and times.
type stored struct {
	Messages  []string
	Notes     []string
	Snapshots []string
	Audit     []string
}

func records(t *testing.T, s *models.Store, sessionID string) stored {
	t.Helper()
	var out stored
	msgs, err := s.Messages(t.Context(), sessionID)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs {
		content := m.Content
		if m.Role == "tool" {
			var r map[string]any
			if json.Unmarshal([]byte(content), &r) == nil {
				delete(r, "id") // the saved note's id
				b, _ := json.Marshal(r)
				content = string(b)
			}
		}
		var calls []struct{ Name, Arguments string }
		_ = json.Unmarshal([]byte(m.ToolCalls), &calls)
		out.Messages = append(out.Messages, fmt.Sprintf("%d %s %q %v", m.Turn, m.Role, content, calls))
	}
	notes, err := s.NotesFromSession(t.Context(), sessionID)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range notes {
		out.Notes = append(out.Notes, fmt.Sprintf("%s %s %q %s %s %s %s", n.Kind, n.Status, n.Text, n.Keywords, n.Scope, n.Source, n.LastUpdateDate))
	}
	var snaps []models.TurnSnapshot
	if err := s.DB().Where("session_id = ?", sessionID).Order("turn, round").Find(&snaps).Error; err != nil {
		t.Fatal(err)
	}
	for _, sn := range snaps {
		// Prompt tokens are left out: a round after a tool call carries the
		// saved note's random id, which tokenizes to a varying count.
		out.Snapshots = append(out.Snapshots, fmt.Sprintf("turn %d round %d %s %d completion tokens %q", sn.Turn, sn.Round, sn.Model, sn.CompletionTokens, sn.Instructions))
	}
	var events []models.AuditEvent
	if err := s.DB().Where("session_id = ?", sessionID).Order("created_at, id").Find(&events).Error; err != nil {
		t.Fatal(err)
	}
	for _, ev := range events {
		out.Audit = append(out.Audit, ev.ActorKind+" "+ev.Action+" "+ev.Reason)
	}
	return out
}
