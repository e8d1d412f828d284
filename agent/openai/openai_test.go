package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"concierge/agent"
	"concierge/agent/openai"
	"concierge/agent/openai/fakeopenai"
	"concierge/memory"
)

// newProvider returns a provider talking to fake; change adjusts the config.
func newProvider(t testing.TB, fake *fakeopenai.Server, change func(*openai.Config)) *openai.Provider {
	t.Helper()
	cfg := openai.Config{APIKey: "test-key", BaseURL: fake.URL(), Model: "test-model", Timeout: 5 * time.Second}
	if change != nil {
		change(&cfg)
	}
	return openai.New(cfg)
}

// modes runs f non-streaming and streaming.
func modes(t *testing.T, f func(t *testing.T, stream bool)) {
	t.Helper()
	for _, stream := range []bool{false, true} {
		name := "plain"
		if stream {
			name = "stream"
		}
		t.Run(name, func(t *testing.T) { f(t, stream) })
	}
}

// deltas collects streamed text; its callback is nil when not streaming.
type deltas struct {
	mu     sync.Mutex
	pieces []string
}

func (d *deltas) callback(stream bool) func(string) {
	if !stream {
		return nil
	}
	return func(s string) {
		d.mu.Lock()
		defer d.mu.Unlock()
		d.pieces = append(d.pieces, s)
	}
}

// saveTool is the product's own tool, so the fake checks its strict schema
// as the real API would.
var saveTool = memory.SaveNoteTool()

func userRequest(text string) agent.Request {
	return agent.Request{
		Instructions: "You are a travel concierge.",
		Messages:     []memory.Message{{Role: memory.RoleUser, Content: text}},
	}
}

func TestCompleteText(t *testing.T) {
	modes(t, func(t *testing.T, stream bool) {
		fake := fakeopenai.New(t)
		fake.Enqueue(fakeopenai.Response{Content: "Hello there, dear traveler", Usage: &fakeopenai.Usage{PromptTokens: 12, CompletionTokens: 5}})
		p := newProvider(t, fake, nil)
		var d deltas

		got, err := p.Complete(context.Background(), userRequest("Hi"), d.callback(stream))
		if err != nil {
			t.Fatalf("Complete: %v", err)
		}
		want := agent.Response{Content: "Hello there, dear traveler", Usage: agent.Usage{PromptTokens: 12, CompletionTokens: 5}, FinishReason: "stop"}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("response = %+v, want %+v", got, want)
		}
		if stream {
			if len(d.pieces) < 2 {
				t.Errorf("got %d deltas, want several", len(d.pieces))
			}
			if joined := strings.Join(d.pieces, ""); joined != want.Content {
				t.Errorf("deltas join to %q, want %q", joined, want.Content)
			}
		}

		reqs := fake.Requests()
		if len(reqs) != 1 {
			t.Fatalf("fake got %d requests, want 1", len(reqs))
		}
		r := reqs[0]
		if r.Stream != stream {
			t.Errorf("stream = %v, want %v", r.Stream, stream)
		}
		if gotUsage := r.StreamOptions != nil && r.StreamOptions.IncludeUsage; gotUsage != stream {
			t.Errorf("stream_options.include_usage = %v, want %v", gotUsage, stream)
		}
		wantMsgs := []fakeopenai.Message{{Role: "system", Content: "You are a travel concierge."}, {Role: "user", Content: "Hi"}}
		if !reflect.DeepEqual(r.Messages, wantMsgs) {
			t.Errorf("messages = %+v, want %+v", r.Messages, wantMsgs)
		}
		if r.APIKey != "test-key" {
			t.Errorf("api key = %q, want test-key", r.APIKey)
		}
	})
}

func TestToolCallRoundTrip(t *testing.T) {
	modes(t, func(t *testing.T, stream bool) {
		fake := fakeopenai.New(t)
		args1 := `{"text":"Prefers aisle seats","keywords":["seat","aisle"],"scope":"durable"}`
		args2 := `{"text":"Vegetarian","keywords":["diet"],"scope":"durable"}`
		fake.ToolCalls(
			fakeopenai.ToolCall{ID: "call_a", Function: fakeopenai.FunctionCall{Name: memory.SaveNoteToolName, Arguments: args1}},
			fakeopenai.ToolCall{ID: "call_b", Function: fakeopenai.FunctionCall{Name: memory.SaveNoteToolName, Arguments: args2}},
		)
		fake.Reply("Noted: aisle seats and vegetarian meals.")
		p := newProvider(t, fake, nil)
		var d deltas

		req := userRequest("I like aisle seats and I'm vegetarian.")
		req.Tools = []memory.Tool{saveTool}
		first, err := p.Complete(context.Background(), req, d.callback(stream))
		if err != nil {
			t.Fatalf("first Complete: %v", err)
		}
		wantCalls := []memory.ToolCall{
			{ID: "call_a", Name: memory.SaveNoteToolName, Arguments: args1},
			{ID: "call_b", Name: memory.SaveNoteToolName, Arguments: args2},
		}
		if !reflect.DeepEqual(first.ToolCalls, wantCalls) {
			t.Fatalf("tool calls = %+v, want %+v", first.ToolCalls, wantCalls)
		}
		if first.Content != "" {
			t.Errorf("content = %q, want none", first.Content)
		}

		req.Messages = append(req.Messages,
			memory.Message{Role: memory.RoleAssistant, ToolCalls: first.ToolCalls},
			memory.Message{Role: memory.RoleTool, ToolCallID: "call_a", Content: `{"saved":true}`},
			memory.Message{Role: memory.RoleTool, ToolCallID: "call_b", Content: `{"saved":true}`},
		)
		second, err := p.Complete(context.Background(), req, d.callback(stream))
		if err != nil {
			t.Fatalf("second Complete: %v", err)
		}
		if second.Content != "Noted: aisle seats and vegetarian meals." || len(second.ToolCalls) != 0 {
			t.Errorf("second response = %+v", second)
		}

		reqs := fake.Requests()
		if len(reqs) != 2 {
			t.Fatalf("fake got %d requests, want 2", len(reqs))
		}
		wantMsgs := []fakeopenai.Message{
			{Role: "system", Content: "You are a travel concierge."},
			{Role: "user", Content: "I like aisle seats and I'm vegetarian."},
			{Role: "assistant", ToolCalls: []fakeopenai.ToolCall{
				{ID: "call_a", Type: "function", Function: fakeopenai.FunctionCall{Name: memory.SaveNoteToolName, Arguments: args1}},
				{ID: "call_b", Type: "function", Function: fakeopenai.FunctionCall{Name: memory.SaveNoteToolName, Arguments: args2}},
			}},
			{Role: "tool", ToolCallID: "call_a", Content: `{"saved":true}`},
			{Role: "tool", ToolCallID: "call_b", Content: `{"saved":true}`},
		}
		if !reflect.DeepEqual(reqs[1].Messages, wantMsgs) {
			t.Errorf("second request messages =\n%+v\nwant\n%+v", reqs[1].Messages, wantMsgs)
		}
		for i, r := range reqs {
			assertTools(t, i, r)
		}
	})
}

// assertTools checks the request carries saveTool as a strict function
// tool with tool_choice auto.
func assertTools(t *testing.T, i int, r fakeopenai.ChatRequest) {
	t.Helper()
	if len(r.Tools) != 1 {
		t.Fatalf("request %d: %d tools, want 1", i, len(r.Tools))
	}
	tool := r.Tools[0]
	if tool.Type != "function" || tool.Function.Name != saveTool.Name || tool.Function.Description != saveTool.Description {
		t.Errorf("request %d: tool = %+v", i, tool)
	}
	if tool.Function.Strict == nil || !*tool.Function.Strict {
		t.Errorf("request %d: strict = %v, want true", i, tool.Function.Strict)
	}
	wantParams, _ := json.Marshal(saveTool.Parameters)
	gotParams, _ := json.Marshal(tool.Function.Parameters)
	if string(gotParams) != string(wantParams) {
		t.Errorf("request %d: parameters = %s, want %s", i, gotParams, wantParams)
	}
	if string(r.ToolChoice) != `"auto"` {
		t.Errorf("request %d: tool_choice = %s, want \"auto\"", i, r.ToolChoice)
	}
}

func TestMalformedToolArgumentsPassThrough(t *testing.T) {
	modes(t, func(t *testing.T, stream bool) {
		fake := fakeopenai.New(t)
		broken := `{"text": "Likes window seats", "keywords": ["seat",`
		fake.ToolCall(memory.SaveNoteToolName, broken)
		fake.Reply("Sorry, let me try again.")
		p := newProvider(t, fake, nil)
		var d deltas

		req := userRequest("Window seat please.")
		req.Tools = []memory.Tool{saveTool}
		res, err := p.Complete(context.Background(), req, d.callback(stream))
		if err != nil {
			t.Fatalf("Complete: %v", err)
		}
		if len(res.ToolCalls) != 1 || res.ToolCalls[0].Arguments != broken || res.ToolCalls[0].ID == "" {
			t.Fatalf("tool calls = %+v, want one with arguments %q", res.ToolCalls, broken)
		}

		// The agent answers with an error tool result; the history still goes out.
		req.Messages = append(req.Messages,
			memory.Message{Role: memory.RoleAssistant, ToolCalls: res.ToolCalls},
			memory.Message{Role: memory.RoleTool, ToolCallID: res.ToolCalls[0].ID, Content: `{"error":"arguments are not valid JSON"}`},
		)
		if _, err := p.Complete(context.Background(), req, d.callback(stream)); err != nil {
			t.Fatalf("Complete after error result: %v", err)
		}
		sent := fake.Requests()[1].Messages[2].ToolCalls[0].Function.Arguments
		if sent != broken {
			t.Errorf("arguments sent back = %q, want %q", sent, broken)
		}
	})
}

func TestErrors(t *testing.T) {
	const secret = "my passport number is X1234567"
	tests := []struct {
		name          string
		script        func(*fakeopenai.Server)
		wantKind      string
		wantStatus    int
		wantRetryable bool
	}{
		{"429", func(f *fakeopenai.Server) { f.Fail(http.StatusTooManyRequests, "") }, openai.KindRateLimited, 429, true},
		{"quota", func(f *fakeopenai.Server) {
			f.Fail(http.StatusTooManyRequests, `{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}`)
		}, openai.KindRateLimited, 429, false},
		{"500", func(f *fakeopenai.Server) { f.Fail(http.StatusInternalServerError, "") }, openai.KindUpstream, 500, true},
		{"503 plain text body", func(f *fakeopenai.Server) { f.Fail(http.StatusServiceUnavailable, "upstream connect error") }, openai.KindUpstream, 503, true},
		{"401", func(f *fakeopenai.Server) { f.Fail(http.StatusUnauthorized, "") }, openai.KindAuth, 401, false},
		{"403", func(f *fakeopenai.Server) { f.Fail(http.StatusForbidden, "") }, openai.KindAuth, 403, false},
		{"400", func(f *fakeopenai.Server) {
			f.Fail(http.StatusBadRequest, `{"error":{"message":"This model's maximum context length is 10 tokens: `+secret+`","type":"invalid_request_error","code":"context_length_exceeded"}}`)
		}, openai.KindBadRequest, 400, false},
		{"404 model", func(f *fakeopenai.Server) { f.Fail(http.StatusNotFound, "") }, openai.KindBadRequest, 404, false},
		{"invalid body", func(f *fakeopenai.Server) { f.Invalid(`{"id": "chatcmpl-1", "choices": [`) }, openai.KindUpstream, 0, true},
		{"no choices", func(f *fakeopenai.Server) { f.Invalid(`{"id":"x","object":"chat.completion","choices":[]}`) }, openai.KindUpstream, 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			modes(t, func(t *testing.T, stream bool) {
				fake := fakeopenai.New(t)
				tc.script(fake)
				p := newProvider(t, fake, func(c *openai.Config) { c.MaxRetries = openai.NoRetries })
				var d deltas

				_, err := p.Complete(context.Background(), userRequest(secret), d.callback(stream))
				assertError(t, err, tc.wantKind, tc.wantStatus, tc.wantRetryable)
				if err != nil && strings.Contains(err.Error(), "X1234567") {
					t.Errorf("error %q leaks message content", err)
				}
				if n := len(fake.Requests()); n != 1 {
					t.Errorf("fake got %d requests, want 1 (no retries)", n)
				}
			})
		})
	}
}

func assertError(t *testing.T, err error, kind string, status int, retryable bool) *openai.Error {
	t.Helper()
	var e *openai.Error
	if !errors.As(err, &e) {
		t.Fatalf("error = %v (%T), want *openai.Error", err, err)
	}
	if e.Kind != kind || e.Status != status || e.Retryable != retryable {
		t.Errorf("error = {Kind:%s Status:%d Retryable:%v}, want {Kind:%s Status:%d Retryable:%v}", e.Kind, e.Status, e.Retryable, kind, status, retryable)
	}
	if e.Message == "" {
		t.Errorf("error has no user message")
	}
	return e
}

func TestErrorKeepsCauseAndCode(t *testing.T) {
	fake := fakeopenai.New(t)
	fake.Fail(http.StatusBadRequest, `{"error":{"message":"too long","type":"invalid_request_error","code":"context_length_exceeded"}}`)
	p := newProvider(t, fake, func(c *openai.Config) { c.MaxRetries = openai.NoRetries })

	_, err := p.Complete(context.Background(), userRequest("Hi"), nil)
	e := assertError(t, err, openai.KindBadRequest, 400, false)
	if !strings.Contains(e.Message, "context_length_exceeded") {
		t.Errorf("message = %q, want the error code in it", e.Message)
	}
	if errors.Unwrap(e) == nil {
		t.Errorf("Unwrap() = nil, want the client's error")
	}
}

func TestConnectionRefused(t *testing.T) {
	p := openai.New(openai.Config{BaseURL: "http://127.0.0.1:1/v1", Model: "m", MaxRetries: openai.NoRetries, Timeout: 2 * time.Second})
	_, err := p.Complete(context.Background(), userRequest("Hi"), nil)
	assertError(t, err, openai.KindUpstream, 0, true)
}

func TestStreamErrors(t *testing.T) {
	tests := []struct {
		name string
		body string
	}{
		{"broken chunk", "data: {\"id\":\"x\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\n\n"},
		{"error event", "data: {\"error\":{\"message\":\"overloaded\",\"type\":\"server_error\"}}\n\n"},
		{"cut off", "data: {\"id\":\"x\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}]}\n\n"},
		{"no events", "\n"},
		{"another completion midway", "data: {\"id\":\"a\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}]}\n\n" +
			"data: {\"id\":\"b\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo\"},\"finish_reason\":\"stop\"}]}\n\n"},
		{"tool call out of order", "data: {\"id\":\"a\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":5,\"id\":\"c\",\"function\":{\"name\":\"save_note\"}}]},\"finish_reason\":\"tool_calls\"}]}\n\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fake := fakeopenai.New(t)
			fake.Enqueue(fakeopenai.Response{Status: http.StatusOK, Body: tc.body})
			p := newProvider(t, fake, func(c *openai.Config) { c.MaxRetries = openai.NoRetries })
			_, err := p.Complete(context.Background(), userRequest("Hi"), func(string) {})
			assertError(t, err, openai.KindUpstream, 0, true)
		})
	}
}

func TestRetries(t *testing.T) {
	t.Run("500 then success", func(t *testing.T) {
		fake := fakeopenai.New(t)
		fake.Fail(http.StatusInternalServerError, "")
		fake.Reply("recovered")
		p := newProvider(t, fake, func(c *openai.Config) { c.MaxRetries = 1 })

		start := time.Now()
		res, err := p.Complete(context.Background(), userRequest("Hi"), nil)
		if err != nil {
			t.Fatalf("Complete: %v", err)
		}
		if res.Content != "recovered" {
			t.Errorf("content = %q, want recovered", res.Content)
		}
		reqs := fake.Requests()
		if len(reqs) != 2 || reqs[0].Attempt != 0 || reqs[1].Attempt != 1 {
			t.Errorf("fake got %d requests (attempts %v), want attempts 0 and 1", len(reqs), attempts(reqs))
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("retry took %v; the fake's retry-after-ms: 0 should make it immediate", d)
		}
	})
	t.Run("default retries give up", func(t *testing.T) {
		fake := fakeopenai.New(t)
		for range openai.DefaultMaxRetries + 1 {
			fake.Fail(http.StatusTooManyRequests, "")
		}
		p := newProvider(t, fake, nil)
		_, err := p.Complete(context.Background(), userRequest("Hi"), func(string) {})
		assertError(t, err, openai.KindRateLimited, 429, true)
		if n := len(fake.Requests()); n != openai.DefaultMaxRetries+1 {
			t.Errorf("fake got %d requests, want %d", n, openai.DefaultMaxRetries+1)
		}
	})
	t.Run("bad request is not retried", func(t *testing.T) {
		fake := fakeopenai.New(t)
		fake.Fail(http.StatusBadRequest, "")
		p := newProvider(t, fake, nil)
		_, err := p.Complete(context.Background(), userRequest("Hi"), nil)
		assertError(t, err, openai.KindBadRequest, 400, false)
		if n := len(fake.Requests()); n != 1 {
			t.Errorf("fake got %d requests, want 1", n)
		}
	})
}

func attempts(reqs []fakeopenai.ChatRequest) []int {
	var out []int
	for _, r := range reqs {
		out = append(out, r.Attempt)
	}
	return out
}

func TestTimeout(t *testing.T) {
	modes(t, func(t *testing.T, stream bool) {
		fake := fakeopenai.New(t)
		fake.Delay(5 * time.Second)
		fake.Reply("too late")
		p := newProvider(t, fake, func(c *openai.Config) { c.Timeout = 200 * time.Millisecond })
		var d deltas

		start := time.Now()
		_, err := p.Complete(context.Background(), userRequest("Hi"), d.callback(stream))
		elapsed := time.Since(start)
		assertError(t, err, openai.KindTimeout, 0, true)
		if elapsed > 2*time.Second {
			t.Errorf("timed out after %v, want about 200ms", elapsed)
		}
		if n := len(fake.Requests()); n != 1 {
			t.Errorf("fake got %d requests, want 1 (the deadline covers retries)", n)
		}
	})
}

func TestCallerCancel(t *testing.T) {
	fake := fakeopenai.New(t)
	fake.Delay(5 * time.Second)
	p := newProvider(t, fake, nil)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)

	_, err := p.Complete(ctx, userRequest("Hi"), nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v, want context.Canceled", err)
	}
	var e *openai.Error
	if errors.As(err, &e) {
		t.Errorf("a caller's cancellation is reported as a model failure: %v", e)
	}
}

func TestCompleteJSON(t *testing.T) {
	schema := map[string]any{"type": "object", "additionalProperties": false,
		"required": []string{"ok"}, "properties": map[string]any{"ok": map[string]any{"type": "boolean"}}}
	req := memory.JSONRequest{Name: "verdict", System: "Answer with one JSON object.", User: `{"global_notes":[]}`, Schema: schema}
	t.Run("strict json_schema at temperature 0", func(t *testing.T) {
		fake := fakeopenai.New(t)
		fake.Reply(`{"ok":true}`)
		p := newProvider(t, fake, func(c *openai.Config) { c.Model = "consolidation-model" })

		got, err := p.CompleteJSON(context.Background(), req)
		if err != nil {
			t.Fatalf("CompleteJSON: %v", err)
		}
		if got != `{"ok":true}` {
			t.Errorf("content = %q", got)
		}
		r := fake.Requests()[0]
		if r.ResponseFormat == nil || r.ResponseFormat.Type != "json_schema" || r.ResponseFormat.JSONSchema == nil {
			t.Fatalf("response_format = %+v, want json_schema", r.ResponseFormat)
		}
		if js := r.ResponseFormat.JSONSchema; js.Name != "verdict" || !js.Strict || !strings.Contains(string(js.Schema), `"additionalProperties":false`) {
			t.Errorf("json_schema = %+v %s, want strict schema named verdict", js, js.Schema)
		}
		if r.Temperature == nil || *r.Temperature != 0 {
			t.Errorf("temperature = %v, want 0", r.Temperature)
		}
		want := []fakeopenai.Message{{Role: "system", Content: "Answer with one JSON object."}, {Role: "user", Content: `{"global_notes":[]}`}}
		if !reflect.DeepEqual(r.Messages, want) {
			t.Errorf("messages = %+v, want %+v", r.Messages, want)
		}
		if r.Model != "consolidation-model" || r.Stream || len(r.Tools) != 0 {
			t.Errorf("request = model %q stream %v tools %d", r.Model, r.Stream, len(r.Tools))
		}
	})
	t.Run("a server refusing json_schema gets json_object from then on", func(t *testing.T) {
		fake := fakeopenai.New(t)
		fake.Handler(func(r fakeopenai.ChatRequest) fakeopenai.Response {
			if r.ResponseFormat != nil && r.ResponseFormat.Type == "json_schema" {
				return fakeopenai.Response{Status: http.StatusBadRequest, Body: `{"error":{"message":"response_format type json_schema is not supported","type":"invalid_request_error","param":"response_format","code":null}}`}
			}
			return fakeopenai.Response{Content: `{"ok":false}`}
		})
		p := newProvider(t, fake, nil)
		for i := range 2 {
			got, err := p.CompleteJSON(context.Background(), req)
			if err != nil || got != `{"ok":false}` {
				t.Fatalf("call %d = %q, %v", i, got, err)
			}
		}
		var formats []string
		for _, r := range fake.Requests() {
			formats = append(formats, r.ResponseFormat.Type)
		}
		if want := []string{"json_schema", "json_object", "json_object"}; !reflect.DeepEqual(formats, want) {
			t.Errorf("response formats sent = %v, want %v", formats, want)
		}
	})
	t.Run("another 400 is not taken for a missing json_schema", func(t *testing.T) {
		fake := fakeopenai.New(t)
		fake.Fail(http.StatusBadRequest, `{"error":{"message":"context too long","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`)
		p := newProvider(t, fake, nil)
		_, err := p.CompleteJSON(context.Background(), req)
		assertError(t, err, openai.KindBadRequest, 400, false)
		if n := len(fake.Requests()); n != 1 {
			t.Errorf("requests = %d, want 1 (no fallback retry)", n)
		}
	})
	t.Run("json_object without the word json is refused like the real API", func(t *testing.T) {
		fake := fakeopenai.New(t)
		p := newProvider(t, fake, nil)
		_, err := p.CompleteJSON(context.Background(), memory.JSONRequest{Name: "x", System: "Consolidate.", User: "notes"})
		assertError(t, err, openai.KindBadRequest, 400, false)
	})
	t.Run("failure", func(t *testing.T) {
		fake := fakeopenai.New(t)
		fake.Fail(http.StatusBadGateway, "")
		p := newProvider(t, fake, func(c *openai.Config) { c.MaxRetries = openai.NoRetries })
		_, err := p.CompleteJSON(context.Background(), req)
		assertError(t, err, openai.KindUpstream, 502, true)
	})
}

func TestRequestShape(t *testing.T) {
	tests := []struct {
		name         string
		cfgModel     string
		req          agent.Request
		wantModel    string
		wantMaxTok   int
		wantMessages int
	}{
		{"config model", "cfg-model", agent.Request{Instructions: "Be brief.", Messages: []memory.Message{{Role: memory.RoleUser, Content: "Hi"}}}, "cfg-model", 0, 2},
		{"model override and max tokens", "cfg-model", agent.Request{Model: "override", MaxTokens: 256, Instructions: "Be brief.", Messages: []memory.Message{{Role: memory.RoleUser, Content: "Hi"}}}, "override", 256, 2},
		{"no instructions, no system message", "cfg-model", agent.Request{Messages: []memory.Message{{Role: memory.RoleUser, Content: "Hi"}}}, "cfg-model", 0, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fake := fakeopenai.New(t)
			p := newProvider(t, fake, func(c *openai.Config) { c.Model = tc.cfgModel })
			if got := p.Name(); got != "openai:"+tc.cfgModel {
				t.Errorf("Name() = %q", got)
			}
			if _, err := p.Complete(context.Background(), tc.req, nil); err != nil {
				t.Fatalf("Complete: %v", err)
			}
			r := fake.Requests()[0]
			if r.Model != tc.wantModel {
				t.Errorf("model = %q, want %q", r.Model, tc.wantModel)
			}
			if r.MaxCompletionTokens != tc.wantMaxTok || r.MaxTokens != 0 {
				t.Errorf("max_completion_tokens = %d, max_tokens = %d, want %d and 0", r.MaxCompletionTokens, r.MaxTokens, tc.wantMaxTok)
			}
			if len(r.Messages) != tc.wantMessages {
				t.Errorf("%d messages, want %d", len(r.Messages), tc.wantMessages)
			}
			var raw map[string]json.RawMessage
			if err := json.Unmarshal(r.Raw, &raw); err != nil {
				t.Fatal(err)
			}
			for _, key := range []string{"tools", "tool_choice", "stream", "stream_options", "response_format"} {
				if _, ok := raw[key]; ok {
					t.Errorf("request has %q, want it absent without tools or streaming", key)
				}
			}
		})
	}
	t.Run("no model at all", func(t *testing.T) {
		fake := fakeopenai.New(t)
		p := newProvider(t, fake, func(c *openai.Config) { c.Model = "" })
		_, err := p.Complete(context.Background(), userRequest("Hi"), nil)
		assertError(t, err, openai.KindBadRequest, 0, false)
		if n := len(fake.Requests()); n != 0 {
			t.Errorf("fake got %d requests, want none", n)
		}
	})
	t.Run("unknown role", func(t *testing.T) {
		fake := fakeopenai.New(t)
		p := newProvider(t, fake, nil)
		_, err := p.Complete(context.Background(), agent.Request{Messages: []memory.Message{{Role: "narrator", Content: "Hi"}}}, nil)
		assertError(t, err, openai.KindBadRequest, 0, false)
	})
}

func TestConcurrentCalls(t *testing.T) {
	fake := fakeopenai.New(t)
	fake.Handler(func(req fakeopenai.ChatRequest) fakeopenai.Response {
		return fakeopenai.Response{Content: "echo " + req.Messages[len(req.Messages)-1].Content}
	})
	p := newProvider(t, fake, nil)
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for i := range 20 {
		wg.Go(func() {
			var d deltas
			msg := fmt.Sprintf("message %d", i)
			res, err := p.Complete(context.Background(), userRequest(msg), d.callback(i%2 == 0))
			switch {
			case err != nil:
				errs <- err
			case res.Content != "echo "+msg:
				errs <- fmt.Errorf("content = %q, want %q", res.Content, "echo "+msg)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := len(fake.Requests()); n != 20 {
		t.Errorf("fake recorded %d requests, want 20", n)
	}
}
