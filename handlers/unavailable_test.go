package handlers_test

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// sendWithKey posts a message with an Idempotency-Key and returns the
// status, the Retry-After header and the decoded body.
func (e *env) sendWithKey(token, session, key, content string) (int, string, map[string]any) {
	e.t.Helper()
	req, _ := http.NewRequest("POST", e.srv.URL+"/api/v1/sessions/"+session+"/messages", strings.NewReader(`{"content":"`+content+`"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Idempotency-Key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = decodeBody(resp, &out)
	return resp.StatusCode, resp.Header.Get("Retry-After"), out
}

// TestDatabaseRefusingWrites makes SQLite's one writer connection refuse
// writes (query_only, which SQLite answers like a read-only database) and
// checks what an operator and a client see: requests that only read keep
// answering although a token's last-use write fails (logged and counted on
// /metrics), /healthz says 503, a send answers 503 unavailable with
// Retry-After and says the message was not stored, and once writes are
// taken again the health check recovers and the same key stores the
// message once.
func TestDatabaseRefusingWrites(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	john, staff := e.token("john@example.com"), e.token("admin@example.com")
	status, out := e.apiCall("POST", "/api/v1/sessions", john, "")
	if status != http.StatusCreated && status != http.StatusOK {
		t.Fatalf("create session: %d %v", status, out)
	}
	session := out["id"].(string)
	fresh := e.token("john@example.com") // never used yet: its first use writes

	if err := e.store.DB().Exec("PRAGMA query_only = 1").Error; err != nil {
		t.Fatal(err)
	}
	// The fresh token and the staff one were never used, so their first
	// requests below try to record the last use, and fail.
	if status, out := e.apiCall("GET", "/api/v1/me", fresh, ""); status != http.StatusOK {
		t.Fatalf("GET /api/v1/me with writes refused: got %d %v, want 200", status, out)
	}
	if status, out := e.apiCall("GET", "/api/v1/sessions/"+session, john, ""); status != http.StatusOK {
		t.Fatalf("GET session with writes refused: got %d %v, want 200", status, out)
	}
	if got := e.store.BookkeepingFailures(); got < 1 {
		t.Errorf("bookkeeping failures = %d, want at least 1", got)
	}
	status, metrics := e.request("GET", "/metrics", staff, "")
	if status != http.StatusOK || !strings.Contains(string(metrics), "concierge_bookkeeping_write_failures_total") {
		t.Errorf("/metrics: %d, want 200 with concierge_bookkeeping_write_failures_total", status)
	}
	for _, line := range strings.Split(string(metrics), "\n") {
		if strings.HasPrefix(line, "concierge_bookkeeping_write_failures_total ") && strings.HasSuffix(line, " 0") {
			t.Errorf("metric still zero: %s", line)
		}
	}
	if status, _ := e.apiCall("GET", "/healthz", "", ""); status != http.StatusServiceUnavailable {
		t.Errorf("/healthz with writes refused: got %d, want 503", status)
	}

	status, retry, body := e.sendWithKey(john, session, "k-1", "hello while the disk is full")
	if status != http.StatusServiceUnavailable || errorCode(body) != "unavailable" || retry == "" {
		t.Fatalf("send with writes refused: got %d %q Retry-After %q, want 503 unavailable with Retry-After", status, errorCode(body), retry)
	}
	if stored, ok := body["error"].(map[string]any)["stored"].(bool); !ok || stored {
		t.Errorf("send with writes refused: error.stored = %v (present %v), want false", stored, ok)
	}

	if err := e.store.DB().Exec("PRAGMA query_only = 0").Error; err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		status, _ := e.apiCall("GET", "/healthz", "", "")
		if status == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/healthz still %d 10 s after writes were taken again", status)
		}
		time.Sleep(100 * time.Millisecond)
	}
	for i := range 2 {
		if status, _, body := e.sendWithKey(john, session, "k-1", "hello while the disk is full"); status != http.StatusOK {
			t.Fatalf("send %d after recovery: got %d %v, want 200", i, status, body)
		}
	}
	_, sess := e.apiCall("GET", "/api/v1/sessions/"+session, john, "")
	msgs, _ := sess["messages"].([]any)
	users := 0
	for _, m := range msgs {
		if m.(map[string]any)["role"] == "user" {
			users++
		}
	}
	if users != 1 {
		t.Errorf("user messages stored = %d, want exactly 1", users)
	}
}
