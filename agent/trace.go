package agent

import (
	"context"
	"errors"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"

	"concierge/memory"
	"concierge/memory/consolidate"
	"concierge/models"
)

// Tracing. With a tracer set (SetTracer), every turn is a span
// ("invoke_agent concierge", under the span of the request that sent the
// message), with a child for each model call ("chat MODEL", with the GenAI
// semantic-convention attributes: model, token usage, finish reason) and
// each tool call ("execute_tool NAME"); the store adds its writes and
// statements beneath them. Consolidation jobs are spans of their own.
// Spans carry ids, counts, model names and outcome words, never the text of
// a message, note, answer or error. Without a tracer nothing is recorded
// and nothing is paid: every helper here returns at once.

const tracerName = "concierge/agent"

// agentName is gen_ai.agent.name of the turn spans.
const agentName = "concierge"

// SetTracer records the agent's turns and model calls as spans of tp's
// tracer; call it before the first turn. A nil tp leaves tracing off.
func (a *Agent) SetTracer(tp trace.TracerProvider) {
	if tp == nil {
		return
	}
	a.tracer = tp.Tracer(tracerName, trace.WithSchemaURL(semconv.SchemaURL))
	a.provider = tracedProvider{Provider: a.provider, tracer: a.tracer, system: providerSystem(a.provider.Name())}
}

// SetTracer records the worker's consolidation jobs as spans of tp's
// tracer; call it before Start. A nil tp leaves tracing off.
func (w *Worker) SetTracer(tp trace.TracerProvider) {
	if tp == nil {
		return
	}
	w.tracer = tp.Tracer(tracerName, trace.WithSchemaURL(semconv.SchemaURL))
	if w.completer != nil {
		w.completer = TraceCompleter(w.completer, tp)
	}
}

// TraceCompleter returns c with each structured model call (consolidation,
// the guard's review) recorded as a "chat MODEL" span of tp's tracer; with
// a nil tp or c, c itself.
func TraceCompleter(c memory.Completer, tp trace.TracerProvider) memory.Completer {
	if c == nil || tp == nil {
		return c
	}
	system, model := "", ""
	if n, ok := c.(interface{ Name() string }); ok {
		system = providerSystem(n.Name())
		_, model, _ = strings.Cut(n.Name(), ":")
	}
	return tracedCompleter{Completer: c, tracer: tp.Tracer(tracerName, trace.WithSchemaURL(semconv.SchemaURL)), system: system, model: model}
}

// providerSystem is gen_ai.provider.name for a provider's Name ("openai:gpt-4o-mini" → "openai").
func providerSystem(name string) string {
	system, _, _ := strings.Cut(name, ":")
	return system
}

// tracedProvider records each Complete as a client span.
type tracedProvider struct {
	Provider
	tracer trace.Tracer
	system string
}

func (p tracedProvider) Complete(ctx context.Context, req Request, onDelta func(string)) (Response, error) {
	ctx, span := p.tracer.Start(ctx, "chat "+req.Model, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
		semconv.GenAIOperationNameChat, semconv.GenAIProviderNameKey.String(p.system),
		semconv.GenAIRequestModel(req.Model), semconv.GenAIRequestMaxTokens(req.MaxTokens),
		attribute.Int("concierge.messages", len(req.Messages)), attribute.Int("concierge.tools", len(req.Tools))))
	defer span.End()
	resp, err := p.Provider.Complete(ctx, req, onDelta)
	if err != nil {
		failed(span, modelErrorType(err))
		return resp, err
	}
	finish := resp.FinishReason
	if finish == "" { // a provider that does not say (the offline model)
		finish = "stop"
		if len(resp.ToolCalls) > 0 {
			finish = "tool_calls"
		}
	}
	span.SetAttributes(semconv.GenAIUsageInputTokens(resp.Usage.PromptTokens), semconv.GenAIUsageOutputTokens(resp.Usage.CompletionTokens),
		semconv.GenAIResponseFinishReasons(finish), attribute.Int("concierge.tool_calls", len(resp.ToolCalls)))
	return resp, nil
}

// tracedCompleter records each CompleteJSON as a client span.
type tracedCompleter struct {
	memory.Completer
	tracer        trace.Tracer
	system, model string
}

func (c tracedCompleter) CompleteJSON(ctx context.Context, req memory.JSONRequest) (string, error) {
	ctx, span := c.tracer.Start(ctx, "chat "+c.model, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
		semconv.GenAIOperationNameChat, semconv.GenAIProviderNameKey.String(c.system), semconv.GenAIRequestModel(c.model),
		attribute.String("concierge.schema", req.Name)))
	defer span.End()
	out, err := c.Completer.CompleteJSON(ctx, req)
	if err != nil {
		failed(span, modelErrorType(err))
	}
	return out, err
}

// modelErrorType names a failed model call by its kind, never its text.
func modelErrorType(err error) string {
	var typed interface{ ErrorType() string }
	switch {
	case errors.As(err, &typed):
		return typed.ErrorType()
	case errors.Is(err, context.DeadlineExceeded):
		return FailTimeout
	case errors.Is(err, context.Canceled):
		return FailCanceled
	}
	return semconv.ErrorTypeOther.Value.AsString()
}

// failed marks span as failed with an error type word.
func failed(span trace.Span, kind string) {
	span.SetAttributes(semconv.ErrorTypeKey.String(kind))
	span.SetStatus(codes.Error, kind)
}

// startTurn begins the span of one turn of the session, continuing parent
// (the sending request's span) when it is valid. It returns a nil span
// when tracing is off.
func (a *Agent) startTurn(ctx context.Context, sessionID string, parent trace.SpanContext) (context.Context, trace.Span) {
	if a.tracer == nil {
		return ctx, nil
	}
	if parent.IsValid() {
		ctx = trace.ContextWithSpanContext(ctx, parent)
	}
	return a.tracer.Start(ctx, "invoke_agent "+agentName, trace.WithAttributes(semconv.GenAIOperationNameInvokeAgent,
		semconv.GenAIAgentName(agentName), semconv.GenAIConversationID(sessionID), semconv.GenAIProviderNameKey.String(providerSystem(a.provider.Name()))))
}

// endTurn ends a turn's span with what the turn produced: its turn number
// and counts, or the failure's kind.
func endTurn(span trace.Span, res *TurnResult, err error) {
	if span == nil {
		return
	}
	if res != nil {
		span.SetAttributes(attribute.Int("concierge.turn", res.Turn), attribute.Int("concierge.notes_saved", len(res.Saved)),
			attribute.Int("concierge.notes_refused", len(res.Blocked)),
			semconv.GenAIUsageInputTokens(res.Usage.PromptTokens), semconv.GenAIUsageOutputTokens(res.Usage.CompletionTokens))
	}
	switch kind := FailureKind(err); kind {
	case "":
	case FailAnswered, FailBusy, FailSessionClosed:
		// Answered elsewhere or already, or the conversation ended:
		// expected, not a failure of ours.
		span.SetAttributes(attribute.String("concierge.outcome", kind))
	default:
		failed(span, kind)
	}
	span.End()
}

// startTool begins the span of one tool call of the model; end closes it
// with its outcome: "saved", "refused" (with the refusal's category) or
// "answered" (a tool that only reads).
func (a *Agent) startTool(ctx context.Context, call memory.ToolCall) (context.Context, func(saved bool, refusal string)) {
	if a.tracer == nil {
		return ctx, func(bool, string) {}
	}
	ctx, span := a.tracer.Start(ctx, "execute_tool "+call.Name, trace.WithAttributes(semconv.GenAIOperationNameExecuteTool,
		semconv.GenAIToolName(call.Name), semconv.GenAIToolCallID(call.ID), semconv.GenAIToolType("function")))
	return ctx, func(saved bool, refusal string) {
		switch {
		case refusal != "":
			span.SetAttributes(attribute.String("concierge.outcome", "refused"), attribute.String("concierge.refusal.category", refusal))
		case saved:
			span.SetAttributes(attribute.String("concierge.outcome", "saved"))
		default:
			span.SetAttributes(attribute.String("concierge.outcome", "answered"))
		}
		span.End()
	}
}

// startJob begins the span of one consolidation job; end closes it with
// the result's engine and counts, or the failure.
func (w *Worker) startJob(ctx context.Context, job *models.ConsolidationJob) (context.Context, func(res consolidate.Result, tries int, err error)) {
	if w.tracer == nil {
		return ctx, func(consolidate.Result, int, error) {}
	}
	ctx, span := w.tracer.Start(ctx, "consolidate", trace.WithAttributes(attribute.String("concierge.job_id", job.ID),
		semconv.GenAIConversationID(job.SessionID), attribute.Int("concierge.attempt", job.Attempts)))
	return ctx, func(res consolidate.Result, tries int, err error) {
		span.SetAttributes(attribute.Int("concierge.tries", tries))
		if err != nil {
			kind := FailStore
			if errors.Is(err, models.ErrJobLost) {
				kind = FailBusy
			} else if errors.Is(err, context.Canceled) {
				kind = FailCanceled
			}
			failed(span, kind)
		} else {
			span.SetAttributes(attribute.String("concierge.engine", string(res.Engine)), attribute.Bool("concierge.fallback", res.FallbackReason != ""),
				attribute.Int("concierge.decisions", len(res.Decisions)), attribute.Int("concierge.global_notes", len(res.Global)))
		}
		span.End()
	}
}
