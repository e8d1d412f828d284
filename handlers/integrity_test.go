package handlers_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"concierge/models"
	"concierge/models/dbtest"
)

// backends runs fn with a server on SQLite, and on PostgreSQL when set up.
func backends(t *testing.T, fn func(t *testing.T, e *env)) {
	t.Helper()
	dbtest.Backends(t, func(t *testing.T, s *models.Store) { fn(t, newEnvWith(t, envOptions{store: s})) })
}

// TestBadBytesAreRefusedAtTheEdge sends NUL bytes and invalid UTF-8 in every
// kind of input, before and after sign-in: each gets a clear 400 on both
// databases (PostgreSQL used to answer 500, SQLite stored them).
func TestBadBytesAreRefusedAtTheEdge(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, e *env) {
		john := e.token("john@example.com")
		staff := e.token("support@example.com")
		sid := e.openSession(john)
		cases := []struct {
			name, method, path, token, body string
		}{
			{"message with NUL", "POST", "/api/v1/sessions/" + sid + "/messages", john, `{"content":"hello\u0000there"}`},
			{"message with invalid UTF-8", "POST", "/api/v1/sessions/" + sid + "/messages", john, "{\"content\":\"caf\xe9\"}"},
			{"login e-mail with NUL", "POST", "/api/v1/auth/token", "", `{"email":"john@example.com\u0000","password":"demo"}`},
			{"NUL in a key", "POST", "/api/v1/auth/token", "", `{"email\u0000":"x","password":"demo"}`},
			{"path id with NUL", "GET", "/api/v1/sessions/ab%00cd", john, ""},
			{"path id with invalid UTF-8", "GET", "/api/v1/sessions/ab%ffcd", john, ""},
			{"query with NUL", "GET", "/api/v1/me?x=%00", john, ""},
			{"query with invalid UTF-8, before sign-in", "GET", "/login?next=%ff", "", ""},
			{"staff note with NUL", "POST", "/api/v1/users/" + johnID(t, e) + "/notes", staff, `{"text":"Likes tea\u0000","keywords":["tea"],"reason":"call"}`},
			{"reason with invalid UTF-8", "POST", "/api/v1/users/" + johnID(t, e) + "/notes", staff, "{\"text\":\"Likes tea\",\"keywords\":[\"tea\"],\"reason\":\"\xff\xfe\"}"},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				status, body := e.request(tc.method, tc.path, tc.token, tc.body)
				if status != http.StatusBadRequest || !strings.Contains(string(body), "bad_encoding") && !strings.Contains(string(body), "not text") {
					t.Errorf("%s %s = %d %s, want 400 bad_encoding", tc.method, tc.path, status, body)
				}
			})
		}
		// Nothing was stored.
		msgs, err := e.store.Messages(t.Context(), sid)
		if err != nil || len(msgs) != 0 {
			t.Errorf("%d messages stored (err %v), want none", len(msgs), err)
		}
	})
}

// TestBadBytesInForms covers the browser's forms: the login form before
// sign-in, and a chat message.
func TestBadBytesInForms(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, e *env) {
		b := e.browser()
		_, _, token := b.get("/login")
		resp := b.post("/login", url.Values{"email": {"john@example.com\x00"}, "password": {"demo"}, "_csrf": {token}})
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("login form with NUL = %d, want 400", resp.StatusCode)
		}
		tr := e.signIn("john@example.com")
		id := tr.newChat()
		resp, body := tr.hx("POST", "/chat/"+id+"/messages", url.Values{"content": {"caf\xe9 au lait"}})
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "not text") {
			t.Errorf("chat message with invalid UTF-8 = %d %s, want 400", resp.StatusCode, body)
		}
	})
}

// TestComposerIdempotencyKey: the chat page renders a fresh key with each
// composer, and the same key sent twice (a resend after a lost answer)
// stores the message once.
func TestComposerIdempotencyKey(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tr := e.signIn("john@example.com")
	id := tr.newChat()
	keyInput := regexp.MustCompile(`name="idempotency_key" value="([^"]+)"`)
	_, page1, _ := tr.get("/chat/" + id)
	_, page2, _ := tr.get("/chat/" + id)
	k1, k2 := keyInput.FindStringSubmatch(page1), keyInput.FindStringSubmatch(page2)
	if k1 == nil || k2 == nil || k1[1] == k2[1] {
		t.Fatalf("composer keys %v / %v, want a fresh key on each render", k1, k2)
	}
	for range 2 {
		resp, body := tr.hx("POST", "/chat/"+id+"/messages", url.Values{"content": {"Find me a hotel in Porto"}, "idempotency_key": {k1[1]}})
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("send = %d %s", resp.StatusCode, body)
		}
	}
	// The server answers the message at once (the answer is its work), so
	// count the user's messages.
	msgs, _ := e.store.Messages(t.Context(), id)
	users := 0
	for _, m := range msgs {
		if m.Role == "user" {
			users++
		}
	}
	if users != 1 {
		t.Errorf("%d messages stored after sending one key twice, want 1", users)
	}
}

func johnID(t *testing.T, e *env) string {
	t.Helper()
	u, err := e.store.UserByEmail(t.Context(), "john@example.com")
	if err != nil {
		t.Fatal(err)
	}
	return u.ID
}

// TestLongSearchIsRefused: a 60,000-character search made SQLite fail with
// "LIKE pattern too complex"; searches are capped.
func TestLongSearchIsRefused(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, e *env) {
		staff := e.token("support@example.com")
		status, out := e.apiCall("GET", "/api/v1/users?q="+strings.Repeat("a", 60000), staff, "")
		if status != http.StatusBadRequest {
			t.Errorf("60,000-character search = %d %v, want 400", status, out)
		}
		status, out = e.apiCall("GET", "/api/v1/users?q="+strings.Repeat("a", models.MaxSearchChars+1), staff, "")
		if status != http.StatusBadRequest || errorCode(out) != "invalid" {
			t.Errorf("search one over the cap = %d %v, want 400 invalid", status, out)
		}
		if status, out := e.apiCall("GET", "/api/v1/users?q=john", staff, ""); status != http.StatusOK {
			t.Errorf("normal search = %d %v", status, out)
		}
	})
}

// send posts a message with an Idempotency-Key.
func (e *env) send(token, session, content, key string) (int, map[string]any) {
	e.t.Helper()
	req, _ := http.NewRequest("POST", e.srv.URL+"/api/v1/sessions/"+session+"/messages", strings.NewReader(fmt.Sprintf(`{"content":%q}`, content)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = decodeBody(resp, &out)
	return resp.StatusCode, out
}

// TestIdempotencyKey: the same key stores once and returns the same answer;
// reused for other text it is refused; a malformed key is refused.
func TestIdempotencyKey(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, e *env) {
		john := e.token("john@example.com")
		sid := e.openSession(john)
		st1, first := e.send(john, sid, "Find me a hotel in Porto", "key-1")
		st2, again := e.send(john, sid, "Find me a hotel in Porto", "key-1")
		if st1 != 200 || st2 != 200 || first["reply"] != again["reply"] || first["turn"] != again["turn"] {
			t.Fatalf("same key twice: %d %v / %d %v, want the same answer", st1, first, st2, again)
		}
		// Without a key the same text is a new message once the first was answered.
		if st, out := e.send(john, sid, "Find me a hotel in Porto", "key-2"); st != 200 || out["turn"].(float64) != 2 {
			t.Errorf("a new key = %d %v, want turn 2", st, out)
		}
		if st, out := e.send(john, sid, "Something else", "key-1"); st != http.StatusUnprocessableEntity || errorCode(out) != "idempotency_key_reused" {
			t.Errorf("key reused for other text = %d %v, want 422 idempotency_key_reused", st, out)
		}
		if st, out := e.send(john, sid, "Hi", "bad key with spaces"); st != http.StatusBadRequest {
			t.Errorf("malformed key = %d %v, want 400", st, out)
		}
		msgs, _ := e.store.Messages(t.Context(), sid)
		users := 0
		for _, m := range msgs {
			if m.Role == "user" {
				users++
			}
		}
		if users != 2 {
			t.Errorf("%d user messages stored, want 2", users)
		}
	})
}

func decodeBody(resp *http.Response, v any) error {
	return json.NewDecoder(resp.Body).Decode(v)
}
