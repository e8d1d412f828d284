package handlers_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"concierge/handlers"
	"concierge/models"
	"concierge/views"
)

// TestSignInAnswersAlikeForUnknownEmails: an unknown email and an existing
// one get the same statuses and bodies, locks included, and a lock on one
// address leaves the owner's own address free.
func TestSignInAnswersAlikeForUnknownEmails(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *handlers.Config) {
		c.TrustProxy = true
		c.LoginPolicy = models.LoginPolicy{FreeAttempts: 3, BaseLock: time.Minute, MaxLock: time.Hour, DelayAfter: 100, Window: time.Hour}
	})
	digits := regexp.MustCompile(`[0-9]+`)
	try := func(email, password, from string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest("POST", e.srv.URL+"/api/v1/auth/token", strings.NewReader(`{"email":"`+email+`","password":"`+password+`"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Forwarded-For", from)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b strings.Builder
		buf := make([]byte, 4096)
		for {
			n, err := resp.Body.Read(buf)
			b.Write(buf[:n])
			if err != nil {
				break
			}
		}
		// The wait is said in seconds; the rest of the answer is the same.
		return resp.StatusCode, digits.ReplaceAllString(b.String(), "N")
	}
	type answer struct {
		status int
		body   string
	}
	answers := map[string][]answer{}
	for _, email := range []string{"priya@example.com", "nobody@example.com"} {
		for i := 0; i < 3; i++ {
			s, b := try(email, "wrong-guess", "203.0.113.5")
			answers[email] = append(answers[email], answer{s, b})
		}
		s, b := try(email, "demo", "203.0.113.5") // the right password of priya, while locked
		answers[email] = append(answers[email], answer{s, b})
	}
	known, unknown := answers["priya@example.com"], answers["nobody@example.com"]
	for i := range known {
		if known[i] != unknown[i] {
			t.Errorf("attempt %d: existing email %+v, unknown email %+v: they must not differ", i+1, known[i], unknown[i])
		}
	}
	if known[0].status != http.StatusUnauthorized || known[3].status != http.StatusTooManyRequests || !strings.Contains(known[3].body, `"locked"`) {
		t.Errorf("answers %+v, want 401 three times, then 429 locked", known)
	}
	if s, b := try("priya@example.com", "demo", "198.51.100.20"); s != http.StatusOK {
		t.Errorf("the owner from her own address: %d %s, want 200 (nobody else can lock her out)", s, b)
	}
}

func TestLogoutCookieIsSecure(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *handlers.Config) { c.SecureCookies = true })
	b := e.browser()
	b.login("john@example.com", "demo")
	_, _, token := b.get("/memory")
	resp := b.post("/logout", url.Values{"_csrf": {token}})
	var found bool
	for _, ck := range resp.Cookies() {
		if ck.Name == "concierge_session" {
			found = true
			if !ck.Secure || ck.MaxAge >= 0 {
				t.Errorf("logout cookie %+v: want Secure and expired", ck)
			}
		}
	}
	if !found {
		t.Error("logout sets no session cookie")
	}
}

func TestAccountsAPI(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.token("admin@example.com")
	var newID string
	steps := []struct {
		name, who, method, path, body string
		want                          int
		contains, notContains         string
	}{
		{"weak password", "admin", "POST", "/api/v1/users", `{"email":"kim@example.com","name":"Kim","role":"support","password":"password"}`, 422, "weak_password", ""},
		{"eight spaces", "admin", "POST", "/api/v1/users", `{"email":"kim@example.com","name":"Kim","role":"support","password":"        "}`, 422, "only spaces", ""},
		{"73 bytes", "admin", "POST", "/api/v1/users", `{"email":"kim@example.com","name":"Kim","role":"support","password":"` + strings.Repeat("kx7Qm", 14) + `abc"}`, 422, "at most 72 bytes", "bcrypt"},
		{"bad role", "admin", "POST", "/api/v1/users", `{"email":"kim@example.com","name":"Kim","role":"owner","password":"lantern orbit velvet cactus"}`, 422, "bad_role", ""},
		{"bad email", "admin", "POST", "/api/v1/users", `{"email":"kim","name":"Kim","role":"support","password":"lantern orbit velvet cactus"}`, 422, "invalid_email", ""},
		{"taken email", "admin", "POST", "/api/v1/users", `{"email":"john@example.com","name":"Kim","role":"support","password":"lantern orbit velvet cactus"}`, 409, "email_taken", ""},
		{"support may not", "support", "POST", "/api/v1/users", `{"email":"kim@example.com","name":"Kim","role":"support","password":"lantern orbit velvet cactus"}`, 403, "", ""},
		{"create", "admin", "POST", "/api/v1/users", `{"email":"kim@example.com","name":"Kim","role":"support","password":"lantern orbit velvet cactus"}`, 201, `"disabled":false`, "password"},
		{"new account signs in", "", "POST", "/api/v1/auth/token", `{"email":"kim@example.com","password":"lantern orbit velvet cactus"}`, 200, `"role":"support"`, ""},
		{"nothing to change", "admin", "PATCH", "/api/v1/users/{new}", `{}`, 422, "nothing_to_change", ""},
		{"bad role change", "admin", "PATCH", "/api/v1/users/{new}", `{"role":"boss"}`, 422, "bad_role", ""},
		{"own account", "admin", "PATCH", "/api/v1/users/me", `{"disabled":true}`, 409, "own_account", ""},
		{"disable", "admin", "PATCH", "/api/v1/users/{new}", `{"disabled":true,"reason":"left the team"}`, 200, `"disabled":true`, ""},
		{"disabled token is dead", "kim", "GET", "/api/v1/me", "", 401, "", ""},
		{"disabled cannot sign in", "", "POST", "/api/v1/auth/token", `{"email":"kim@example.com","password":"lantern orbit velvet cactus"}`, 401, "bad_credentials", ""},
		{"enable and promote", "admin", "PATCH", "/api/v1/users/{new}", `{"disabled":false,"role":"admin"}`, 200, `"role":"admin"`, ""},
		{"enabled signs in", "", "POST", "/api/v1/auth/token", `{"email":"kim@example.com","password":"lantern orbit velvet cactus"}`, 200, `"role":"admin"`, ""},
	}
	tokens := map[string]string{"admin": admin, "support": e.token("support@example.com")}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			path := strings.ReplaceAll(st.path, "{new}", newID)
			status, body := e.request(st.method, path, tokens[st.who], st.body)
			if status != st.want {
				t.Fatalf("%s %s: %d, want %d: %s", st.method, path, status, st.want, body)
			}
			if st.contains != "" && !strings.Contains(string(body), st.contains) {
				t.Errorf("body lacks %q: %s", st.contains, body)
			}
			if st.notContains != "" && strings.Contains(string(body), st.notContains) {
				t.Errorf("body has %q: %s", st.notContains, body)
			}
			var out map[string]any
			_ = json.Unmarshal(body, &out)
			if st.name == "create" {
				newID, _ = out["id"].(string)
			}
			if tok, ok := out["token"].(string); ok {
				tokens["kim"] = tok
			}
		})
	}
}

func TestTokensAPI(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	used, unused := e.token("john@example.com"), e.token("john@example.com")
	if status, _ := e.request("GET", "/api/v1/me", used, ""); status != http.StatusOK {
		t.Fatal(status)
	}
	status, out := e.apiCall("GET", "/api/v1/tokens", used, "")
	if status != http.StatusOK {
		t.Fatalf("list: %d %v", status, out)
	}
	list, _ := out["tokens"].([]any)
	if len(list) != 2 {
		t.Fatalf("tokens %v, want 2", list)
	}
	var usedSeen, unusedID string
	for _, x := range list {
		tok := x.(map[string]any)
		if tok["last_used_at"] != nil {
			usedSeen = tok["id"].(string)
		} else {
			unusedID = tok["id"].(string)
		}
	}
	if usedSeen == "" || unusedID == "" {
		t.Fatalf("last use not told apart: %v", list)
	}
	if strings.Contains(mustJSON(out), used) || strings.Contains(mustJSON(out), unused) {
		t.Error("the list shows a token's secret")
	}
	if status, body := e.request("DELETE", "/api/v1/tokens/"+unusedID, used, ""); status != http.StatusNoContent {
		t.Fatalf("revoke: %d %s", status, body)
	}
	if status, _ := e.request("GET", "/api/v1/me", unused, ""); status != http.StatusUnauthorized {
		t.Errorf("a revoked token still works: %d", status)
	}
	if status, _ := e.request("DELETE", "/api/v1/tokens/"+usedSeen, e.token("priya@example.com"), ""); status != http.StatusNotFound {
		t.Errorf("another traveler revoking John's token: %d, want 404", status)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestConsoleAccountsPage creates, disables and resets an account through
// the console's forms, with clear refusals that keep what was typed.
func TestConsoleAccountsPage(t *testing.T) {
	t.Parallel()
	f := newConsoleFixture(t)
	post := func(path string, form url.Values) (int, string) { return f.page("admin", http.MethodPost, path, form) }
	// refused posts a form that must be refused: the answer is a redirect
	// (a reload never sends the form again) to a page that shows the error
	// under field, once.
	refused := func(what, path string, form url.Values, field, want string) string {
		t.Helper()
		status, body := post(path, form)
		if status != http.StatusSeeOther {
			t.Errorf("%s: %d, want 303 back to the page: %.300s", what, status, body)
			return ""
		}
		_, page := f.page("admin", http.MethodGet, "/console/accounts", nil)
		if !strings.Contains(page, `id="`+field+`-error"`) || !strings.Contains(page, want) ||
			!regexp.MustCompile(`id="`+field+`"[^>]*aria-invalid="true"`).MatchString(page) {
			t.Errorf("%s: the page after the redirect lacks %q under #%s", what, want, field)
		}
		if _, again := f.page("admin", http.MethodGet, "/console/accounts", nil); strings.Contains(again, `id="`+field+`-error"`) {
			t.Errorf("%s: the error shows again on the next visit", what)
		}
		return page
	}
	page := refused("weak password", "/console/accounts", url.Values{"email": {"lee@example.com"}, "name": {"Lee Park"}, "role": {"support"}, "password": {"password"}},
		"na-password", "too easy to guess")
	if !strings.Contains(page, `value="lee@example.com"`) {
		t.Errorf("weak password: the email typed is not kept")
	}
	status, body := 0, ""
	if status, body = post("/console/accounts", url.Values{"email": {"lee@example.com"}, "name": {"Lee Park"}, "role": {"support"}, "password": {"lantern orbit velvet cactus"}}); status != http.StatusSeeOther {
		t.Fatalf("create: %d %.300s", status, body)
	}
	lee, err := f.e.store.UserByEmail(t.Context(), "lee@example.com")
	if err != nil || lee.Role != models.RoleSupport {
		t.Fatalf("created account: %+v %v", lee, err)
	}
	page = refused("disable without a reason", "/console/accounts/"+lee.ID+"/disable", url.Values{}, "dr-"+lee.ID, "Give a reason")
	if !regexp.MustCompile(`<details class="account-more" open`).MatchString(page) {
		t.Errorf("disable without a reason: the disable form is folded away")
	}
	if status, _ = post("/console/accounts/"+lee.ID+"/disable", url.Values{"reason": {"left the team"}}); status != http.StatusSeeOther {
		t.Errorf("disable: %d", status)
	}
	_, page = f.page("admin", http.MethodGet, "/console/accounts?done=disabled&id="+lee.ID, nil)
	if !strings.Contains(page, "Account disabled") || !strings.Contains(page, `data-testid="account-disabled"`) {
		t.Errorf("accounts page after disabling: %.600s", page)
	}
	refused("reset to spaces", "/console/accounts/"+lee.ID+"/password", url.Values{"password": {"        "}, "reason": {"forgot"}}, "pw-"+lee.ID, "only spaces")
	if status, _ = post("/console/accounts/"+lee.ID+"/password", url.Values{"password": {"copper kettle mountain rain"}, "reason": {"forgot"}}); status != http.StatusSeeOther {
		t.Errorf("reset: %d", status)
	}
	if status, _ = post("/console/accounts/"+lee.ID+"/enable", url.Values{"reason": {"back"}}); status != http.StatusSeeOther {
		t.Errorf("enable: %d", status)
	}
	if status, out := f.e.apiCall("POST", "/api/v1/auth/token", "", `{"email":"lee@example.com","password":"copper kettle mountain rain"}`); status != http.StatusOK {
		t.Errorf("sign in with the reset password: %d %v", status, out)
	}
}

// TestErasureReasonListsAgree: the console offers exactly the codes the
// store accepts, in the same order.
func TestErasureReasonListsAgree(t *testing.T) {
	t.Parallel()
	if len(views.ErasureReasons) != len(models.ErasureReasons) {
		t.Fatalf("console reasons %v, store reasons %v", views.ErasureReasons, models.ErasureReasons)
	}
	for i, r := range views.ErasureReasons {
		if r.Code != models.ErasureReasons[i] {
			t.Errorf("reason %d: console %q, store %q", i, r.Code, models.ErasureReasons[i])
		}
	}
}
