// Command concierge-load measures chat turn latency through the JSON API of
// a running Concierge: it signs in as a demo traveler, sends a fixed script
// of messages in sessions of ten turns, closes each session, and prints
// latency percentiles. It talks only to the URL it is given (loopback by
// default) and stops after --turns turns or --timeout.
//
//	go run ./cmd/concierge &            # offline model, demo data
//	go run ./cmd/concierge-load --turns 1000
//
// With --soak it runs --clients clients across the --urls instances for
// the given time instead, then reads everything back over the API and
// prints exact counts (see soak.go).
//
// With --throughput it measures turns/s, latency and server CPU per turn
// with --clients clients (default 16) beside /healthz; with --burst it
// opens that many conversations at once against a slow model server it
// starts in-process, and prints the overhead over calling the model
// directly (see bench.go). Both start the --bin binary on 127.0.0.1.
//
//	go build -o /tmp/concierge ./cmd/concierge
//	go run ./cmd/concierge-load --bin /tmp/concierge --throughput 10s
//	go run ./cmd/concierge-load --bin /tmp/concierge --burst 500 --model-delay 1s
//
//	go run ./cmd/concierge-load --soak 60s --clients 200 --urls http://127.0.0.1:8081,http://127.0.0.1:8082
package main

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"
)

// script is the conversation every client sends, a message per line of
// script.txt (the offline model's BenchmarkScript replays the same file).
//
//go:embed script.txt
var scriptText string

var script = strings.Split(strings.TrimSpace(scriptText), "\n")

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "concierge-load:", err)
		os.Exit(1)
	}
}

type client struct {
	base, token string
	http        *http.Client
}

func (c *client) call(ctx context.Context, method, path string, body any, out any) (int, error) {
	return c.callKey(ctx, method, path, "", body, out)
}

// callKey is call with an Idempotency-Key header (none when key is empty).
func (c *client) callKey(ctx context.Context, method, path, key string, body any, out any) (int, error) {
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, r)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if out != nil {
		_ = json.NewDecoder(resp.Body).Decode(out)
	} else {
		_, _ = io.Copy(io.Discard, resp.Body)
	}
	return resp.StatusCode, nil
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("concierge-load", flag.ContinueOnError)
	url := fs.String("url", "http://127.0.0.1:8080", "Concierge base URL (a server you run on this machine)")
	email := fs.String("email", "john@example.com", "traveler account")
	password := fs.String("password", "demo", "its password")
	turns := fs.Int("turns", 1000, "turns to send")
	timeout := fs.Duration("timeout", 10*time.Minute, "stop after this long")
	soak := fs.Duration("soak", 0, "soak mode: run --clients clients across --urls for this long, then check exact counts")
	clients := fs.Int("clients", 200, "soak: concurrent clients")
	urls := fs.String("urls", "", "soak: comma-separated instance URLs on one database (default: --url)")
	emails := fs.String("emails", "", "soak: comma-separated traveler accounts, all with --password (default: --email)")
	perSession := fs.Int("session-messages", 5, "soak: messages per session before it is closed")
	settle := fs.Duration("settle", 2*time.Minute, "soak: how long to wait for the last consolidations before counting")
	racing := fs.Float64("racing", 0.2, "soak: share of steps that race two sends to one session (same key twice, or two messages)")
	throughput := fs.Duration("throughput", 0, "throughput mode: --clients clients send turns for this long (or --turns), then /healthz the same way")
	burst := fs.Int("burst", 0, "burst mode: this many conversations at once against a slow model server started in-process")
	burstTurns := fs.Int("burst-turns", 3, "burst: turns per conversation")
	modelDelay := fs.Duration("model-delay", time.Second, "burst: the model server's delay on every call")
	bin := fs.String("bin", "", "throughput, burst: a built concierge binary to start on 127.0.0.1 with demo data (required for burst)")
	dsn := fs.String("db", "", "throughput, burst: database of the started server (default a fresh SQLite file; a postgres:// URL of an empty database)")
	pin := fs.String("pin", "", "throughput, burst: place the started server and this command on CPUs, SERVER:LOAD in taskset's terms (e.g. 0:1)")
	calibrate := fs.Int("calibrate", 5, "burst: conversations sent one turn at a time first, to measure the server's CPU before a model call (the floor)")
	staff := fs.String("staff-email", "admin@example.com", "throughput without --bin: staff account that reads /metrics for CPU seconds")
	if err := fs.Parse(args); err != nil {
		return err
	}
	explicit := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { explicit[f.Name] = true })
	if *throughput > 0 {
		n := 16
		if explicit["clients"] {
			n = *clients
		}
		limit := 0
		if explicit["turns"] {
			limit = *turns
		}
		ctx, cancel := context.WithTimeout(context.Background(), *throughput+5*time.Minute)
		defer cancel()
		return runThroughput(ctx, throughputConfig{Bin: *bin, URL: strings.TrimRight(*url, "/"), DSN: *dsn, Email: *email, Password: *password,
			Staff: *staff, Clients: max(n, 1), Duration: *throughput, Turns: limit, Session: 10, Pin: *pin}, stdout)
	}
	if *burst > 0 {
		return runBurst(context.Background(), burstConfig{Bin: *bin, DSN: *dsn, Email: *email, Password: *password,
			Conversations: *burst, Turns: max(*burstTurns, 1), Delay: *modelDelay, Timeout: *timeout,
			Pin: *pin, Calibrate: max(*calibrate, 0)}, stdout)
	}
	if *soak > 0 {
		cfg := soakConfig{URLs: splitList(*urls), Emails: splitList(*emails), Password: *password, Clients: *clients,
			Duration: *soak, Settle: *settle, Session: max(*perSession, 1), Racing: *racing}
		if len(cfg.URLs) == 0 {
			cfg.URLs = []string{*url}
		}
		if len(cfg.Emails) == 0 {
			cfg.Emails = []string{*email}
		}
		ctx, cancel := context.WithTimeout(context.Background(), *soak+*settle+10*time.Minute)
		defer cancel()
		return runSoak(ctx, cfg, stdout)
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	c := &client{base: *url, http: &http.Client{Timeout: time.Minute}}
	var auth struct {
		Token string `json:"token"`
	}
	if status, err := c.call(ctx, "POST", "/api/v1/auth/token", map[string]string{"email": *email, "password": *password}, &auth); err != nil || status != 200 {
		return fmt.Errorf("sign in: status %d: %v", status, err)
	}
	c.token = auth.Token

	lat := make([]time.Duration, 0, *turns)
	var session string
	start := time.Now()
	for i := 0; i < *turns; i++ {
		if i%len(script) == 0 {
			if session != "" {
				if _, err := c.call(ctx, "POST", "/api/v1/sessions/"+session+"/close", nil, nil); err != nil {
					return err
				}
			}
			var s struct {
				ID string `json:"id"`
			}
			if status, err := c.call(ctx, "POST", "/api/v1/sessions", nil, &s); err != nil || status != 201 {
				return fmt.Errorf("open session: status %d: %v", status, err)
			}
			session = s.ID
		}
		t0 := time.Now()
		status, err := c.call(ctx, "POST", "/api/v1/sessions/"+session+"/messages", map[string]string{"content": script[i%len(script)]}, nil)
		if errors.Is(err, context.DeadlineExceeded) {
			break
		}
		if err != nil || status != 200 {
			return fmt.Errorf("turn %d: status %d: %v", i, status, err)
		}
		lat = append(lat, time.Since(t0))
	}
	if len(lat) == 0 {
		return errors.New("no turn completed")
	}
	total := time.Since(start)
	slices.Sort(lat)
	pct := func(p float64) time.Duration { return lat[int(p*float64(len(lat)-1))] }
	fmt.Fprintf(stdout, "turns %d in %v (%.1f turns/s)\n", len(lat), total.Round(time.Millisecond), float64(len(lat))/total.Seconds())
	fmt.Fprintf(stdout, "latency p50 %v  p90 %v  p99 %v  max %v\n", pct(0.5), pct(0.9), pct(0.99), pct(1))
	return nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, strings.TrimRight(p, "/"))
		}
	}
	return out
}
