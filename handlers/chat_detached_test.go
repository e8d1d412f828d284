package handlers_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"concierge/agent/openai"
	"concierge/agent/openai/fakeopenai"
	"concierge/models"
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
	sc.Buffer(make([]byte, 1<<20), 1<<20)
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
