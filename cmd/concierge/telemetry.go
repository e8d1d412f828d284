package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"
)

// startTracing sets up OpenTelemetry traces exported over OTLP/HTTP when
// the standard environment asks for them: OTEL_EXPORTER_OTLP_ENDPOINT (the
// collector's base URL, to which /v1/traces is added) or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (the full URL). Without either, or
// with OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none, it returns a
// nil provider and tracing stays off. The exporter and the SDK read the
// other standard variables themselves (OTEL_EXPORTER_OTLP_HEADERS,
// _TIMEOUT, _COMPRESSION, _CERTIFICATE, OTEL_SERVICE_NAME,
// OTEL_RESOURCE_ATTRIBUTES, OTEL_TRACES_SAMPLER, OTEL_BSP_*). The returned
// function flushes the spans still queued and stops the exporter.
func startTracing(ctx context.Context, getenv func(string) string) (trace.TracerProvider, func(context.Context) error, error) {
	endpoint := getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
	if endpoint == "" {
		if base := getenv("OTEL_EXPORTER_OTLP_ENDPOINT"); base != "" {
			endpoint = strings.TrimSuffix(base, "/") + "/v1/traces"
		}
	}
	if endpoint == "" || strings.EqualFold(getenv("OTEL_SDK_DISABLED"), "true") || strings.EqualFold(getenv("OTEL_TRACES_EXPORTER"), "none") {
		return nil, func(context.Context) error { return nil }, nil
	}
	if e := strings.ToLower(getenv("OTEL_TRACES_EXPORTER")); e != "" && e != "otlp" {
		return nil, nil, fmt.Errorf("OTEL_TRACES_EXPORTER=%s: only otlp (or none) is built in", e)
	}
	protocol := envDefault(getenv, "http/protobuf", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL")
	if protocol != "http/protobuf" {
		return nil, nil, fmt.Errorf("OTEL_EXPORTER_OTLP_PROTOCOL=%s: traces are exported over OTLP/HTTP (http/protobuf); point the endpoint at the collector's HTTP port (4318)", protocol)
	}
	// The endpoint is passed on, read through getenv like every setting;
	// the exporter reads the rest of its variables from the process.
	exp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(endpoint))
	if err != nil {
		return nil, nil, fmt.Errorf("traces: %w", err)
	}
	// OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES override the name.
	res, err := resource.New(ctx, resource.WithAttributes(semconv.ServiceName("concierge")), resource.WithFromEnv(),
		resource.WithTelemetrySDK())
	if err != nil {
		return nil, nil, fmt.Errorf("traces: resource: %w", err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	return tp, tp.Shutdown, nil
}

// traceIDs adds the trace and span ids of the span in a log call's context
// to its line, so that a log line leads to its trace. Only calls that pass
// a context (the request log, the turn's lines) carry them.
type traceIDs struct{ slog.Handler }

func (h traceIDs) Handle(ctx context.Context, r slog.Record) error {
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		r.AddAttrs(slog.String("trace_id", sc.TraceID().String()), slog.String("span_id", sc.SpanID().String()))
	}
	return h.Handler.Handle(ctx, r)
}

func (h traceIDs) WithAttrs(attrs []slog.Attr) slog.Handler {
	return traceIDs{h.Handler.WithAttrs(attrs)}
}
func (h traceIDs) WithGroup(name string) slog.Handler { return traceIDs{h.Handler.WithGroup(name)} }
