package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"concierge/agent/openai/fakeopenai"
	"concierge/models"
)

// apiJSON sends a JSON request with a bearer token and decodes the answer.
func apiJSON(t *testing.T, method, url, token, body string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	b, _ := io.ReadAll(resp.Body)
	_ = json.Unmarshal(b, &out)
	return resp.StatusCode, out
}

// TestShutdownDrainsRunningTurns asks the server to stop while ten turns
// are waiting for a model that takes 1.5 s: run returns within
// the shutdown timeout, every turn's answer is stored, and every client got
// it. Five of the clients hang up before the answer; their answers are
// stored all the same.
func TestShutdownDrainsRunningTurns(t *testing.T) {
	const n = 10
	const answer = "Porto has river views, port cellars and small hotels on the hill above the old town."
	fake := fakeopenai.New(t)
	fake.Handler(func(fakeopenai.ChatRequest) fakeopenai.Response {
		return fakeopenai.Response{Content: answer, Delay: 1500 * time.Millisecond} // the API does not stream
	})
	db := filepath.Join(t.TempDir(), "drain.db")
	env := map[string]string{"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": fake.URL()}
	url, stop, done := startServer(t, env, "--db", db, "--shutdown-timeout", "10s")
	waitHealthy(t, url)
	status, out := apiJSON(t, "POST", url+"/api/v1/auth/token", "", `{"email":"john@example.com","password":"demo"}`)
	if status != http.StatusOK {
		t.Fatalf("token: %d %v", status, out)
	}
	token := out["token"].(string)
	ids := make([]string, n)
	for i := range ids {
		status, out := apiJSON(t, "POST", url+"/api/v1/sessions", token, "")
		if status != http.StatusCreated {
			t.Fatalf("session: %d %v", status, out)
		}
		ids[i] = out["id"].(string)
	}

	var wg sync.WaitGroup
	statuses := make([]int, n)
	for i, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := context.Background()
			if i%2 == 1 {
				// This client leaves half a second in, mid-answer.
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, 500*time.Millisecond)
				defer cancel()
			}
			req, _ := http.NewRequestWithContext(ctx, "POST", url+"/api/v1/sessions/"+id+"/messages", strings.NewReader(`{"content":"Where should I stay in Porto?"}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+token)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				return // the client that left
			}
			defer resp.Body.Close()
			statuses[i] = resp.StatusCode
		}()
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(fake.Requests()) < n {
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d turns reached the model", len(fake.Requests()), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(600 * time.Millisecond) // the model is thinking; half the clients have left
	began := time.Now()
	stop()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("run: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("run did not return after shutdown")
	}
	took := time.Since(began)
	wg.Wait()
	t.Logf("shutdown with %d running turns took %s", n, took.Round(time.Millisecond))
	if took > 10*time.Second {
		t.Errorf("shutdown took %s, beyond its 10s timeout", took)
	}
	for i, st := range statuses {
		if i%2 == 0 && st != http.StatusOK {
			t.Errorf("client %d waiting for its answer got %d, want 200", i, st)
		}
	}

	store, err := models.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	for _, id := range ids {
		msgs, err := store.Messages(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, m := range msgs {
			if m.Role == "assistant" && m.ToolCalls == "" {
				got = append(got, m.Content)
			}
		}
		if len(got) != 1 || got[0] != answer {
			t.Errorf("session %s: answers %q, want the one answer", id, got)
		}
	}
	if got := len(fake.Requests()); got != n {
		t.Errorf("the model got %d calls, want %d", got, n)
	}
}

func TestTurnLimitsFromEnvironment(t *testing.T) {
	env := map[string]string{"CONCIERGE_MODEL_CONCURRENCY": "16", "CONCIERGE_MAX_STREAMS": "100", "CONCIERGE_MAX_STREAMS_PER_USER": "3"}
	cfg, err := parseServeConfig("serve", nil, func(k string) string { return env[k] }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ModelConcurrency != 16 || cfg.MaxStreams != 100 || cfg.MaxUserStreams != 3 {
		t.Errorf("limits from env = %d %d %d", cfg.ModelConcurrency, cfg.MaxStreams, cfg.MaxUserStreams)
	}
	cfg, err = parseServeConfig("serve", []string{"--model-concurrency", "4"}, func(k string) string { return env[k] }, io.Discard)
	if err != nil || cfg.ModelConcurrency != 4 {
		t.Errorf("the flag must win: %d %v", cfg.ModelConcurrency, err)
	}
	for _, bad := range []map[string]string{{"CONCIERGE_MODEL_CONCURRENCY": "many"}, {"CONCIERGE_MAX_STREAMS": "0"}} {
		if _, err := parseServeConfig("serve", nil, func(k string) string { return bad[k] }, io.Discard); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}
