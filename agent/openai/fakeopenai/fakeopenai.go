// Package fakeopenai is an OpenAI-compatible Chat Completions server for
// tests: a scriptable queue of answers (text, tool calls, failures, delays,
// garbage), streaming and non-streaming, that records every request it got.
//
//	fake := fakeopenai.New(t)
//	fake.ToolCall("save_memory_note", `{"text":"Prefers aisle seats"}`)
//	fake.Reply("Noted.")
//	p := openai.New(openai.Config{BaseURL: fake.URL(), APIKey: "k", Model: "m"})
//	… run the turn …
//	reqs := fake.Requests() // what the client really sent
package fakeopenai

import (
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

// Response is one scripted answer. With Status 0 (or 200) and no Body it is a
// completion carrying Content and ToolCalls; with a Body, the Body is written
// verbatim with Status (default 200); with Status >= 400 and no Body, an
// OpenAI-style error object is written.
type Response struct {
	Content   string
	ToolCalls []ToolCall
	// FinishReason defaults to "tool_calls" when there are tool calls and to
	// "stop" otherwise.
	FinishReason string
	// Usage defaults to a rough estimate from the request and the answer.
	Usage *Usage

	Status int
	Body   string
	// Header holds extra response headers (Retry-After, x-should-retry…).
	Header http.Header
	// Delay is how long to wait before answering.
	Delay time.Duration
	// ChunkDelay is how long a streamed answer waits before each piece of
	// content after the first, so that a client can act mid-answer.
	ChunkDelay time.Duration
}

// Server is the fake. It is safe for concurrent use.
type Server struct {
	srv  *httptest.Server
	done chan struct{}

	mu       sync.Mutex
	queue    []Response
	delays   []time.Duration
	handler  func(ChatRequest) Response
	requests []ChatRequest
	seq      int
	conns    int // TCP connections accepted
}

// New starts a fake server that is closed when the test ends. With an empty
// queue it answers "ok".
func New(t testing.TB) *Server {
	t.Helper()
	return start(t, false)
}

// NewTLS is New over TLS with HTTP/2 offered, as real endpoints are. Give
// the client Certificate as a trusted root.
func NewTLS(t testing.TB) *Server {
	t.Helper()
	return start(t, true)
}

// Certificate is the TLS server's certificate (nil without TLS).
func (s *Server) Certificate() *x509.Certificate { return s.srv.Certificate() }

// Start starts a fake server outside a test (the load command uses it as a
// slow model server on loopback). Call the returned function to close it.
func Start() (*Server, func()) {
	s := newServer(false)
	return s, s.close
}

func (s *Server) close() {
	close(s.done) // releases delayed handlers so Close does not wait for them
	s.srv.Close()
}

func start(t testing.TB, useTLS bool) *Server {
	s := newServer(useTLS)
	t.Cleanup(s.close)
	return s
}

func newServer(useTLS bool) *Server {
	s := &Server{
		done:    make(chan struct{}),
		handler: func(ChatRequest) Response { return Response{Content: "ok"} },
	}
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(s.serveHTTP))
	s.srv.Config.ConnState = func(_ net.Conn, state http.ConnState) {
		if state == http.StateNew {
			s.mu.Lock()
			s.conns++
			s.mu.Unlock()
		}
	}
	if useTLS {
		s.srv.EnableHTTP2 = true
		s.srv.StartTLS()
	} else {
		s.srv.Start()
	}
	return s
}

// URL returns the base URL to give the client: the server's address with
// the /v1 prefix, like https://api.openai.com/v1.
func (s *Server) URL() string { return s.srv.URL + "/v1" }

// Enqueue adds scripted answers, answered in order, one per request.
func (s *Server) Enqueue(rs ...Response) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, rs...)
}

// Reply queues a text answer.
func (s *Server) Reply(text string) { s.Enqueue(Response{Content: text}) }

// ToolCall queues an answer with a single tool call; argsJSON is sent as is,
// valid JSON or not.
func (s *Server) ToolCall(name, argsJSON string) {
	s.ToolCalls(ToolCall{Function: FunctionCall{Name: name, Arguments: argsJSON}})
}

// ToolCalls queues an answer with several tool calls. Empty ids are filled
// in with unique "call_…" ids.
func (s *Server) ToolCalls(calls ...ToolCall) {
	s.Enqueue(Response{ToolCalls: calls})
}

// Fail queues an error answer. An empty body becomes an OpenAI-style error
// object. The answer carries "retry-after-ms: 0" so the client's retries
// happen without backoff and tests stay fast; note that openai-go retries
// 408, 409, 429 and 5xx (twice by default), so a test that wants the error
// to reach the caller queues one Fail per attempt or sets MaxRetries to 0.
func (s *Server) Fail(status int, body string) {
	s.Enqueue(Response{Status: status, Body: body, Header: http.Header{"Retry-After-Ms": {"0"}}})
}

// Invalid queues a 200 answer whose body is written verbatim, labelled
// application/json (or text/event-stream for a streaming request): broken
// JSON, a completion without choices, broken SSE…
func (s *Server) Invalid(body string) {
	s.Enqueue(Response{Status: http.StatusOK, Body: body})
}

// Delay makes the next request the server receives wait d before it is
// answered (whatever the answer). Several calls delay several requests.
func (s *Server) Delay(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.delays = append(s.delays, d)
}

// Handler sets the answer used when the queue is empty.
func (s *Server) Handler(h func(req ChatRequest) Response) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handler = h
}

// Requests returns a copy of every request received so far, in order.
func (s *Server) Requests() []ChatRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]ChatRequest(nil), s.requests...)
}

// Connections returns how many TCP connections the server has accepted, so
// tests can tell whether a client reuses its connections.
func (s *Server) Connections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conns
}

// Pending returns how many queued answers have not been used yet.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue)
}

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		writeError(w, http.StatusNotFound, "invalid_request_error", fmt.Sprintf("Unknown request URL: %s %s", r.Method, r.URL.Path))
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "could not read the body")
		return
	}
	var req ChatRequest
	decodeErr := json.Unmarshal(body, &req)
	req.Raw = json.RawMessage(body)
	req.Proto = r.Proto
	req.APIKey = strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	req.Attempt, _ = strconv.Atoi(r.Header.Get("X-Stainless-Retry-Count"))

	s.mu.Lock()
	s.requests = append(s.requests, req)
	s.seq++
	seq := s.seq
	var delay time.Duration
	if len(s.delays) > 0 {
		delay, s.delays = s.delays[0], s.delays[1:]
	}
	var resp Response
	scripted := len(s.queue) > 0
	if scripted {
		resp, s.queue = s.queue[0], s.queue[1:]
	}
	handler := s.handler
	s.mu.Unlock()

	if decodeErr != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "We could not parse the JSON body of your request.")
		return
	}
	if msg := validate(req); msg != "" {
		writeError(w, http.StatusBadRequest, "invalid_request_error", msg)
		return
	}
	if !scripted {
		resp = handler(req)
	}
	if d := delay + resp.Delay; d > 0 {
		select {
		case <-time.After(d):
		case <-r.Context().Done():
			return
		case <-s.done:
			return
		}
	}
	for k, vs := range resp.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	switch {
	case resp.Body != "":
		status := resp.Status
		if status == 0 {
			status = http.StatusOK
		}
		switch {
		case status == http.StatusOK && req.Stream:
			w.Header().Set("Content-Type", "text/event-stream")
		case status == http.StatusOK || json.Valid([]byte(resp.Body)):
			w.Header().Set("Content-Type", "application/json")
		default:
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		}
		w.WriteHeader(status)
		_, _ = io.WriteString(w, resp.Body)
	case resp.Status >= 400:
		writeError(w, resp.Status, errorType(resp.Status), http.StatusText(resp.Status))
	case req.Stream:
		s.writeStream(w, r, req, resp, seq)
	default:
		s.writeCompletion(w, req, resp, seq)
	}
}

// complete fills in the defaults of a completion answer.
func complete(req ChatRequest, resp Response, seq int) Response {
	calls := make([]ToolCall, len(resp.ToolCalls))
	for i, c := range resp.ToolCalls {
		if c.ID == "" {
			c.ID = fmt.Sprintf("call_fake_%d_%d", seq, i)
		}
		if c.Type == "" {
			c.Type = "function"
		}
		calls[i] = c
	}
	resp.ToolCalls = calls
	if resp.FinishReason == "" {
		resp.FinishReason = "stop"
		if len(calls) > 0 {
			resp.FinishReason = "tool_calls"
		}
	}
	if resp.Usage == nil {
		in, out := 0, len(resp.Content)
		for _, m := range req.Messages {
			in += len(m.Content) + 4
		}
		for _, c := range calls {
			out += len(c.Function.Name) + len(c.Function.Arguments)
		}
		u := Usage{PromptTokens: in/4 + 1, CompletionTokens: out/4 + 1}
		resp.Usage = &u
	}
	resp.Usage.TotalTokens = resp.Usage.PromptTokens + resp.Usage.CompletionTokens
	return resp
}

func (s *Server) writeCompletion(w http.ResponseWriter, req ChatRequest, resp Response, seq int) {
	resp = complete(req, resp, seq)
	msg := completionMessage{Role: "assistant", ToolCalls: resp.ToolCalls}
	if resp.Content != "" || len(resp.ToolCalls) == 0 {
		msg.Content = &resp.Content
	}
	c := completion{
		ID: fmt.Sprintf("chatcmpl-fake-%d", seq), Object: "chat.completion", Created: time.Now().Unix(), Model: req.Model,
		Choices: []completionChoice{{Index: 0, Message: msg, FinishReason: resp.FinishReason}},
		Usage:   *resp.Usage,
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(c)
}

// writeStream answers as OpenAI streams: a role chunk, the content a word at
// a time, each tool call as a header chunk then its arguments in pieces, a
// finish chunk, the usage chunk when asked for, then [DONE].
func (s *Server) writeStream(w http.ResponseWriter, r *http.Request, req ChatRequest, resp Response, seq int) {
	resp = complete(req, resp, seq)
	flusher, _ := w.(http.Flusher)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)

	base := chunk{ID: fmt.Sprintf("chatcmpl-fake-%d", seq), Object: "chat.completion.chunk", Created: time.Now().Unix(), Model: req.Model}
	send := func(c chunk) {
		b, _ := json.Marshal(c)
		fmt.Fprintf(w, "data: %s\n\n", b)
		if flusher != nil {
			flusher.Flush()
		}
	}
	delta := func(d chunkDelta) {
		c := base
		c.Choices = []chunkChoice{{Delta: d}}
		send(c)
	}
	empty := ""
	delta(chunkDelta{Role: "assistant", Content: &empty})
	for i, piece := range splitWords(resp.Content) {
		if i > 0 && resp.ChunkDelay > 0 {
			select {
			case <-time.After(resp.ChunkDelay):
			case <-r.Context().Done():
				return
			case <-s.done:
				return
			}
		}
		delta(chunkDelta{Content: &piece})
	}
	for i, call := range resp.ToolCalls {
		delta(chunkDelta{ToolCalls: []toolCallDelta{{Index: i, ID: call.ID, Type: call.Type, Function: functionCallDelta{Name: call.Function.Name}}}})
		for _, piece := range splitN(call.Function.Arguments, 3) {
			delta(chunkDelta{ToolCalls: []toolCallDelta{{Index: i, Function: functionCallDelta{Arguments: piece}}}})
		}
	}
	finish := base
	finish.Choices = []chunkChoice{{Delta: chunkDelta{}, FinishReason: &resp.FinishReason}}
	send(finish)
	if req.StreamOptions != nil && req.StreamOptions.IncludeUsage {
		u := base
		u.Choices = []chunkChoice{}
		u.Usage = resp.Usage
		send(u)
	}
	_, _ = io.WriteString(w, "data: [DONE]\n\n")
	if flusher != nil {
		flusher.Flush()
	}
}

// splitWords cuts text after each space, so the pieces concatenate back to it.
func splitWords(text string) []string {
	var out []string
	for text != "" {
		i := strings.IndexByte(text, ' ')
		if i < 0 {
			out = append(out, text)
			break
		}
		out = append(out, text[:i+1])
		text = text[i+1:]
	}
	return out
}

// splitN cuts s into at most n non-empty pieces on rune boundaries.
func splitN(s string, n int) []string {
	if s == "" {
		return nil
	}
	size := max(1, (len(s)+n-1)/n)
	var out []string
	for s != "" {
		end := min(size, len(s))
		for end < len(s) && !utf8.RuneStart(s[end]) {
			end++
		}
		out = append(out, s[:end])
		s = s[end:]
	}
	return out
}

var toolName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// validate applies the checks the real API makes that a client can get
// wrong, and returns the error message, or "" when the request is fine.
func validate(req ChatRequest) string {
	if req.Model == "" {
		return "you must provide a model parameter"
	}
	if len(req.Messages) == 0 {
		return "'messages' must contain at least one message"
	}
	if len(req.ToolChoice) > 0 && len(req.Tools) == 0 {
		return "'tool_choice' is only allowed when 'tools' are specified"
	}
	if req.StreamOptions != nil && !req.Stream {
		return "The 'stream_options' parameter is only allowed when 'stream' is enabled."
	}
	for i, t := range req.Tools {
		if t.Type != "function" || !toolName.MatchString(t.Function.Name) {
			return fmt.Sprintf("Invalid 'tools[%d]': a function tool with a valid name is required", i)
		}
		if t.Function.Strict != nil && *t.Function.Strict {
			if p := strictSchemaProblem(t.Function.Parameters); p != "" {
				return fmt.Sprintf("Invalid schema for function '%s': %s", t.Function.Name, p)
			}
		}
	}
	if rf := req.ResponseFormat; rf != nil && rf.Type == "json_schema" && rf.JSONSchema != nil && rf.JSONSchema.Strict {
		var schema any
		if err := json.Unmarshal(rf.JSONSchema.Schema, &schema); err != nil {
			return "Invalid 'response_format.json_schema.schema': not a JSON object."
		}
		if p := strictSchemaProblem(schema); p != "" {
			return fmt.Sprintf("Invalid schema for response_format '%s': %s", rf.JSONSchema.Name, p)
		}
	}
	open := map[string]bool{} // tool calls still waiting for their result
	mentionsJSON := false
	for i, m := range req.Messages {
		mentionsJSON = mentionsJSON || strings.Contains(strings.ToLower(m.Content), "json")
		if m.Role != "tool" && len(open) > 0 {
			return fmt.Sprintf("messages[%d]: an assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'", i)
		}
		switch m.Role {
		case "system", "developer", "user":
		case "assistant":
			if m.Content == "" && len(m.ToolCalls) == 0 {
				return fmt.Sprintf("messages[%d]: assistant content is required unless tool_calls is specified", i)
			}
			for _, c := range m.ToolCalls {
				if c.ID == "" || c.Type != "function" || c.Function.Name == "" {
					return fmt.Sprintf("messages[%d]: invalid tool call", i)
				}
				open[c.ID] = true
			}
		case "tool":
			if !open[m.ToolCallID] {
				return fmt.Sprintf("messages[%d]: messages with role 'tool' must be a response to a preceding message with 'tool_calls'", i)
			}
			delete(open, m.ToolCallID)
		default:
			return fmt.Sprintf("messages[%d]: invalid role %q", i, m.Role)
		}
	}
	if len(open) > 0 {
		return "an assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'"
	}
	if req.ResponseFormat != nil && req.ResponseFormat.Type == "json_object" && !mentionsJSON {
		return "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'."
	}
	return ""
}

func errorType(status int) string {
	switch {
	case status == http.StatusUnauthorized:
		return "invalid_api_key"
	case status == http.StatusTooManyRequests:
		return "rate_limit_exceeded"
	case status >= 500:
		return "server_error"
	default:
		return "invalid_request_error"
	}
}

func writeError(w http.ResponseWriter, status int, typ, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	code := typ
	_ = json.NewEncoder(w).Encode(apiError{Error: apiErrorBody{Message: msg, Type: typ, Code: &code}})
}
