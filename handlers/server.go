// Package handlers is Concierge's HTTP surface: the browser pages (templ +
// htmx) and the JSON API, with authentication, CSRF protection, logging and
// one error handler. Domain work is done by the packages it calls.
package handlers

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"concierge/agent"

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
}

// DefaultConfig returns the settings used when none are given.
func DefaultConfig() Config {
	return Config{
		SessionTTL:         14 * 24 * time.Hour,
		TokenTTL:           24 * time.Hour,
		BodyLimit:          "1M",
		LoginPolicy:        models.DefaultLoginPolicy,
		LoginRatePerMinute: 20,
		LoginBurst:         10,
	}
}

// Server is Concierge's HTTP handler.
type Server struct {
	cfg     Config
	store   *models.Store
	agent   *agent.Agent
	worker  *agent.Worker
	log     *slog.Logger
	assets  *static.Assets
	echo    *echo.Echo
	metrics *metrics
}

// NewServer builds the server with every dependency given explicitly.
func NewServer(cfg Config, store *models.Store, ag *agent.Agent, worker *agent.Worker, log *slog.Logger) *Server {
	s := &Server{cfg: cfg, store: store, agent: ag, worker: worker, log: log, assets: static.New(), echo: echo.New(),
		metrics: newMetrics(store, log)}
	if ag != nil {
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

// ServeHTTP makes Server an http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.echo.ServeHTTP(w, r) }

// Routes lists every registered route as "METHOD path", for the access
// table test that checks each one is declared with its rule.
func (s *Server) Routes() []string {
	var out []string
	for _, r := range s.echo.Routes() {
		out = append(out, r.Method+" "+r.Path)
	}
	return out
}
