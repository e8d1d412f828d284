package handlers_test

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"concierge/agent/openai"
	"concierge/agent/openai/fakeopenai"
	"concierge/memory"
	"concierge/models"
	"concierge/models/dbtest"
)

// steerModel is a model behind the fake OpenAI server that talks to the
// memory the way a real one would: "Remember: …" saves, "Forget: w1 w2"
// forgets the notes whose text holds each word (named by the handles the
// memories and the save results carry), "yes" confirms, and the recap
// lists the memories it was sent. eager makes it confirm a pinned note in
// the same turn, which the server must refuse.
type steerModel struct {
	mu      sync.Mutex
	eager   bool
	system  []string // instructions of every chat request
	results []string // tool results it was given
}

var reHandleLine = regexp.MustCompile(`- \[(n[0-9a-z]{4})\] ([^\n]*)`)

func (m *steerModel) handle(r fakeopenai.ChatRequest) fakeopenai.Response {
	m.mu.Lock()
	defer m.mu.Unlock()
	system := r.Messages[0].Content
	m.system = append(m.system, system)
	last := r.Messages[len(r.Messages)-1]
	if last.Role == "tool" {
		m.results = append(m.results, last.Content)
		var res struct{ Error, Handle string }
		_ = json.Unmarshal([]byte(last.Content), &res)
		if res.Error == "needs_confirmation" {
			if m.eager {
				m.eager = false
				return forgetCall(res.Handle, true)
			}
			return fakeopenai.Response{Content: "That is a safety note. Please confirm."}
		}
		return fakeopenai.Response{Content: "Done."}
	}
	user := last.Content
	switch {
	case strings.HasPrefix(user, "Remember: "):
		args, _ := json.Marshal(map[string]any{"text": strings.TrimPrefix(user, "Remember: "), "keywords": []string{"travel"}, "scope": "durable", "expires_on": nil})
		return fakeopenai.Response{ToolCalls: []fakeopenai.ToolCall{{Function: fakeopenai.FunctionCall{Name: "save_memory_note", Arguments: string(args)}}}}
	case strings.HasPrefix(user, "Forget: "):
		handles := m.handles(r)
		var calls []fakeopenai.ToolCall
		for _, w := range strings.Fields(strings.TrimPrefix(user, "Forget: ")) {
			if w == "yes" {
				continue
			}
			for text, h := range handles {
				if strings.Contains(strings.ToLower(text), w) {
					calls = append(calls, forgetCall(h, strings.Contains(user, "yes")).ToolCalls...)
				}
			}
		}
		return fakeopenai.Response{ToolCalls: calls}
	case user == "What do you know about me?":
		var lines []string
		for _, l := range reHandleLine.FindAllStringSubmatch(system, -1) {
			lines = append(lines, l[2])
		}
		return fakeopenai.Response{Content: "I know: " + strings.Join(lines, " ")}
	}
	return fakeopenai.Response{Content: "Noted."}
}

// handles maps each note text the model can see to its handle: the
// memories' lines and this conversation's save results.
func (m *steerModel) handles(r fakeopenai.ChatRequest) map[string]string {
	out := map[string]string{}
	for _, l := range reHandleLine.FindAllStringSubmatch(r.Messages[0].Content, -1) {
		out[l[2]] = l[1]
	}
	args := map[string]string{}
	for _, msg := range r.Messages {
		for _, tc := range msg.ToolCalls {
			args[tc.ID] = tc.Function.Arguments
		}
		var res struct{ Handle string }
		if msg.Role == "tool" && json.Unmarshal([]byte(msg.Content), &res) == nil && res.Handle != "" {
			out[args[msg.ToolCallID]] = res.Handle
		}
	}
	return out
}

func forgetCall(handle string, confirm bool) fakeopenai.Response {
	args, _ := json.Marshal(map[string]any{"handle": handle, "confirm": confirm})
	return fakeopenai.Response{ToolCalls: []fakeopenai.ToolCall{{Function: fakeopenai.FunctionCall{Name: memory.ForgetToolName, Arguments: string(args)}}}}
}

// TestForgetThroughTheAPI: with the real openai-go client against the fake
// server, "forget" removes a session note and a global note in one turn,
// the recap no longer has them, restore brings one back, and a pinned
// allergy is forgotten only on a confirmation in a later turn.
func TestForgetThroughTheAPI(t *testing.T) {
	t.Parallel()
	dbtest.Backends(t, func(t *testing.T, s *models.Store) {
		fake := fakeopenai.New(t)
		model := &steerModel{eager: true}
		fake.Handler(model.handle)
		e := newEnvWith(t, envOptions{store: s, provider: openai.New(openai.Config{BaseURL: fake.URL(), APIKey: "k", Model: "m", MaxRetries: openai.NoRetries})})
		john := e.token("john@example.com")
		id := e.openSession(john)

		out := e.say(john, id, "Remember: Travels with a guitar.")
		if saved := notesOf(out["memory"].(map[string]any)["saved"]); !hasNote(saved, "guitar") {
			t.Fatalf("saved = %v", saved)
		}
		out = e.say(john, id, "Forget: guitar floors")
		forgotten := notesOf(out["memory"].(map[string]any)["forgotten"])
		if len(forgotten) != 2 || !hasNote(forgotten, "guitar") || !hasNote(forgotten, "high floors") {
			t.Fatalf("forgotten = %v, want the guitar and the high-floor notes", forgotten)
		}
		for _, res := range model.results {
			if strings.Contains(res, `"id"`) {
				t.Errorf("the model was shown a database id: %s", res)
			}
		}
		out = e.say(john, id, "What do you know about me?")
		if reply := out["reply"].(string); strings.Contains(reply, "guitar") || strings.Contains(reply, "high floors") || !strings.Contains(reply, "aisle") {
			t.Errorf("recap = %q; want it without the forgotten notes", reply)
		}
		_, mem := e.apiCall("GET", "/api/v1/users/me/memory", john, "")
		if b, _ := json.Marshal(mem); strings.Contains(string(b), "high floors") {
			t.Errorf("GET memory still lists the forgotten note")
		}
		var floor string
		for _, n := range forgotten {
			if strings.Contains(n["text"].(string), "high floors") {
				floor = n["id"].(string)
			}
		}
		if status, body := e.apiCall("POST", "/api/v1/sessions/"+id+"/notes/"+floor+"/restore", john, ""); status != http.StatusOK {
			t.Fatalf("restore = %d %v", status, body)
		}
		_, mem = e.apiCall("GET", "/api/v1/users/me/memory", john, "")
		if b, _ := json.Marshal(mem); !strings.Contains(string(b), "high floors") {
			t.Errorf("after restore GET memory lacks the note: %s", b)
		}

		uid := e.userID("john@example.com")
		pin, err := s.Notes(memory.Limits{}).Add(context.Background(), models.NewNote{UserID: uid, Kind: models.KindGlobal,
			Note: memory.Note{Text: "Is allergic to peanuts.", Keywords: []string{"allergy"}, Pinned: true, Source: memory.SourceStaff}},
			models.Actor{Kind: models.ActorSystem}, "test")
		if err != nil {
			t.Fatal(err)
		}
		out = e.say(john, id, "Forget: peanuts")
		if f := notesOf(out["memory"].(map[string]any)["forgotten"]); len(f) != 0 {
			t.Fatalf("the allergy went without a confirmation (one in the same turn was tried): %v", f)
		}
		if n, err := s.NoteByID(context.Background(), uid, pin.ID); err != nil || n.Status != models.StatusActive {
			t.Fatalf("pinned note after the request: %+v, %v", n, err)
		}
		out = e.say(john, id, "Forget: yes peanuts")
		if f := notesOf(out["memory"].(map[string]any)["forgotten"]); len(f) != 1 || !hasNote(f, "peanuts") {
			t.Fatalf("after confirming in a later turn forgotten = %v", f)
		}
	})
}

// TestExpiryThroughTheAPI: the traveler and staff set, change and clear a
// note's end date; a date in the past or too far ahead is 422 saying what
// is allowed.
func TestExpiryThroughTheAPI(t *testing.T) {
	t.Parallel()
	dbtest.Backends(t, func(t *testing.T, s *models.Store) {
		e := newEnvWith(t, envOptions{store: s})
		john, support := e.token("john@example.com"), e.token("support@example.com")
		uid := e.userID("john@example.com")
		status, n := e.apiCall("POST", "/api/v1/users/me/notes", john, `{"text":"Uses crutches and needs step-free access.","expires_on":"2099-01-01"}`)
		if status != http.StatusUnprocessableEntity || errorCode(n) != memory.EBADEXPIRY {
			t.Fatalf("far date: %d %v", status, n)
		}
		if msg := n["error"].(map[string]any)["message"].(string); !strings.Contains(msg, "two years") {
			t.Errorf("message %q does not say what is allowed", msg)
		}
		status, n = e.apiCall("POST", "/api/v1/users/me/notes", john, `{"text":"Uses crutches and needs step-free access."}`)
		if status != http.StatusCreated {
			t.Fatalf("create: %d %v", status, n)
		}
		note := n["id"].(string)
		for _, tc := range []struct {
			name, token, path, body string
			want                    int
			expires                 string
		}{
			{"traveler sets", john, "/api/v1/users/me/notes/" + note, `{"expires_on":"` + inDays(60) + `"}`, http.StatusOK, inDays(60)},
			{"traveler past date", john, "/api/v1/users/me/notes/" + note, `{"expires_on":"2020-01-01"}`, http.StatusUnprocessableEntity, ""},
			{"traveler not a date", john, "/api/v1/users/me/notes/" + note, `{"expires_on":"end of March"}`, http.StatusUnprocessableEntity, ""},
			{"staff changes", support, "/api/v1/users/" + uid + "/notes/" + note, `{"expires_on":"` + inDays(90) + `","reason":"ticket 42"}`, http.StatusOK, inDays(90)},
			{"traveler clears", john, "/api/v1/users/me/notes/" + note, `{"expires_on":""}`, http.StatusOK, ""},
		} {
			status, out := e.apiCall("PATCH", tc.path, tc.token, tc.body)
			if status != tc.want {
				t.Errorf("%s: status %d %v, want %d", tc.name, status, out, tc.want)
				continue
			}
			if status == http.StatusOK {
				if got, _ := out["expires_on"].(string); got != tc.expires {
					t.Errorf("%s: expires_on = %q, want %q", tc.name, got, tc.expires)
				}
			}
		}
	})
}

// inDays is the date n days from now (the server's clock in these tests).
func inDays(n int) string { return time.Now().UTC().AddDate(0, 0, n).Format(memory.DateLayout) }
