// Package handlers is Concierge's HTTP surface: the browser pages (templ +
// htmx) and the JSON API, with authentication, CSRF protection, logging and
// one error handler. Domain work is done by the packages it calls.
package handlers

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
	"go.opentelemetry.io/otel/trace"

	"concierge/agent"
	"concierge/memory"

	"concierge/models"
	"concierge/static"
)

// Config holds the server's settings.
type Config struct {
	// SecureCookies marks cookies Secure; set it when serving over TLS (a
	// request that arrives over TLS gets Secure cookies regardless).
	SecureCookies bool
	// DemoEnabled shows the demo accounts on the login page.
	DemoEnabled bool
	// Offline says that the built-in offline model answers.
	Offline bool
	// SessionTTL is how long a browser login lasts.
	SessionTTL time.Duration
	// WebSessionIdle ends a browser login left unused this long (0: never).
	WebSessionIdle time.Duration
	// TokenTTL is how long an API token lasts.
	TokenTTL time.Duration
	// BodyLimit caps request bodies, e.g. "1M".
	BodyLimit string
	// LoginPolicy is the per-account lockout policy.
	LoginPolicy models.LoginPolicy
	// TrustProxy takes the client address from X-Forwarded-For (set it only
	// behind a proxy that overwrites that header); otherwise the address of
	// the connection is used, which a client cannot forge.
	TrustProxy bool
	// LoginRatePerMinute and LoginBurst limit login attempts per client IP.
	LoginRatePerMinute float64
	LoginBurst         int

	// ErasureDue is how long after it was made an erasure request is due
	// (one month by default, as data-protection law in most markets sets).
	ErasureDue time.Duration

	// Turns tunes the runner that produces answers apart from the requests
	// that ask for them: model concurrency, queue, turn timeout.
	Turns agent.RunnerConfig
	// MaxStreams caps the answer streams open at once, MaxStreamsPerUser
	// those of one traveler (browsers open at most six connections per
	// host over HTTP/1.1 anyway).
	MaxStreams        int
	MaxStreamsPerUser int
	// StreamWriteTimeout is how long writing one stream event may take, so
	// a client that stopped reading cannot hold its stream forever.
	StreamWriteTimeout time.Duration
	// WriteTimeout bounds writing any other response; handlers that wait
	// for a turn extend it.
	WriteTimeout time.Duration
	// ReadHeaderTimeout and IdleTimeout are the HTTP server's: time to send
	// the request headers, and how long a keep-alive connection may idle.
	ReadHeaderTimeout time.Duration
	IdleTimeout       time.Duration
	// Tracer records each request as a span (trace.go); nil: tracing off.
	Tracer trace.TracerProvider
}

// DefaultConfig returns the settings used when none are given.
func DefaultConfig() Config {
	return Config{
		SessionTTL:         14 * 24 * time.Hour,
		WebSessionIdle:     12 * time.Hour,
		TokenTTL:           24 * time.Hour,
		BodyLimit:          "1M",
		LoginPolicy:        models.DefaultLoginPolicy,
		LoginRatePerMinute: 20,
		LoginBurst:         10,
		MaxStreams:         10000,
		MaxStreamsPerUser:  8,
		StreamWriteTimeout: 10 * time.Second,
		WriteTimeout:       60 * time.Second,
		ReadHeaderTimeout:  10 * time.Second,
		IdleTimeout:        2 * time.Minute,
		ErasureDue:         30 * 24 * time.Hour,
	}
}

// Server is Concierge's HTTP handler.
type Server struct {
	cfg     Config
	store   *models.Store
	agent   *agent.Agent
	notes   *models.Notes // every note write (the agent's service)
	turns   *agent.Runner
	worker  *agent.Worker
	log     *slog.Logger
	assets  *static.Assets
	echo    *echo.Echo
	streams streamCounts
	metrics *metrics
	// abandoned ends when shutdown gives up on the requests still waiting
	// for a turn (Abandon).
	abandoned   context.Context
	abandonOnce context.CancelFunc
}

// NewServer builds the server with every dependency given explicitly.
func NewServer(cfg Config, store *models.Store, ag *agent.Agent, worker *agent.Worker, log *slog.Logger) *Server {
	s := &Server{cfg: cfg, store: store, agent: ag, turns: agent.NewRunner(cfg.Turns, ag, log), worker: worker, log: log,
		assets: static.New(), echo: echo.New(), streams: streamCounts{perUser: map[string]int{}}, metrics: newMetrics(store, log)}
	s.notes = store.Notes(memory.Limits{})
	s.abandoned, s.abandonOnce = context.WithCancel(context.Background())
	if ag != nil {
		s.notes = ag.Notes()
		ag.SetObserver(s.metrics) // every turn's model and server time, for /metrics
	}
	s.echo.HideBanner = true
	s.echo.HidePort = true
	s.echo.HTTPErrorHandler = s.handleError
	s.echo.IPExtractor = echo.ExtractIPDirect()
	if cfg.TrustProxy {
		s.echo.IPExtractor = echo.ExtractIPFromXFFHeader()
	}
	s.routes()
	return s
}

// ServeHTTP makes Server an http.Handler. Every response gets a write
// deadline, so a client that stops reading cannot pin a handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.cfg.WriteTimeout > 0 {
		_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(s.cfg.WriteTimeout))
	}
	s.echo.ServeHTTP(w, r)
}

// HTTPServer returns the HTTP server for s with its limits: time to read
// the request headers, idle keep-alive connections, header size. It sets
// no overall read or write timeout, which would cut long answer streams
// (a read timeout also cancels the request's context); writes have
// deadlines per response and per stream event instead. base is the
// context requests derive from.
func (s *Server) HTTPServer(base context.Context) *http.Server {
	return &http.Server{
		Handler:           s,
		ReadHeaderTimeout: s.cfg.ReadHeaderTimeout,
		IdleTimeout:       s.cfg.IdleTimeout,
		MaxHeaderBytes:    64 << 10,
		BaseContext:       func(net.Listener) context.Context { return base },
	}
}

// Drain stops taking new turns and lets the running ones finish and store
// their answers, until ctx ends (see agent.Runner.Drain). Call it when
// shutting down, beside http.Server.Shutdown: the streams watching those
// turns end when they do. Summaries being written in the background are
// waited for too.
func (s *Server) Drain(ctx context.Context) error {
	return errors.Join(s.turns.Drain(ctx), s.agent.WaitBackground(ctx))
}

// Routes lists every registered route as "METHOD path", for the access
// table test that checks each one is declared with its rule.
func (s *Server) Routes() []string {
	var out []string
	for _, r := range s.echo.Routes() {
		out = append(out, r.Method+" "+r.Path)
	}
	return out
}
