package agent_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"concierge/agent"
	"concierge/agent/openai"
	"concierge/agent/openai/fakeopenai"
	"concierge/memory"
	"concierge/memory/consolidate"
	"concierge/models"
)

// These tests run whole turns through the real openai-go client against an
// OpenAI-compatible fake server, and check what was stored.

func openaiAgent(t *testing.T, fake *fakeopenai.Server, timeout time.Duration) (*agent.Agent, *models.Store, string) {
	t.Helper()
	store, _, sid := seeded(t)
	p := openai.New(openai.Config{BaseURL: fake.URL(), APIKey: "test-key", Model: "gpt-4o-mini", Timeout: timeout, MaxRetries: openai.NoRetries})
	return agent.New(agent.DefaultConfig("gpt-4o-mini"), store, p, quietLog()), store, sid
}

func TestOpenAIToolRoundTrip(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		name := map[bool]string{false: "plain", true: "streaming"}[streaming]
		t.Run(name, func(t *testing.T) {
			fake := fakeopenai.New(t)
			fake.ToolCall(memory.SaveNoteToolName, `{"text":"Prefers window seats on night flights.","keywords":["seat","window"],"scope":"durable"}`)
			fake.Reply("Got it, window seats on night flights from now on.")
			a, store, sid := openaiAgent(t, fake, 10*time.Second)
			var deltas strings.Builder
			var onDelta func(string)
			if streaming {
				onDelta = func(s string) { deltas.WriteString(s) }
			}
			res, err := a.Turn(ctx, sid, "I always take a window seat on night flights", onDelta)
			if err != nil {
				t.Fatalf("Turn: %v", err)
			}
			if streaming && deltas.String() != res.Reply {
				t.Errorf("streamed %q, reply %q", deltas.String(), res.Reply)
			}
			if len(res.Saved) != 1 || res.Saved[0].Scope != memory.ScopeDurable {
				t.Fatalf("saved %+v, want one durable note", res.Saved)
			}
			notes, _ := store.SessionNotes(ctx, sid)
			if len(notes) != 1 || notes[0].Text != "Prefers window seats on night flights." {
				t.Errorf("stored session notes %+v", notes)
			}
			reqs := fake.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests reached the server, want 2", len(reqs))
			}
			if reqs[0].Stream != streaming || len(reqs[0].Tools) != 3 { // save, update_trip and, with John's notes, forget
				t.Errorf("first request stream=%v tools=%d", reqs[0].Stream, len(reqs[0].Tools))
			}
			second := reqs[1].Messages
			if second[0].Role != "system" || !strings.Contains(second[0].Content, "<memories>") {
				t.Errorf("the instructions are not the system message")
			}
			last := second[len(second)-1]
			if last.Role != "tool" || last.ToolCallID == "" || !strings.Contains(last.Content, `"ok":true`) {
				t.Errorf("last message of round 2 = %+v, want the tool result", last)
			}
			snaps, _ := store.Snapshots(ctx, sid)
			if len(snaps) != 2 || snaps[0].PromptTokens == 0 {
				t.Errorf("%d snapshots (first prompt tokens %d), want 2 with usage", len(snaps), snaps[0].PromptTokens)
			}
		})
	}
}

func TestOpenAIRefusedAndMalformedCalls(t *testing.T) {
	fake := fakeopenai.New(t)
	fake.ToolCalls(
		fakeopenai.ToolCall{Function: fakeopenai.FunctionCall{Name: memory.SaveNoteToolName, Arguments: `{"text":"Passport number X1234567 for bookings.","keywords":["passport"],"scope":"durable"}`}},
		fakeopenai.ToolCall{Function: fakeopenai.FunctionCall{Name: memory.SaveNoteToolName, Arguments: `{"text": "no closing brace"`}},
	)
	fake.Reply("I can't store that, but I'll keep it in mind for now.")
	a, store, sid := openaiAgent(t, fake, 10*time.Second)
	res, err := a.Turn(ctx, sid, "My passport is X1234567, save it", nil)
	if err != nil {
		t.Fatalf("Turn: %v", err)
	}
	if len(res.Saved) != 0 || len(res.Blocked) != 1 || res.Blocked[0] != "passport_number" {
		t.Errorf("saved %v blocked %v; want nothing saved, one passport_number refusal", res.Saved, res.Blocked)
	}
	var leaked int64
	store.DB().Model(&models.Note{}).Where("text LIKE ?", "%X1234567%").Count(&leaked)
	if leaked != 0 {
		t.Error("the refused passport number reached the notes")
	}
	msgs := fake.Requests()[1].Messages
	var results []string
	for _, m := range msgs {
		if m.Role == "tool" {
			results = append(results, m.Content)
		}
	}
	if len(results) != 2 || !strings.Contains(results[0], "refused") || !strings.Contains(results[1], "bad_arguments") {
		t.Errorf("tool results sent back: %v", results)
	}
}

func TestOpenAIFailuresKeepTheMessage(t *testing.T) {
	tests := []struct {
		name     string
		script   func(*fakeopenai.Server)
		timeout  time.Duration
		wantKind string
	}{
		{"rate limited", func(f *fakeopenai.Server) { f.Fail(429, "") }, 10 * time.Second, openai.KindRateLimited},
		{"server error", func(f *fakeopenai.Server) { f.Fail(500, "") }, 10 * time.Second, openai.KindUpstream},
		{"garbage", func(f *fakeopenai.Server) { f.Invalid("{not json") }, 10 * time.Second, openai.KindUpstream},
		{"too slow", func(f *fakeopenai.Server) { f.Delay(3 * time.Second); f.Reply("late") }, 300 * time.Millisecond, openai.KindTimeout},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := fakeopenai.New(t)
			tt.script(fake)
			a, store, sid := openaiAgent(t, fake, tt.timeout)
			start := time.Now()
			_, err := a.Turn(ctx, sid, "Find me a hotel in Porto", nil)
			var me *agent.ModelError
			var oe *openai.Error
			if !errors.As(err, &me) || !errors.As(err, &oe) || oe.Kind != tt.wantKind {
				t.Fatalf("error %v, want a ModelError of kind %s", err, tt.wantKind)
			}
			if elapsed := time.Since(start); elapsed > 2*time.Second+tt.timeout {
				t.Errorf("the failure took %v", elapsed)
			}
			if explained := agent.Explain(err); explained == "" || strings.Contains(explained, "Porto") {
				t.Errorf("explanation %q", explained)
			}
			msgs, _ := store.Messages(ctx, sid)
			if len(msgs) != 1 || msgs[0].Content != "Find me a hotel in Porto" {
				t.Fatalf("transcript after the failure: %+v", msgs)
			}
			fake.Reply("Which dates?") // the server recovers; the same turn is retried
			res, err := a.AnswerPending(ctx, sid, nil)
			if err != nil || res.Reply != "Which dates?" {
				t.Fatalf("retry: %+v, %v", res, err)
			}
			if msgs, _ := store.Messages(ctx, sid); len(msgs) != 2 {
				t.Errorf("after the retry %d messages, want 2", len(msgs))
			}
		})
	}
}

// TestOpenAIConsolidationInventionFallsBack has the consolidation model add
// a fact nobody stated; the validated engine must refuse it and fall back.
func TestOpenAIConsolidationInventionFallsBack(t *testing.T) {
	fake := fakeopenai.New(t)
	store, _, sid := seeded(t)
	scripted := &scripted{steps: []func(agent.Request) (agent.Response, error){
		call(`{"text":"Is vegetarian.","keywords":["diet","vegetarian"],"scope":"durable"}`), reply("Noted."),
	}}
	a := agent.New(agent.DefaultConfig("gpt-4o-mini"), store, scripted, quietLog())
	if _, err := a.Turn(ctx, sid, "I'm vegetarian", nil); err != nil {
		t.Fatal(err)
	}
	session, _ := store.SessionNotes(ctx, sid)
	invented := `{"decisions":[{"note":"` + session[0].ID + `","action":"promote","into":null,"text":"Is vegetarian and loves steakhouses.","keywords":["diet"],"why":"stated"}]}`
	fake.Reply(invented)
	completer := openai.New(openai.Config{BaseURL: fake.URL(), APIKey: "k", Model: "gpt-4o-mini", MaxRetries: openai.NoRetries})
	job, err := store.CloseSession(ctx, sid, "test")
	if err != nil {
		t.Fatal(err)
	}
	w := agent.NewWorker(agent.DefaultWorkerConfig(), store, completer, quietLog())
	if !w.RunOnce(ctx) {
		t.Fatal("no job ran")
	}
	if len(fake.Requests()) != 1 || fake.Requests()[0].ResponseFormat == nil {
		t.Errorf("the consolidation model was not asked for JSON")
	}
	rep, err := store.ReportForJob(ctx, job.ID)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Engine != consolidate.EngineRules || rep.FallbackReason == "" {
		t.Errorf("engine %s fallback %q; want the rules engine with a reason", rep.Engine, rep.FallbackReason)
	}
	global, _ := store.GlobalNotes(ctx, mustJohn(t, store))
	var veg, steak int
	for _, g := range global {
		if strings.Contains(g.Text, "vegetarian") {
			veg++
		}
		if strings.Contains(g.Text, "steak") {
			steak++
		}
	}
	if veg != 1 || steak != 0 {
		t.Errorf("global notes %+v: want the vegetarian note once and no invented steakhouses", global)
	}
}

func mustJohn(t *testing.T, store *models.Store) string {
	t.Helper()
	u, err := store.UserByEmail(ctx, "john@example.com")
	if err != nil {
		t.Fatal(err)
	}
	return u.ID
}
