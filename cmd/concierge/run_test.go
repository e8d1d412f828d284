package main

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// startServer calls run on :0 with a temporary database and returns the
// server's URL, a function that stops it, and the channel run's result
// arrives on.
func startServer(t *testing.T, env map[string]string, args ...string) (string, context.CancelFunc, <-chan error) {
	t.Helper()
	return startServerWith(t, env, io.Discard, args...)
}

// startServerWith is startServer with the server's log written to logs;
// flags in args override the defaults.
func startServerWith(t *testing.T, env map[string]string, logs io.Writer, args ...string) (string, context.CancelFunc, <-chan error) {
	t.Helper()
	getenv := func(k string) string { return env[k] }
	ctx, cancel := context.WithCancel(context.Background())
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	args = append([]string{"serve", "--addr", "127.0.0.1:0", "--db", filepath.Join(t.TempDir(), "c.db"), "--log-level", "warn"}, args...)
	go func() {
		err := run(ctx, args, getenv, strings.NewReader(""), outW, logs)
		outW.Close()
		done <- err
		close(done) // later receives, such as the cleanup's, return at once
	}()
	t.Cleanup(func() { cancel(); <-done })
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "Concierge is listening on "); ok {
				urls <- rest
			}
		}
	}()
	select {
	case u := <-urls:
		return u, cancel, done
	case err := <-done:
		t.Fatalf("run ended before listening: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("server did not start within 30s")
	}
	return "", nil, nil
}

func waitHealthy(t *testing.T, url string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get(url + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("/healthz never answered 200")
}

func TestRunServesLoginWithDemoData(t *testing.T) {
	url, _, _ := startServer(t, nil)
	waitHealthy(t, url)
	resp, err := http.Get(url + "/login")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "john@example.com") {
		t.Errorf("GET /login = %d; want 200 with the demo accounts listed", resp.StatusCode)
	}
	if err := healthcheck(context.Background(), []string{"--addr", strings.TrimPrefix(url, "http://")}, func(string) string { return "" }, io.Discard); err != nil {
		t.Errorf("healthcheck against a healthy server: %v", err)
	}
}

func TestHealthcheckFailsWithoutServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	if err := healthcheck(context.Background(), []string{"--addr", addr}, func(string) string { return "" }, io.Discard); err == nil {
		t.Error("healthcheck succeeded with nothing listening")
	}
}

// TestGracefulShutdown starts a request, asks the server to stop while the
// request is in flight, and checks that the request still gets its answer.
func TestGracefulShutdown(t *testing.T) {
	url, stop, done := startServer(t, nil)
	waitHealthy(t, url)
	conn, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// Headers and half the body: the handler is running, waiting for the rest.
	body := `{"email":"john@example.com","password":"demo"}`
	head := "POST /api/v1/auth/token HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n" +
		"Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n"
	if _, err := io.WriteString(conn, head+body[:10]); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	stop()
	select {
	case err := <-done:
		t.Fatalf("run returned (%v) before the in-flight request finished", err)
	case <-time.After(200 * time.Millisecond):
	}
	if _, err := io.WriteString(conn, body[10:]); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("in-flight request lost: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("in-flight sign-in answered %d, want 200", resp.StatusCode)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("run did not return after shutdown")
	}
	if _, err := http.Get(url + "/healthz"); err == nil {
		t.Error("server still accepts connections after shutdown")
	}
}

func TestUserAddAndMigrate(t *testing.T) {
	db := filepath.Join(t.TempDir(), "u.db")
	var out strings.Builder
	getenv := func(string) string { return "" }
	err := run(context.Background(), []string{"user", "add", "--db", db, "--email", "ops@example.com", "--name", "Ops", "--role", "admin"},
		getenv, strings.NewReader("long-enough-password\n"), &out, io.Discard)
	if err != nil {
		t.Fatalf("user add: %v", err)
	}
	if !strings.Contains(out.String(), "created admin account ops@example.com") {
		t.Errorf("output %q", out.String())
	}
	err = run(context.Background(), []string{"user", "add", "--db", db, "--email", "x@example.com", "--name", "X", "--role", "boss", "--password", "long-enough-password"},
		getenv, strings.NewReader(""), io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "role") {
		t.Errorf("bad role: err %v, want a role error", err)
	}
	for password, want := range map[string]string{
		"password": "too easy to guess", "        ": "only spaces", strings.Repeat("kx7Qm", 15): "at most 72 bytes",
	} {
		err = run(context.Background(), []string{"user", "add", "--db", db, "--email", "weak@example.com", "--name", "Weak", "--role", "support"},
			getenv, strings.NewReader(password+"\n"), io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "bcrypt") {
			t.Errorf("user add with %q: err %v, want %q", password, err, want)
		}
	}
	out.Reset()
	if err := run(context.Background(), []string{"migrate", "--db", db}, getenv, nil, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "schema version") {
		t.Errorf("migrate output %q", out.String())
	}
	if err := run(context.Background(), []string{"bogus"}, getenv, nil, io.Discard, io.Discard); err == nil {
		t.Error("unknown command accepted")
	}
}

func TestConfigFromEnvironment(t *testing.T) {
	env := map[string]string{"CONCIERGE_ADDR": ":9999", "DATABASE_URL": "postgres://x/y", "CONCIERGE_SESSION_IDLE": "5m", "CONCIERGE_DEMO": "false"}
	cfg, err := parseServeConfig("serve", nil, func(k string) string { return env[k] }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Addr != ":9999" || cfg.DB != "postgres://x/y" || cfg.SessionIdle != 5*time.Minute || cfg.Demo {
		t.Errorf("config from env = %+v", cfg)
	}
	cfg, err = parseServeConfig("serve", []string{"--addr", ":7000", "--no-demo"}, func(k string) string { return env[k] }, io.Discard)
	if err != nil || cfg.Addr != ":7000" {
		t.Errorf("a flag must win over its environment twin: %+v %v", cfg, err)
	}
	if _, err := parseServeConfig("serve", nil, func(k string) string {
		if k == "CONCIERGE_RETENTION" {
			return "forever"
		}
		return ""
	}, io.Discard); err == nil {
		t.Error("a malformed duration in the environment was accepted")
	}
}
