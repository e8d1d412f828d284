package handlers_test

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"concierge/agent/openai"
	"concierge/agent/openai/fakeopenai"
	"concierge/models"
)

// traveler is a signed-in browser with its CSRF token, sending requests the
// way htmx does.
type traveler struct {
	*browser
	csrf string
}

func (e *env) signIn(email string) *traveler {
	e.t.Helper()
	b := e.browser()
	if resp := b.login(email, "demo"); resp.StatusCode != http.StatusSeeOther {
		e.t.Fatalf("login %s: status %d", email, resp.StatusCode)
	}
	_, _, token := b.get("/memory")
	if token == "" {
		_, _, token = b.get("/login")
	}
	return &traveler{browser: b, csrf: token}
}

// hx sends an htmx request (HX-Request, the CSRF header) and returns the
// response with its body read.
func (tr *traveler) hx(method, path string, form url.Values) (*http.Response, string) {
	tr.e.t.Helper()
	req, _ := http.NewRequest(method, tr.e.srv.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("HX-Request", "true")
	req.Header.Set("X-CSRF-Token", tr.csrf)
	resp, err := tr.client.Do(req)
	if err != nil {
		tr.e.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, string(body)
}

// newChat starts a conversation through the page's form and returns its id.
func (tr *traveler) newChat() string {
	tr.e.t.Helper()
	resp := tr.post("/chat/sessions", url.Values{"_csrf": {tr.csrf}})
	loc := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/chat/") {
		tr.e.t.Fatalf("POST /chat/sessions = %d → %q", resp.StatusCode, loc)
	}
	return strings.TrimPrefix(loc, "/chat/")
}

// send posts a message as the composer does and checks the fragment.
func (tr *traveler) send(id, text string) {
	tr.e.t.Helper()
	resp, body := tr.hx("POST", "/chat/"+id+"/messages", url.Values{"content": {text}})
	if resp.StatusCode != http.StatusOK {
		tr.e.t.Fatalf("send %q: %d %s", text, resp.StatusCode, body)
	}
	doc := parseHTML(tr.e.t, body)
	if got := doc.Find(`[data-testid="user-message"]`).Text(); !strings.Contains(got, text) {
		tr.e.t.Errorf("fragment's user message %q, want %q", got, text)
	}
	if src, _ := doc.Find(`[data-testid="streaming"]`).Attr("sse-connect"); src != "/chat/"+id+"/stream" {
		tr.e.t.Errorf("streaming bubble connects to %q", src)
	}
}

type sseEvent struct{ name, data string }

// stream reads the answer's event stream to its end.
func (tr *traveler) stream(id string) []sseEvent {
	tr.e.t.Helper()
	resp, err := tr.client.Get(tr.e.srv.URL + "/chat/" + id + "/stream")
	if err != nil {
		tr.e.t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		tr.e.t.Fatalf("stream: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	var events []sseEvent
	var cur sseEvent
	var data []string
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	sawRetry := false
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "" && cur.name == "" && data == nil:
			// a block with only a retry field
		case line == "":
			cur.data = strings.Join(data, "\n")
			events = append(events, cur)
			if cur.name == "done" {
				// Like the browser (sse-close="done"), stop reading here.
				if !sawRetry {
					tr.e.t.Errorf("the stream did not disable EventSource's reconnection")
				}
				return events
			}
			cur, data = sseEvent{}, nil
		case strings.HasPrefix(line, "retry: "):
			sawRetry = true
		case strings.HasPrefix(line, "event: "):
			cur.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			data = append(data, strings.TrimPrefix(line, "data: "))
		}
	}
	return events
}

// final checks a stream ended with exactly one "done" event and parses it.
func final(t *testing.T, events []sseEvent) *goquery.Document {
	t.Helper()
	if len(events) == 0 || events[len(events)-1].name != "done" {
		t.Fatalf("stream did not end with a done event: %v", events)
	}
	for _, ev := range events[:len(events)-1] {
		if ev.name != "delta" && ev.name != "text" {
			t.Fatalf("unexpected event %q before done", ev.name)
		}
	}
	return parseHTML(t, events[len(events)-1].data)
}

func parseHTML(t *testing.T, s string) *goquery.Document {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func (e *env) userID(email string) string {
	e.t.Helper()
	u, err := e.store.UserByEmail(context.Background(), email)
	if err != nil {
		e.t.Fatal(err)
	}
	return u.ID
}

// TestChatConversation is the traveler's story in the browser's requests:
// the answer streams, the saved note shows as a chip, undo deletes it,
// reloading shows the transcript, ending shows what was remembered.
func TestChatConversation(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	john := e.signIn("john@example.com")
	id := john.newChat()

	john.send(id, "Remember that I am vegetarian")
	// The offline model has usually answered before the stream opens (the
	// server answers without waiting for it); streaming in pieces is
	// checked with a slow model in chat_detached_test.go.
	events := john.stream(id)
	doc := final(t, events)
	if doc.Find(`[data-testid="answer"]`).Text() == "" {
		t.Error("final event has no answer")
	}
	chip := doc.Find(`[data-testid="memory-chip"]`)
	if chip.Length() != 1 || !strings.Contains(strings.ToLower(chip.Text()), "vegetarian") || !strings.Contains(chip.Text(), "All trips") {
		t.Fatalf("chips %q, want one vegetarian note for all trips", chip.Text())
	}
	if oob, _ := doc.Find(`#memory-panel`).Attr("hx-swap-oob"); oob != "true" {
		t.Error("final event does not refresh the memory panel")
	}
	if !strings.Contains(strings.ToLower(doc.Find(`[data-testid="panel-session"]`).Text()), "vegetarian") {
		t.Error("panel does not list the new session note")
	}
	undo, _ := chip.Find(`[data-testid="chip-undo"]`).Attr("hx-post")

	// Opening the stream again (a reconnect) repeats the answer, no new turn.
	again := final(t, john.stream(id))
	if again.Find(`[data-testid="memory-chip"]`).Length() != 1 {
		t.Error("reopened stream lost the turn's chip")
	}

	resp, body := john.hx("POST", undo, nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("undo: %d %s", resp.StatusCode, body)
	}
	undone := parseHTML(t, body)
	if st, _ := undone.Find(`[data-testid="memory-chip"]`).Attr("data-state"); st != "undone" {
		t.Errorf("chip after undo is %q, want undone", st)
	}
	if undone.Find(`[data-testid="panel-session"]`).Length() != 0 {
		t.Error("panel still lists the undone note")
	}
	var events2 []models.AuditEvent
	e.store.DB().Where("user_id = ? AND action = ?", e.userID("john@example.com"), "note.delete").Find(&events2)
	if len(events2) != 1 || events2[0].Reason != "undone by the traveler" || events2[0].ActorKind != models.ActorTraveler {
		t.Errorf("audit of the undo: %+v", events2)
	}
	if resp, _ := john.hx("POST", undo, nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("second undo = %d, want 404", resp.StatusCode)
	}

	// A reload shows the whole transcript; the undone chip is gone.
	_, page, _ := john.get("/chat/" + id)
	pd := parseHTML(t, page)
	if n := pd.Find(`[data-testid="user-message"]`).Length(); n != 1 {
		t.Errorf("reloaded transcript has %d user messages, want 1", n)
	}
	if n := pd.Find(`[data-testid="assistant-message"]`).Length(); n != 1 {
		t.Errorf("reloaded transcript has %d answers, want 1", n)
	}
	if n := pd.Find(`[data-testid="memory-chip"]`).Length(); n != 0 {
		t.Errorf("reloaded transcript has %d chips, want none (it was undone)", n)
	}
	if pd.Find(`[data-testid="streaming"]`).Length() != 0 {
		t.Error("an answered conversation opens a stream on reload")
	}

	// Said again — in a new conversation: within the same one the offline
	// model still counts the undone note as saved (reported on issue 5).
	id = john.newChat()
	john.send(id, "Remember that I am vegetarian")
	if final(t, john.stream(id)).Find(`[data-testid="memory-chip"]`).Length() != 1 {
		t.Fatal("saying it again saved nothing")
	}
	_, page, _ = john.get("/chat/" + id)
	if n := parseHTML(t, page).Find(`[data-testid="memory-chip"]`).Length(); n != 1 {
		t.Errorf("reloaded transcript has %d chips, want 1", n)
	}

	resp, body = john.hx("POST", "/chat/"+id+"/end", nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("end: %d %s", resp.StatusCode, body)
	}
	out := parseHTML(t, body)
	added := out.Find(`[data-testid="outcome-added"]`).Text()
	if !strings.Contains(added, "Added to long-term memory") || !strings.Contains(strings.ToLower(added), "vegetarian") {
		t.Errorf("outcome %q, want the note added to long-term memory", out.Text())
	}
	if out.Find(`[data-testid="session-ended"]`).Length() != 1 {
		t.Error("the End button was not replaced")
	}
	resp, body = john.hx("GET", "/chat/"+id+"/outcome", nil)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `data-status="done"`) {
		t.Errorf("outcome poll: %d %s", resp.StatusCode, body)
	}
	_, page, _ = john.get("/chat/" + id)
	pd = parseHTML(t, page)
	if pd.Find(`[data-testid="composer"]`).Length() != 0 || pd.Find(`[data-testid="outcome-added"]`).Length() != 1 {
		t.Error("an ended conversation still offers the composer or lacks its outcome")
	}
	if pd.Find(`[data-testid="chip-undo"]`).Length() != 0 {
		t.Error("chips of an ended conversation still offer undo")
	}
	if resp, _ := john.hx("POST", "/chat/"+id+"/messages", url.Values{"content": {"hello"}}); resp.StatusCode != http.StatusConflict ||
		resp.Header.Get("HX-Retarget") != "#flash" {
		t.Errorf("message to an ended conversation = %d (retarget %q), want 409 into #flash", resp.StatusCode, resp.Header.Get("HX-Retarget"))
	}
}

// TestChatModelFailure checks that a failing model loses nothing: the
// message is stored, the bubble explains and offers Retry, and the retry
// answers the same message.
func TestChatModelFailure(t *testing.T) {
	t.Parallel()
	fake := fakeopenai.New(t)
	e := newEnvWith(t, envOptions{provider: openai.New(openai.Config{BaseURL: fake.URL(), APIKey: "k", Model: "m", MaxRetries: openai.NoRetries})})
	john := e.signIn("john@example.com")
	id := john.newChat()

	fake.Fail(http.StatusInternalServerError, "")
	john.send(id, "Find me a hotel in Lisbon")
	doc := final(t, john.stream(id))
	failed := doc.Find(`[data-testid="answer-failed"]`)
	if failed.Length() != 1 || !strings.Contains(failed.Text(), "not answering") {
		t.Fatalf("failure bubble %q", failed.Text())
	}
	retry, _ := failed.Find(`[data-testid="retry"]`).Attr("hx-get")
	if retry != "/chat/"+id+"/pending" {
		t.Fatalf("retry goes to %q", retry)
	}

	// Reloading keeps the message and resumes its answer.
	_, page, _ := john.get("/chat/" + id)
	pd := parseHTML(t, page)
	if !strings.Contains(pd.Find(`[data-testid="user-message"]`).Text(), "Find me a hotel in Lisbon") || pd.Find(`[data-testid="streaming"]`).Length() != 1 {
		t.Errorf("after a failure the page lost the message or its pending answer")
	}

	// Opening the stream again shows the failure again: only Retry calls
	// the model again.
	if doc := final(t, john.stream(id)); doc.Find(`[data-testid="answer-failed"]`).Length() != 1 {
		t.Errorf("a reopened stream after a failure shows %q, want the failure", doc.Text())
	}
	if got := len(fake.Requests()); got != 1 {
		t.Errorf("the model got %d calls before Retry, want 1", got)
	}
	fake.Reply("Here are **three** hotels in Lisbon.")
	resp, body := john.hx("GET", retry, nil) // Retry starts the new try
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `sse-connect="/chat/`+id+`/stream"`) {
		t.Fatalf("retry: %d %s", resp.StatusCode, body)
	}
	doc = final(t, john.stream(id))
	if got := doc.Find(`[data-testid="answer"] strong`).Text(); got != "three" {
		t.Errorf("retried answer's Markdown: strong = %q", got)
	}
	var users int64
	e.store.DB().Model(&models.Message{}).Where("session_id = ? AND role = ?", id, "user").Count(&users)
	if users != 1 {
		t.Errorf("%d user messages stored, want 1", users)
	}
}

// TestChatBlockedWrite checks the quiet notice of a refused memory write.
func TestChatBlockedWrite(t *testing.T) {
	t.Parallel()
	fake := fakeopenai.New(t)
	e := newEnvWith(t, envOptions{provider: openai.New(openai.Config{BaseURL: fake.URL(), APIKey: "k", Model: "m", MaxRetries: openai.NoRetries})})
	john := e.signIn("john@example.com")
	id := john.newChat()
	fake.ToolCall("save_memory_note", `{"text":"Card is 4111 1111 1111 1111","keywords":["card"],"scope":"durable"}`)
	fake.Reply("I will not keep card numbers.")
	john.send(id, "My card is 4111 1111 1111 1111, remember it")
	doc := final(t, john.stream(id))
	notice := doc.Find(`[data-testid="blocked-notice"]`).Text()
	if !strings.Contains(notice, "never stores payment card numbers") {
		t.Errorf("notice %q", notice)
	}
	if strings.Contains(doc.Text(), "4111") && strings.Contains(notice, "4111") {
		t.Error("the notice echoes the refused text")
	}
	if doc.Find(`[data-testid="memory-chip"]`).Length() != 0 {
		t.Error("a refused note shows as saved")
	}
}

// TestChatRoutesAccess checks who reaches what.
func TestChatRoutesAccess(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	john := e.signIn("john@example.com")
	id := john.newChat()
	john.send(id, "Remember that I am vegetarian")
	doc := final(t, john.stream(id))
	undo, _ := doc.Find(`[data-testid="chip-undo"]`).Attr("hx-post")

	priya := e.signIn("priya@example.com")
	// Her stream of his conversation is refused inside the stream (an error
	// status would make the browser reconnect forever) and runs nothing.
	if doc := final(t, priya.stream(id)); !strings.Contains(doc.Text(), "no longer available") || strings.Contains(doc.Text(), "vegetarian") {
		t.Errorf("another traveler's stream: %q", doc.Text())
	}
	for _, tc := range []struct{ method, path string }{
		{"GET", "/chat/" + id},
		{"GET", "/chat/" + id + "/pending"},
		{"POST", "/chat/" + id + "/messages"},
		{"POST", undo},
		{"POST", "/chat/" + id + "/end"},
		{"GET", "/chat/" + id + "/outcome"},
	} {
		if resp, _ := priya.hx(tc.method, tc.path, url.Values{"content": {"hi"}}); resp.StatusCode != http.StatusNotFound {
			t.Errorf("another traveler: %s %s = %d, want 404", tc.method, tc.path, resp.StatusCode)
		}
	}
	support := e.signIn("support@example.com")
	for _, path := range []string{"/chat", "/chat/" + id, "/memory", "/memory/export"} {
		if status, _, _ := support.get(path); status != http.StatusForbidden {
			t.Errorf("support GET %s = %d, want 403", path, status)
		}
	}
	anon := e.browser()
	for _, path := range []string{"/chat", "/chat/" + id + "/stream", "/memory"} {
		if status, _, _ := anon.get(path); status != http.StatusSeeOther {
			t.Errorf("anonymous GET %s = %d, want a redirect to sign in", path, status)
		}
	}
	if resp, _ := john.hx("POST", "/chat/"+id+"/messages", url.Values{"content": {"  "}}); resp.StatusCode != http.StatusUnprocessableEntity {
		t.Errorf("empty message = %d, want 422", resp.StatusCode)
	}
	resp := john.post("/chat/"+id+"/end", url.Values{}) // no CSRF token
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("end without CSRF = %d, want 403", resp.StatusCode)
	}
}

// TestChatIndex resumes the open conversation or welcomes.
func TestChatIndex(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	priya := e.signIn("priya@example.com")
	status, body, _ := priya.get("/chat")
	if status != http.StatusOK || parseHTML(t, body).Find(`[data-testid="chat-welcome"]`).Length() != 1 {
		t.Fatalf("first visit: %d, want the welcome", status)
	}
	id := priya.newChat()
	resp, err := priya.client.Get(e.srv.URL + "/chat")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || loc != "/chat/"+id {
		t.Errorf("with an open conversation /chat = %d → %q, want it resumed", resp.StatusCode, loc)
	}
	_, body, _ = priya.get("/chat/" + id)
	doc := parseHTML(t, body)
	if doc.Find(`[data-testid="session-link"][aria-current="page"]`).Length() != 1 {
		t.Error("the session list does not mark the current conversation")
	}
	if doc.Find(`label[for="message"]`).Length() != 1 {
		t.Error("the message box has no label")
	}
}

// TestStreamRefusalsAreEvents checks a stream that cannot run still answers
// 200 with a final event, so the browser's SSE client stops instead of
// reconnecting forever.
func TestStreamRefusalsAreEvents(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for name, client := range map[string]*http.Client{"signed out": http.DefaultClient} {
		t.Run(name, func(t *testing.T) {
			req, _ := http.NewRequest("GET", e.srv.URL+"/chat/"+strings.Repeat("a", 26)+"/stream", nil)
			req.Header.Set("Accept", "text/event-stream")
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body := make([]byte, 4096)
			n, _ := io.ReadAtLeast(resp.Body, body, 1)
			for n < len(body) && !strings.Contains(string(body[:n]), "event: done") {
				m, err := resp.Body.Read(body[n:])
				n += m
				if err != nil {
					break
				}
			}
			if resp.StatusCode != http.StatusOK || !strings.Contains(string(body[:n]), "event: done") || !strings.Contains(string(body[:n]), "signed out") {
				t.Errorf("status %d body %q", resp.StatusCode, body[:n])
			}
		})
	}
	john := e.signIn("john@example.com")
	events := john.stream(strings.Repeat("b", 26))
	doc := final(t, events)
	if !strings.Contains(doc.Text(), "no longer available") {
		t.Errorf("unknown conversation: %q", doc.Text())
	}
}
