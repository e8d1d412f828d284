package main

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver, to create throwaway schemas

	"concierge/agent/openai/fakeopenai"
	"concierge/memory"
	"concierge/models"
	"concierge/models/dbtest"
)

// These tests run real processes: two instances of the built binary over
// one database (a SQLite file, or a PostgreSQL schema when
// CONCIERGE_TEST_POSTGRES is set), as a deployment would.

var (
	buildOnce sync.Once
	buildBin  string
	buildErr  error
)

// binary builds the server once per test run; every process test starts
// this one binary. It is built without the race detector even when the
// tests run under it: a race-built server, on a machine busy with another
// package's tests, answered the kill tests' retries 11–16 s after the
// restart, past the 10 s they promise (the plain build: 6.7–7.4 s).
func binary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the binary; skipped with -short")
	}
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "concierge-bin-")
		if err != nil {
			buildErr = err
			return
		}
		buildBin = filepath.Join(dir, "concierge")
		if out, err := exec.Command("go", "build", "-o", buildBin, ".").CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return buildBin
}

// Most tests here wait: on child processes, on leases running out, on a
// fake model's delays. Each works on a database, a port and a fake model
// server of its own, so they call t.Parallel and wait side by side, more
// of them at once than go test's default of one per core (-parallel given
// on the command line still wins). The tests that load a server for a
// fixed time take turns through loadSlot. The tests that start the server
// inside the test process (run, not the binary) stay serial: go test runs
// them first, one at a time, as their 30 s start limit assumes; four of
// them starting at once beside two CI runs missed it.
func TestMain(m *testing.M) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		_ = flag.Set("test.parallel", strconv.Itoa(max(8, runtime.GOMAXPROCS(0))))
	}
	code := m.Run()
	if buildBin != "" {
		os.RemoveAll(filepath.Dir(buildBin))
	}
	os.Exit(code)
}

// loadSlot is held by each test that drives a server as hard as it can for
// a fixed time (the backup, the full disk, the stopped database): one such
// load at a time, so that none of them shares the machine with another
// and each one's time bounds stay its own.
var loadSlot sync.Mutex

// backend is one database kind the instances share.
type backend struct {
	name string
	// fresh returns the DSN of a new, empty database.
	fresh func(t *testing.T) string
}

func backends(t *testing.T, fn func(t *testing.T, b backend)) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel() // a database of its own: the two backends run side by side
		fn(t, backend{name: "sqlite", fresh: func(t *testing.T) string { return filepath.Join(t.TempDir(), "shared.db") }})
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		base := os.Getenv(dbtest.PostgresEnv)
		if base == "" {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s must be set in CI", dbtest.PostgresEnv)
			}
			t.Skipf("PostgreSQL not configured: set %s=postgres://... to run this test against it", dbtest.PostgresEnv)
		}
		fn(t, backend{name: "postgres", fresh: func(t *testing.T) string { return freshSchema(t, base) }})
	})
}

// freshSchema creates an empty schema, dropped when the test ends, and
// returns a DSN that uses it.
func freshSchema(t *testing.T, base string) string {
	t.Helper()
	schema := "i_" + models.NewID()
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if _, err := admin.Exec("CREATE SCHEMA " + schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		db, err := sql.Open("pgx", base)
		if err == nil {
			_, _ = db.Exec("DROP SCHEMA " + schema + " CASCADE")
			db.Close()
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// instance is one running server process.
type instance struct {
	cmd  *exec.Cmd
	url  string
	logs *syncBuffer
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// launch starts the binary on a free port against dsn, with the demo seed,
// and returns before it is listening; ready waits for it.
func launch(t *testing.T, dsn string, env ...string) (*instance, func() error) {
	t.Helper()
	cmd := exec.Command(binary(t), "serve", "--addr", "127.0.0.1:0", "--db", dsn, "--log-level", "warn")
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "OPENAI_") && !strings.HasPrefix(kv, "CONCIERGE_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	inst := &instance{cmd: cmd, logs: &syncBuffer{}}
	cmd.Stderr = inst.logs
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("instance %s logs:\n%s", inst.url, inst.logs.String())
		}
	})
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "Concierge is listening on "); ok {
				ready <- strings.TrimSpace(rest)
			}
		}
		close(ready)
	}()
	return inst, func() error {
		select {
		case u, ok := <-ready:
			if !ok {
				_ = cmd.Wait()
				return fmt.Errorf("the instance exited before listening: %s", inst.logs.String())
			}
			inst.url = u
			return nil
		case <-time.After(60 * time.Second):
			return fmt.Errorf("the instance did not start: %s", inst.logs.String())
		}
	}
}

// start launches an instance and waits until it listens.
func start(t *testing.T, dsn string, env ...string) *instance {
	t.Helper()
	inst, ready := launch(t, dsn, env...)
	if err := ready(); err != nil {
		t.Fatal(err)
	}
	return inst
}

// api is a small JSON client of one instance.
type api struct {
	base, token string
}

func (a api) call(method, path, key string, body any, out any) (int, error) {
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, a.base+path, r)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	if a.token != "" {
		req.Header.Set("Authorization", "Bearer "+a.token)
	}
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := (&http.Client{Timeout: 90 * time.Second}).Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if out != nil {
		_ = json.NewDecoder(resp.Body).Decode(out)
	}
	return resp.StatusCode, nil
}

func signIn(t *testing.T, base, email string) api {
	t.Helper()
	var out struct {
		Token string `json:"token"`
	}
	if st, err := (api{base: base}).call("POST", "/api/v1/auth/token", "", map[string]string{"email": email, "password": "demo"}, &out); err != nil || st != 200 {
		t.Fatalf("sign in %s at %s: %d %v", email, base, st, err)
	}
	return api{base: base, token: out.Token}
}

func (a api) openSession(t *testing.T) string {
	t.Helper()
	var out struct {
		ID string `json:"id"`
	}
	if st, err := a.call("POST", "/api/v1/sessions", "", nil, &out); err != nil || st != 201 {
		t.Fatalf("open session: %d %v", st, err)
	}
	return out.ID
}

// errorReply is the error part of an API answer.
type errorReply struct {
	Error struct {
		Code string `json:"code"`
		Turn int    `json:"turn"`
	} `json:"error"`
	Reply string `json:"reply"`
	Turn  int    `json:"turn"`
}

// checkTranscript checks the stored transcript: every expected text appears
// exactly once as a user message and is answered, user turns are unique,
// and no user message sits inside a turn (between a tool call and its
// results, or before the turn's answer).
func checkTranscript(t *testing.T, store *models.Store, sessionID string, texts []string) {
	t.Helper()
	msgs, err := store.Messages(context.Background(), sessionID)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	turns := map[int]bool{}
	answered := map[int]bool{}
	openCalls := 0
	for i, m := range msgs {
		switch m.Role {
		case string(memory.RoleUser):
			count[m.Content]++
			if turns[m.Turn] {
				t.Errorf("turn %d has two user messages", m.Turn)
			}
			turns[m.Turn] = true
			if openCalls > 0 {
				t.Errorf("message %d (turn %d) landed between a tool call and its result", i, m.Turn)
			}
		case string(memory.RoleAssistant):
			if m.ToolCalls != "" {
				var calls []memory.ToolCall
				_ = json.Unmarshal([]byte(m.ToolCalls), &calls)
				openCalls = len(calls)
			} else {
				answered[m.Turn] = true
			}
		case string(memory.RoleTool):
			openCalls--
		}
		if m.Role != string(memory.RoleUser) && i > 0 && m.Turn != lastUserTurn(msgs[:i]) {
			t.Errorf("message %d (%s) is in turn %d but follows turn %d's user message", i, m.Role, m.Turn, lastUserTurn(msgs[:i]))
		}
	}
	for _, text := range texts {
		if count[text] != 1 {
			t.Errorf("%q stored %d times, want exactly 1", text, count[text])
		}
	}
	for turn := range turns {
		if !answered[turn] {
			t.Errorf("turn %d was never answered", turn)
		}
	}
}

func lastUserTurn(msgs []models.Message) int {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == string(memory.RoleUser) {
			return msgs[i].Turn
		}
	}
	return 0
}

// TestParallelSendsAcrossInstances sends 20 messages at once to one
// conversation through two instances, then retries each failure once:
// every message is stored exactly once and answered, with unique turns.
func TestParallelSendsAcrossInstances(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, b backend) {
		dsn := b.fresh(t)
		one := start(t, dsn)
		two := start(t, dsn)
		john := signIn(t, one.url, "john@example.com")
		sid := john.openSession(t)
		clients := []api{john, {base: two.url, token: john.token}}

		const n = 20
		texts := make([]string, n)
		for i := range texts {
			texts[i] = fmt.Sprintf("Message %d: remember that I prefer aisle seats and quiet rooms", i)
			if i%3 == 0 {
				texts[i] = fmt.Sprintf("Message %d: find me a hotel in Lisbon", i)
			}
		}
		key := func(i int) string {
			if i%2 == 0 {
				return fmt.Sprintf("parallel-%d", i) // half with a key, half relying on the text rule
			}
			return ""
		}
		send := func(i, via int) (int, errorReply, error) {
			var out errorReply
			st, err := clients[via%2].call("POST", "/api/v1/sessions/"+sid+"/messages", key(i), map[string]string{"content": texts[i]}, &out)
			return st, out, err
		}
		var mu sync.Mutex
		var failed []int
		var wg sync.WaitGroup
		codes := map[string]int{}
		for i := range n {
			wg.Go(func() {
				st, out, err := send(i, i)
				mu.Lock()
				defer mu.Unlock()
				if err != nil || st != 200 {
					failed = append(failed, i)
					codes[fmt.Sprintf("%d %s", st, out.Error.Code)]++
				}
			})
		}
		wg.Wait()
		t.Logf("first round: %d of %d failed %v", len(failed), n, codes)
		for _, i := range failed {
			wg.Go(func() {
				if st, out, err := send(i, i+1); err != nil || (st != 200 && out.Error.Code != "answer_in_progress") {
					t.Errorf("retry of message %d through the other instance: %d %v %v", i, st, out.Error.Code, err)
				}
			})
		}
		wg.Wait()
		store := openShared(t, dsn)
		// answer_in_progress means another instance finishes the turn.
		waitFor(t, 30*time.Second, "every turn answered", func() bool {
			_, err := store.PendingUserMessage(context.Background(), sid)
			return err != nil
		})
		checkTranscript(t, store, sid, texts)
	})
}

func openShared(t *testing.T, dsn string) *models.Store {
	t.Helper()
	s, err := models.Open(dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestConcurrentClosesLearnOneNote closes six conversations of one
// traveler at once, through two instances with two workers each, while the
// consolidation model takes one to two seconds: each conversation learned
// the same allergy, and exactly one long-term note must result.
func TestConcurrentClosesLearnOneNote(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, b backend) {
		fake := fakeopenai.New(t)
		var seq int
		var mu sync.Mutex
		fake.Handler(func(fakeopenai.ChatRequest) fakeopenai.Response {
			mu.Lock()
			seq++
			d := time.Second + time.Duration(seq%2)*time.Second
			mu.Unlock()
			// Not a valid consolidation: the engine falls back to the rules
			// over the notes it read before the model call, which is where
			// a stale read would duplicate the note.
			return fakeopenai.Response{Content: "thinking…", Delay: d}
		})
		env := []string{"OPENAI_API_KEY=test-key", "OPENAI_BASE_URL=" + fake.URL()}
		dsn := b.fresh(t)
		one := start(t, dsn, env...)
		two := start(t, dsn, env...)
		store := openShared(t, dsn)
		ctx := context.Background()
		john, err := store.UserByEmail(ctx, "john@example.com")
		if err != nil {
			t.Fatal(err)
		}
		var sessions []string
		for range 6 {
			cs, err := store.CreateChatSession(ctx, john.ID)
			if err != nil {
				t.Fatal(err)
			}
			note := memory.Note{Text: "Is allergic to sesame.", Keywords: []string{"allergy", "sesame"}, Scope: memory.ScopeDurable, Source: memory.SourceAssistant}
			if _, err := store.Notes(memory.Limits{}).Add(ctx, models.NewNote{UserID: john.ID, Kind: models.KindSession, Note: note,
				Prov: models.Provenance{SessionID: cs.ID}}, models.Actor{Kind: models.ActorAssistant}, "stated by the traveler"); err != nil {
				t.Fatal(err)
			}
			sessions = append(sessions, cs.ID)
		}
		clients := []api{signIn(t, one.url, "john@example.com")}
		clients = append(clients, api{base: two.url, token: clients[0].token})
		var wg sync.WaitGroup
		for i, sid := range sessions {
			wg.Go(func() {
				if st, err := clients[i%2].call("POST", "/api/v1/sessions/"+sid+"/close", "", nil, nil); err != nil || (st != 200 && st != 202) {
					t.Errorf("close %s: %d %v", sid, st, err)
				}
			})
		}
		wg.Wait()
		waitFor(t, 90*time.Second, "all six consolidations", func() bool {
			for _, sid := range sessions {
				j, err := store.JobForSession(ctx, sid)
				if err != nil || j.Status != models.JobDone {
					return false
				}
			}
			return true
		})
		global, err := store.GlobalNotes(ctx, john.ID)
		if err != nil {
			t.Fatal(err)
		}
		sesame := 0
		for _, g := range global {
			if strings.Contains(strings.ToLower(g.Text), "sesame") {
				sesame++
			}
		}
		if sesame != 1 {
			t.Errorf("%d long-term sesame notes, want exactly 1", sesame)
		}
		if len(fake.Requests()) < 6 {
			t.Errorf("the model was called %d times, want at least one per conversation", len(fake.Requests()))
		}
	})
}

// TestKillDuringTurn kills an instance (SIGKILL) while the model is
// answering, restarts it, and retries the send with the same key: the
// retry is answered within 10 s of the restart, the message stored once.
func TestKillDuringTurn(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, b backend) {
		fake := fakeopenai.New(t)
		fake.Handler(func(fakeopenai.ChatRequest) fakeopenai.Response {
			return fakeopenai.Response{Content: "too late", Delay: 10 * time.Minute}
		})
		dsn := b.fresh(t)
		first := start(t, dsn, "OPENAI_API_KEY=test-key", "OPENAI_BASE_URL="+fake.URL())
		john := signIn(t, first.url, "john@example.com")
		sid := john.openSession(t)
		const text, key = "Find me a hotel in Porto for next weekend", "kill-9-key"
		go func() {
			_, _ = john.call("POST", "/api/v1/sessions/"+sid+"/messages", key, map[string]string{"content": text}, nil)
		}()
		waitFor(t, 30*time.Second, "the model call", func() bool { return len(fake.Requests()) > 0 })
		if err := first.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		_ = first.cmd.Wait()

		second := start(t, dsn) // restarted, offline model
		restarted := time.Now()
		retry := api{base: second.url, token: john.token}
		var out errorReply
		st, err := retry.call("POST", "/api/v1/sessions/"+sid+"/messages", key, map[string]string{"content": text}, &out)
		took := time.Since(restarted)
		if err != nil || st != 200 || out.Reply == "" {
			t.Fatalf("retry after the restart: %d %+v %v", st, out, err)
		}
		t.Logf("retry answered %v after the restart", took.Round(time.Millisecond))
		if took > 10*time.Second {
			t.Errorf("the retry took %v after the restart, want at most 10 s", took)
		}
		checkTranscript(t, openShared(t, dsn), sid, []string{text})
	})
}

// TestSimultaneousStart starts two instances at the same moment on a new
// database: both migrate-or-wait, one seeds, and both serve.
func TestSimultaneousStart(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, b backend) {
		dsn := b.fresh(t)
		one, readyOne := launch(t, dsn)
		two, readyTwo := launch(t, dsn)
		errOne, errTwo := readyOne(), readyTwo()
		if errOne != nil || errTwo != nil {
			t.Fatalf("start: %v / %v", errOne, errTwo)
		}
		for _, inst := range []*instance{one, two} {
			if resp, err := http.Get(inst.url + "/healthz"); err != nil || resp.StatusCode != 200 {
				t.Errorf("%s/healthz: %v %v", inst.url, resp, err)
			} else {
				resp.Body.Close()
			}
			signIn(t, inst.url, "john@example.com")
		}
		store := openShared(t, dsn)
		var users int64
		store.DB().Model(&models.User{}).Count(&users)
		if users != int64(len(models.DemoAccounts)) {
			t.Errorf("%d accounts, want the %d demo accounts once", users, len(models.DemoAccounts))
		}
	})
}

// TestKillDuringConsolidationRecoversInSeconds kills an instance (SIGKILL)
// while a consolidation waits on the model, with the default job lease:
// a restarted instance finishes the job within about ten seconds (the
// lease a dead worker stops renewing), exactly once.
func TestKillDuringConsolidationRecoversInSeconds(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, b backend) {
		fake := fakeopenai.New(t)
		fake.Handler(func(fakeopenai.ChatRequest) fakeopenai.Response {
			return fakeopenai.Response{Content: "{}", Delay: 10 * time.Minute}
		})
		dsn := b.fresh(t)
		first := start(t, dsn, "OPENAI_API_KEY=test-key", "OPENAI_BASE_URL="+fake.URL())
		store := openShared(t, dsn)
		ctx := context.Background()
		john, err := store.UserByEmail(ctx, "john@example.com")
		if err != nil {
			t.Fatal(err)
		}
		cs, _ := store.CreateChatSession(ctx, john.ID)
		note := memory.Note{Text: "Is vegetarian.", Keywords: []string{"diet", "vegetarian"}, Scope: memory.ScopeDurable, Source: memory.SourceAssistant}
		if _, err := store.Notes(memory.Limits{}).Add(ctx, models.NewNote{UserID: john.ID, Kind: models.KindSession, Note: note,
			Prov: models.Provenance{SessionID: cs.ID}}, models.Actor{Kind: models.ActorAssistant}, ""); err != nil {
			t.Fatal(err)
		}
		job, err := store.CloseSession(ctx, cs.ID, "ended by the traveler")
		if err != nil {
			t.Fatal(err)
		}
		waitFor(t, 30*time.Second, "the consolidation call", func() bool { return len(fake.Requests()) > 0 })
		if err := first.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		_ = first.cmd.Wait()

		start(t, dsn) // restarted, offline: the rules engine
		restarted := time.Now()
		waitFor(t, 30*time.Second, "the job to finish", func() bool {
			j, err := store.JobByID(ctx, job.ID)
			return err == nil && j.Status == models.JobDone
		})
		took := time.Since(restarted)
		t.Logf("job finished %v after the restart", took.Round(time.Millisecond))
		if took > 12*time.Second {
			t.Errorf("the job finished %v after the restart, want about 10 s at most", took)
		}
		var reports int64
		store.DB().Model(&models.ConsolidationReport{}).Where("job_id = ?", job.ID).Count(&reports)
		if reports != 1 {
			t.Errorf("%d reports, want exactly 1", reports)
		}
	})
}
