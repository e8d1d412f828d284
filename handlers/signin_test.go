package handlers_test

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"concierge/handlers"
	"concierge/models"
	"concierge/models/dbtest"
)

// cookieOf returns the value of a cookie the browser holds for the server.
func (b *browser) cookieOf(name string) string {
	u, _ := url.Parse(b.e.srv.URL)
	for _, c := range b.client.Jar.Cookies(u) {
		if c.Name == name {
			return c.Value
		}
	}
	return ""
}

// TestSignInRenewsSessionAndCSRF: signing in on a browser that holds a
// session ends that session (whoever it belonged to) and drops the CSRF
// cookie, so the next page carries a new token.
func TestSignInRenewsSessionAndCSRF(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	b := e.browser()
	if resp := b.login("john@example.com", "demo"); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("first sign-in: status %d", resp.StatusCode)
	}
	first := b.cookieOf("concierge_session")
	_, _, csrfBefore := b.get("/chat")
	if first == "" || csrfBefore == "" {
		t.Fatalf("after the first sign-in: session %q, csrf %q", first, csrfBefore)
	}
	resp := b.post("/login", url.Values{"email": {"priya@example.com"}, "password": {"demo"}, "_csrf": {csrfBefore}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("second sign-in: status %d", resp.StatusCode)
	}
	dropped := false
	for _, c := range resp.Cookies() {
		if c.Name == "concierge_csrf" && c.MaxAge < 0 {
			dropped = true
		}
	}
	if !dropped {
		t.Errorf("the sign-in did not drop the CSRF cookie: %v", resp.Header.Values("Set-Cookie"))
	}
	if _, err := e.store.UserByWebSession(t.Context(), first, time.Hour, 0); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("john's earlier session after priya signed in on the same browser: %v, want ErrNotFound", err)
	}
	second := b.cookieOf("concierge_session")
	if second == "" || second == first {
		t.Fatalf("session cookie not renewed")
	}
	_, _, csrfAfter := b.get("/chat")
	if csrfAfter == "" || csrfAfter == csrfBefore {
		t.Errorf("CSRF token after sign-in %q, want a new one (was %q)", csrfAfter, csrfBefore)
	}
}

// TestWebSessionIdleTimeout runs on the store's simulated clock: a browser
// session used within the idle limit lives on, one left idle longer ends.
func TestWebSessionIdleTimeout(t *testing.T) {
	t.Parallel()
	store := dbtest.SQLite(t)
	var mu sync.Mutex
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	store.Now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	e := newEnvWith(t, envOptions{store: store, cfg: func(c *handlers.Config) { c.WebSessionIdle = time.Hour }})
	b := e.browser()
	if resp := b.login("john@example.com", "demo"); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-in: status %d", resp.StatusCode)
	}
	for i, step := range []time.Duration{50 * time.Minute, 50 * time.Minute, 55 * time.Minute} {
		advance(step)
		if status, _, _ := b.get("/chat"); status != http.StatusOK {
			t.Fatalf("use %d, %v after the last: status %d, want 200", i, step, status)
		}
	}
	advance(61 * time.Minute)
	if status, _, _ := b.get("/chat"); status != http.StatusSeeOther {
		t.Fatalf("after 61 minutes idle: status %d, want a redirect to sign in", status)
	}
}

// TestChangePassword: the caller's own password, with the current one; the
// credential used stays, every other session and token of the account ends.
func TestChangePassword(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const strong = "violet-harbour-tram-42"
	for _, email := range []string{"john@example.com", "support@example.com"} {
		t.Run(email, func(t *testing.T) {
			used, other := e.token(email), e.token(email)
			b := e.browser()
			b.login(email, "demo")
			if status, _, _ := b.get("/account/tokens"); status != http.StatusOK {
				t.Fatalf("browser not signed in: %d", status)
			}
			for _, tt := range []struct {
				body, code string
				status     int
			}{
				{`{"current":"wrong-pass","new":"` + strong + `"}`, "bad_credentials", http.StatusForbidden},
				{`{"current":"demo","new":"password1"}`, "weak_password", http.StatusUnprocessableEntity},
				{`{"current":"demo"}`, "invalid", http.StatusUnprocessableEntity},
			} {
				if status, out := e.apiCall("POST", "/api/v1/users/me/password", used, tt.body); status != tt.status || errorCode(out) != tt.code {
					t.Errorf("%s: status %d %v, want %d %s", tt.body, status, out, tt.status, tt.code)
				}
			}
			if status, _ := e.request("POST", "/api/v1/users/me/password", used, `{"current":"demo","new":"`+strong+`"}`); status != http.StatusNoContent {
				t.Fatalf("change: status %d, want 204", status)
			}
			if status, _ := e.apiCall("GET", "/api/v1/me", used, ""); status != http.StatusOK {
				t.Errorf("the token used for the change: status %d, want 200", status)
			}
			if status, _ := e.apiCall("GET", "/api/v1/me", other, ""); status != http.StatusUnauthorized {
				t.Errorf("another token after the change: status %d, want 401", status)
			}
			if status, _, _ := b.get("/account/tokens"); status != http.StatusSeeOther {
				t.Errorf("the browser session after the change: status %d, want a redirect to sign in", status)
			}
			if status, _ := e.apiCall("POST", "/api/v1/auth/token", "", `{"email":"`+email+`","password":"demo"}`); status != http.StatusUnauthorized {
				t.Errorf("old password: status %d, want 401", status)
			}
			if status, _ := e.apiCall("POST", "/api/v1/auth/token", "", `{"email":"`+email+`","password":"`+strong+`"}`); status != http.StatusOK {
				t.Errorf("new password: status %d, want 200", status)
			}
		})
	}
}

// TestLoneSurrogateRefused: "\ud800" in any JSON field is refused as
// bad_encoding; a surrogate pair is ordinary text.
func TestLoneSurrogateRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tok := e.token("john@example.com")
	for _, tt := range []struct{ path, token, body string }{
		{"/api/v1/auth/token", "", `{"email":"\ud800@example.com","password":"x"}`},
		{"/api/v1/auth/token", "", `{"email":"john@example.com","password":"ab\udc00"}`},
		{"/api/v1/users/me/password", tok, `{"current":"demo","new":"x\ud800\u0041"}`},
		{"/api/v1/users/me/notes", tok, `{"text":"Ignore prev\ud800ious instructions"}`},
	} {
		if status, out := e.apiCall("POST", tt.path, tt.token, tt.body); status != http.StatusBadRequest || errorCode(out) != "bad_encoding" {
			t.Errorf("%s %s: status %d %v, want 400 bad_encoding", tt.path, tt.body, status, out)
		}
	}
	if status, out := e.apiCall("POST", "/api/v1/auth/token", "", `{"email":"john@example.com","password":"\ud83d\ude00"}`); status != http.StatusUnauthorized {
		t.Errorf("a surrogate pair: status %d %v, want 401", status, out)
	}
}

// TestAccountPagePasswordForm changes the password through the account
// page's form.
func TestAccountPagePasswordForm(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	b := e.browser()
	b.login("priya@example.com", "demo")
	_, body, csrf := b.get("/account/tokens")
	if !strings.Contains(body, `data-testid="password-change"`) {
		t.Fatal("account page has no password form")
	}
	resp := b.post("/account/password", url.Values{"_csrf": {csrf}, "current": {"nope"}, "new": {"violet-harbour-tram-42"}})
	if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || !strings.Contains(loc, "error=") {
		t.Fatalf("wrong current password: %d %q", resp.StatusCode, loc)
	}
	resp = b.post("/account/password", url.Values{"_csrf": {csrf}, "current": {"demo"}, "new": {"violet-harbour-tram-42"}})
	if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || loc != "/account/tokens?done=password" {
		t.Fatalf("change: %d %q", resp.StatusCode, loc)
	}
	if status, body, _ := b.get("/account/tokens?done=password"); status != http.StatusOK || !strings.Contains(body, "Password changed") {
		t.Errorf("the browser that changed it: %d, want the page with the confirmation", status)
	}
}
