package handlers_test

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"

	"concierge/handlers"
	"concierge/memory"
	"concierge/memory/guard"
	"concierge/models"
)

// The access table: every route, API and console alike, against every
// caller (anonymous, a traveler, support, an admin) and every kind of
// account it can point at (the caller's own, a traveler's, a support
// account's, an admin's). Each cell runs on fresh accounts, so writes that
// succeed (a deletion, an erasure) do not disturb the next cell.

// Callers and targets, in the order of the matrices below.
var (
	callerRoles = []string{"traveler", "support", "admin"}
	targetKinds = []string{"self", "traveler", "support", "admin"}
)

// ok marks a cell where the caller is let through: the route answers its
// own success status.
const ok = 0

// matrix is one access class: rows traveler, support, admin; columns the
// caller's own account, a traveler's, a support account's, an admin's.
// Anonymous callers always get 401 on the API and the sign-in page (303)
// elsewhere.
type matrix [3][4]int

var (
	// Only the traveler who owns it: chat pages, posting a message.
	mOwnTraveler = matrix{
		{ok, 404, 404, 404},
		{403, 403, 403, 403},
		{403, 403, 403, 403},
	}
	// The owner, support on travelers, admins on anyone.
	mOwnerOrStaff = matrix{
		{ok, 404, 404, 404},
		{ok, ok, 404, 404},
		{ok, ok, ok, ok},
	}
	// A traveler's own notes (no reason, no pins), or staff on the accounts
	// they manage; support and admin accounts hold no notes of their own
	// to write, so support on self is refused as for any staff write.
	mNotesWrite = matrix{
		{ok, 404, 404, 404},
		{403, ok, 404, 404},
		{ok, ok, ok, ok},
	}
	// Staff pages and endpoints.
	mStaff = matrix{
		{403, 403, 403, 403},
		{403, ok, 404, 404},
		{ok, ok, ok, ok},
	}
	// The owner or an admin (export).
	mOwnerOrAdmin = matrix{
		{ok, 404, 404, 404},
		{403, 403, 403, 403},
		{ok, ok, ok, ok},
	}
	// Admins on anyone.
	mAdmin = matrix{
		{403, 403, 403, 403},
		{403, 403, 403, 403},
		{ok, ok, ok, ok},
	}
	// Admins on anyone but themselves (erasure, role, disabling).
	mAdminNotSelf = matrix{
		{403, 403, 403, 403},
		{403, 403, 403, 403},
		{409, ok, ok, ok},
	}
	// Anyone on their own things only (API tokens).
	mOwnAccount = matrix{
		{ok, 404, 404, 404},
		{ok, 404, 404, 404},
		{ok, 404, 404, 404},
	}
)

// row is the answer of a route without a target, per caller: traveler,
// support, admin.
type row [3]int

var (
	rAll      = row{ok, ok, ok}
	rTraveler = row{ok, 403, 403}
	rStaff    = row{403, ok, ok}
	rAdmin    = row{403, 403, ok}
)

// route is one line of the table.
type route struct {
	method, path string // the path as registered, with :params
	m            *matrix
	r            *row // for routes without a target
	okStatus     int  // 0: any 2xx
	body         string
	form         url.Values
	shows        bool // a successful answer shows the target's note
	stream       bool // refusals come inside a 200 event stream
}

func accessRoutes() []route {
	f := func(kv ...string) url.Values {
		v := url.Values{}
		for i := 0; i+1 < len(kv); i += 2 {
			v.Set(kv[i], kv[i+1])
		}
		return v
	}
	return []route{
		{method: "GET", path: "/", r: &rAll, okStatus: 303},
		{method: "GET", path: "/account/tokens", r: &rAll, okStatus: 200},
		{method: "POST", path: "/account/password", r: &rAll, okStatus: 303},
		{method: "POST", path: "/account/language", r: &rAll, okStatus: 303, form: f("language", "es")},
		{method: "POST", path: "/account/tokens/:id/revoke", m: &mOwnAccount, okStatus: 303},
		{method: "POST", path: "/account/tokens", r: &rAll, okStatus: 303, form: f("label", "backup script")},

		{method: "GET", path: "/chat", r: &rTraveler, okStatus: 0},
		{method: "POST", path: "/chat/sessions", r: &rTraveler, okStatus: 303},
		{method: "GET", path: "/chat/:id", m: &mOwnTraveler, okStatus: 200},
		{method: "POST", path: "/chat/:id/messages", m: &mOwnTraveler, okStatus: 0, form: f("content", "Hello there")},
		{method: "GET", path: "/chat/:id/stream", m: &mOwnTraveler, okStatus: 200, stream: true},
		{method: "GET", path: "/chat/:id/pending", m: &mOwnTraveler, okStatus: 200},
		{method: "POST", path: "/chat/:id/notes/:note/undo", m: &mOwnTraveler, okStatus: 200},
		{method: "POST", path: "/chat/:id/notes/:note/restore", m: &mOwnTraveler, okStatus: 200},
		{method: "POST", path: "/chat/:id/end", m: &mOwnTraveler, okStatus: 0},
		{method: "GET", path: "/chat/:id/outcome", m: &mOwnTraveler, okStatus: 200},
		{method: "GET", path: "/chat/:id/title", m: &mOwnTraveler, okStatus: 200},
		{method: "POST", path: "/chat/:id/title", m: &mOwnTraveler, okStatus: 0, form: f("title", "Lisbon in May")},
		{method: "POST", path: "/chat/:id/delete", m: &mOwnTraveler, okStatus: 0},
		{method: "POST", path: "/chat/:id/trip", m: &mOwnTraveler, okStatus: 303, form: f("trip_id", "")},
		{method: "GET", path: "/memory", r: &rTraveler, okStatus: 200},
		{method: "POST", path: "/memory/notes", r: &rTraveler, okStatus: 0, form: f("text", "Likes quiet hotel rooms.")},
		{method: "GET", path: "/memory/notes/:note", r: &rTraveler, okStatus: 0},
		{method: "GET", path: "/memory/notes/:note/edit", r: &rTraveler, okStatus: 0},
		{method: "POST", path: "/memory/notes/:note", r: &rTraveler, okStatus: 0, form: f("text", "Likes quiet hotel rooms.")},
		{method: "POST", path: "/memory/notes/:note/delete", r: &rTraveler, okStatus: 0},
		{method: "POST", path: "/memory/trips/:trip", r: &rTraveler, okStatus: 0, form: f("name", "Renamed")},
		{method: "POST", path: "/memory/trips/:trip/delete", r: &rTraveler, okStatus: 0},
		{method: "POST", path: "/memory/notes/delete-all", r: &rTraveler, okStatus: 0},
		{method: "GET", path: "/memory/export", r: &rTraveler, okStatus: 200},
		{method: "POST", path: "/memory/erasure", r: &rTraveler, okStatus: 0},
		{method: "POST", path: "/memory/erasure/cancel", r: &rTraveler, okStatus: 0},

		{method: "GET", path: "/console", r: &rStaff, okStatus: 200},
		{method: "GET", path: "/console/customers/:id", m: &mStaff, okStatus: 200, shows: true},
		{method: "GET", path: "/console/customers/:id/preview", m: &mStaff, okStatus: 200},
		{method: "POST", path: "/console/customers/:id/profile", m: &mStaff, okStatus: 303, form: f("profile", `{"home_city":"Lisbon"}`, "reason", "asked")},
		{method: "POST", path: "/console/customers/:id/notes", m: &mStaff, okStatus: 303, form: f("text", "Likes quiet hotel rooms.", "keywords", "hotel", "reason", "asked")},
		{method: "GET", path: "/console/customers/:id/notes/:note", m: &mStaff, okStatus: 200, shows: true},
		{method: "GET", path: "/console/customers/:id/notes/:note/edit", m: &mStaff, okStatus: 200, shows: true},
		{method: "POST", path: "/console/customers/:id/notes/:note", m: &mStaff, okStatus: 200, form: f("text", "Likes quiet hotel rooms.", "keywords", "hotel", "reason", "asked")},
		{method: "GET", path: "/console/customers/:id/notes/:note/delete", m: &mStaff, okStatus: 200, shows: true},
		{method: "POST", path: "/console/customers/:id/notes/:note/delete", m: &mStaff, okStatus: 200, form: f("reason", "asked")},
		{method: "GET", path: "/console/customers/:id/trips/:trip", m: &mStaff, okStatus: 200},
		{method: "GET", path: "/console/customers/:id/trips/:trip/edit", m: &mStaff, okStatus: 200},
		{method: "POST", path: "/console/customers/:id/trips/:trip", m: &mStaff, okStatus: 303, form: f("destination", "Porto", "status", "planning", "reason", "asked")},
		{method: "GET", path: "/console/customers/:id/audit", m: &mStaff, okStatus: 200},
		{method: "GET", path: "/console/customers/:id/consolidations", m: &mStaff, okStatus: 200},
		{method: "GET", path: "/console/customers/:id/export", m: &mAdmin, okStatus: 200, shows: true},
		{method: "POST", path: "/console/customers/:id/erasure-request", m: &mAdminNotSelf, okStatus: 303},
		{method: "GET", path: "/console/sessions/:id", m: &mStaff, okStatus: 200},
		{method: "GET", path: "/console/sessions/:id/turns/:turn", m: &mStaff, okStatus: 200, shows: true},
		{method: "POST", path: "/console/jobs/:job/retry", m: &mStaff, okStatus: 303},
		{method: "GET", path: "/console/review", r: &rStaff, okStatus: 200},
		{method: "POST", path: "/console/review/:item/claim", m: &mStaff, okStatus: 303},
		{method: "POST", path: "/console/review/:item/resolve", m: &mStaff, okStatus: 303, form: f("action", "dismiss", "reason", "harmless")},
		{method: "GET", path: "/console/audit", r: &rStaff, okStatus: 200},
		{method: "GET", path: "/console/health", r: &rStaff, okStatus: 200},
		{method: "GET", path: "/console/erasure", r: &rAdmin, okStatus: 200},
		{method: "POST", path: "/console/erasure/:req/execute", m: &mAdminNotSelf, okStatus: 303, form: f("reason", "other", "confirm", "ERASE")},
		{method: "GET", path: "/console/accounts", r: &rAdmin, okStatus: 200},
		{method: "POST", path: "/console/accounts", r: &rAdmin, okStatus: 303, form: f("email", "{uniq}@example.com", "name", "New Person", "role", "support", "password", "lantern orbit velvet cactus")},
		{method: "POST", path: "/console/accounts/:id/role", m: &mAdminNotSelf, okStatus: 303, form: f("role", "support", "reason", "asked")},
		{method: "POST", path: "/console/accounts/:id/disable", m: &mAdminNotSelf, okStatus: 303, form: f("reason", "left")},
		{method: "POST", path: "/console/accounts/:id/enable", m: &mAdminNotSelf, okStatus: 303, form: f("reason", "back")},
		{method: "POST", path: "/console/accounts/:id/password", m: &mAdmin, okStatus: 303, form: f("password", "lantern orbit velvet cactus", "reason", "forgot")},

		{method: "GET", path: "/metrics", r: &rStaff, okStatus: 200},
		{method: "GET", path: "/api/v1/me", r: &rAll, okStatus: 200},
		{method: "POST", path: "/api/v1/users/me/password", r: &rAll, okStatus: 400},
		{method: "GET", path: "/api/v1/tokens", r: &rAll, okStatus: 200},
		{method: "DELETE", path: "/api/v1/tokens/:id", m: &mOwnAccount, okStatus: 204},
		{method: "POST", path: "/api/v1/sessions", r: &rTraveler, okStatus: 201},
		{method: "GET", path: "/api/v1/sessions", r: &rTraveler, okStatus: 200},
		{method: "PATCH", path: "/api/v1/sessions/:id", m: &mOwnTraveler, okStatus: 200, body: `{"title":"Lisbon in May"}`},
		{method: "DELETE", path: "/api/v1/sessions/:id", m: &mOwnTraveler, okStatus: 204},
		{method: "GET", path: "/api/v1/sessions/:id", m: &mOwnerOrStaff, okStatus: 200},
		{method: "POST", path: "/api/v1/sessions/:id/messages", m: &mOwnTraveler, okStatus: 200, body: `{"content":"Hello there"}`},
		{method: "POST", path: "/api/v1/sessions/:id/notes/:note/restore", m: &mOwnTraveler, okStatus: 200},
		{method: "GET", path: "/api/v1/sessions/:id/turns", m: &mStaff, okStatus: 200, shows: true},
		{method: "POST", path: "/api/v1/sessions/:id/close", m: &mOwnerOrStaff, okStatus: 0},
		{method: "GET", path: "/api/v1/consolidations/:job", m: &mOwnerOrStaff, okStatus: 200},
		{method: "GET", path: "/api/v1/users/:id/memory", m: &mOwnerOrStaff, okStatus: 200, shows: true},
		{method: "GET", path: "/api/v1/users", r: &rStaff, okStatus: 200},
		{method: "POST", path: "/api/v1/users", r: &rAdmin, okStatus: 201, body: `{"email":"{uniq}@example.com","name":"New Person","role":"traveler","password":"lantern orbit velvet cactus"}`},
		{method: "PATCH", path: "/api/v1/users/:id", m: &mAdminNotSelf, okStatus: 200, body: `{"disabled":true}`},
		{method: "POST", path: "/api/v1/users/:id/notes", m: &mNotesWrite, okStatus: 201, body: `{"text":"Likes quiet hotel rooms.","keywords":["hotel"],"reason":"asked"}`},
		{method: "PATCH", path: "/api/v1/users/:id/notes/:note", m: &mNotesWrite, okStatus: 200, body: `{"text":"Likes rooms facing the quiet courtyard.","reason":"asked"}`},
		{method: "DELETE", path: "/api/v1/users/:id/notes/:note", m: &mOwnerOrStaff, okStatus: 204, body: `{"reason":"asked"}`},
		{method: "GET", path: "/api/v1/users/:id/audit", m: &mStaff, okStatus: 200},
		{method: "GET", path: "/api/v1/users/:id/trips", m: &mOwnerOrStaff, okStatus: 200},
		{method: "POST", path: "/api/v1/users/:id/trips", m: &mNotesWrite, okStatus: 201, body: `{"destination":"Oslo","reason":"asked"}`},
		{method: "PATCH", path: "/api/v1/users/:id/trips/:trip", m: &mNotesWrite, okStatus: 0, body: `{"name":"Renamed {uniq}","reason":"asked"}`},
		{method: "DELETE", path: "/api/v1/users/:id/trips/:trip", m: &mOwnerOrStaff, okStatus: 0, body: `{"reason":"asked"}`},
		{method: "PUT", path: "/api/v1/users/:id/profile", m: &mStaff, okStatus: 200, body: `{"profile":{"home_city":"Lisbon"},"reason":"asked"}`},
		{method: "GET", path: "/api/v1/schema/profile", r: &rAll, okStatus: 200},
		{method: "POST", path: "/api/v1/sessions/:id/trip", m: &mOwnTraveler, okStatus: 0, body: `{"trip_id":"{trip}"}`},
		{method: "GET", path: "/api/v1/users/:id/export", m: &mOwnerOrAdmin, okStatus: 200, shows: true},
		{method: "POST", path: "/api/v1/users/me/erasure-request", r: &rTraveler, okStatus: 0},
		{method: "DELETE", path: "/api/v1/users/me/erasure-request", r: &rTraveler, okStatus: 0},
		{method: "GET", path: "/api/v1/erasure-requests", r: &rAdmin, okStatus: 200},
		{method: "GET", path: "/api/v1/erasure-receipts.csv", r: &rAdmin, okStatus: 200},
		{method: "GET", path: "/api/v1/review", r: &rStaff, okStatus: 200},
		{method: "POST", path: "/api/v1/review/:item/claim", m: &mStaff, okStatus: 200},
		{method: "POST", path: "/api/v1/review/:item/resolve", m: &mStaff, okStatus: 200, body: `{"action":"dismiss","reason":"harmless"}`},
		{method: "POST", path: "/api/v1/users/:id/erase", m: &mAdminNotSelf, okStatus: 200, body: `{"reason":"data_subject_request","ticket":"DSR-1"}`},
	}
}

// publicRoutes need no signed-in caller; they are tested elsewhere.
var publicRoutes = map[string]bool{
	"GET /healthz": true, "GET /static/*": true, "GET /login": true, "POST /login": true, "POST /logout": true,
	"POST /api/v1/auth/token": true,
}

// world is one account and one of each thing it can own.
type world struct {
	user                                                   *models.User
	note, sessionNote, session, ended, job, req, token, id string
	forgotten                                              string // a note the session forgot, for restore
	item, trip                                             string
	noteText                                               string
}

func seedWorld(t *testing.T, s *models.Store, u *models.User) world {
	t.Helper()
	ctx := context.Background()
	// The note carries a random case word so a leak names its world. A
	// random word can still read as a key or a password to the guard ("pw…",
	// about one in seven thousand), so one it would refuse is drawn again.
	w := world{user: u}
	for {
		w.id = strings.Map(func(r rune) rune {
			if r >= '0' && r <= '9' {
				return 'a' + (r - '0')
			}
			return r
		}, strings.ToLower(models.NewID()[:10]))
		w.noteText = "Likes rooms facing the courtyard, case " + w.id + "."
		if _, refused := guard.ScreenText(w.noteText); !refused {
			break
		}
	}
	n, err := s.Notes(memory.Limits{}).Add(ctx, models.NewNote{UserID: u.ID, Kind: models.KindGlobal,
		Note: memNote(w.noteText)}, models.Actor{Kind: models.ActorSystem}, "seed")
	if err != nil {
		t.Fatal(err)
	}
	w.note = n.ID
	cs, err := s.CreateChatSession(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	w.session = cs.ID
	if err := s.AppendMessage(ctx, &models.Message{SessionID: cs.ID, Role: "user", Content: "Hello", Turn: 1}); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveSnapshot(ctx, &models.TurnSnapshot{SessionID: cs.ID, UserID: u.ID, Turn: 1, Round: 1, Model: "offline",
		Instructions: "<memories>\n- " + w.noteText + "\n</memories>", Messages: `[{"role":"user","content":"Hello","turn":1}]`, Response: `{"content":"Hi"}`}); err != nil {
		t.Fatal(err)
	}
	sn, err := s.Notes(memory.Limits{}).Add(ctx, models.NewNote{UserID: u.ID, Kind: models.KindSession, Note: memNote("Wants a late checkout this trip."),
		Prov: models.Provenance{SessionID: cs.ID}}, models.Actor{Kind: models.ActorAssistant}, "seed")
	if err != nil {
		t.Fatal(err)
	}
	w.sessionNote = sn.ID
	fn, err := s.Notes(memory.Limits{}).Add(ctx, models.NewNote{UserID: u.ID, Kind: models.KindGlobal, Note: memNote("Likes hotels with a pool.")},
		models.Actor{Kind: models.ActorSystem}, "seed")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Notes(memory.Limits{}).Forget(ctx, u.ID, fn.ID, models.Actor{Kind: models.ActorAssistant}, models.Provenance{SessionID: cs.ID}); err != nil {
		t.Fatal(err)
	}
	w.forgotten = fn.ID
	other, err := s.CreateChatSession(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	w.ended = other.ID
	if err := s.DB().Model(&models.ChatSession{}).Where("id = ?", other.ID).Update("status", models.SessionClosed).Error; err != nil {
		t.Fatal(err)
	}
	w.job = models.NewID()
	if err := s.DB().Create(&models.ConsolidationJob{ID: w.job, SessionID: other.ID, UserID: u.ID, Status: models.JobFailed,
		Error: "seeded failure", CreatedAt: time.Now()}).Error; err != nil {
		t.Fatal(err)
	}
	if err := s.RecordBlockedWrite(ctx, u.ID, cs.ID, "", memory.CategorySecret); err != nil {
		t.Fatal(err)
	}
	items, err := s.ReviewItems(ctx, models.ReviewFilter{UserID: u.ID})
	if err != nil || len(items) != 1 {
		t.Fatalf("review items %v, %v", items, err)
	}
	w.item = items[0].ID
	r, _, err := s.RequestErasure(ctx, u.ID, models.Actor{ID: u.ID, Kind: models.ActorTraveler}, "")
	if err != nil {
		t.Fatal(err)
	}
	w.req = r.ID
	trip, _, err := s.Notes(memory.Limits{}).Trips().Create(ctx, u.ID, memory.Trip{Destination: "Lisbon " + w.id}, models.Actor{Kind: models.ActorSystem}, "seed")
	if err != nil {
		t.Fatal(err)
	}
	w.trip = trip.ID
	_, tok, err := s.CreateAPIToken(ctx, u.ID, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	w.token = tok.ID
	return w
}

// fill puts the target's ids into a registered path.
func fill(path string, w world) string {
	idKind := w.user.ID
	switch {
	case strings.HasPrefix(path, "/chat/:id"), strings.HasPrefix(path, "/console/sessions/:id"), strings.HasPrefix(path, "/api/v1/sessions/:id"):
		idKind = w.session
	case strings.Contains(path, "tokens/:id"):
		idKind = w.token
	}
	if strings.HasSuffix(path, "/outcome") {
		idKind = w.ended
	}
	note := w.note
	if strings.HasSuffix(path, "/undo") {
		note = w.sessionNote
	}
	if strings.HasSuffix(path, "/restore") {
		note = w.forgotten
	}
	return strings.NewReplacer(":id", idKind, ":note", note, ":job", w.job, ":req", w.req, ":item", w.item, ":trip", w.trip, ":turn", "1").Replace(path)
}

// caller is a signed-in person for one cell: a bearer token for the API and
// a browser session (with its CSRF token) for pages.
type caller struct {
	user   *models.User
	token  string
	client *http.Client
	csrf   string
}

func newCaller(t *testing.T, e *env, role string) *caller {
	t.Helper()
	ctx := context.Background()
	jar, _ := cookiejar.New(nil)
	c := &caller{client: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	page := "/login"
	if role != "anon" {
		id := strings.ToLower(models.NewID()[:10])
		u, err := e.store.CreateUser(ctx, role+"-"+id+"@example.com", strings.ToUpper(role[:1])+role[1:]+" "+id, models.Role(role), "right-pass")
		if err != nil {
			t.Fatal(err)
		}
		c.user = u
		if c.token, _, err = e.store.CreateAPIToken(ctx, u.ID, time.Hour); err != nil {
			t.Fatal(err)
		}
		cookie, err := e.store.CreateWebSession(ctx, u.ID, time.Hour, 0)
		if err != nil {
			t.Fatal(err)
		}
		base, _ := url.Parse(e.srv.URL)
		jar.SetCookies(base, []*http.Cookie{{Name: "concierge_session", Value: cookie, Path: "/"}})
		page = "/account/tokens"
	}
	resp, err := c.client.Get(e.srv.URL + page)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if m := csrfInput.FindSubmatch(body); m != nil {
		c.csrf = string(m[1])
	}
	if c.csrf == "" {
		t.Fatalf("no CSRF token on %s for %s: %d", page, role, resp.StatusCode)
	}
	return c
}

func (c *caller) do(t *testing.T, e *env, rt route, path, uniq string) (int, string) {
	t.Helper()
	var req *http.Request
	if strings.HasPrefix(path, "/api/") || path == "/metrics" {
		req, _ = http.NewRequest(rt.method, e.srv.URL+path, strings.NewReader(strings.ReplaceAll(rt.body, "{uniq}", uniq)))
		if rt.body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		if c.token != "" {
			req.Header.Set("Authorization", "Bearer "+c.token)
		}
	} else {
		form := url.Values{}
		for k, v := range rt.form {
			form.Set(k, strings.ReplaceAll(v[0], "{uniq}", uniq))
		}
		form.Set("_csrf", c.csrf)
		req, _ = http.NewRequest(rt.method, e.srv.URL+path, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if rt.stream {
		req.Header.Set("Accept", "text/event-stream")
	}
	resp, err := c.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if rt.stream && resp.StatusCode == http.StatusOK {
		// The stream stays open until the browser closes it: read up to the
		// final event.
		var b strings.Builder
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		final := false
		for sc.Scan() {
			b.WriteString(sc.Text() + "\n")
			if sc.Text() == "event: done" {
				final = true
			} else if final && strings.HasPrefix(sc.Text(), "data:") {
				break
			}
		}
		return resp.StatusCode, b.String()
	}
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// refusedInStream is how a stream says it will not run for this caller.
const refusedInStream = "event: done"

func TestAccessTable(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	routes := accessRoutes()

	// Every route the server has is in the table (or public): a new route
	// must say who may call it.
	listed := map[string]bool{}
	for _, rt := range routes {
		listed[rt.method+" "+rt.path] = true
	}
	srv := handlers.NewServer(handlers.DefaultConfig(), e.store, nil, nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
	var missing []string
	for _, r := range srv.Routes() {
		if !listed[r] && !publicRoutes[r] && !strings.HasPrefix(r, "echo_route_not_found") {
			missing = append(missing, r)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("routes without a row in the access table: %s", strings.Join(missing, ", "))
	}

	for _, rt := range routes {
		t.Run(rt.method+" "+rt.path, func(t *testing.T) {
			t.Parallel() // every cell seeds its own users and world: routes run side by side
			api := strings.HasPrefix(rt.path, "/api/") || rt.path == "/metrics"
			anonWant := http.StatusSeeOther
			if api {
				anonWant = http.StatusUnauthorized
			}
			type cell struct {
				who, target string
				want        int
			}
			cells := []cell{{"anon", "traveler", anonWant}}
			for i, who := range callerRoles {
				if rt.r != nil {
					cells = append(cells, cell{who, "self", rt.r[i]})
					continue
				}
				for j, target := range targetKinds {
					cells = append(cells, cell{who, target, rt.m[i][j]})
				}
			}
			for _, cl := range cells {
				c := newCaller(t, e, cl.who)
				var w world
				switch {
				case cl.target == "self":
					w = seedWorld(t, e.store, c.user)
				default:
					owner := newCaller(t, e, cl.target)
					w = seedWorld(t, e.store, owner.user)
				}
				path := fill(rt.path, w)
				rt := rt
				rt.body = strings.ReplaceAll(rt.body, "{trip}", w.trip)
				status, body := c.do(t, e, rt, path, w.id)
				name := cl.who + " on " + cl.target
				want := cl.want
				denied := want != ok
				if rt.stream && denied {
					// Refused inside the stream, with a 200, signed in or not.
					if status != http.StatusOK || !strings.Contains(body, refusedInStream) || strings.Contains(body, w.noteText) {
						t.Errorf("%s: %s %s = %d, want a refusal inside the stream: %.300s", name, rt.method, path, status, body)
					}
					continue
				}
				switch {
				case !denied && rt.okStatus == 0:
					if status < 200 || status > 303 || status == http.StatusNotModified {
						t.Errorf("%s: %s %s = %d, want success: %.300s", name, rt.method, path, status, body)
					}
				case !denied:
					if status != rt.okStatus {
						t.Errorf("%s: %s %s = %d, want %d: %.300s", name, rt.method, path, status, rt.okStatus, body)
					}
				default:
					if status != want {
						t.Errorf("%s: %s %s = %d, want %d: %.300s", name, rt.method, path, status, want, body)
					}
				}
				if denied && strings.Contains(body, w.noteText) {
					t.Errorf("%s: a refused %s %s shows the target's note", name, rt.method, path)
				}
				if !denied && rt.shows && !strings.Contains(body, w.noteText) {
					t.Errorf("%s: %s %s does not show the target's note: %.300s", name, rt.method, path, body)
				}
			}
		})
	}
}

func memNote(text string) memory.Note {
	return memory.Note{Text: text, Keywords: []string{"room"}}
}
