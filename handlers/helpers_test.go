package handlers_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"concierge/agent"
	"concierge/agent/offline"
	"concierge/handlers"
	"concierge/memory"
	"concierge/models"
	"concierge/models/dbtest"
)

// env is a running server on a fresh, seeded SQLite database, with the
// offline model unless a test gives another provider.
type env struct {
	t      *testing.T
	store  *models.Store
	srv    *httptest.Server
	worker *agent.Worker
	server *handlers.Server
}

// envOptions change what newEnv builds.
type envOptions struct {
	cfg       func(*handlers.Config)
	provider  agent.Provider
	completer memory.Completer
	agentCfg  func(*agent.Config)
	store     *models.Store
	logTo     io.Writer // where the server, agent and worker log (debug level); discarded when nil
}

func newEnv(t *testing.T, mutate ...func(*handlers.Config)) *env {
	t.Helper()
	opt := envOptions{}
	if len(mutate) > 0 {
		opt.cfg = mutate[0]
	}
	return newEnvWith(t, opt)
}

func newEnvWith(t *testing.T, opt envOptions) *env {
	t.Helper()
	store := opt.store
	if store == nil {
		store = dbtest.SQLite(t)
	}
	if _, err := store.SeedDemo(context.Background(), "demo"); err != nil {
		t.Fatal(err)
	}
	cfg := handlers.DefaultConfig()
	cfg.DemoEnabled = true
	cfg.Offline = opt.provider == nil
	cfg.LoginBurst = 1000 // tests sign in often from one address; TestLoginRateLimitPerIP sets its own
	if opt.cfg != nil {
		opt.cfg(&cfg)
	}
	logTo := opt.logTo
	if logTo == nil {
		logTo = io.Discard
	}
	log := slog.New(slog.NewJSONHandler(logTo, &slog.HandlerOptions{Level: slog.LevelDebug}))
	provider := opt.provider
	if provider == nil {
		provider = offline.New(memory.NewTokenCounter("gpt-4o-mini"))
	}
	acfg := agent.DefaultConfig("gpt-4o-mini")
	if opt.agentCfg != nil {
		opt.agentCfg(&acfg)
	}
	ag := agent.New(acfg, store, provider, log)
	wcfg := agent.DefaultWorkerConfig()
	wcfg.Poll = 50 * time.Millisecond
	worker := agent.NewWorker(wcfg, store, opt.completer, log)
	ctx, cancel := context.WithCancel(context.Background())
	worker.Start(ctx)
	h := handlers.NewServer(cfg, store, ag, worker, log)
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		srv.Close()
		// Answers still running finish before the database goes away.
		drain, stop := context.WithTimeout(context.Background(), 10*time.Second)
		defer stop()
		_ = h.Drain(drain)
		cancel()
		worker.Wait()
	})
	return &env{t: t, store: store, srv: srv, worker: worker, server: h}
}

// browser is a client with a cookie jar that does not follow redirects.
type browser struct {
	e      *env
	client *http.Client
}

func (e *env) browser() *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{e: e, client: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}}
}

var csrfInput = regexp.MustCompile(`name="_csrf" value="([^"]+)"`)

// get fetches a page and returns status, body and the CSRF token it carries.
func (b *browser) get(path string) (int, string, string) {
	b.e.t.Helper()
	resp, err := b.client.Get(b.e.srv.URL + path)
	if err != nil {
		b.e.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	token := ""
	if m := csrfInput.FindSubmatch(body); m != nil {
		token = string(m[1])
	}
	return resp.StatusCode, string(body), token
}

func (b *browser) post(path string, form url.Values) *http.Response {
	b.e.t.Helper()
	resp, err := b.client.PostForm(b.e.srv.URL+path, form)
	if err != nil {
		b.e.t.Fatal(err)
	}
	b.e.t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// login signs in through the login form and returns the redirect target.
func (b *browser) login(email, password string) *http.Response {
	b.e.t.Helper()
	_, _, token := b.get("/login")
	if token == "" {
		b.e.t.Fatal("login page has no CSRF token")
	}
	return b.post("/login", url.Values{"email": {email}, "password": {password}, "_csrf": {token}})
}

// request sends a request with an optional JSON body and bearer token and
// returns the status and the body.
func (e *env) request(method, path, token, body string) (int, []byte) {
	e.t.Helper()
	req, _ := http.NewRequest(method, e.srv.URL+path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// apiCall sends a JSON request with an optional bearer token and decodes
// the JSON answer.
func (e *env) apiCall(method, path, token, body string) (int, map[string]any) {
	e.t.Helper()
	status, b := e.request(method, path, token, body)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return status, out
}

// token signs in through the API and returns a bearer token.
func (e *env) token(email string) string {
	e.t.Helper()
	status, out := e.apiCall("POST", "/api/v1/auth/token", "", `{"email":"`+email+`","password":"demo"}`)
	if status != http.StatusOK {
		e.t.Fatalf("token for %s: status %d: %v", email, status, out)
	}
	return out["token"].(string)
}

func errorCode(out map[string]any) string {
	e, _ := out["error"].(map[string]any)
	code, _ := e["code"].(string)
	return code
}
