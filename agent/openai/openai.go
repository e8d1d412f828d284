// Package openai is the model provider for OpenAI and compatible servers
// (Ollama, vLLM, llama.cpp, LM Studio) over Chat Completions with tool
// calling, through github.com/openai/openai-go/v3.
package openai

import (
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"concierge/agent"
	"concierge/memory"
)

// The defaults of Config, and the MaxRetries value that turns retries off
// (0 means the default, as everywhere in Config).
const (
	DefaultTimeout    = 60 * time.Second
	DefaultMaxRetries = 2
	NoRetries         = -1
)

// Config says how to reach the model server.
type Config struct {
	// APIKey is sent as the bearer token; empty means OPENAI_API_KEY if set
	// (openai-go reads it itself), else none, which local servers accept.
	APIKey string
	// BaseURL is the API root, such as https://api.openai.com/v1 or
	// http://localhost:11434/v1; empty means OpenAI (or OPENAI_BASE_URL,
	// which openai-go reads itself).
	BaseURL string
	// Model is used when a Request names none.
	Model string
	// Timeout bounds one Complete or CompleteJSON call, retries and
	// streaming included; 0 means DefaultTimeout.
	Timeout time.Duration
	// MaxRetries is how often the client retries 408, 409, 429 and 5xx
	// answers and connection errors; 0 means DefaultMaxRetries and
	// NoRetries (any negative value) turns retries off.
	MaxRetries int
	// HTTPClient carries the calls; nil means a client of its own from
	// NewHTTPClient. Give one client to every provider that talks to the
	// same server (or use WithModel) so that they share its connections.
	HTTPClient *http.Client
}

// The defaults of HTTPConfig.
const (
	DefaultIdleConnsPerHost = 64
	DefaultDialTimeout      = 10 * time.Second
	DefaultTLSTimeout       = 10 * time.Second
)

// HTTPConfig tunes the HTTP client of the model calls. Zero values mean the
// defaults.
type HTTPConfig struct {
	// IdleConnsPerHost is how many open connections to the model server are
	// kept for reuse; set it to about the number of concurrent calls, since
	// a call that finds none idle opens a new one (and, over TLS, pays for
	// a handshake).
	IdleConnsPerHost int
	// DialTimeout bounds opening a TCP connection, TLSTimeout the TLS
	// handshake.
	DialTimeout time.Duration
	TLSTimeout  time.Duration
	// ResponseHeaderTimeout bounds the wait for the answer's headers after
	// the request is sent; a plain (non-streaming) completion sends them
	// only when it is complete, so it must not be shorter than the model
	// timeout. 0 means DefaultTimeout.
	ResponseHeaderTimeout time.Duration
	// TLS is the client's TLS configuration, for servers behind a private
	// certificate authority; nil means the system's roots.
	TLS *tls.Config
}

// NewHTTPClient returns the client for model calls: keep-alive connections
// pooled per host, HTTP/2 when the server offers it over TLS, and timeouts
// for dialling, the TLS handshake and the response headers. The whole call
// is bounded by the context each call sets, not by http.Client.Timeout,
// which would also cut a long streamed answer.
func NewHTTPClient(cfg HTTPConfig) *http.Client {
	idle := cfg.IdleConnsPerHost
	if idle <= 0 {
		idle = DefaultIdleConnsPerHost
	}
	dial := cmp.Or(cfg.DialTimeout, DefaultDialTimeout)
	dialer := &net.Dialer{Timeout: dial, KeepAlive: 30 * time.Second}
	return &http.Client{Transport: &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true, // a custom dialer turns it off otherwise
		MaxIdleConns:          2 * idle,
		MaxIdleConnsPerHost:   idle,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   cmp.Or(cfg.TLSTimeout, DefaultTLSTimeout),
		ResponseHeaderTimeout: cmp.Or(cfg.ResponseHeaderTimeout, DefaultTimeout),
		ExpectContinueTimeout: time.Second,
		TLSClientConfig:       cfg.TLS,
	}}
}

// Provider is a chat model served over Chat Completions. It implements
// agent.Provider and memory.Completer and is safe for concurrent use.
type Provider struct {
	client  sdk.Client
	model   string
	timeout time.Duration
	// noJSONSchema is set once the server refused response_format
	// json_schema; structured calls then ask for json_object.
	noJSONSchema atomic.Bool
}

// WithModel returns a provider for another model on the same server that
// shares this one's client and connections (chat and consolidation, say).
func (p *Provider) WithModel(model string) *Provider {
	return &Provider{client: p.client, model: model, timeout: p.timeout}
}

var (
	_ agent.Provider   = (*Provider)(nil)
	_ memory.Completer = (*Provider)(nil)
)

// New returns a provider for cfg. It makes no network call.
func New(cfg Config) *Provider {
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	retries := cfg.MaxRetries
	switch {
	case retries == 0:
		retries = DefaultMaxRetries
	case retries < 0:
		retries = 0
	}
	opts := []option.RequestOption{
		option.WithMaxRetries(retries),
		// Bounds one attempt and tells the server (X-Stainless-Timeout); the
		// context deadline each call sets bounds the whole call, retries and
		// streaming included, which is what the traveler waits for.
		option.WithRequestTimeout(timeout),
	}
	if cfg.APIKey != "" {
		opts = append(opts, option.WithAPIKey(cfg.APIKey))
	}
	if cfg.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(cfg.BaseURL))
	}
	httpClient := cfg.HTTPClient
	if httpClient == nil {
		// Never http.DefaultClient: it keeps two idle connections per host,
		// so concurrent calls would open a new connection almost every time.
		httpClient = NewHTTPClient(HTTPConfig{ResponseHeaderTimeout: timeout})
	}
	opts = append(opts, option.WithHTTPClient(httpClient))
	return &Provider{client: sdk.NewClient(opts...), model: cfg.Model, timeout: timeout}
}

// Name returns "openai:" and the configured model.
func (p *Provider) Name() string { return "openai:" + p.model }

// Complete sends req as one Chat Completions call. With onDelta it streams
// and passes each piece of text to onDelta as it arrives. Tool call
// arguments are returned exactly as the model wrote them, valid JSON or not.
// Failures are *Error values, except the caller's own cancellation, which
// is returned as the context's error.
func (p *Provider) Complete(ctx context.Context, req agent.Request, onDelta func(string)) (agent.Response, error) {
	params, err := p.params(req)
	if err != nil {
		return agent.Response{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	var a answer
	if onDelta != nil {
		a, err = p.stream(ctx, params, onDelta)
	} else {
		a, err = p.create(ctx, params)
	}
	if err != nil {
		return agent.Response{}, err
	}
	return a.response(), nil
}

// CompleteJSON makes one structured call at temperature 0. With a schema it
// asks for response_format json_schema in strict mode; a server that refuses
// json_schema (a 400 about response_format) gets json_object from then on,
// remembered for the life of the Provider, and the call is retried once that
// way. The model's text is returned as it is: callers validate it.
func (p *Provider) CompleteJSON(ctx context.Context, req memory.JSONRequest) (string, error) {
	if p.model == "" {
		return "", &Error{Kind: KindBadRequest, Message: "No model is configured."}
	}
	ctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	strict := req.Schema != nil && !p.noJSONSchema.Load()
	a, err := p.create(ctx, p.jsonParams(req, strict))
	if err != nil && strict && refusesJSONSchema(err) {
		p.noJSONSchema.Store(true)
		a, err = p.create(ctx, p.jsonParams(req, false))
	}
	if err != nil {
		return "", err
	}
	return a.response().Content, nil
}

// jsonParams builds a structured call, with the strict schema or as a plain
// JSON object.
func (p *Provider) jsonParams(req memory.JSONRequest, strict bool) sdk.ChatCompletionNewParams {
	params := sdk.ChatCompletionNewParams{
		Model:       p.model,
		Messages:    []sdk.ChatCompletionMessageParamUnion{sdk.SystemMessage(req.System), sdk.UserMessage(req.User)},
		Temperature: sdk.Float(0),
	}
	if strict {
		params.ResponseFormat.OfJSONSchema = &shared.ResponseFormatJSONSchemaParam{
			JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: req.Name, Strict: sdk.Bool(true), Schema: req.Schema},
		}
	} else {
		params.ResponseFormat.OfJSONObject = &shared.ResponseFormatJSONObjectParam{}
	}
	if req.MaxTokens > 0 {
		params.MaxCompletionTokens = sdk.Int(int64(req.MaxTokens))
	}
	return params
}

// refusesJSONSchema tells a server that does not support structured outputs
// (it answers 400 naming response_format or json_schema) from other failures.
func refusesJSONSchema(err error) bool {
	var e *Error
	if !errors.As(err, &e) || e.Status != http.StatusBadRequest {
		return false
	}
	var apiErr *sdk.Error
	if !errors.As(err, &apiErr) {
		return false
	}
	text := strings.ToLower(apiErr.Param + " " + apiErr.Code + " " + apiErr.Message)
	return strings.Contains(text, "response_format") || strings.Contains(text, "json_schema")
}

// params turns an agent request into Chat Completions parameters.
func (p *Provider) params(req agent.Request) (sdk.ChatCompletionNewParams, error) {
	model := req.Model
	if model == "" {
		model = p.model
	}
	if model == "" {
		return sdk.ChatCompletionNewParams{}, &Error{Kind: KindBadRequest, Message: "No model is configured."}
	}
	params := sdk.ChatCompletionNewParams{Model: model}
	if req.Instructions != "" {
		params.Messages = append(params.Messages, sdk.SystemMessage(req.Instructions))
	}
	for i, m := range req.Messages {
		msg, err := toMessage(m)
		if err != nil {
			return sdk.ChatCompletionNewParams{}, &Error{Kind: KindBadRequest, Message: fmt.Sprintf("Message %d cannot be sent to the model.", i), err: err}
		}
		params.Messages = append(params.Messages, msg)
	}
	for _, t := range req.Tools {
		def := shared.FunctionDefinitionParam{
			Name:       t.Name,
			Strict:     sdk.Bool(true), // every tool schema is written in strict form (see memory.SaveNoteTool)
			Parameters: shared.FunctionParameters(t.Parameters),
		}
		if t.Description != "" {
			def.Description = sdk.String(t.Description)
		}
		params.Tools = append(params.Tools, sdk.ChatCompletionFunctionTool(def))
	}
	if len(params.Tools) > 0 {
		params.ToolChoice.OfAuto = sdk.String(string(sdk.ChatCompletionToolChoiceOptionAutoAuto))
	}
	if req.MaxTokens > 0 {
		params.MaxCompletionTokens = sdk.Int(int64(req.MaxTokens))
	}
	return params, nil
}

// toMessage converts one transcript message to its wire form.
func toMessage(m memory.Message) (sdk.ChatCompletionMessageParamUnion, error) {
	switch m.Role {
	case memory.RoleUser:
		return sdk.UserMessage(m.Content), nil
	case memory.RoleTool:
		return sdk.ToolMessage(m.Content, m.ToolCallID), nil
	case memory.RoleAssistant:
		var a sdk.ChatCompletionAssistantMessageParam
		// The API wants content unless there are tool calls.
		if m.Content != "" || len(m.ToolCalls) == 0 {
			a.Content.OfString = sdk.String(m.Content)
		}
		for _, c := range m.ToolCalls {
			args := c.Arguments
			if args == "" {
				args = "{}" // an empty string is not accepted back by every server
			}
			a.ToolCalls = append(a.ToolCalls, sdk.ChatCompletionMessageToolCallUnionParam{
				OfFunction: &sdk.ChatCompletionMessageFunctionToolCallParam{
					ID:       c.ID,
					Function: sdk.ChatCompletionMessageFunctionToolCallFunctionParam{Name: c.Name, Arguments: args},
				},
			})
		}
		return sdk.ChatCompletionMessageParamUnion{OfAssistant: &a}, nil
	default:
		return sdk.ChatCompletionMessageParamUnion{}, fmt.Errorf("unknown role %q", m.Role)
	}
}

// create makes a plain (non-streaming) call.
func (p *Provider) create(ctx context.Context, params sdk.ChatCompletionNewParams) (answer, error) {
	var raw *http.Response
	cc, err := p.client.Chat.Completions.New(ctx, params, option.WithResponseInto(&raw))
	if err != nil {
		return answer{}, classify(ctx, err, raw)
	}
	return fromCompletion(cc)
}

// answer is the first choice of a completion, as the plain and the
// streamed call both read it.
type answer struct {
	content, refusal, finish string
	usage                    agent.Usage
	calls                    []call
}

// call is one tool call of an answer.
type call struct{ id, typ, name, args string }

// fromCompletion reads a plain call's completion.
func fromCompletion(cc *sdk.ChatCompletion) (answer, error) {
	if cc == nil || len(cc.Choices) == 0 {
		return answer{}, &Error{Kind: KindUpstream, Message: msgInvalid, Retryable: true}
	}
	msg := cc.Choices[0].Message
	a := answer{content: msg.Content, refusal: msg.Refusal, finish: cc.Choices[0].FinishReason,
		usage: agent.Usage{PromptTokens: int(cc.Usage.PromptTokens), CompletionTokens: int(cc.Usage.CompletionTokens)}}
	for _, c := range msg.ToolCalls {
		a.calls = append(a.calls, call{id: c.ID, typ: c.Type, name: c.Function.Name, args: c.Function.Arguments})
	}
	return a, nil
}

// response turns an answer into the agent's response.
func (a answer) response() agent.Response {
	res := agent.Response{Content: a.content, Usage: a.usage, FinishReason: a.finish}
	if res.Content == "" {
		res.Content = a.refusal // a refusal is the text the traveler should see
	}
	for i, c := range a.calls {
		if c.typ != "" && c.typ != "function" {
			continue // we only define function tools
		}
		id := c.id
		if id == "" {
			id = fmt.Sprintf("call_%d", i) // some compatible servers omit ids; the reply must name one
		}
		res.ToolCalls = append(res.ToolCalls, memory.ToolCall{ID: id, Name: c.name, Arguments: c.args})
	}
	return res
}
