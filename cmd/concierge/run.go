package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"concierge/agent"
	"concierge/agent/offline"
	"concierge/agent/openai"
	"concierge/handlers"
	"concierge/memory"
	"concierge/models"
)

const usage = `Usage: concierge [command] [flags]

Commands:
  serve        serve the web app and API (the default)
  migrate      apply pending database migrations and exit
  user add     create an account: --email, --name, --role, password from --password or stdin
  healthcheck  exit 0 when the server at --addr answers /healthz (for containers)
  eval         score the memory pipeline on synthetic travelers (--json, --compare recency,relevance)
  backup DEST  copy the live SQLite database to DEST (online backup, checked); on PostgreSQL, prints the pg_dump command
  restore SRC  replace the SQLite database with the backup SRC; refuses while a server runs on it
  import FILE  import travelers with profiles and trips from a JSON-lines file, idempotent by external id; reports refused lines

Run "concierge serve -h" for the server's flags.
`

// run is the whole program; main only supplies the process's context,
// arguments, environment and streams.
func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	cmd := "serve"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return serve(ctx, args, getenv, stdout, stderr)
	case "migrate":
		return migrate(ctx, args, getenv, stdout, stderr)
	case "user":
		if len(args) == 0 || args[0] != "add" {
			return errors.New(`unknown user command; try "concierge user add"`)
		}
		return userAdd(ctx, args[1:], getenv, stdin, stdout, stderr)
	case "healthcheck":
		return healthcheck(ctx, args, getenv, stderr)
	case "eval":
		return evalCmd(ctx, args, getenv, stdout, stderr)
	case "backup":
		return backupCmd(ctx, args, getenv, stdout, stderr)
	case "restore":
		return restoreCmd(ctx, args, getenv, stdout, stderr)
	case "import":
		return importCmd(ctx, args, getenv, stdout, stderr)
	case "help":
		fmt.Fprint(stdout, usage)
		return nil
	default:
		fmt.Fprint(stderr, usage)
		return fmt.Errorf("unknown command %q", cmd)
	}
}

func newLogger(cfg Config, w io.Writer) (*slog.Logger, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(cfg.LogLevel)); err != nil {
		return nil, fmt.Errorf("log level %q: %w", cfg.LogLevel, err)
	}
	opts := &slog.HandlerOptions{Level: level}
	switch cfg.LogFormat {
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("log format %q: want text or json", cfg.LogFormat)
}

// openStore opens and migrates the database.
func openStore(ctx context.Context, dsn string) (*models.Store, error) {
	store, err := models.Open(dsn)
	if err != nil {
		return nil, err
	}
	if err := store.Migrate(ctx); err != nil {
		store.Close()
		return nil, err
	}
	return store, nil
}

func serve(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cfg, err := parseServeConfig("serve", args, getenv, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	log, err := newLogger(cfg, stderr)
	if err != nil {
		return err
	}
	tracing, stopTracing, err := startTracing(ctx, getenv)
	if err != nil {
		return err
	}
	if tracing != nil {
		log = slog.New(traceIDs{log.Handler()})
		defer func() {
			// Last, after the workers: their spans are flushed too.
			flushCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if err := stopTracing(flushCtx); err != nil {
				log.Warn("traces: flush at exit", "err", err)
			}
		}()
	}
	started := time.Now()
	go memory.Warm(cfg.ChatModel) // beside the migrations, before the first turn
	store, err := models.Open(cfg.DB)
	if err != nil {
		return err
	}
	defer store.Close()
	store.Log, store.Deadline = log, cfg.DBDeadline
	if err := store.Trace(tracing); err != nil {
		return err
	}
	// Marks the database as served, so "concierge restore" refuses to
	// replace it under us.
	if err := store.HoldServing(); err != nil {
		return err
	}
	// Migrations and the demo seed run under one lock, so instances started
	// together on a new database all come up.
	demoPassword := ""
	if cfg.Demo {
		demoPassword = cfg.DemoPassword
	}
	seeded, err := store.MigrateAndSeed(ctx, demoPassword)
	if err != nil {
		return err
	}
	if seeded {
		log.Info("seeded demo accounts into the new database", "accounts", len(models.DemoAccounts))
	}

	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.Addr, err)
	}
	if cfg.Pprof != "" {
		stopProfiles, _, err := serveProfiles(cfg.Pprof, log)
		if err != nil {
			return err
		}
		defer stopProfiles()
	}
	provider, completer, guard := newModels(cfg)
	acfg := agent.DefaultConfig(cfg.ChatModel)
	if guard != nil {
		acfg.Reviewer = memory.NewNoteClassifier(agent.TraceCompleter(guard, tracing), 0)
	}
	ag := agent.New(acfg, store, provider, log)
	ag.SetTracer(tracing)
	wcfg := agent.DefaultWorkerConfig()
	wcfg.SessionIdle, wcfg.Retention, wcfg.Lease, wcfg.Workers = cfg.SessionIdle, cfg.Retention, cfg.JobLease, cfg.Workers
	worker := agent.NewWorker(wcfg, store, completer, log)
	worker.SetTracer(tracing)
	workerCtx, stopWorkers := context.WithCancel(context.WithoutCancel(ctx))
	defer func() {
		// Workers stop before the deferred store.Close runs.
		stopWorkers()
		worker.Wait()
	}()
	worker.Start(workerCtx)

	hcfg := handlers.DefaultConfig()
	hcfg.SecureCookies = cfg.SecureCookies
	hcfg.WebSessionIdle = cfg.WebSessionIdle
	hcfg.TrustProxy = cfg.TrustProxy
	hcfg.ErasureDue = cfg.ErasureDue
	hcfg.DemoEnabled = cfg.Demo
	hcfg.Offline = cfg.OpenAIKey == ""
	// A turn may call the model MaxRounds times, each within the model timeout.
	hcfg.Turns = agent.RunnerConfig{Concurrency: cfg.ModelConcurrency, Timeout: time.Duration(agent.DefaultConfig("").MaxRounds) * cfg.ModelTimeout}
	hcfg.MaxStreams, hcfg.MaxStreamsPerUser = cfg.MaxStreams, cfg.MaxUserStreams
	hcfg.Tracer = tracing
	srv := handlers.NewServer(hcfg, store, ag, worker, log)

	// Requests get a context of their own that is cancelled only if
	// draining times out, so a stuck stream cannot outlive the database.
	requestCtx, cancelRequests := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelRequests()
	httpServer := srv.HTTPServer(requestCtx)
	url := "http://" + displayAddr(ln.Addr())
	fmt.Fprintf(stdout, "Concierge is listening on %s\n", url)
	if cfg.Demo {
		fmt.Fprintf(stdout, "Demo accounts are enabled: sign in at %s/login as john@example.com (traveler), support@example.com or admin@example.com, password %q\n",
			url, cfg.DemoPassword)
	}
	log.Info("serving", "addr", ln.Addr().String(), "db", dbKind(store), "model", provider.Name(),
		"startup_ms", time.Since(started).Milliseconds())

	serveErr := make(chan error, 1)
	go func() { serveErr <- httpServer.Serve(ln) }()
	select {
	case err := <-serveErr:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	// Drain with a fresh context: the one we were given is already done.
	log.Info("shutting down", "timeout", cfg.ShutdownTimeout.String())
	shutdownCtx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancel()
	// Stop taking new turns and let the running ones finish and store
	// their answers, while the HTTP server stops accepting connections and
	// waits for its requests (the streams end as their turns do).
	drained := make(chan error, 1)
	go func() { drained <- srv.Drain(shutdownCtx) }()
	shutdownErr := httpServer.Shutdown(shutdownCtx)
	if shutdownErr != nil {
		// Draining timed out. Every request still open gets a status
		// before its connection closes: 409 answer_in_progress where its
		// message is stored, 503 restarting where not, and a stream its
		// last event with Retry. Turns cut short keep their stored
		// message, for the next instance or a retry.
		log.Warn("shutdown timeout: answering the requests still open")
		srv.Abandon()
		answerCtx, cancelAnswer := context.WithTimeout(context.Background(), abandonGrace)
		shutdownErr = httpServer.Shutdown(answerCtx)
		cancelAnswer()
		if shutdownErr != nil {
			// Some could not be answered in time: cut them off.
			cancelRequests()
			_ = httpServer.Close()
		}
	}
	if err := <-drained; err != nil {
		log.Warn("shutdown timeout: turns cancelled; their messages stay stored", "err", err)
	}
	// Then the background workers (deferred above): a job cut short is
	// handed back to the queue for the next instance.
	if shutdownErr != nil {
		return fmt.Errorf("shutdown: some requests got no answer: %w", shutdownErr)
	}
	log.Info("http server stopped; stopping workers")
	return nil
}

// abandonGrace is how long the requests a timed-out drain gave up on have
// to write their answer before their connections are closed.
const abandonGrace = 3 * time.Second

// newModels picks the chat provider and the consolidation completer — the
// OpenAI-compatible server when a key is set, else the offline model and the
// rules engine — and the guard's classifier model when --guard-model names
// one. Every model call shares one HTTP client, with about as many pooled
// connections as calls run at once.
func newModels(cfg Config) (provider agent.Provider, consolidation, guard memory.Completer) {
	client := openai.NewHTTPClient(openai.HTTPConfig{IdleConnsPerHost: cfg.ModelConcurrency + cfg.Workers, ResponseHeaderTimeout: cfg.ModelTimeout})
	remote := openai.New(openai.Config{APIKey: cfg.OpenAIKey, BaseURL: cfg.OpenAIBaseURL, Model: cfg.ChatModel, Timeout: cfg.ModelTimeout, HTTPClient: client})
	if cfg.GuardModel != "" {
		guard = remote.WithModel(cfg.GuardModel)
	}
	if cfg.OpenAIKey == "" {
		return offline.New(memory.NewTokenCounter(cfg.ChatModel)), nil, guard
	}
	return remote, remote.WithModel(cfg.ConsolidateModel), guard
}

func dbKind(s *models.Store) string {
	if s.IsPostgres() {
		return s.Kind()
	}
	return s.Kind() + ":" + s.Path()
}

// displayAddr turns a listener address into one a browser can open.
func displayAddr(a net.Addr) string {
	host, port, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		host = "localhost"
	}
	return net.JoinHostPort(host, port)
}

func migrate(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cfg, err := parseServeConfig("migrate", args, getenv, stderr)
	if err != nil {
		return err
	}
	store, err := openStore(ctx, cfg.DB)
	if err != nil {
		return err
	}
	defer store.Close()
	v, err := store.SchemaVersion(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "database is at schema version %d\n", v)
	return nil
}

func userAdd(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("user add", flag.ContinueOnError)
	fs.SetOutput(stderr)
	email := fs.String("email", "", "email address (required)")
	name := fs.String("name", "", "display name (required)")
	role := fs.String("role", "traveler", "traveler, support or admin")
	password := fs.String("password", "", "password; read from the first line of stdin when empty")
	db := fs.String("db", envDefault(getenv, "concierge.db", "CONCIERGE_DB", "DATABASE_URL"), "SQLite file or postgres:// URL")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *email == "" || *name == "" {
		return errors.New("user add: --email and --name are required")
	}
	if !models.Role(*role).Valid() {
		return fmt.Errorf("user add: role %q: want traveler, support or admin", *role)
	}
	if *password == "" {
		line, err := bufio.NewReader(stdin).ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("user add: read password: %w", err)
		}
		*password = strings.TrimRight(line, "\r\n")
	}
	if err := models.CheckPassword(*password, *email, *name); err != nil {
		return fmt.Errorf("user add: %w", err)
	}
	store, err := openStore(ctx, *db)
	if err != nil {
		return err
	}
	defer store.Close()
	u, err := store.CreateUser(ctx, *email, *name, models.Role(*role), *password)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "created %s account %s (id %s)\n", u.Role, u.Email, u.ID)
	return nil
}

func healthcheck(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer) error {
	fs := flag.NewFlagSet("healthcheck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", envDefault(getenv, ":8080", "CONCIERGE_ADDR"), "the server's listen address")
	if err := fs.Parse(args); err != nil {
		return err
	}
	host, port, err := net.SplitHostPort(*addr)
	if err != nil {
		return fmt.Errorf("healthcheck: address %q: %w", *addr, err)
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+net.JoinHostPort(host, port)+"/healthz", nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("healthcheck: %w", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("healthcheck: /healthz answered %d", resp.StatusCode)
	}
	return nil
}
