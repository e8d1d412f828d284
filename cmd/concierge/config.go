package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"

	"concierge/agent"
	"concierge/handlers"
	"concierge/models"
)

// defaultModelTimeout bounds one model call, retries included.
const defaultModelTimeout = 60 * time.Second

// Config is everything the command can be told, from flags or their
// environment twins (a flag given on the command line wins).
type Config struct {
	Addr             string
	DB               string
	Demo             bool
	DemoPassword     string
	OpenAIKey        string
	OpenAIBaseURL    string
	ChatModel        string
	ConsolidateModel string
	GuardModel       string // the guard's model layer: a model name, or "off"
	SessionIdle      time.Duration
	WebSessionIdle   time.Duration
	Retention        time.Duration
	ErasureDue       time.Duration
	ShutdownTimeout  time.Duration
	JobLease         time.Duration
	DBDeadline       time.Duration
	Workers          int
	ModelTimeout     time.Duration
	ModelConcurrency int
	MaxStreams       int
	MaxUserStreams   int
	LogFormat        string
	LogLevel         string
	SecureCookies    bool
	TrustProxy       bool
	// Pprof, when set, serves net/http/pprof on this loopback address, for
	// profiles of a running server; off by default.
	Pprof string
}

// envDefault returns the first non-empty environment value among names.
func envDefault(getenv func(string) string, def string, names ...string) string {
	for _, n := range names {
		if v := getenv(n); v != "" {
			return v
		}
	}
	return def
}

func envDuration(getenv func(string) string, name string, def time.Duration) (time.Duration, error) {
	v := getenv(name)
	if v == "" {
		return def, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", name, err)
	}
	return d, nil
}

func envInt(getenv func(string) string, name string, def int) (int, error) {
	v := getenv(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", name, err)
	}
	return n, nil
}

func envBool(getenv func(string) string, name string, def bool) (bool, error) {
	v := getenv(name)
	if v == "" {
		return def, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("%s: %w", name, err)
	}
	return b, nil
}

// parseServeConfig reads the serve flags from args with getenv as defaults.
func parseServeConfig(name string, args []string, getenv func(string) string, stderr io.Writer) (Config, error) {
	var c Config
	var errs []string
	dur := func(env string, def time.Duration) time.Duration {
		d, err := envDuration(getenv, env, def)
		if err != nil {
			errs = append(errs, err.Error())
		}
		return d
	}
	integer := func(env string, def int) int {
		n, err := envInt(getenv, env, def)
		if err != nil {
			errs = append(errs, err.Error())
		}
		return n
	}
	boolean := func(env string, def bool) bool {
		b, err := envBool(getenv, env, def)
		if err != nil {
			errs = append(errs, err.Error())
		}
		return b
	}
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.Addr, "addr", envDefault(getenv, ":8080", "CONCIERGE_ADDR"), "address to listen on (CONCIERGE_ADDR)")
	fs.StringVar(&c.DB, "db", envDefault(getenv, "concierge.db", "CONCIERGE_DB", "DATABASE_URL"),
		"SQLite file, or a postgres:// URL (CONCIERGE_DB, DATABASE_URL)")
	fs.BoolVar(&c.Demo, "demo", boolean("CONCIERGE_DEMO", true), "seed demo accounts into a new database (CONCIERGE_DEMO)")
	noDemo := fs.Bool("no-demo", false, "do not seed demo accounts")
	fs.StringVar(&c.DemoPassword, "demo-password", envDefault(getenv, "demo", "CONCIERGE_DEMO_PASSWORD"), "password of the demo accounts (CONCIERGE_DEMO_PASSWORD)")
	fs.StringVar(&c.OpenAIBaseURL, "openai-base-url", envDefault(getenv, "", "OPENAI_BASE_URL"), "OpenAI-compatible API base URL (OPENAI_BASE_URL)")
	fs.StringVar(&c.ChatModel, "model", envDefault(getenv, "gpt-4o-mini", "CONCIERGE_MODEL"), "chat model name (CONCIERGE_MODEL)")
	fs.StringVar(&c.ConsolidateModel, "consolidation-model", envDefault(getenv, "", "CONCIERGE_CONSOLIDATION_MODEL"),
		"model for consolidation; defaults to the chat model (CONCIERGE_CONSOLIDATION_MODEL)")
	fs.StringVar(&c.GuardModel, "guard-model", envDefault(getenv, "", "CONCIERGE_GUARD_MODEL"),
		"model that reviews the notes the guard's rules passed, or \"off\"; defaults to the chat model, off without a key (CONCIERGE_GUARD_MODEL)")
	fs.DurationVar(&c.SessionIdle, "session-idle", dur("CONCIERGE_SESSION_IDLE", 30*time.Minute), "close chat sessions idle this long (CONCIERGE_SESSION_IDLE)")
	fs.DurationVar(&c.WebSessionIdle, "session-idle-web", dur("CONCIERGE_SESSION_IDLE_WEB", 12*time.Hour), "sign a browser out after this long unused, 0 for never (CONCIERGE_SESSION_IDLE_WEB)")
	fs.DurationVar(&c.Retention, "retention", dur("CONCIERGE_RETENTION", 90*24*time.Hour), "keep transcripts and prompt snapshots this long (CONCIERGE_RETENTION)")
	fs.DurationVar(&c.ErasureDue, "erasure-due", dur("CONCIERGE_ERASURE_DUE", handlers.DefaultConfig().ErasureDue), "an erasure request is due this long after it was made (CONCIERGE_ERASURE_DUE)")
	fs.DurationVar(&c.ShutdownTimeout, "shutdown-timeout", dur("CONCIERGE_SHUTDOWN_TIMEOUT", 15*time.Second), "time to drain requests on shutdown (CONCIERGE_SHUTDOWN_TIMEOUT)")
	fs.DurationVar(&c.DBDeadline, "db-deadline", dur("CONCIERGE_DB_DEADLINE", models.DefaultDeadline), "time limit of one database statement or write transaction; past it the request answers 503 (CONCIERGE_DB_DEADLINE)")
	fs.DurationVar(&c.JobLease, "job-lease", dur("CONCIERGE_JOB_LEASE", 8*time.Second), "how long a consolidation job stays with a worker that stopped renewing it (a heartbeat renews it every third of that while the job runs) (CONCIERGE_JOB_LEASE)")
	fs.IntVar(&c.Workers, "workers", 2, "consolidation jobs run at once")
	fs.DurationVar(&c.ModelTimeout, "model-timeout", dur("CONCIERGE_MODEL_TIMEOUT", defaultModelTimeout), "time limit of one model call, retries included (CONCIERGE_MODEL_TIMEOUT)")
	fs.IntVar(&c.ModelConcurrency, "model-concurrency", integer("CONCIERGE_MODEL_CONCURRENCY", agent.DefaultModelConcurrency),
		"turns that call the model at once; twice as many more may wait, beyond that new messages get 503 (CONCIERGE_MODEL_CONCURRENCY)")
	fs.IntVar(&c.MaxStreams, "max-streams", integer("CONCIERGE_MAX_STREAMS", handlers.DefaultConfig().MaxStreams),
		"answer streams open at once (CONCIERGE_MAX_STREAMS)")
	fs.IntVar(&c.MaxUserStreams, "max-streams-per-user", integer("CONCIERGE_MAX_STREAMS_PER_USER", handlers.DefaultConfig().MaxStreamsPerUser),
		"answer streams one traveler may have open at once (CONCIERGE_MAX_STREAMS_PER_USER)")
	fs.StringVar(&c.LogFormat, "log-format", envDefault(getenv, "text", "CONCIERGE_LOG_FORMAT"), "log format: text or json (CONCIERGE_LOG_FORMAT)")
	fs.StringVar(&c.LogLevel, "log-level", envDefault(getenv, "info", "CONCIERGE_LOG_LEVEL"), "log level: debug, info, warn, error (CONCIERGE_LOG_LEVEL)")
	fs.BoolVar(&c.SecureCookies, "secure-cookies", boolean("CONCIERGE_SECURE_COOKIES", false), "mark cookies Secure, for TLS behind a proxy (CONCIERGE_SECURE_COOKIES)")
	fs.BoolVar(&c.TrustProxy, "trust-proxy", boolean("CONCIERGE_TRUST_PROXY", false), "take client addresses from X-Forwarded-For, behind a proxy (CONCIERGE_TRUST_PROXY)")
	fs.StringVar(&c.Pprof, "pprof", envDefault(getenv, "", "CONCIERGE_PPROF"),
		"serve Go profiles (net/http/pprof) on this loopback address, e.g. 127.0.0.1:6060; off by default (CONCIERGE_PPROF)")
	if len(errs) > 0 {
		return c, fmt.Errorf("bad environment: %s", strings.Join(errs, "; "))
	}
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	if *noDemo {
		c.Demo = false
	}
	// The key is read from the environment only, never from a flag, so it
	// does not show in process listings.
	c.OpenAIKey = getenv("OPENAI_API_KEY")
	if c.ModelConcurrency <= 0 || c.MaxStreams <= 0 || c.MaxUserStreams <= 0 {
		return c, errors.New("--model-concurrency, --max-streams and --max-streams-per-user must be positive")
	}
	if c.JobLease <= 0 || c.JobLease > models.MaxLease {
		// A lock set further ahead than MaxLease counts as a fast clock's.
		return c, fmt.Errorf("--job-lease must be positive and at most %s", models.MaxLease)
	}
	if c.DBDeadline <= 0 {
		return c, errors.New("--db-deadline must be positive")
	}
	if c.Pprof != "" {
		host, _, err := net.SplitHostPort(c.Pprof)
		if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
			return c, errors.New("--pprof must be a loopback address such as 127.0.0.1:6060: profiles are not for the network")
		}
	}
	if c.ConsolidateModel == "" {
		c.ConsolidateModel = c.ChatModel
	}
	switch {
	case c.OpenAIKey == "" || strings.EqualFold(c.GuardModel, "off"):
		c.GuardModel = "" // offline, or turned off: rules only
	case c.GuardModel == "":
		c.GuardModel = c.ChatModel
	}
	return c, nil
}
