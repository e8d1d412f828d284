package handlers_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"concierge/agent"
	"concierge/agent/openai"
	"concierge/agent/openai/fakeopenai"
	"concierge/handlers"
	"concierge/models"
	"concierge/models/dbtest"
)

// sseMsg is one server-sent event with its id.
type sseMsg struct{ id, name, data string }

// sseConn is an open answer stream read one event at a time, as a browser's
// EventSource reads it.
type sseConn struct {
	t    *testing.T
	resp *http.Response
	sc   *bufio.Scanner
}

// openStream opens the conversation's stream, resuming after lastEventID
// when it is not empty (what EventSource sends when it reconnects).
func (tr *traveler) openStream(id, lastEventID string) *sseConn {
	tr.e.t.Helper()
	req, _ := http.NewRequest("GET", tr.e.srv.URL+"/chat/"+id+"/stream", nil)
	req.Header.Set("Accept", "text/event-stream")
	if lastEventID != "" {
		req.Header.Set("Last-Event-ID", lastEventID)
	}
	resp, err := tr.client.Do(req)
	if err != nil {
		tr.e.t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		resp.Body.Close()
		tr.e.t.Fatalf("stream: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	return &sseConn{t: tr.e.t, resp: resp, sc: sc}
}

// next returns the next event; ok is false when the stream ended.
func (s *sseConn) next() (ev sseMsg, ok bool) {
	var data []string
	for s.sc.Scan() {
		line := s.sc.Text()
		switch {
		case line == "":
			if ev.name == "" && data == nil {
				ev = sseMsg{}
				continue // a retry-only block, or a comment
			}
			ev.data = strings.Join(data, "\n")
			return ev, true
		case strings.HasPrefix(line, "id: "):
			ev.id = strings.TrimPrefix(line, "id: ")
		case strings.HasPrefix(line, "event: "):
			ev.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			data = append(data, strings.TrimPrefix(line, "data: "))
		}
	}
	return ev, false
}

// untilDone reads to the done event and returns the events before it, the
// text they carried and the done event.
func (s *sseConn) untilDone() (events []sseMsg, text string, done sseMsg) {
	s.t.Helper()
	defer s.close()
	var b strings.Builder
	for {
		ev, ok := s.next()
		if !ok {
			s.t.Fatalf("stream ended without a done event after %d events", len(events))
		}
		switch ev.name {
		case "done":
			return events, b.String(), ev
		case "delta":
			b.WriteString(ev.data)
		case "text":
			b.Reset()
			b.WriteString(ev.data)
		}
		events = append(events, ev)
	}
}

// close hangs up, as a browser tab that goes away.
func (s *sseConn) close() { s.resp.Body.Close() }

// newTravelers creates n travelers (password "demo") and signs each in.
func newTravelers(e *env, n int) []*traveler {
	e.t.Helper()
	out := make([]*traveler, n)
	for i := range out {
		email := fmt.Sprintf("t%02d@example.com", i)
		if _, err := e.store.CreateUser(context.Background(), email, fmt.Sprintf("Traveler %d", i), models.RoleTraveler, "demo"); err != nil {
			e.t.Fatal(err)
		}
		out[i] = e.signIn(email)
	}
	return out
}

// slowAnswer is what the fake model says, a word every delay.
const slowAnswer = "Lisbon has fine small hotels near the river and the old town, and most of them have rooms this week."

func slowModel(t *testing.T, delay time.Duration) (*fakeopenai.Server, *openai.Provider) {
	fake := fakeopenai.New(t)
	fake.Handler(func(fakeopenai.ChatRequest) fakeopenai.Response {
		return fakeopenai.Response{Content: slowAnswer, ChunkDelay: delay}
	})
	return fake, openai.New(openai.Config{BaseURL: fake.URL(), APIKey: "k", Model: "m", MaxRetries: openai.NoRetries})
}

// answers returns the session's final answers as stored.
func answers(t *testing.T, store *models.Store, sessionID string) []string {
	t.Helper()
	msgs, err := store.Messages(context.Background(), sessionID)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range msgs {
		if m.Role == "assistant" && m.ToolCalls == "" {
			out = append(out, m.Content)
		}
	}
	return out
}

// waitAnswered polls until every session has an answer.
func waitAnswered(t *testing.T, store *models.Store, ids []string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		missing := 0
		for _, id := range ids {
			if len(answers(t, store, id)) == 0 {
				missing++
			}
		}
		if missing == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d answers were not stored within %s", missing, len(ids), within)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestAnswersSurviveHangUps: twenty browsers send a message, start reading
// the streamed answer and hang up at the first delta. Every answer is still
// stored, once, from exactly one model call each; reopening the streams
// shows the stored answers without calling the model again; and the
// departures are not logged as errors.
func TestAnswersSurviveHangUps(t *testing.T) {
	const n = 20
	fake, provider := slowModel(t, 20*time.Millisecond)
	logs := &lockedBuffer{}
	e := newEnvWith(t, envOptions{provider: provider, logTo: logs})
	travelers := newTravelers(e, n)
	ids := make([]string, n)
	for i, tr := range travelers {
		ids[i] = tr.newChat()
	}
	var wg sync.WaitGroup
	for i, tr := range travelers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tr.send(ids[i], "Find me a hotel in Lisbon")
			s := tr.openStream(ids[i], "")
			for {
				ev, ok := s.next()
				if !ok || ev.name == "delta" || ev.name == "done" {
					break
				}
			}
			s.close()
		}()
	}
	wg.Wait()
	waitAnswered(t, e.store, ids, 20*time.Second)
	for _, id := range ids {
		if got := answers(t, e.store, id); len(got) != 1 || got[0] != slowAnswer {
			t.Errorf("session %s: answers %q, want the one answer", id, got)
		}
	}
	if got := len(fake.Requests()); got != n {
		t.Errorf("the model got %d calls, want %d", got, n)
	}

	// Coming back: the stored answer at once, and no new model call.
	for i, tr := range travelers {
		_, _, done := tr.openStream(ids[i], "").untilDone()
		if got := parseHTML(t, done.data).Find(`[data-testid="answer"]`).Text(); !strings.Contains(got, "Lisbon has fine small hotels") {
			t.Errorf("reopened stream of %s shows %q", ids[i], got)
		}
	}
	if got := len(fake.Requests()); got != n {
		t.Errorf("after reopening, the model got %d calls, want still %d", got, n)
	}
	out := logs.String()
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, `"level":"ERROR"`) || strings.Contains(line, `"level":"WARN"`) {
			t.Errorf("a browser hanging up was logged as a problem: %s", line)
		}
	}
}

// TestTwoTabsWatchOneTurn: two streams of the same conversation both get the
// whole answer, from one model call.
func TestTwoTabsWatchOneTurn(t *testing.T) {
	fake, provider := slowModel(t, 10*time.Millisecond)
	e := newEnvWith(t, envOptions{provider: provider})
	john := e.signIn("john@example.com")
	id := john.newChat()
	john.send(id, "Find me a hotel in Lisbon")
	var wg sync.WaitGroup
	texts := make([]string, 2)
	dones := make([]sseMsg, 2)
	deltas := make([]int, 2)
	for i := range texts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var events []sseMsg
			events, texts[i], dones[i] = john.openStream(id, "").untilDone()
			for _, ev := range events {
				if ev.name == "delta" {
					deltas[i]++
				}
			}
		}()
	}
	wg.Wait()
	for i := range texts {
		if deltas[i] < 2 {
			t.Errorf("tab %d got %d delta events, want the answer streamed in pieces", i, deltas[i])
		}
		if texts[i] != slowAnswer {
			t.Errorf("tab %d streamed %q, want the whole answer", i, texts[i])
		}
		if !strings.Contains(parseHTML(t, dones[i].data).Find(`[data-testid="answer"]`).Text(), "Lisbon has fine") {
			t.Errorf("tab %d: done event without the answer", i)
		}
	}
	if got := len(fake.Requests()); got != 1 {
		t.Errorf("the model got %d calls, want 1", got)
	}
}

// TestStreamResumesAfterReconnect: a stream dropped mid-answer and reopened
// with the last event id it saw gets the rest of the answer, nothing twice.
func TestStreamResumesAfterReconnect(t *testing.T) {
	fake, provider := slowModel(t, 20*time.Millisecond)
	e := newEnvWith(t, envOptions{provider: provider})
	john := e.signIn("john@example.com")
	id := john.newChat()
	john.send(id, "Find me a hotel in Lisbon")

	s := john.openStream(id, "")
	var first strings.Builder
	lastID := ""
	for deltas := 0; deltas < 3; {
		ev, ok := s.next()
		if !ok || ev.name == "done" {
			t.Fatal("the answer ended before the reconnect")
		}
		switch ev.name {
		case "text": // the text so far, when the stream opened late
			first.Reset()
			first.WriteString(ev.data)
			lastID = ev.id
		case "delta":
			deltas++
			first.WriteString(ev.data)
			lastID = ev.id
		}
	}
	s.close()
	if lastID == "" {
		t.Fatal("delta events carry no id, so EventSource cannot resume")
	}
	events, rest, done := john.openStream(id, lastID).untilDone()
	for _, ev := range events {
		if ev.name != "delta" {
			t.Errorf("resumed stream sent a %q event, want only the missing deltas", ev.name)
		}
	}
	if got := first.String() + rest; got != slowAnswer {
		t.Errorf("text before and after the reconnect:\n%q\n+ %q\nwant %q", first.String(), rest, slowAnswer)
	}
	if !strings.Contains(parseHTML(t, done.data).Find(`[data-testid="answer"]`).Text(), "Lisbon has fine") {
		t.Error("resumed stream's done event lacks the answer")
	}
	if got := len(fake.Requests()); got != 1 {
		t.Errorf("the model got %d calls, want 1", got)
	}
}

// TestStaleEventIDReplacesText: a stream reopened with an event id of
// another run (a restart, an older try) cannot place the browser's text, so
// it first replaces it with the text so far, then streams the rest.
func TestStaleEventIDReplacesText(t *testing.T) {
	_, provider := slowModel(t, 20*time.Millisecond)
	e := newEnvWith(t, envOptions{provider: provider})
	john := e.signIn("john@example.com")
	id := john.newChat()
	john.send(id, "Find me a hotel in Lisbon")
	first := john.openStream(id, "")
	defer first.close()
	for deltas := 0; deltas < 2; {
		ev, ok := first.next()
		if !ok || ev.name == "done" {
			t.Fatal("the answer ended too soon")
		}
		if ev.name == "delta" || ev.name == "text" {
			deltas++
		}
	}
	events, text, _ := john.openStream(id, "anotherrun-1.12").untilDone()
	if len(events) == 0 || events[0].name != "text" || !strings.HasPrefix(slowAnswer, events[0].data) || events[0].data == "" {
		t.Fatalf("first event %+v, want the text so far as a text event", events[:min(1, len(events))])
	}
	if text != slowAnswer {
		t.Errorf("replaced and resumed text %q, want %q", text, slowAnswer)
	}
}

// TestModelQueueFull: with one model place and no queue, a second message
// while a turn runs is refused with 503 and Retry-After, and not stored —
// through the API and through the chat form.
func TestModelQueueFull(t *testing.T) {
	fake := fakeopenai.New(t)
	fake.Handler(func(fakeopenai.ChatRequest) fakeopenai.Response {
		return fakeopenai.Response{Content: "Noted.", Delay: 700 * time.Millisecond}
	})
	provider := openai.New(openai.Config{BaseURL: fake.URL(), APIKey: "k", Model: "m", MaxRetries: openai.NoRetries})
	e := newEnvWith(t, envOptions{provider: provider, cfg: func(c *handlers.Config) {
		c.Turns = agent.RunnerConfig{Concurrency: 1, Queue: -1, RetryAfter: 3 * time.Second}
	}})
	john := e.signIn("john@example.com")
	busy := john.newChat()
	john.send(busy, "Find me a hotel in Lisbon") // holds the one place

	token := e.token("priya@example.com")
	_, out := e.apiCall("POST", "/api/v1/sessions", token, "")
	session := out["id"].(string)
	req, _ := http.NewRequest("POST", e.srv.URL+"/api/v1/sessions/"+session+"/messages", strings.NewReader(`{"content":"Hello"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") != "3" || !strings.Contains(string(body), `"overloaded"`) {
		t.Errorf("API send with the queue full = %d, Retry-After %q, %s; want 503, 3, overloaded", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	if n := len(answers(t, e.store, session)); n != 0 {
		t.Error("an answer appeared")
	}
	if msgs, _ := e.store.Messages(context.Background(), session); len(msgs) != 0 {
		t.Errorf("%d messages stored for a refused send, want none", len(msgs))
	}

	other := john.newChat()
	r, _ := john.hx("POST", "/chat/"+other+"/messages", url.Values{"content": {"And in Porto?"}})
	if r.StatusCode != http.StatusServiceUnavailable || r.Header.Get("Retry-After") == "" || r.Header.Get("HX-Retarget") != "#flash" {
		t.Errorf("chat send with the queue full = %d (Retry-After %q, retarget %q), want 503 into #flash", r.StatusCode, r.Header.Get("Retry-After"), r.Header.Get("HX-Retarget"))
	}
	if msgs, _ := e.store.Messages(context.Background(), other); len(msgs) != 0 {
		t.Errorf("%d messages stored for a refused chat send, want none", len(msgs))
	}

	// Once the running turn is done there is room again.
	waitAnswered(t, e.store, []string{busy}, 10*time.Second)
	deadline := time.Now().Add(5 * time.Second)
	for {
		status, out := e.apiCall("POST", "/api/v1/sessions/"+session+"/messages", token, `{"content":"Hello"}`)
		if status == http.StatusOK {
			break
		}
		if status != http.StatusServiceUnavailable || time.Now().After(deadline) {
			t.Fatalf("send after the turn finished = %d %v", status, out)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestStreamCaps: a traveler's streams beyond the cap end at once with a
// clear message and Retry, and a client that stops reading loses its stream
// after the write deadline instead of holding its place.
func TestStreamCaps(t *testing.T) {
	fake, provider := slowModel(t, 150*time.Millisecond)
	e := newEnvWith(t, envOptions{provider: provider, cfg: func(c *handlers.Config) {
		c.MaxStreamsPerUser = 2
		c.StreamWriteTimeout = 300 * time.Millisecond
	}})
	john := e.signIn("john@example.com")
	id := john.newChat()
	john.send(id, "Find me a hotel in Lisbon")
	a, b := john.openStream(id, ""), john.openStream(id, "")
	defer a.close()
	defer b.close()
	_, _, done := john.openStream(id, "").untilDone()
	doc := parseHTML(t, done.data)
	if !strings.Contains(doc.Text(), "Too many windows") || doc.Find(`[data-testid="retry"]`).Length() != 1 {
		t.Errorf("third stream: %q, want a clear refusal with Retry", doc.Text())
	}
	// Another traveler is not affected.
	priya := e.signIn("priya@example.com")
	pid := priya.newChat()
	priya.send(pid, "Hello")
	if _, text, _ := priya.openStream(pid, "").untilDone(); text != slowAnswer {
		t.Errorf("another traveler's stream: %q", text)
	}
	a.close()
	b.close()
	waitAnswered(t, e.store, []string{id}, 10*time.Second)
	_ = fake
}

// TestStuckStreamIsCut: a client that opens a stream and stops reading
// fills the connection's buffers; the next event's write deadline then
// ends its stream, which gives its place back, and the answer is stored.
func TestStuckStreamIsCut(t *testing.T) {
	word := strings.Repeat("x", 256<<10) + " "
	big := strings.TrimSpace(strings.Repeat(word, 48)) // 12 MB: more than the socket buffers hold
	fake := fakeopenai.New(t)
	fake.Handler(func(fakeopenai.ChatRequest) fakeopenai.Response {
		return fakeopenai.Response{Content: big, Delay: 300 * time.Millisecond}
	})
	provider := openai.New(openai.Config{BaseURL: fake.URL(), APIKey: "k", Model: "m", MaxRetries: openai.NoRetries})
	e := newEnvWith(t, envOptions{provider: provider, cfg: func(c *handlers.Config) {
		c.MaxStreamsPerUser = 1
		c.StreamWriteTimeout = 300 * time.Millisecond
	}})
	john := e.signIn("john@example.com")
	id := john.newChat()
	john.send(id, "Tell me everything")
	stuck := john.openStream(id, "") // joins the running turn, never read
	defer stuck.close()
	waitAnswered(t, e.store, []string{id}, 20*time.Second)
	if got := answers(t, e.store, id); len(got) != 1 || len(got[0]) != len(big) {
		t.Fatalf("stored %d answers", len(got))
	}
	// The stuck stream is cut within its write deadline, freeing the
	// traveler's one place for a new stream that gets the answer (sooner
	// than a finished stream's linger would). Only the new stream's first
	// event is read: it is the refusal while the place is held, and
	// reading all 12 MB of the answer would race the write deadline on a
	// busy machine. Even the first event can be the whole answer: a stream
	// cut inside it (its event line read, its data not) was sending the
	// answer, so the place was free. The refusal is a few hundred bytes and
	// is never cut.
	deadline := time.Now().Add(3 * time.Second)
	for {
		s := john.openStream(id, "")
		first, ok := s.next()
		s.close()
		if !ok && first.name == "" {
			t.Fatal("a new stream ended before its first event began")
		}
		if !ok || first.name != "done" || !strings.Contains(first.data, "Too many windows") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the stuck client still holds its stream")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestStreamOnAnotherInstance: two instances on one database. The turn
// runs on the instance that stored the message; a stream opened on the
// other finds the answer lease taken, waits, and shows the stored answer —
// the model is called once.
func TestStreamOnAnotherInstance(t *testing.T) {
	dbtest.Backends(t, func(t *testing.T, store *models.Store) {
		fake, provider := slowModel(t, 40*time.Millisecond)
		one := newEnvWith(t, envOptions{provider: provider, store: store})
		two := newEnvWith(t, envOptions{provider: provider, store: store})
		johnOne, johnTwo := one.signIn("john@example.com"), two.signIn("john@example.com")
		id := johnOne.newChat()
		johnOne.send(id, "Find me a hotel in Lisbon")
		_, _, done := johnTwo.openStream(id, "").untilDone()
		if got := parseHTML(t, done.data).Find(`[data-testid="answer"]`).Text(); !strings.Contains(got, "Lisbon has fine small hotels") {
			t.Errorf("the other instance's stream ended with %q", parseHTML(t, done.data).Text())
		}
		if got := len(fake.Requests()); got != 1 {
			t.Errorf("the model got %d calls, want 1", got)
		}
		if got := answers(t, store, id); len(got) != 1 {
			t.Errorf("%d answers stored, want 1", len(got))
		}
	})
}
