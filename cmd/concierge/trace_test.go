package main

import (
	"bufio"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"concierge/agent/openai/fakeopenai"
	"concierge/memory"
)

// otlpReceiver is an OTLP/HTTP trace receiver in the test: it decodes each
// export request (protobuf) and keeps its spans with their resources.
type otlpReceiver struct {
	srv *httptest.Server

	mu        sync.Mutex
	spans     []*tracepb.Span
	resources [][]*commonpb.KeyValue
	paths     []string
}

func newOTLPReceiver(t *testing.T) *otlpReceiver {
	t.Helper()
	rec := &otlpReceiver{}
	rec.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		var req coltracepb.ExportTraceServiceRequest
		if err == nil {
			err = proto.Unmarshal(body, &req)
		}
		if err != nil || r.Header.Get("Content-Type") != "application/x-protobuf" {
			http.Error(w, "not an OTLP protobuf export", http.StatusBadRequest)
			return
		}
		rec.mu.Lock()
		rec.paths = append(rec.paths, r.URL.Path)
		for _, rs := range req.ResourceSpans {
			rec.resources = append(rec.resources, rs.GetResource().GetAttributes())
			for _, ss := range rs.ScopeSpans {
				rec.spans = append(rec.spans, ss.Spans...)
			}
		}
		rec.mu.Unlock()
		out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(out)
	}))
	t.Cleanup(rec.srv.Close)
	return rec
}

func (r *otlpReceiver) all() []*tracepb.Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.spans)
}

// attr returns a span attribute's value as text ("" when absent).
func attr(s *tracepb.Span, key string) string {
	for _, kv := range s.Attributes {
		if kv.Key == key {
			return anyText(kv.Value)
		}
	}
	return ""
}

func anyText(v *commonpb.AnyValue) string {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_IntValue:
		return fmt.Sprint(x.IntValue)
	case *commonpb.AnyValue_BoolValue:
		return fmt.Sprint(x.BoolValue)
	case *commonpb.AnyValue_DoubleValue:
		return fmt.Sprint(x.DoubleValue)
	case *commonpb.AnyValue_ArrayValue:
		var parts []string
		for _, e := range x.ArrayValue.Values {
			parts = append(parts, anyText(e))
		}
		return strings.Join(parts, ",")
	}
	return v.String()
}

// TestTracesOfOneTurn runs the server with OTEL_EXPORTER_OTLP_ENDPOINT set
// to a receiver in the test, sends one message through the API (with a
// traceparent, as a traced client would) to the fake model, which saves a
// note and answers, then closes the session. The receiver gets one trace
// for the send: the request's span, the turn under it, the model calls with
// their GenAI attributes (model, token usage, finish reason as the model
// server said), the tool call with the guard's review under it, and the
// store's writes; the consolidation job is a trace of its own. No
// attribute, name or event carries the message, the note or the answer,
// and the request's JSON log line names the trace.
func TestTracesOfOneTurn(t *testing.T) {
	const (
		said     = "On overnight flights I want a window seat, always."
		noteText = "Prefers window seats on overnight flights."
		reply    = "Noted: window seats on overnight flights from now on."
		clientID = "4bf92f3577b34da6a3ce929d0e0e4736"
	)
	rec := newOTLPReceiver(t)
	model := fakeopenai.New(t)
	model.Handler(func(r fakeopenai.ChatRequest) fakeopenai.Response {
		if r.ResponseFormat != nil {
			if r.ResponseFormat.JSONSchema != nil && r.ResponseFormat.JSONSchema.Name == "note_review" {
				return fakeopenai.Response{Content: `{"verdict":"preference","kind":"none"}`}
			}
			return fakeopenai.Response{Content: `{"decisions":[]}`}
		}
		if r.Messages[len(r.Messages)-1].Role == "tool" {
			return fakeopenai.Response{Content: reply, FinishReason: "length", Usage: &fakeopenai.Usage{PromptTokens: 321, CompletionTokens: 12}}
		}
		args, _ := json.Marshal(map[string]any{"text": noteText, "keywords": []string{"seat"}, "scope": "durable"})
		return fakeopenai.Response{ToolCalls: []fakeopenai.ToolCall{{Function: fakeopenai.FunctionCall{Name: memory.SaveNoteToolName, Arguments: string(args)}}},
			Usage: &fakeopenai.Usage{PromptTokens: 300, CompletionTokens: 20}}
	})
	env := map[string]string{"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": model.URL(), "OTEL_EXPORTER_OTLP_ENDPOINT": rec.srv.URL}
	logs := &lockedWriter{w: &strings.Builder{}}
	url, stop, done := startServerWith(t, env, logs, "--log-format", "json", "--log-level", "info")
	waitHealthy(t, url)

	token := apiToken(t, url)
	status, out := apiJSON(t, "POST", url+"/api/v1/sessions", token, "")
	if status != http.StatusCreated {
		t.Fatalf("session: %d %v", status, out)
	}
	session := out["id"].(string)
	body, _ := json.Marshal(map[string]string{"content": said})
	req, _ := http.NewRequest("POST", url+"/api/v1/sessions/"+session+"/messages", strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("traceparent", "00-"+clientID+"-00f067aa0ba902b7-01")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	answer, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(answer), reply) {
		t.Fatalf("send: %d %s", resp.StatusCode, answer)
	}
	if status, out := apiJSON(t, "POST", url+"/api/v1/sessions/"+session+"/close", token, ""); status != http.StatusOK {
		t.Fatalf("close: %d %v", status, out)
	}
	// Stopping flushes the spans still queued.
	stop()
	if err := <-done; err != nil {
		t.Fatalf("run: %v", err)
	}

	spans := rec.all()
	if len(spans) == 0 {
		t.Fatal("the receiver got no spans")
	}
	byID := map[string]*tracepb.Span{}
	for _, s := range spans {
		byID[hex.EncodeToString(s.SpanId)] = s
	}
	children := func(parent *tracepb.Span) []*tracepb.Span {
		var out []*tracepb.Span
		for _, s := range spans {
			if string(s.ParentSpanId) == string(parent.SpanId) && string(s.TraceId) == string(parent.TraceId) {
				out = append(out, s)
			}
		}
		slices.SortFunc(out, func(a, b *tracepb.Span) int { return int(a.StartTimeUnixNano - b.StartTimeUnixNano) })
		return out
	}
	find := func(in []*tracepb.Span, name string) []*tracepb.Span {
		var out []*tracepb.Span
		for _, s := range in {
			if s.Name == name {
				out = append(out, s)
			}
		}
		return out
	}
	var inTrace []*tracepb.Span
	for _, s := range spans {
		if hex.EncodeToString(s.TraceId) == clientID {
			inTrace = append(inTrace, s)
		}
	}
	sends := find(inTrace, "POST /api/v1/sessions/:id/messages")
	if len(sends) != 1 {
		t.Fatalf("spans of the client's trace %s: %d named POST /api/v1/sessions/:id/messages, want 1 (all: %v)", clientID, len(sends), names(spans))
	}
	send := sends[0]
	if got := hex.EncodeToString(send.ParentSpanId); got != "00f067aa0ba902b7" {
		t.Errorf("request span's parent = %s, want the client's span from traceparent", got)
	}
	if send.Kind != tracepb.Span_SPAN_KIND_SERVER || attr(send, "http.response.status_code") != "200" || attr(send, "http.route") != "/api/v1/sessions/:id/messages" {
		t.Errorf("request span: kind %v, status %q, route %q", send.Kind, attr(send, "http.response.status_code"), attr(send, "http.route"))
	}
	turns := find(children(send), "invoke_agent concierge")
	if len(turns) != 1 {
		t.Fatalf("turn spans under the request: %d, want 1; children: %v", len(turns), names(children(send)))
	}
	turn := turns[0]
	if attr(turn, "gen_ai.conversation.id") != session || attr(turn, "concierge.turn") != "1" || attr(turn, "concierge.notes_saved") != "1" ||
		attr(turn, "gen_ai.usage.input_tokens") != "621" || attr(turn, "gen_ai.usage.output_tokens") != "32" {
		t.Errorf("turn span attributes: %v", attrs(turn))
	}
	under := children(turn)
	calls := find(under, "chat gpt-4o-mini")
	if len(calls) != 2 {
		t.Fatalf("model calls under the turn: %d, want 2; children: %v", len(calls), names(under))
	}
	wantCalls := []struct{ in, out, finish string }{{"300", "20", "tool_calls"}, {"321", "12", "length"}}
	for i, c := range calls {
		w := wantCalls[i]
		if c.Kind != tracepb.Span_SPAN_KIND_CLIENT || attr(c, "gen_ai.operation.name") != "chat" || attr(c, "gen_ai.provider.name") != "openai" ||
			attr(c, "gen_ai.request.model") != "gpt-4o-mini" || attr(c, "gen_ai.usage.input_tokens") != w.in ||
			attr(c, "gen_ai.usage.output_tokens") != w.out || attr(c, "gen_ai.response.finish_reasons") != w.finish {
			t.Errorf("model call %d: kind %v, attributes %v; want usage %s/%s and finish %s", i+1, c.Kind, attrs(c), w.in, w.out, w.finish)
		}
	}
	tools := find(under, "execute_tool "+memory.SaveNoteToolName)
	if len(tools) != 1 || attr(tools[0], "concierge.outcome") != "saved" || attr(tools[0], "gen_ai.tool.call.id") == "" {
		t.Fatalf("tool spans under the turn: %v", names(tools))
	}
	if review := find(children(tools[0]), "chat gpt-4o-mini"); len(review) != 1 || attr(review[0], "concierge.schema") != "note_review" {
		t.Errorf("the guard's review under the tool call: %v", names(children(tools[0])))
	}
	if !(calls[0].EndTimeUnixNano <= tools[0].StartTimeUnixNano && tools[0].EndTimeUnixNano <= calls[1].StartTimeUnixNano) {
		t.Error("the tool call does not sit between the two model calls")
	}
	for _, w := range []string{"db.write Store.SubmitUserMessage", "db.write Notes.CommitRound"} {
		if len(find(under, w)) == 0 {
			t.Errorf("no %q span under the turn; children: %v", w, names(under))
		}
	}
	if len(find(under, "SELECT messages")) == 0 {
		t.Errorf("no statement span (SELECT messages) under the turn; children: %v", names(under))
	}
	jobs := find(spans, "consolidate")
	if len(jobs) != 1 || attr(jobs[0], "gen_ai.conversation.id") != session || len(find(children(jobs[0]), "chat gpt-4o-mini")) != 1 {
		t.Errorf("consolidation spans: %d (children %v), want 1 with its model call", len(jobs), func() []string {
			if len(jobs) == 0 {
				return nil
			}
			return names(children(jobs[0]))
		}())
	}

	// Ids and counts only: no text of the conversation anywhere.
	secrets := []string{said, noteText, reply, "window", "overnight"}
	for _, s := range spans {
		texts := []string{s.Name}
		for _, kv := range s.Attributes {
			texts = append(texts, kv.Key+"="+anyText(kv.Value))
		}
		for _, e := range s.Events {
			texts = append(texts, e.Name)
			for _, kv := range e.Attributes {
				texts = append(texts, kv.Key+"="+anyText(kv.Value))
			}
		}
		texts = append(texts, s.GetStatus().GetMessage())
		for _, text := range texts {
			for _, secret := range secrets {
				if strings.Contains(strings.ToLower(text), strings.ToLower(secret)) {
					t.Errorf("span %q carries conversation text %q in %q", s.Name, secret, text)
				}
			}
		}
	}
	if svc := resourceAttr(rec, "service.name"); svc != "concierge" {
		t.Errorf("service.name = %q, want concierge", svc)
	}

	// The request's log line leads to its trace.
	found := false
	sc := bufio.NewScanner(strings.NewReader(logs.String()))
	for sc.Scan() {
		var line map[string]any
		if json.Unmarshal(sc.Bytes(), &line) != nil || line["msg"] != "request" || line["route"] != "/api/v1/sessions/:id/messages" {
			continue
		}
		found = true
		if line["trace_id"] != clientID || line["span_id"] != hex.EncodeToString(send.SpanId) {
			t.Errorf("request log line: trace_id %v span_id %v, want %s %x", line["trace_id"], line["span_id"], clientID, send.SpanId)
		}
	}
	if !found {
		t.Errorf("no request log line for the send in:\n%s", logs.String())
	}
	t.Logf("%d spans exported; the send's trace has %d", len(spans), len(inTrace))
}

func names(spans []*tracepb.Span) []string {
	out := make([]string, len(spans))
	for i, s := range spans {
		out[i] = s.Name
	}
	return out
}

func attrs(s *tracepb.Span) map[string]string {
	out := map[string]string{}
	for _, kv := range s.Attributes {
		out[kv.Key] = anyText(kv.Value)
	}
	return out
}

func resourceAttr(r *otlpReceiver, key string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, res := range r.resources {
		for _, kv := range res {
			if kv.Key == key {
				return anyText(kv.Value)
			}
		}
	}
	return ""
}

// TestTracingConfig checks that without the OTEL_* variables no
// exporter is made, and that a gRPC protocol is refused with a clear error.
func TestTracingConfig(t *testing.T) {
	for _, tc := range []struct {
		name    string
		env     map[string]string
		on      bool
		wantErr string
	}{
		{"unset", nil, false, ""},
		{"endpoint", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}, true, ""},
		{"traces endpoint", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:4318/v1/traces"}, true, ""},
		{"disabled", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_SDK_DISABLED": "true"}, false, ""},
		{"exporter none", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_TRACES_EXPORTER": "none"}, false, ""},
		{"grpc", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, false, "http/protobuf"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tp, stop, err := startTracing(context.Background(), func(k string) string { return tc.env[k] })
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one naming %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if (tp != nil) != tc.on {
				t.Errorf("tracing on = %v, want %v", tp != nil, tc.on)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			_ = stop(ctx)
		})
	}
}
