package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"concierge/agent/openai/fakeopenai"
)

// serveBinary starts the binary with demo data on 127.0.0.1 and returns
// its URL and the command.
func serveBinary(t *testing.T, bin string, env []string, args ...string) (string, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve", "--addr", "127.0.0.1:0", "--log-level", "warn"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	var logs strings.Builder
	cmd.Stderr = &lockedWriter{w: &logs}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("server log:\n%s", cmd.Stderr.(*lockedWriter).String())
		}
	})
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "Concierge is listening on "); ok {
				urls <- rest
			}
		}
	}()
	select {
	case u := <-urls:
		waitHealthy(t, u)
		return u, cmd
	case <-time.After(30 * time.Second):
		t.Fatal("the binary did not start")
	}
	return "", nil
}

// TestShutdownAnswersEveryone sends SIGTERM to a real process while 50
// turns wait on a model far slower than the shutdown timeout. Each client
// gets a status — 409 answer_in_progress with its turn, its message being
// stored, or 503 restarting — the process exits 0, and after a restart
// every message retried with its key is answered and stored once.
func TestShutdownAnswersEveryone(t *testing.T) {
	t.Parallel()
	const n = 50
	bin := binary(t)
	db := filepath.Join(t.TempDir(), "shutdown.db")
	slow := fakeopenai.New(t)
	slow.Handler(func(fakeopenai.ChatRequest) fakeopenai.Response {
		return fakeopenai.Response{Content: "Too late.", Delay: 8 * time.Second}
	})
	env := []string{"OPENAI_API_KEY=k", "OPENAI_BASE_URL=" + slow.URL(), "CONCIERGE_GUARD_MODEL=off"}
	url, cmd := serveBinary(t, bin, env, "--db", db, "--shutdown-timeout", "2s")
	token := apiToken(t, url)
	ids := make([]string, n)
	for i := range ids {
		status, out := apiJSON(t, "POST", url+"/api/v1/sessions", token, "")
		if status != http.StatusCreated {
			t.Fatalf("session: %d %v", status, out)
		}
		ids[i] = out["id"].(string)
	}

	type answer struct {
		status int
		code   string
		turn   int
		err    error
	}
	answers := make([]answer, n)
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Go(func() {
			status, out, err := sendKeyed(url, token, id, fmt.Sprintf("key-%d", i), fmt.Sprintf("Message %d: where to stay in Porto?", i))
			a := answer{status: status, err: err}
			if e, ok := out["error"].(map[string]any); ok {
				a.code, _ = e["code"].(string)
				turn, _ := e["turn"].(float64)
				a.turn = int(turn)
			}
			answers[i] = a
		})
	}
	waitFor(t, 20*time.Second, "every turn to reach the model", func() bool { return len(slow.Requests()) >= n })

	began := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("the process ended with %v, want exit 0 after a drain that answered everyone", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the process did not exit within 20 s of SIGTERM")
	}
	took := time.Since(began)
	wg.Wait()
	counts := map[string]int{}
	for i, a := range answers {
		switch {
		case a.err != nil:
			t.Errorf("client %d got no status: %v", i, a.err)
		case a.status == http.StatusConflict && a.code == "answer_in_progress" && a.turn > 0,
			a.status == http.StatusServiceUnavailable && a.code == "restarting":
		default:
			t.Errorf("client %d: got %d %q (turn %d), want 409 answer_in_progress with its turn or 503 restarting", i, a.status, a.code, a.turn)
		}
		counts[fmt.Sprintf("%d %s", a.status, a.code)]++
	}
	t.Logf("SIGTERM with %d turns in flight: exit after %v; answers %v", n, took.Round(time.Millisecond), counts)

	// The next instance, with a model that answers, answers each retry once.
	fast := fakeopenai.New(t)
	fast.Handler(func(fakeopenai.ChatRequest) fakeopenai.Response {
		return fakeopenai.Response{Content: "Stay in Ribeira."}
	})
	env = []string{"OPENAI_API_KEY=k", "OPENAI_BASE_URL=" + fast.URL(), "CONCIERGE_GUARD_MODEL=off"}
	url, _ = serveBinary(t, bin, env, "--db", db)
	token = apiToken(t, url)
	for i, id := range ids {
		status, out, err := sendKeyed(url, token, id, fmt.Sprintf("key-%d", i), fmt.Sprintf("Message %d: where to stay in Porto?", i))
		if err != nil || status != http.StatusOK {
			t.Fatalf("retry %d after restart: %d %v %v", i, status, out, err)
		}
		_, sess := apiJSON(t, "GET", url+"/api/v1/sessions/"+id, token, "")
		msgs, _ := sess["messages"].([]any)
		users := 0
		for _, m := range msgs {
			if m.(map[string]any)["role"] == "user" {
				users++
			}
		}
		if users != 1 {
			t.Errorf("session %d: %d user messages stored, want 1", i, users)
		}
	}
}

// lockedWriter collects a child's output for the test's log.
type lockedWriter struct {
	mu sync.Mutex
	w  *strings.Builder
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.String()
}

func apiToken(t *testing.T, url string) string {
	t.Helper()
	status, out := apiJSON(t, "POST", url+"/api/v1/auth/token", "", `{"email":"john@example.com","password":"demo"}`)
	if status != http.StatusOK {
		t.Fatalf("token: %d %v", status, out)
	}
	return out["token"].(string)
}

// sendKeyed posts a message with an Idempotency-Key; err is set when no
// status came back at all.
func sendKeyed(url, token, session, key, content string) (int, map[string]any, error) {
	body, _ := json.Marshal(map[string]string{"content": content})
	req, _ := http.NewRequestWithContext(context.Background(), "POST", url+"/api/v1/sessions/"+session+"/messages", strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Idempotency-Key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, nil, errors.Join(errors.New("reading the body"), err)
	}
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return resp.StatusCode, out, nil
}
