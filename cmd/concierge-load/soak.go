package main

import (
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// soakConfig is what a soak run does.
type soakConfig struct {
	URLs     []string      // instances, all on one database
	Emails   []string      // traveler accounts the clients use, round robin
	Password string        // their password
	Clients  int           // concurrent clients
	Duration time.Duration // how long clients send
	Settle   time.Duration // how long to wait for consolidations after the run
	Session  int           // messages per session before it is closed
	// Racing is the share of steps that race: half send one message twice
	// at once through two instances with the same key (a retry that
	// overtakes the original), half send two different messages to the
	// session at once.
	Racing float64
}

// sent is one message a client sent, with the outcome it was told.
type sent struct {
	content, key string
	answered     bool // a 200 with a reply was received (maybe after retries)
	// superseded: a 409 conflict said a newer message of the session is
	// answered instead (the instance that stored this one died before
	// answering it, and the other message of a racing step went first).
	superseded bool
}

// soakSession is one conversation a client had.
type soakSession struct {
	id, email string
	msgs      []sent
	closed    bool
	job       string
}

// soakStats counts what clients saw; guarded by mu.
type soakStats struct {
	mu        sync.Mutex
	responses map[string]int // "200", "409 not_stored", "error", …
	retries   int
	raced     int // racing steps (see soakConfig.Racing)
	latencies []time.Duration
	sessions  []*soakSession
}

func (s *soakStats) saw(what string) {
	s.mu.Lock()
	s.responses[what]++
	s.mu.Unlock()
}

// runSoak runs cfg.Clients clients across the instances for cfg.Duration,
// each opening sessions, sending messages with Idempotency-Keys (retrying
// every failure with the same key, through any instance) and closing them;
// then it reads everything back over the API and counts, exactly, whether
// every message was stored once and answered, turns are unique, and no
// traveler has two active notes with the same text. It returns an error when
// any count is wrong.
func runSoak(ctx context.Context, cfg soakConfig, stdout io.Writer) error {
	if len(cfg.URLs) == 0 || len(cfg.Emails) == 0 || cfg.Clients < 1 {
		return errors.New("soak: need at least one URL, one account and one client")
	}
	httpc := &http.Client{Timeout: time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: cfg.Clients}}
	tokens := map[string]string{}
	for i, email := range cfg.Emails {
		tok, err := signInRetrying(ctx, httpc, cfg.URLs[i%len(cfg.URLs)], email, cfg.Password)
		if err != nil {
			return err
		}
		tokens[email] = tok
	}
	stats := &soakStats{responses: map[string]int{}}
	runCtx, cancel := context.WithTimeout(ctx, cfg.Duration)
	defer cancel()
	start := time.Now()
	var wg sync.WaitGroup
	for i := range cfg.Clients {
		email := cfg.Emails[i%len(cfg.Emails)]
		wg.Go(func() { soakClient(runCtx, ctx, cfg, httpc, email, tokens[email], stats) })
	}
	wg.Wait()
	elapsed := time.Since(start)
	return soakReport(ctx, cfg, httpc, tokens, stats, elapsed, stdout)
}

func signInRetrying(ctx context.Context, httpc *http.Client, base, email, password string) (string, error) {
	c := &client{base: base, http: httpc}
	for attempt := 0; ; attempt++ {
		var auth struct {
			Token string `json:"token"`
		}
		status, err := c.call(ctx, "POST", "/api/v1/auth/token", map[string]string{"email": email, "password": password}, &auth)
		if err == nil && status == 200 {
			return auth.Token, nil
		}
		if status != http.StatusTooManyRequests || attempt > 20 {
			return "", fmt.Errorf("sign in %s at %s: status %d: %v", email, base, status, err)
		}
		time.Sleep(3 * time.Second) // the login limiter refills
	}
}

// newKey makes an Idempotency-Key.
func newKey() string {
	var b [16]byte
	_, _ = crand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// soakClient loops until runCtx ends: a session of cfg.Session messages,
// each through a random instance, then its close. A message in flight when
// the run ends is still driven to its answer (under ctx), so every message
// sent is accounted for.
func soakClient(runCtx, ctx context.Context, cfg soakConfig, httpc *http.Client, email, token string, stats *soakStats) {
	pick := func() *client { return &client{base: cfg.URLs[rand.IntN(len(cfg.URLs))], token: token, http: httpc} }
	for runCtx.Err() == nil {
		var opened struct {
			ID string `json:"id"`
		}
		status, err := pick().call(ctx, "POST", "/api/v1/sessions", nil, &opened)
		if err != nil || status != http.StatusCreated {
			stats.saw(fmt.Sprintf("open session %d", status))
			time.Sleep(100 * time.Millisecond)
			continue
		}
		ss := &soakSession{id: opened.ID, email: email}
		stats.mu.Lock()
		stats.sessions = append(stats.sessions, ss)
		stats.mu.Unlock()
		offset := rand.IntN(len(script))
		for i := 0; i < cfg.Session && runCtx.Err() == nil; i++ {
			m := sent{content: script[(offset+i)%len(script)], key: newKey()}
			r := rand.Float64()
			switch {
			case r < cfg.Racing/2: // the same message twice at once, one key
				stats.mu.Lock()
				stats.raced++
				stats.mu.Unlock()
				var a, b outcome
				var wg sync.WaitGroup
				wg.Go(func() { a = sendUntilAnswered(ctx, pick, ss.id, m, stats) })
				wg.Go(func() { b = sendUntilAnswered(ctx, pick, ss.id, m, stats) })
				wg.Wait()
				m.answered = a == answered && b == answered
				ss.msgs = append(ss.msgs, m)
			case r < cfg.Racing && i+1 < cfg.Session: // two different messages at once
				stats.mu.Lock()
				stats.raced++
				stats.mu.Unlock()
				i++
				m2 := sent{content: script[(offset+i)%len(script)], key: newKey()}
				var o, o2 outcome
				var wg sync.WaitGroup
				wg.Go(func() { o = sendUntilAnswered(ctx, pick, ss.id, m, stats) })
				wg.Go(func() { o2 = sendUntilAnswered(ctx, pick, ss.id, m2, stats) })
				wg.Wait()
				m.answered, m.superseded = o == answered, o == superseded
				m2.answered, m2.superseded = o2 == answered, o2 == superseded
				ss.msgs = append(ss.msgs, m, m2)
			default:
				m.answered = sendUntilAnswered(ctx, pick, ss.id, m, stats) == answered
				ss.msgs = append(ss.msgs, m)
			}
		}
		var closed struct {
			Job string `json:"job"`
		}
		status, err = pick().call(ctx, "POST", "/api/v1/sessions/"+ss.id+"/close", nil, &closed)
		stats.saw(fmt.Sprintf("close %d", status))
		if err == nil && (status == http.StatusOK || status == http.StatusAccepted) {
			ss.closed, ss.job = true, closed.Job
		}
	}
}

// outcome is how a send ended for its client.
type outcome int

const (
	failed     outcome = iota
	answered           // a 200 with a reply
	superseded         // 409 conflict: a newer message is answered instead
)

// sendUntilAnswered sends one message, retrying with the same key through
// random instances on every failure: network errors, 5xx, 409 not_stored
// (nothing written: send again) and 409 answer_in_progress (stored and
// being answered elsewhere: ask again later and get the answer). A 409
// conflict is final: the session's newer message is answered instead. It
// gives up after two minutes.
func sendUntilAnswered(ctx context.Context, pick func() *client, sessionID string, m sent, stats *soakStats) outcome {
	deadline := time.Now().Add(2 * time.Minute)
	for attempt := 0; time.Now().Before(deadline); attempt++ {
		if attempt > 0 {
			stats.mu.Lock()
			stats.retries++
			stats.mu.Unlock()
			time.Sleep(time.Duration(50+rand.IntN(200)) * time.Millisecond)
		}
		var out struct {
			Reply string `json:"reply"`
			Error struct {
				Code string `json:"code"`
			} `json:"error"`
		}
		t0 := time.Now()
		status, err := pick().callKey(ctx, "POST", "/api/v1/sessions/"+sessionID+"/messages", m.key, map[string]string{"content": m.content}, &out)
		switch {
		case err != nil:
			stats.saw("error")
		case status == http.StatusOK:
			stats.saw("200")
			stats.mu.Lock()
			stats.latencies = append(stats.latencies, time.Since(t0))
			stats.mu.Unlock()
			if out.Reply == "" {
				return failed
			}
			return answered
		default:
			stats.saw(fmt.Sprintf("%d %s", status, out.Error.Code))
			if status == http.StatusConflict && out.Error.Code == "conflict" {
				return superseded
			}
			if status < 500 && status != http.StatusConflict {
				return failed // our mistake: retrying will not help
			}
		}
	}
	return failed
}

// soakReport reads every session and traveler back over the API and prints
// exact counts.
func soakReport(ctx context.Context, cfg soakConfig, httpc *http.Client, tokens map[string]string, stats *soakStats,
	elapsed time.Duration, stdout io.Writer) error {
	reader := func(email string) *client { return &client{base: cfg.URLs[0], token: tokens[email], http: httpc} }
	// Let the consolidations of the last closes finish.
	settleUntil := time.Now().Add(cfg.Settle)
	pendingJobs := 0
	for {
		pendingJobs = 0
		for _, ss := range stats.sessions {
			if !ss.closed || ss.job == "" {
				continue
			}
			var job struct {
				Status string `json:"status"`
			}
			if _, err := reader(ss.email).call(ctx, "GET", "/api/v1/consolidations/"+ss.job, nil, &job); err != nil || job.Status != "done" {
				pendingJobs++
			}
		}
		if pendingJobs == 0 || time.Now().After(settleUntil) {
			break
		}
		time.Sleep(time.Second)
	}

	var sentN, acked, storedOnce, storedTwice, missing, unanswered, overtaken, dupTurns, extra, closed int
	for _, ss := range stats.sessions {
		if ss.closed {
			closed++
		}
		var got struct {
			Messages []struct {
				Role    string `json:"role"`
				Content string `json:"content"`
				Turn    int    `json:"turn"`
			} `json:"messages"`
		}
		if status, err := reader(ss.email).call(ctx, "GET", "/api/v1/sessions/"+ss.id, nil, &got); err != nil || status != 200 {
			return fmt.Errorf("read session %s: status %d: %v", ss.id, status, err)
		}
		count := map[string]int{}
		turnOf := map[string]int{}
		userTurns := map[int]int{}
		answeredTurns := map[int]bool{}
		for _, m := range got.Messages {
			switch m.Role {
			case "user":
				count[m.Content]++
				turnOf[m.Content] = m.Turn
				userTurns[m.Turn]++
			case "assistant":
				answeredTurns[m.Turn] = true
			}
		}
		wanted := map[string]bool{}
		later := func(turn int) bool { // a later turn of the session is answered
			for t := range answeredTurns {
				if t > turn {
					return true
				}
			}
			return false
		}
		for _, m := range ss.msgs {
			sentN++
			wanted[m.content] = true
			if m.answered {
				acked++
			}
			switch n := count[m.content]; {
			case n == 0:
				missing++
			case n == 1:
				storedOnce++
				switch turn := turnOf[m.content]; {
				case m.superseded && !answeredTurns[turn] && later(turn):
					overtaken++
				case !answeredTurns[turn]:
					unanswered++
				}
			default:
				storedTwice++
			}
		}
		for content, n := range count {
			if !wanted[content] {
				extra += n
			}
		}
		for _, n := range userTurns {
			if n > 1 {
				dupTurns++
			}
		}
	}

	travelers, notes, dupNotes := 0, 0, 0
	for email := range tokens {
		var mem struct {
			Global []struct {
				Text string `json:"text"`
			} `json:"global_notes"`
		}
		if status, err := reader(email).call(ctx, "GET", "/api/v1/users/me/memory", nil, &mem); err != nil || status != 200 {
			return fmt.Errorf("read memory of %s: status %d: %v", email, status, err)
		}
		travelers++
		seen := map[string]int{}
		for _, n := range mem.Global {
			notes++
			seen[strings.ToLower(strings.TrimSpace(n.Text))]++
		}
		for _, n := range seen {
			if n > 1 {
				dupNotes += n - 1
			}
		}
	}

	fmt.Fprintf(stdout, "soak: %d clients across %d instances for %v (%d accounts)\n", cfg.Clients, len(cfg.URLs), elapsed.Round(time.Millisecond), len(cfg.Emails))
	fmt.Fprintf(stdout, "sessions %d opened, %d closed; consolidations still pending after %v: %d\n", len(stats.sessions), closed, cfg.Settle, pendingJobs)
	fmt.Fprintf(stdout, "messages sent %d (%d in racing steps), answered to the client %d, retries %d\n", sentN, stats.raced, acked, stats.retries)
	keys := make([]string, 0, len(stats.responses))
	for k := range stats.responses {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s: %d", k, stats.responses[k])
	}
	fmt.Fprintf(stdout, "responses %s\n", strings.Join(parts, ", "))
	if lat := stats.latencies; len(lat) > 0 {
		slices.Sort(lat)
		pct := func(p float64) time.Duration { return lat[int(p*float64(len(lat)-1))].Round(time.Microsecond) }
		fmt.Fprintf(stdout, "send latency p50 %v  p90 %v  p99 %v  max %v  (%.1f answered sends/s)\n", pct(0.5), pct(0.9), pct(0.99), pct(1),
			float64(len(lat))/elapsed.Seconds())
	}
	fmt.Fprintf(stdout, "read back: stored exactly once %d, stored twice or more %d, missing %d, stored but unanswered %d, unexpected user messages %d, sessions with a duplicated turn %d\n",
		storedOnce, storedTwice, missing, unanswered, extra, dupTurns)
	fmt.Fprintf(stdout, "superseded: %d stored, told 409 conflict, a later message of theirs answered instead\n", overtaken)
	fmt.Fprintf(stdout, "memory: %d travelers, %d active long-term notes, %d duplicates\n", travelers, notes, dupNotes)
	if storedTwice+missing+unanswered+extra+dupTurns+dupNotes > 0 || acked+overtaken != sentN {
		return errors.New("soak: integrity violations (see the counts above)")
	}
	return nil
}
