package handlers_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"concierge/handlers"
	"concierge/models"
)

func TestHealthz(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	status, out := e.apiCall("GET", "/healthz", "", "")
	if status != http.StatusOK || out["status"] != "ok" {
		t.Fatalf("GET /healthz = %d %v, want 200 ok", status, out)
	}
	e.store.Close() // a closed database must make the check fail
	if status, out := e.apiCall("GET", "/healthz", "", ""); status != http.StatusServiceUnavailable || errorCode(out) != "unavailable" {
		t.Errorf("with the database closed: %d %v, want 503 unavailable", status, out)
	}
}

func TestLogin(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tests := []struct {
		name, email, password string
		wantStatus            int
		wantLocation          string
	}{
		{"traveler lands on the chat", "john@example.com", "demo", http.StatusSeeOther, "/chat"},
		{"support lands on the console", "support@example.com", "demo", http.StatusSeeOther, "/console"},
		{"email is case-insensitive", "ADMIN@example.com", "demo", http.StatusSeeOther, "/console"},
		// A refusal posts and redirects back to the form (no resubmission
		// on reload); TestLoginRefusalRedirects reads the page.
		{"wrong password", "john@example.com", "nope", http.StatusSeeOther, "/login"},
		{"unknown account", "ghost@example.com", "demo", http.StatusSeeOther, "/login"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := e.browser().login(tt.email, tt.password)
			if resp.StatusCode != tt.wantStatus {
				t.Fatalf("status %d, want %d", resp.StatusCode, tt.wantStatus)
			}
			if got := resp.Header.Get("Location"); got != tt.wantLocation {
				t.Errorf("Location %q, want %q", got, tt.wantLocation)
			}
		})
	}

	t.Run("session cookie flags", func(t *testing.T) {
		resp := e.browser().login("john@example.com", "demo")
		var found bool
		for _, c := range resp.Cookies() {
			if c.Name == "concierge_session" {
				found = true
				if !c.HttpOnly || c.SameSite != http.SameSiteLaxMode {
					t.Errorf("session cookie HttpOnly=%v SameSite=%v, want HttpOnly and Lax", c.HttpOnly, c.SameSite)
				}
			}
		}
		if !found {
			t.Fatal("no session cookie set")
		}
	})

	t.Run("logout ends the session", func(t *testing.T) {
		b := e.browser()
		b.login("john@example.com", "demo")
		_, _, token := b.get("/chat")
		if resp := b.post("/logout", url.Values{"_csrf": {token}}); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("logout status %d", resp.StatusCode)
		}
		if status, _, _ := b.get("/chat"); status != http.StatusSeeOther {
			t.Errorf("after logout /chat = %d, want a redirect to login", status)
		}
	})

	t.Run("next stays on this site", func(t *testing.T) {
		for _, next := range []string{"//evil.example/x", "/\tevil", "/\t/evil.example", "/\\evil.example", "https://evil.example", "javascript:alert(1)", "/ok\n//evil"} {
			b := e.browser()
			_, _, token := b.get("/login")
			resp := b.post("/login", url.Values{"email": {"john@example.com"}, "password": {"demo"}, "_csrf": {token}, "next": {next}})
			if got := resp.Header.Get("Location"); got != "/chat" {
				t.Errorf("next=%q: Location %q, want /chat", next, got)
			}
		}
		b := e.browser()
		_, _, token := b.get("/login")
		resp := b.post("/login", url.Values{"email": {"john@example.com"}, "password": {"demo"}, "_csrf": {token}, "next": {"/memory?x=1"}})
		if got := resp.Header.Get("Location"); got != "/memory?x=1" {
			t.Errorf("a local next was not kept: %q", got)
		}
	})
}

// TestLoginRefusalRedirects: a refused sign-in answers 303 to the form,
// which shows the error at the password field with the email kept and the
// password empty, once; the next destination survives the round trip.
func TestLoginRefusalRedirects(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	b := e.browser()
	_, _, token := b.get("/login?next=/memory")
	resp := b.post("/login", url.Values{"email": {"john@example.com"}, "password": {"nope"}, "_csrf": {token}, "next": {"/memory"}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/login?next=%2Fmemory" {
		t.Fatalf("refused sign-in: %d to %q, want 303 to /login?next=%%2Fmemory", resp.StatusCode, resp.Header.Get("Location"))
	}
	status, body, _ := b.get(resp.Header.Get("Location"))
	if status != http.StatusOK {
		t.Fatalf("the form after the redirect: %d", status)
	}
	doc := parseHTML(t, body)
	if got := doc.Find(`#password-error[data-testid="login-error"]`).Text(); !strings.Contains(got, "do not match") {
		t.Errorf("error at the password field = %q", got)
	}
	if got := doc.Find(`#password`).AttrOr("aria-describedby", ""); got != "password-error" {
		t.Errorf("password aria-describedby = %q, want password-error", got)
	}
	if got := doc.Find(`#email`).AttrOr("value", ""); got != "john@example.com" {
		t.Errorf("email kept = %q", got)
	}
	if _, ok := doc.Find(`#password`).Attr("value"); ok {
		t.Error("the password came back in the page")
	}
	if got := doc.Find(`[data-testid="announce"]`).AttrOr("data-focus", ""); got != "#password" {
		t.Errorf("focus after the redirect = %q, want #password", got)
	}
	if got := doc.Find(`input[name="next"]`).AttrOr("value", ""); got != "/memory" {
		t.Errorf("next = %q, want /memory", got)
	}
	// A reload shows the plain form: the error was said once.
	if _, body, _ := b.get("/login?next=/memory"); strings.Contains(body, "do not match") {
		t.Error("the error is shown again on reload")
	}
}

func TestLoginLockout(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *handlers.Config) {
		c.LoginPolicy = models.LoginPolicy{FreeAttempts: 3, BaseLock: time.Minute, MaxLock: time.Hour}
	})
	b := e.browser()
	for i := 0; i < 3; i++ {
		if resp := b.login("priya@example.com", "wrong"); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/login" {
			t.Fatalf("attempt %d: status %d to %q, want 303 back to /login", i+1, resp.StatusCode, resp.Header.Get("Location"))
		}
		if _, body, _ := b.get("/login"); !strings.Contains(body, "do not match") {
			t.Fatalf("attempt %d: the page after the redirect does not say the password was wrong", i+1)
		}
	}
	resp := b.login("priya@example.com", "demo")
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/login" {
		t.Fatalf("right password while locked: status %d to %q, want 303 back to /login", resp.StatusCode, resp.Header.Get("Location"))
	}
	if _, body, _ := b.get("/login"); !strings.Contains(body, "Too many failed sign-ins") || strings.Contains(body, `data-testid="viewer"`) {
		t.Fatal("while locked, the sign-in page does not say so (or signed in)")
	}
	status, out := e.apiCall("POST", "/api/v1/auth/token", "", `{"email":"priya@example.com","password":"demo"}`)
	if status != http.StatusTooManyRequests || errorCode(out) != "locked" {
		t.Errorf("API while locked: %d %v, want 429 locked", status, out)
	}
	// Another account is unaffected.
	if resp := b.login("john@example.com", "demo"); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("another account: status %d, want 303", resp.StatusCode)
	}
}

func TestLoginRateLimitPerIP(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *handlers.Config) { c.LoginRatePerMinute, c.LoginBurst = 1, 3 })
	var last int
	for i := 0; i < 5; i++ {
		last, _ = e.apiCall("POST", "/api/v1/auth/token", "", `{"email":"ghost@example.com","password":"x"}`)
	}
	if last != http.StatusTooManyRequests {
		t.Errorf("fifth attempt from one address: %d, want 429", last)
	}
	// A forged X-Forwarded-For must not buy a fresh allowance.
	req, _ := http.NewRequest("POST", e.srv.URL+"/api/v1/auth/token", strings.NewReader(`{"email":"ghost@example.com","password":"x"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Forwarded-For", "203.0.113.9")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests {
		t.Errorf("with a forged X-Forwarded-For: %d, want 429", resp.StatusCode)
	}
}

func TestCSRF(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tests := []struct {
		name  string
		token func(real string) string
	}{
		{"missing token", func(string) string { return "" }},
		{"wrong token", func(string) string { return "forged-token-value-000000000000" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := e.browser()
			_, _, real := b.get("/login")
			form := url.Values{"email": {"john@example.com"}, "password": {"demo"}}
			if tok := tt.token(real); tok != "" {
				form.Set("_csrf", tok)
			}
			resp := b.post("/login", form)
			if resp.StatusCode != http.StatusForbidden {
				t.Errorf("status %d, want 403", resp.StatusCode)
			}
		})
	}
	t.Run("cross-site fetch", func(t *testing.T) {
		b := e.browser()
		_, _, real := b.get("/login")
		req, _ := http.NewRequest("POST", e.srv.URL+"/login", strings.NewReader(url.Values{"email": {"john@example.com"}, "password": {"demo"}, "_csrf": {"x" + real}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Sec-Fetch-Site", "cross-site")
		resp, err := b.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("status %d, want 403", resp.StatusCode)
		}
	})
}

func TestRoles(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	sessions := map[string]*browser{"anonymous": e.browser()}
	for _, who := range []string{"john", "support", "admin"} {
		b := e.browser()
		b.login(who+"@example.com", "demo")
		sessions[who] = b
	}
	tests := []struct {
		who, path  string
		wantStatus int
	}{
		{"anonymous", "/chat", http.StatusSeeOther},
		{"anonymous", "/console", http.StatusSeeOther},
		{"john", "/chat", http.StatusOK},
		{"john", "/memory", http.StatusOK},
		{"john", "/console", http.StatusForbidden},
		{"john", "/console/erasure", http.StatusForbidden},
		{"support", "/console", http.StatusOK},
		{"support", "/chat", http.StatusForbidden},
		{"support", "/console/erasure", http.StatusForbidden},
		{"support", "/console/accounts", http.StatusForbidden},
		{"admin", "/console/erasure", http.StatusOK},
		{"admin", "/console/accounts", http.StatusOK},
		{"john", "/no/such/page", http.StatusNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.who+" "+tt.path, func(t *testing.T) {
			status, body, _ := sessions[tt.who].get(tt.path)
			if status != tt.wantStatus {
				t.Errorf("status %d, want %d", status, tt.wantStatus)
			}
			if status == http.StatusForbidden && !strings.Contains(body, `data-testid="error-page"`) {
				t.Errorf("403 without the friendly error page")
			}
		})
	}
}

func TestAPIAuth(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	john := e.token("john@example.com")
	expired, _, err := e.store.CreateAPIToken(context.Background(), mustUser(t, e, "john@example.com").ID, -time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, method, path, token, body string
		wantStatus                      int
		wantCode                        string
	}{
		{"token: wrong password", "POST", "/api/v1/auth/token", "", `{"email":"john@example.com","password":"x"}`, 401, "bad_credentials"},
		{"token: missing fields", "POST", "/api/v1/auth/token", "", `{"email":"john@example.com"}`, 422, "invalid"},
		{"token: not JSON", "POST", "/api/v1/auth/token", "", `{"email":`, 400, "bad_json"},
		{"token: unknown field", "POST", "/api/v1/auth/token", "", `{"email":"a@b.c","password":"x","admin":true}`, 400, "bad_json"},
		{"me: no token", "GET", "/api/v1/me", "", "", 401, "unauthorized"},
		{"me: garbage token", "GET", "/api/v1/me", "cnc_nope", "", 401, "unauthorized"},
		{"me: expired token", "GET", "/api/v1/me", expired, "", 401, "unauthorized"},
		{"me: valid token", "GET", "/api/v1/me", john, "", 200, ""},
		{"unknown endpoint", "GET", "/api/v1/nothing", john, "", 404, "not_found"},
		{"too large", "POST", "/api/v1/auth/token", "", `{"email":"` + strings.Repeat("a", 2<<20) + `"}`, 413, "too_large"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, out := e.apiCall(tt.method, tt.path, tt.token, tt.body)
			if status != tt.wantStatus {
				t.Errorf("status %d, want %d (%v)", status, tt.wantStatus, out)
			}
			if code := errorCode(out); code != tt.wantCode {
				t.Errorf("error code %q, want %q", code, tt.wantCode)
			}
		})
	}
}

func mustUser(t *testing.T, e *env, email string) *models.User {
	t.Helper()
	u, err := e.store.UserByEmail(context.Background(), email)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestSecurityHeadersAndAssets(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	b := e.browser()
	_, body, _ := b.get("/login")
	resp, err := http.Get(e.srv.URL + "/login")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	for h, want := range map[string]string{"X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff"} {
		if got := resp.Header.Get(h); got != want {
			t.Errorf("%s = %q, want %q", h, got, want)
		}
	}
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline") {
		t.Errorf("CSP %q must allow only same-origin scripts", csp)
	}
	if resp.Header.Get("X-Request-Id") == "" {
		t.Error("no request id header")
	}
	if strings.Contains(body, "<script>") {
		t.Error("the page has an inline script")
	}
	i := strings.Index(body, "/static/")
	if i < 0 {
		t.Fatal("no static asset on the login page")
	}
	asset := body[i : i+strings.IndexByte(body[i:], '"')]
	resp, err = http.Get(e.srv.URL + asset)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(resp.Header.Get("Cache-Control"), "immutable") {
		t.Errorf("GET %s = %d, Cache-Control %q; want 200 and immutable", asset, resp.StatusCode, resp.Header.Get("Cache-Control"))
	}
}

// TestSignedOutByOthersSaysWhy: a browser signed out by an erasure, a
// disabled account or a password reset lands on the sign-in page with a
// word of what happened, once; a browser that signed itself out sees the
// plain form.
func TestSignedOutByOthersSaysWhy(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.token("admin@example.com")
	tests := []struct {
		name, email string
		act         func(id string)
		want        string
	}{
		{"erased", "priya@example.com", func(id string) {
			if status, out := e.apiCall("POST", "/api/v1/users/"+id+"/erase", admin, `{"reason":"data_subject_request","ticket":"DSR-7"}`); status != http.StatusOK {
				t.Fatalf("erase: %d %v", status, out)
			}
		}, "Your account has been erased"},
		{"disabled", "john@example.com", func(id string) {
			if status, out := e.apiCall("PATCH", "/api/v1/users/"+id, admin, `{"disabled":true,"reason":"left the company"}`); status != http.StatusOK {
				t.Fatalf("disable: %d %v", status, out)
			}
		}, "Your account has been disabled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := e.userID(tt.email)
			b := e.browser()
			if resp := b.login(tt.email, "demo"); resp.StatusCode != http.StatusSeeOther {
				t.Fatalf("sign in: %d", resp.StatusCode)
			}
			tt.act(id)
			status, _, _ := b.get("/memory")
			if status != http.StatusSeeOther {
				t.Fatalf("/memory after %s: %d, want a redirect to sign-in", tt.name, status)
			}
			_, body, _ := b.get("/login?next=/memory")
			doc := parseHTML(t, body)
			if got := doc.Find(`[data-testid="login-notice"]`).Text(); !strings.Contains(got, tt.want) {
				t.Errorf("notice = %q, want %q", got, tt.want)
			}
			if got := doc.Find(`[data-testid="announce"]`).AttrOr("data-focus", ""); got != "#login-notice" {
				t.Errorf("focus = %q, want #login-notice", got)
			}
			if _, body, _ := b.get("/login"); strings.Contains(body, `data-testid="login-notice"`) {
				t.Error("the notice shows again on reload")
			}
		})
	}
	t.Run("own sign-out", func(t *testing.T) {
		b := e.browser()
		b.login("support@example.com", "demo")
		_, _, token := b.get("/console")
		b.post("/logout", url.Values{"_csrf": {token}})
		if _, body, _ := b.get("/login"); strings.Contains(body, `data-testid="login-notice"`) {
			t.Error("a browser that signed itself out is told someone else did")
		}
	})
}

// TestHealthzClientGone: a health check whose client hung up fails for
// that, not for the database, and is not logged as an outage; with the
// database closed it is.
func TestHealthzClientGone(t *testing.T) {
	t.Parallel()
	logs := &lockedBuffer{}
	e := newEnvWith(t, envOptions{logTo: logs})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req := httptest.NewRequestWithContext(ctx, http.MethodGet, "/healthz", nil)
	rec := httptest.NewRecorder()
	e.server.ServeHTTP(rec, req)
	if rec.Code == http.StatusOK {
		t.Fatalf("a health check with its client gone answered %d", rec.Code)
	}
	if strings.Contains(logs.String(), `"level":"ERROR"`) {
		t.Errorf("a client that hung up was logged as an outage: %s", logs.String())
	}
	e.store.Close()
	e.server.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/healthz", nil))
	if !strings.Contains(logs.String(), `"level":"ERROR"`) {
		t.Errorf("a closed database was not logged as an outage")
	}
}
