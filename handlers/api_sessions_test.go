package handlers_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// chat opens a session as the token's owner and returns its id.
func (e *env) openSession(token string) string {
	e.t.Helper()
	status, out := e.apiCall("POST", "/api/v1/sessions", token, "")
	if status != http.StatusCreated {
		e.t.Fatalf("POST /sessions = %d %v", status, out)
	}
	return out["id"].(string)
}

func (e *env) say(token, session, content string) map[string]any {
	e.t.Helper()
	status, out := e.apiCall("POST", "/api/v1/sessions/"+session+"/messages", token, fmt.Sprintf(`{"content":%q}`, content))
	if status != http.StatusOK {
		e.t.Fatalf("say %q: %d %v", content, status, out)
	}
	return out
}

func notesOf(v any) []map[string]any {
	list, _ := v.([]any)
	out := make([]map[string]any, 0, len(list))
	for _, x := range list {
		out = append(out, x.(map[string]any))
	}
	return out
}

func hasNote(notes []map[string]any, word string) bool {
	for _, n := range notes {
		if strings.Contains(strings.ToLower(n["text"].(string)), word) {
			return true
		}
	}
	return false
}

// TestReferenceStoryThroughAPI is the cookbook's story end to end with the
// offline model: a durable and a trip-only preference, the close, and a new
// session that remembers.
func TestReferenceStoryThroughAPI(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	john := e.token("john@example.com")
	s1 := e.openSession(john)

	out := e.say(john, s1, "Remember that I am vegetarian")
	saved := notesOf(out["memory"].(map[string]any)["saved"])
	if len(saved) != 1 || !hasNote(saved, "vegetarian") || saved[0]["scope"] != "durable" {
		t.Fatalf("turn 1 saved %v, want one durable vegetarian note", saved)
	}
	if out["reply"] == "" {
		t.Error("turn 1 has no reply")
	}
	out = e.say(john, s1, "This time, I like to have a window seat. I really want to sleep")
	saved = notesOf(out["memory"].(map[string]any)["saved"])
	if len(saved) != 1 || !hasNote(saved, "window") || saved[0]["scope"] != "this_trip" {
		t.Fatalf("turn 2 saved %v, want one this_trip window note", saved)
	}

	status, closed := e.apiCall("POST", "/api/v1/sessions/"+s1+"/close", john, "")
	if status != http.StatusOK || closed["status"] != "closed" {
		t.Fatalf("close = %d %v, want 200 closed", status, closed)
	}
	report := closed["consolidation"].(map[string]any)
	actions := map[string]string{}
	for _, d := range notesOf(report["decisions"]) {
		actions[strings.ToLower(d["note"].(map[string]any)["text"].(string))] = d["action"].(string)
	}
	for word, want := range map[string]string{"vegetarian": "promoted", "window": "dropped_trip"} {
		found := false
		for text, action := range actions {
			if strings.Contains(text, word) {
				found = true
				if action != want {
					t.Errorf("decision for the %s note = %s, want %s", word, action, want)
				}
			}
		}
		if !found {
			t.Errorf("no decision for the %s note in %v", word, actions)
		}
	}

	status, mem := e.apiCall("GET", "/api/v1/users/me/memory", john, "")
	if status != http.StatusOK {
		t.Fatalf("memory = %d", status)
	}
	global := notesOf(mem["global_notes"])
	if !hasNote(global, "vegetarian") || !hasNote(global, "aisle") || hasNote(global, "window") {
		t.Errorf("global notes after close: %v; want vegetarian and aisle, no window", global)
	}
	if len(global) != 6 {
		t.Errorf("%d global notes, want John's five plus vegetarian", len(global))
	}

	s2 := e.openSession(john)
	out = e.say(john, s2, "Do you know my preferences?")
	reply := strings.ToLower(out["reply"].(string))
	if !strings.Contains(reply, "aisle") || !strings.Contains(reply, "vegetarian") {
		t.Errorf("new session's answer %q must mention aisle and vegetarian", reply)
	}
	if strings.Contains(reply, "window") {
		t.Errorf("the trip-only window seat leaked into a new session: %q", reply)
	}

	status, sess := e.apiCall("GET", "/api/v1/sessions/"+s1, john, "")
	if status != http.StatusOK || sess["status"] != "closed" || len(notesOf(sess["messages"])) != 4 {
		t.Errorf("GET closed session = %d %v; want closed with 4 messages", status, sess)
	}
	if n := e.worker.Waiting(); n != 0 {
		t.Errorf("%d close waiters left registered", n)
	}
	if status, out := e.apiCall("POST", "/api/v1/sessions/"+s1+"/messages", john, `{"content":"hello again"}`); status != http.StatusConflict {
		t.Errorf("message to a closed session = %d %v, want 409", status, out)
	}
}

func TestSessionAccessRules(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	john, priya := e.token("john@example.com"), e.token("priya@example.com")
	support, admin := e.token("support@example.com"), e.token("admin@example.com")
	s := e.openSession(john)
	e.say(john, s, "I prefer boutique hotels")
	status, closing := e.apiCall("POST", "/api/v1/sessions/"+e.openSession(john)+"/close", john, "")
	if status != http.StatusOK {
		t.Fatalf("close = %d", status)
	}
	job := closing["job"].(string)
	tests := []struct {
		name, method, path, token, body string
		want                            int
	}{
		{"owner reads session", "GET", "/api/v1/sessions/" + s, john, "", 200},
		{"other traveler cannot read", "GET", "/api/v1/sessions/" + s, priya, "", 404},
		{"other traveler cannot post", "POST", "/api/v1/sessions/" + s + "/messages", priya, `{"content":"hi"}`, 404},
		{"other traveler cannot close", "POST", "/api/v1/sessions/" + s + "/close", priya, "", 404},
		{"support reads session", "GET", "/api/v1/sessions/" + s, support, "", 200},
		{"support cannot chat", "POST", "/api/v1/sessions/" + s + "/messages", support, `{"content":"hi"}`, 403},
		{"staff cannot open sessions", "POST", "/api/v1/sessions", admin, "", 403},
		{"traveler cannot see turns", "GET", "/api/v1/sessions/" + s + "/turns", john, "", 403},
		{"support sees turns", "GET", "/api/v1/sessions/" + s + "/turns", support, "", 200},
		{"anonymous", "GET", "/api/v1/sessions/" + s, "", "", 401},
		{"unknown session", "GET", "/api/v1/sessions/" + strings.Repeat("a", 26), john, "", 404},
		{"owner reads job", "GET", "/api/v1/consolidations/" + job, john, "", 200},
		{"other traveler cannot read job", "GET", "/api/v1/consolidations/" + job, priya, "", 404},
		{"admin reads job", "GET", "/api/v1/consolidations/" + job, admin, "", 200},
		{"own memory", "GET", "/api/v1/users/me/memory", priya, "", 200},
		{"other traveler's memory", "GET", "/api/v1/users/" + mustUser(t, e, "john@example.com").ID + "/memory", priya, "", 404},
		{"support reads memory", "GET", "/api/v1/users/" + mustUser(t, e, "john@example.com").ID + "/memory", support, "", 200},
		{"empty message", "POST", "/api/v1/sessions/" + s + "/messages", john, `{"content":"   "}`, 422},
		{"huge message", "POST", "/api/v1/sessions/" + s + "/messages", john, `{"content":"` + strings.Repeat("x", 4001) + `"}`, 413},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if status, out := e.apiCall(tt.method, tt.path, tt.token, tt.body); status != tt.want {
				t.Errorf("%s %s = %d %v, want %d", tt.method, tt.path, status, out, tt.want)
			}
		})
	}
}

// TestTurnsShowWhatTheModelSaw checks the snapshot holds the instructions
// with the memory blocks and the messages exactly as sent.
func TestTurnsShowWhatTheModelSaw(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	john, support := e.token("john@example.com"), e.token("support@example.com")
	s := e.openSession(john)
	e.say(john, s, "I'm allergic to peanuts")
	_, out := e.apiCall("GET", "/api/v1/sessions/"+s+"/turns", support, "")
	turns := notesOf(out["turns"])
	if len(turns) != 2 {
		t.Fatalf("%d snapshots, want 2 (tool round and answer)", len(turns))
	}
	req := turns[0]["request"].(map[string]any)
	instr := req["instructions"].(string)
	for _, want := range []string{"<user_profile>", "<memories>", "Prefers aisle seats.", "<memory_policy>"} {
		if !strings.Contains(instr, want) {
			t.Errorf("instructions lack %q", want)
		}
	}
	for _, private := range []string{"CUST-10042", "UA-558-221-904"} {
		if strings.Contains(instr, private) {
			t.Errorf("instructions carry the private identifier %s", private)
		}
	}
	inj, _ := req["injected"].(map[string]any)
	tokens, _ := inj["tokens"].(map[string]any)
	if notes := notesOf(inj["notes"]); len(notes) == 0 || notes[0]["section"] != "GLOBAL" || tokens["policy"] == nil || inj["session_block"] != false {
		t.Errorf("the turn does not say what was injected: %v", inj)
	}
	msgs := notesOf(req["messages"])
	if len(msgs) != 1 || msgs[0]["content"] != "I'm allergic to peanuts" {
		t.Errorf("round 1 messages = %v", msgs)
	}
	second := notesOf(turns[1]["request"].(map[string]any)["messages"])
	if len(second) != 3 || second[2]["role"] != "tool" {
		t.Errorf("round 2 must carry the tool call and its result: %v", second)
	}
}

func TestStaffEditsOnlyActiveGlobalNotes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	john, support := e.token("john@example.com"), e.token("support@example.com")
	s := e.openSession(john)
	out := e.say(john, s, "Remember that I am vegetarian")
	saved := notesOf(out["memory"].(map[string]any)["saved"])
	if len(saved) != 1 {
		t.Fatalf("saved %v", saved)
	}
	johnID := mustUser(t, e, "john@example.com").ID
	path := "/api/v1/users/" + johnID + "/notes/" + saved[0]["id"].(string)
	if status, out := e.apiCall("PATCH", path, support, `{"text":"Is vegan.","reason":"typo"}`); status != http.StatusConflict {
		t.Errorf("editing a session note = %d %v, want 409", status, out)
	}
	if status, _ := e.request("DELETE", path, support, `{"reason":"asked"}`); status != http.StatusNoContent {
		t.Errorf("deleting it = %d, want 204", status)
	}
}
