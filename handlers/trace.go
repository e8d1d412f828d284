package handlers

import (
	"strconv"

	"github.com/labstack/echo/v4"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"
)

// traceRequests records each request as a server span named by its method
// and route ("POST /api/v1/sessions/:id/messages"), continuing the trace a
// W3C traceparent header names. The span is in the request's context, so
// the request's log line carries its trace id and the turn a send starts
// joins its trace. Spans carry the method, the route, the status and the
// request and user ids — never the path's query or a body. With tracing
// off (no Config.Tracer) it adds nothing.
func (s *Server) traceRequests() echo.MiddlewareFunc {
	if s.cfg.Tracer == nil {
		return func(next echo.HandlerFunc) echo.HandlerFunc { return next }
	}
	tracer := s.cfg.Tracer.Tracer("concierge/handlers", trace.WithSchemaURL(semconv.SchemaURL))
	prop := propagation.TraceContext{}
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			r := c.Request()
			route := c.Path()
			name := r.Method
			if route != "" {
				name += " " + route
			}
			ctx := prop.Extract(r.Context(), propagation.HeaderCarrier(r.Header))
			ctx, span := tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindServer),
				trace.WithAttributes(semconv.HTTPRequestMethodKey.String(r.Method), semconv.HTTPRoute(route)))
			defer span.End()
			c.SetRequest(r.WithContext(ctx))
			err := next(c)
			status := c.Response().Status
			span.SetAttributes(semconv.HTTPResponseStatusCode(status), attribute.String("concierge.request_id", requestID(c)))
			if u := currentUser(c); u != nil {
				span.SetAttributes(semconv.UserID(u.ID))
			}
			if status >= 500 {
				span.SetAttributes(semconv.ErrorTypeKey.String(strconv.Itoa(status)))
				span.SetStatus(codes.Error, "")
			}
			return err
		}
	}
}

// requestSpan is the span of the request c, for the turn it starts.
func requestSpan(c echo.Context) trace.SpanContext {
	return trace.SpanContextFromContext(c.Request().Context())
}
