package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"golang.org/x/crypto/bcrypt"

	"concierge/agent"
	"concierge/agent/offline"
	"concierge/handlers"
	"concierge/memory"
	"concierge/models/dbtest"
)

// BenchmarkServerTurn is the throughput mode in one process, for profiles
// of the whole server path (go test -bench ServerTurn -cpuprofile):
// 16 clients send b.N turns through the JSON API of a server on SQLite
// with the offline model, in sessions of ten that are closed (so the
// consolidations they start are in the profile too).
func BenchmarkServerTurn(b *testing.B) { benchServerTurn(b, nil) }

// BenchmarkServerTurnTraced is BenchmarkServerTurn with tracing on: every
// span is recorded and handed to a batching exporter that discards it, so
// the difference is what recording costs a turn.
func BenchmarkServerTurnTraced(b *testing.B) {
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(discardSpans{}))
	b.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	benchServerTurn(b, tp)
}

// discardSpans is an exporter that drops what it is given.
type discardSpans struct{}

func (discardSpans) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error { return nil }
func (discardSpans) Shutdown(context.Context) error                             { return nil }

func benchServerTurn(b *testing.B, tp trace.TracerProvider) {
	store := dbtest.SQLite(b)
	if err := store.Trace(tp); err != nil {
		b.Fatal(err)
	}
	store.PasswordCost = bcrypt.MinCost
	ctx := context.Background()
	if _, err := store.SeedDemo(ctx, "demo"); err != nil {
		b.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	ag := agent.New(agent.DefaultConfig("gpt-4o-mini"), store, offline.New(memory.NewTokenCounter("gpt-4o-mini")), log)
	ag.SetTracer(tp)
	w := agent.NewWorker(agent.DefaultWorkerConfig(), store, nil, log)
	w.SetTracer(tp)
	wctx, stop := context.WithCancel(ctx)
	w.Start(wctx)
	cfg := handlers.DefaultConfig()
	cfg.Offline = true
	cfg.Tracer = tp
	srv := httptest.NewServer(handlers.NewServer(cfg, store, ag, w, log))
	b.Cleanup(func() { srv.Close(); stop(); w.Wait() })
	httpc := &http.Client{Timeout: time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: 32}}
	tok, err := signInRetrying(ctx, httpc, srv.URL, "john@example.com", "demo")
	if err != nil {
		b.Fatal(err)
	}
	var left atomic.Int64
	left.Store(int64(b.N))
	b.ResetTimer()
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			c := &client{base: srv.URL, token: tok, http: httpc}
			for left.Load() > 0 {
				if err := sessionTurns(ctx, c, 10, func(time.Duration) bool { return left.Add(-1) > 0 }, nil); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}
