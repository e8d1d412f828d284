package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"concierge/agent/offline"
	"concierge/agent/openai/fakeopenai"
	"concierge/memory"
)

// server is a Concierge process the load command started on loopback, or
// one it was pointed at (cmd nil).
type server struct {
	url string
	cmd *exec.Cmd
	dir string
}

// startPinned runs the concierge binary bin on 127.0.0.1 with demo data,
// on a fresh SQLite file (or dsn when it is set), and waits until it
// listens; env is added to the process environment. Its threads run on the
// CPUs cpus names (taskset's list, e.g. "0"); "" leaves it unpinned.
func startPinned(ctx context.Context, cpus, bin, dsn string, env []string, extra ...string) (*server, error) {
	dir, err := os.MkdirTemp("", "concierge-load-")
	if err != nil {
		return nil, err
	}
	if dsn == "" {
		dsn = filepath.Join(dir, "load.db")
	}
	args := append([]string{"serve", "--addr", "127.0.0.1:0", "--db", dsn, "--log-level", "error"}, extra...)
	cmd := exec.CommandContext(ctx, bin, args...)
	if cpus != "" {
		cmd = exec.CommandContext(ctx, "taskset", append([]string{"-c", cpus, bin}, args...)...)
	}
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	s := &server{cmd: cmd, dir: dir}
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "Concierge is listening on "); ok {
				ready <- strings.TrimRight(strings.TrimSpace(rest), "/")
			}
		}
	}()
	select {
	case s.url = <-ready:
		return s, nil
	case <-time.After(60 * time.Second):
		s.stop()
		return nil, errors.New("the server did not start within 60s")
	}
}

func (s *server) stop() {
	if s.cmd != nil {
		_ = s.cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = s.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			_ = s.cmd.Process.Kill()
			<-done
		}
	}
	if s.dir != "" {
		os.RemoveAll(s.dir)
	}
}

// cpuSeconds is the server's CPU time so far: from /proc when this command
// started it, else process_cpu_seconds_total on /metrics (staff token).
func (s *server) cpuSeconds(ctx context.Context, c *client) (float64, error) {
	if s.cmd != nil {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.cmd.Process.Pid))
		if err == nil {
			// Fields after the ")" closing the command name: utime is the
			// 14th field of the line, stime the 15th (clock ticks, 100/s).
			f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
			if len(f) > 13 {
				ut, _ := strconv.ParseFloat(f[11], 64)
				st, _ := strconv.ParseFloat(f[12], 64)
				return (ut + st) / 100, nil
			}
		}
	}
	if c == nil {
		return 0, errors.New("no staff token to read /metrics")
	}
	req, err := http.NewRequestWithContext(ctx, "GET", s.url+"/metrics", nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "process_cpu_seconds_total "); ok {
			return strconv.ParseFloat(strings.TrimSpace(rest), 64)
		}
	}
	return 0, fmt.Errorf("/metrics (status %d) has no process_cpu_seconds_total", resp.StatusCode)
}

// threadCPU is the server's CPU time so far in nanoseconds, summed over
// its threads from /proc/PID/task/*/schedstat (exact, unlike the clock
// ticks of /proc/PID/stat); threads that ended are not in it, so it is for
// differences over short spans.
func (s *server) threadCPU() (time.Duration, error) {
	if s.cmd == nil {
		return 0, errors.New("the server was not started by this command")
	}
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", s.cmd.Process.Pid))
	if err != nil || len(tasks) == 0 {
		return 0, fmt.Errorf("no schedstat for the server: %v", err)
	}
	var total int64
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue // the thread ended
		}
		f := strings.Fields(string(b))
		if len(f) > 0 {
			n, _ := strconv.ParseInt(f[0], 10, 64)
			total += n
		}
	}
	return time.Duration(total), nil
}

// pinSelf moves every thread of this process to the CPUs cpus names
// (taskset -a; threads started later inherit it).
func pinSelf(cpus string) error {
	if cpus == "" {
		return nil
	}
	out, err := exec.Command("taskset", "-a", "-cp", cpus, strconv.Itoa(os.Getpid())).CombinedOutput()
	if err != nil {
		return fmt.Errorf("taskset -a -cp %s: %v: %s", cpus, err, bytes.TrimSpace(out))
	}
	return nil
}

// statementsMetric is the server's count of SQL statements on /metrics;
// a build without it reports none.
const statementsMetric = "concierge_db_statements_total"

// statementsPer formats statements over n turns, or says the server does
// not count them.
func statementsPer(m0, m1 map[string]float64, n int) string {
	a, ok0 := m0[statementsMetric]
	b, ok1 := m1[statementsMetric]
	if !ok0 || !ok1 || n == 0 {
		return "not counted by this build"
	}
	return fmt.Sprintf("%.1f per turn", (b-a)/float64(n))
}

// scrape sums the samples of /metrics whose names (labels aside) are
// asked for, read with a staff token.
func scrape(ctx context.Context, c *client, names ...string) (map[string]float64, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", c.base+"/metrics", nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		name, rest, ok := strings.Cut(line, " ")
		if !ok || strings.HasPrefix(line, "#") {
			continue
		}
		if i := strings.IndexByte(name, '{'); i >= 0 {
			name = name[:i]
			if j := strings.LastIndexByte(line, ' '); j >= 0 {
				rest = line[j+1:]
			}
		}
		if slices.Contains(names, name) {
			v, _ := strconv.ParseFloat(strings.TrimSpace(rest), 64)
			out[name] += v
		}
	}
	return out, nil
}

// latencies collects durations from many goroutines.
type latencies struct {
	mu sync.Mutex
	d  []time.Duration
}

func (l *latencies) add(d time.Duration) {
	l.mu.Lock()
	l.d = append(l.d, d)
	l.mu.Unlock()
}

// pct returns the p-quantile (0..1) of the sorted durations.
func pct(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[int(p*float64(len(sorted)-1))]
}

func (l *latencies) sorted() []time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	slices.Sort(l.d)
	return l.d
}

func round(d time.Duration) time.Duration {
	if d > 10*time.Millisecond {
		return d.Round(100 * time.Microsecond)
	}
	return d.Round(time.Microsecond)
}

// throughputConfig is what a throughput run does.
type throughputConfig struct {
	Bin, URL        string // the binary to start, or the URL of a running server
	DSN             string // database of the started server ("" = fresh SQLite file)
	Email, Password string // traveler account
	Staff           string // staff account for /metrics when the server is not ours
	Clients         int
	Duration        time.Duration
	Turns           int // stop after this many turns (0 = Duration only)
	Session         int // messages per session before it is closed
	// Pin places the server and this command on CPUs ("0:1": the server on
	// CPU 0, the load generator on CPU 1); "" leaves both unpinned.
	Pin string
}

// runThroughput sends turns from cfg.Clients clients for cfg.Duration (or
// cfg.Turns turns), then hammers /healthz the same way for as long, and
// prints both rates, their ratio, latency percentiles and server CPU per
// turn.
func runThroughput(ctx context.Context, cfg throughputConfig, stdout io.Writer) error {
	srvCPUs, loadCPUs, err := splitPin(cfg.Pin)
	if err != nil {
		return err
	}
	srv := &server{url: cfg.URL}
	if cfg.Bin != "" {
		if srv, err = startPinned(ctx, srvCPUs, cfg.Bin, cfg.DSN, nil); err != nil {
			return err
		}
		defer srv.stop()
	}
	if err := pinSelf(loadCPUs); err != nil {
		return err
	}
	httpc := &http.Client{Timeout: time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: cfg.Clients * 2}}
	tok, err := signInRetrying(ctx, httpc, srv.url, cfg.Email, cfg.Password)
	if err != nil {
		return err
	}
	st, err := signInRetrying(ctx, httpc, srv.url, cfg.Staff, cfg.Password)
	if err != nil {
		return fmt.Errorf("staff sign-in for /metrics: %w", err)
	}
	staff := &client{base: srv.url, token: st, http: httpc}
	// Warm up: one session of a few turns, so connection set-up and first
	// queries are not in the figures.
	c0 := &client{base: srv.url, token: tok, http: httpc}
	if err := sessionTurns(ctx, c0, 3, nil, nil); err != nil {
		return fmt.Errorf("warm-up: %w", err)
	}

	cpu0, err := srv.cpuSeconds(ctx, staff)
	if err != nil {
		return err
	}
	st0, err := scrape(ctx, staff, statementsMetric)
	if err != nil {
		return err
	}
	own0 := ownCPUSeconds()
	var lat latencies
	var done, failed atomic.Int64
	runCtx, cancel := context.WithTimeout(ctx, cfg.Duration)
	start := time.Now()
	var wg sync.WaitGroup
	for range cfg.Clients {
		wg.Go(func() {
			c := &client{base: srv.url, token: tok, http: httpc}
			for runCtx.Err() == nil {
				err := sessionTurns(runCtx, c, cfg.Session, func(d time.Duration) bool {
					lat.add(d)
					n := done.Add(1)
					if cfg.Turns > 0 && n >= int64(cfg.Turns) {
						cancel()
					}
					return runCtx.Err() == nil
				}, &failed)
				if err != nil && runCtx.Err() == nil {
					failed.Add(1)
					time.Sleep(50 * time.Millisecond)
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	own1 := ownCPUSeconds()
	cancel()
	cpu1, err := srv.cpuSeconds(ctx, staff)
	if err != nil {
		return err
	}
	st1, err := scrape(ctx, staff, statementsMetric)
	if err != nil {
		return err
	}

	// /healthz the same way: as many clients, as long.
	var hlat latencies
	var hdone atomic.Int64
	hctx, hcancel := context.WithTimeout(ctx, elapsed)
	hstart := time.Now()
	for range cfg.Clients {
		wg.Go(func() {
			for hctx.Err() == nil {
				t0 := time.Now()
				req, _ := http.NewRequestWithContext(hctx, "GET", srv.url+"/healthz", nil)
				resp, err := httpc.Do(req)
				if err != nil {
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode == 200 {
					hlat.add(time.Since(t0))
					hdone.Add(1)
				}
			}
		})
	}
	wg.Wait()
	helapsed := time.Since(hstart)
	hcancel()

	turns := lat.sorted()
	if len(turns) == 0 {
		return errors.New("throughput: no turn completed")
	}
	hs := hlat.sorted()
	tps := float64(len(turns)) / elapsed.Seconds()
	hps := float64(len(hs)) / helapsed.Seconds()
	fmt.Fprintf(stdout, "throughput: %d clients, %d turns in %v (%d failed): %.0f turns/s\n",
		cfg.Clients, len(turns), elapsed.Round(time.Millisecond), failed.Load(), tps)
	fmt.Fprintf(stdout, "turn latency p50 %v  p90 %v  p99 %v  max %v\n",
		round(pct(turns, .5)), round(pct(turns, .9)), round(pct(turns, .99)), round(pct(turns, 1)))
	fmt.Fprintf(stdout, "/healthz: %d in %v: %.0f/s, p50 %v  p99 %v\n",
		len(hs), helapsed.Round(time.Millisecond), hps, round(pct(hs, .5)), round(pct(hs, .99)))
	fmt.Fprintf(stdout, "ratio /healthz to turns: %.1f\n", hps/tps)
	fmt.Fprintf(stdout, "server CPU %.2fs over %d turns: %.2f ms per turn\n", cpu1-cpu0, len(turns), (cpu1-cpu0)*1000/float64(len(turns)))
	fmt.Fprintf(stdout, "load generator CPU %.2fs: %.2f ms per turn (it shares the machine)\n", own1-own0, (own1-own0)*1000/float64(len(turns)))
	fmt.Fprintf(stdout, "SQL statements (tool turns, session opens and closes, consolidations included): %s\n", statementsPer(st0, st1, len(turns)))
	return nil
}

// splitPin splits --pin "SERVER:LOAD" into taskset CPU lists.
func splitPin(pin string) (string, string, error) {
	if pin == "" {
		return "", "", nil
	}
	srv, load, ok := strings.Cut(pin, ":")
	if !ok || srv == "" || load == "" {
		return "", "", fmt.Errorf("--pin %q: want SERVER_CPUS:LOAD_CPUS, e.g. 0:1", pin)
	}
	return srv, load, nil
}

// ownCPUSeconds is this process's user and system CPU time so far.
func ownCPUSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// sessionTurns opens a session, sends n scripted turns (reporting each
// latency to each; it returns false to stop early) and closes it.
func sessionTurns(ctx context.Context, c *client, n int, each func(time.Duration) bool, failed *atomic.Int64) error {
	var s struct {
		ID string `json:"id"`
	}
	if status, err := c.call(ctx, "POST", "/api/v1/sessions", nil, &s); err != nil || status != http.StatusCreated {
		return fmt.Errorf("open session: status %d: %v", status, err)
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, _ = c.call(cctx, "POST", "/api/v1/sessions/"+s.ID+"/close", nil, nil)
	}()
	for i := range n {
		t0 := time.Now()
		status, err := c.call(ctx, "POST", "/api/v1/sessions/"+s.ID+"/messages", map[string]string{"content": script[i%len(script)]}, nil)
		if err != nil || status != http.StatusOK {
			if ctx.Err() != nil {
				return nil
			}
			if failed != nil {
				failed.Add(1)
			}
			return fmt.Errorf("turn: status %d: %v", status, err)
		}
		if each != nil && !each(time.Since(t0)) {
			return nil
		}
	}
	return nil
}

// burstConfig is what a burst run does.
type burstConfig struct {
	Bin, DSN        string
	Email, Password string
	Conversations   int
	Turns           int
	Delay           time.Duration // the model server's delay on every call
	Timeout         time.Duration
	Pin             string // as throughputConfig.Pin
	// Calibrate is how many conversations (of Turns turns, one turn at a
	// time) measure the server's CPU before a model call, for the floor.
	Calibrate int
}

// calibrationDelay is the model's delay while the burst calibrates: long
// enough that the server's work before the call and after it are apart.
const calibrationDelay = 30 * time.Millisecond

// burstScript are messages the offline model answers without a tool call,
// so each turn is exactly one model call and the overhead is comparable.
// None names a place or a date: the offline model would record a trip
// (update_trip) and call the model twice.
var burstScript = []string{
	"What do you know about me?",
	"Can you suggest restaurants near the hotel?",
	"Thanks, that sounds good",
}

// runBurst starts a slow OpenAI-compatible model server in this process
// (the offline model behind fakeopenai, every answer after cfg.Delay) and
// a Concierge pointed at it, opens cfg.Conversations conversations at once
// and sends cfg.Turns turns in each, one after the other; then it sends the
// same number of calls straight to the model server the same way, and
// prints both and the difference.
func runBurst(ctx context.Context, cfg burstConfig, stdout io.Writer) error {
	if cfg.Bin == "" {
		return errors.New("burst: --bin (a built concierge binary) is required")
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	srvCPUs, loadCPUs, err := splitPin(cfg.Pin)
	if err != nil {
		return err
	}
	model, closeModel := fakeopenai.Start()
	defer closeModel()
	h := fakeopenai.ModelHandler(offline.New(memory.NewTokenCounter("gpt-4o-mini")), nil)
	var delay atomic.Int64 // the model's delay now: short while calibrating
	delay.Store(int64(calibrationDelay))
	var arrived func() // calibration: called as each model request arrives
	var arrivedMu sync.Mutex
	model.Handler(func(r fakeopenai.ChatRequest) fakeopenai.Response {
		arrivedMu.Lock()
		if arrived != nil {
			arrived()
		}
		arrivedMu.Unlock()
		resp := h(r)
		resp.Delay = time.Duration(delay.Load())
		return resp
	})
	srv, err := startPinned(ctx, srvCPUs, cfg.Bin, cfg.DSN,
		[]string{"OPENAI_API_KEY=load-test", "OPENAI_BASE_URL=" + model.URL()},
		"--guard-model", "off", "--model-concurrency", strconv.Itoa(max(cfg.Conversations, 1)))
	if err != nil {
		return err
	}
	defer srv.stop()
	if err := pinSelf(loadCPUs); err != nil {
		return err
	}
	httpc := &http.Client{Timeout: 2 * time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: cfg.Conversations + 8}}
	tok, err := signInRetrying(ctx, httpc, srv.url, cfg.Email, cfg.Password)
	if err != nil {
		return err
	}
	stok, err := signInRetrying(ctx, httpc, srv.url, "admin@example.com", cfg.Password)
	if err != nil {
		return err
	}
	staff := &client{base: srv.url, token: stok, http: httpc}

	// Calibration: conversations one turn at a time, the server otherwise
	// idle, its CPU read as each message is sent, as its model request
	// arrives and as the answer is back. The CPU before the model call,
	// times the burst's conversations, is the floor on one core: the
	// last of N first turns arriving together cannot reach the model
	// sooner.
	var pre, whole []time.Duration
	stm0, err := scrape(ctx, staff, statementsMetric)
	if err != nil {
		return err
	}
	calTurns := 0
	for range cfg.Calibrate {
		c := &client{base: srv.url, token: tok, http: httpc}
		var s struct {
			ID string `json:"id"`
		}
		if status, err := c.call(ctx, "POST", "/api/v1/sessions", nil, &s); err != nil || status != http.StatusCreated {
			return fmt.Errorf("calibration: open session: status %d: %v", status, err)
		}
		for i := range cfg.Turns {
			var atModel time.Duration
			arrivedMu.Lock()
			arrived = func() { atModel, _ = srv.threadCPU() }
			arrivedMu.Unlock()
			sent, err := srv.threadCPU()
			if err != nil {
				return err
			}
			status, err := c.call(ctx, "POST", "/api/v1/sessions/"+s.ID+"/messages", map[string]string{"content": burstScript[i%len(burstScript)]}, nil)
			if err != nil || status != http.StatusOK {
				return fmt.Errorf("calibration turn: status %d: %v", status, err)
			}
			time.Sleep(5 * time.Millisecond) // what the turn does after its answer
			back, _ := srv.threadCPU()
			arrivedMu.Lock()
			arrived = nil
			at := atModel
			arrivedMu.Unlock()
			if at > 0 {
				pre = append(pre, at-sent)
				whole = append(whole, back-sent)
			}
			calTurns++
		}
	}
	stm1, err := scrape(ctx, staff, statementsMetric)
	if err != nil {
		return err
	}
	delay.Store(int64(cfg.Delay))

	calls0 := len(model.Requests())
	split := []string{"concierge_turn_model_seconds_sum", "concierge_turn_server_seconds_sum", "concierge_turn_server_seconds_count",
		"go_sql_wait_count_total", "go_sql_wait_duration_seconds_total"}
	m0, err := scrape(ctx, staff, split...)
	if err != nil {
		return err
	}
	cpu0, err := srv.cpuSeconds(ctx, staff)
	if err != nil {
		return err
	}

	var lat latencies
	byTurn := make([]latencies, cfg.Turns) // the n-th turn of every conversation
	var failed atomic.Int64
	start := time.Now()
	var wg sync.WaitGroup
	for range cfg.Conversations {
		wg.Go(func() {
			c := &client{base: srv.url, token: tok, http: httpc}
			var s struct {
				ID string `json:"id"`
			}
			if status, err := c.call(ctx, "POST", "/api/v1/sessions", nil, &s); err != nil || status != http.StatusCreated {
				failed.Add(1)
				return
			}
			for i := range cfg.Turns {
				t0 := time.Now()
				status, err := c.call(ctx, "POST", "/api/v1/sessions/"+s.ID+"/messages", map[string]string{"content": burstScript[i%len(burstScript)]}, nil)
				if err != nil || status != http.StatusOK {
					failed.Add(1)
					return
				}
				lat.add(time.Since(t0))
				byTurn[i].add(time.Since(t0))
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	cpu1, err := srv.cpuSeconds(ctx, staff)
	if err != nil {
		return err
	}
	m1, err := scrape(ctx, staff, split...)
	if err != nil {
		return err
	}
	recorded := model.Requests()[calls0:]
	calls := len(recorded)

	// The same calls straight to the model server: the request bodies the
	// server sent, replayed with the same shape (the conversations at once,
	// their calls one after the other), so the model server's own work on
	// each request is on both sides.
	var direct latencies
	per := max(len(recorded)/max(cfg.Conversations, 1), 1)
	for i := 0; i < len(recorded); i += per {
		batch := recorded[i:min(i+per, len(recorded))]
		wg.Go(func() {
			for _, r := range batch {
				t0 := time.Now()
				req, _ := http.NewRequestWithContext(ctx, "POST", model.URL()+"/chat/completions", bytes.NewReader(r.Raw))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Authorization", "Bearer load-test")
				resp, err := httpc.Do(req)
				if err != nil {
					failed.Add(1)
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				direct.add(time.Since(t0))
			}
		})
	}
	wg.Wait()

	turns, dir := lat.sorted(), direct.sorted()
	if len(turns) == 0 {
		return errors.New("burst: no turn completed")
	}
	db := "SQLite"
	if cfg.DSN != "" {
		db = "PostgreSQL"
	}
	placed := "unpinned"
	if cfg.Pin != "" {
		placed = "server on CPU " + srvCPUs + ", model server and load generator on CPU " + loadCPUs
	}
	fmt.Fprintf(stdout, "burst: %d conversations x %d turns on %s, model delay %v, %s: %d turns in %v, %d failed, %.2f model calls per turn\n",
		cfg.Conversations, cfg.Turns, db, cfg.Delay, placed, len(turns), elapsed.Round(time.Millisecond), failed.Load(), float64(calls)/float64(len(turns)))
	var floor time.Duration
	if len(pre) > 0 {
		slices.Sort(pre)
		slices.Sort(whole)
		floor = time.Duration(cfg.Conversations) * pct(pre, .5)
		fmt.Fprintf(stdout, "calibration: %d turns one at a time: server CPU before the model call p50 %v (p90 %v), whole turn p50 %v; SQL statements %s\n",
			len(pre), round(pct(pre, .5)), round(pct(pre, .9)), round(pct(whole, .5)), statementsPer(stm0, stm1, calTurns))
		fmt.Fprintf(stdout, "floor: %d x %v = %v (one core's CPU for every conversation's turn before its model call)\n",
			cfg.Conversations, round(pct(pre, .5)), round(floor))
	}
	fmt.Fprintf(stdout, "turn          p50 %v  p99 %v  max %v\n", round(pct(turns, .5)), round(pct(turns, .99)), round(pct(turns, 1)))
	fmt.Fprintf(stdout, "model direct  p50 %v  p99 %v  max %v\n", round(pct(dir, .5)), round(pct(dir, .99)), round(pct(dir, 1)))
	over99 := pct(turns, .99) - pct(dir, .99)
	fmt.Fprintf(stdout, "overhead      p50 %v  p99 %v\n", round(pct(turns, .5)-pct(dir, .5)), round(over99))
	if floor > 0 {
		fmt.Fprintf(stdout, "overhead p99 / floor: %.2f\n", float64(over99)/float64(floor))
	}
	for i := range byTurn {
		d := byTurn[i].sorted()
		fmt.Fprintf(stdout, "  turn %d of each conversation: p50 %v  p99 %v\n", i+1, round(pct(d, .5)), round(pct(d, .99)))
	}
	fmt.Fprintf(stdout, "server CPU %.2fs over %d turns: %.2f ms per turn\n", cpu1-cpu0, len(turns), (cpu1-cpu0)*1000/float64(len(turns)))
	if n := m1[split[3]] - m0[split[3]]; n > 0 {
		fmt.Fprintf(stdout, "database pool: %.0f waits for a connection, %v in all\n", n,
			round(time.Duration((m1[split[4]]-m0[split[4]])*float64(time.Second))))
	}
	if n := m1[split[2]] - m0[split[2]]; n > 0 {
		fmt.Fprintf(stdout, "server's own split (/metrics, mean per turn): model %v, server %v\n",
			round(time.Duration((m1[split[0]]-m0[split[0]])/n*float64(time.Second))),
			round(time.Duration((m1[split[1]]-m0[split[1]])/n*float64(time.Second))))
	}
	if failed.Load() > 0 {
		return fmt.Errorf("burst: %d failures", failed.Load())
	}
	return nil
}
