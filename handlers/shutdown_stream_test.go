package handlers_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"concierge/agent/openai"
	"concierge/agent/openai/fakeopenai"
)

// TestStreamGetsLastEventAtShutdown follows an answer the model is far too
// slow to give while the server shuts down as cmd/concierge does: the drain
// times out, then the server abandons the requests still open. The stream
// does not just stop: its last event is "done" with a bubble that says
// Concierge is restarting (or restarted before it could answer, when the
// drain cancelled the turn first), that the message is saved, and a Retry button
// that asks for the pending message again; the message stays stored,
// unanswered, for the next instance.
func TestStreamGetsLastEventAtShutdown(t *testing.T) {
	fake := fakeopenai.New(t)
	fake.Handler(func(fakeopenai.ChatRequest) fakeopenai.Response {
		return fakeopenai.Response{Content: "Too late.", Delay: 10 * time.Second}
	})
	provider := openai.New(openai.Config{BaseURL: fake.URL(), APIKey: "k", Model: "m", MaxRetries: openai.NoRetries})
	e := newEnvWith(t, envOptions{provider: provider})
	tr := newTravelers(e, 1)[0]
	id := tr.newChat()
	tr.send(id, "Find me a hotel in Porto")
	s := tr.openStream(id, "")
	for deadline := time.Now().Add(10 * time.Second); len(fake.Requests()) == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the turn never reached the model")
		}
	}

	began := time.Now()
	drain, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	drained := make(chan error, 1)
	go func() { drained <- e.server.Drain(drain) }()
	<-drain.Done() // http.Server.Shutdown timed out: answer the requests still open
	e.server.Abandon()
	events, _, done := s.untilDone()
	took := time.Since(began)
	if err := <-drained; err == nil {
		t.Error("Drain returned nil; the turn should have outlasted the drain")
	}

	for _, ev := range events {
		if ev.name == "delta" || ev.name == "text" {
			t.Errorf("the stream sent answer text %q before its last event", ev.data)
		}
	}
	doc := parseHTML(t, done.data)
	failed := doc.Find(`[data-testid="answer-failed"]`)
	// Drained turn or abandoned stream, whichever shutdown reached first:
	// both bubbles say Concierge restarts and the message is saved.
	if failed.Length() != 1 || !strings.Contains(failed.Text(), "restart") || !strings.Contains(failed.Text(), "Your message is saved") {
		t.Fatalf("last event: %q, want the restarting bubble saying the message is saved", done.data)
	}
	if got, _ := doc.Find(`[data-testid="retry"]`).Attr("hx-get"); got != "/chat/"+id+"/pending" {
		t.Errorf("Retry asks for %q, want /chat/%s/pending", got, id)
	}
	if took > 5*time.Second {
		t.Errorf("the last event came %v after shutdown began, want it within the drain and its grace", took)
	}
	msgs, err := e.store.Messages(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	users, finals := 0, 0
	for _, m := range msgs {
		switch {
		case m.Role == "user":
			users++
		case m.Role == "assistant" && m.ToolCalls == "":
			finals++
		}
	}
	if users != 1 || finals != 0 {
		t.Errorf("stored: %d user messages and %d answers, want the message stored once and pending", users, finals)
	}
	t.Logf("last event %v after shutdown began", took.Round(time.Millisecond))
}
