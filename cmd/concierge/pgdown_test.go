package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"testing"
	"time"

	"concierge/models/dbtest"
)

// sendAttempt is one POST of a message and what came back.
type sendAttempt struct {
	start, end time.Time
	status     int
	code       string
	retryAfter string
	stored     *bool
	err        error
}

// sendOnce posts a keyed message and reads the answer's status, error code,
// Retry-After and error.stored.
func sendOnce(client *http.Client, url, token, session, key, content string) sendAttempt {
	a := sendAttempt{start: time.Now()}
	body, _ := json.Marshal(map[string]string{"content": content})
	req, _ := http.NewRequest("POST", url+"/api/v1/sessions/"+session+"/messages", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Idempotency-Key", key)
	resp, err := client.Do(req)
	if err != nil {
		a.err, a.end = err, time.Now()
		return a
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	a.end, a.status, a.retryAfter = time.Now(), resp.StatusCode, resp.Header.Get("Retry-After")
	var out struct {
		Error struct {
			Code   string `json:"code"`
			Stored *bool  `json:"stored"`
		} `json:"error"`
	}
	_ = json.Unmarshal(b, &out)
	a.code, a.stored = out.Error.Code, out.Error.Stored
	return a
}

// TestPostgresStoppedUnderLoad runs the server binary on PostgreSQL through a TCP
// proxy of the test's own and "stops" the database for 10 s under load:
// the proxy closes every connection and refuses new ones, as a stopped
// server does (the machine's shared PostgreSQL is never touched). Clients
// keep sending keyed messages and retry each until it is acknowledged.
// Every request during the stop answers 503 unavailable with Retry-After
// and error.stored within the database deadline (none hangs, none is a
// 500), /healthz says
// 503, service resumes once the database is back, and every acknowledged
// message is stored exactly once and answered.
func TestPostgresStoppedUnderLoad(t *testing.T) {
	t.Parallel()
	base := os.Getenv(dbtest.PostgresEnv)
	if base == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s must be set in CI", dbtest.PostgresEnv)
		}
		t.Skipf("PostgreSQL not configured: set %s=postgres://... to run this test", dbtest.PostgresEnv)
	}
	loadSlot.Lock()
	t.Cleanup(loadSlot.Unlock)
	const (
		clients  = 4
		deadline = 2 * time.Second
		outage   = 10 * time.Second
	)
	dsn := freshSchema(t, base)
	proxy := dbtest.NewProxy(t, dbtest.PostgresTarget(t, base))
	// The binary, built without -race: the demo seed's note writes run the
	// guard inside their transactions, which the race detector can slow
	// past a short deadline.
	url := start(t, proxy.Via(t, dsn), "CONCIERGE_DB_DEADLINE="+deadline.String()).url
	waitHealthy(t, url)
	token := apiToken(t, url)
	sessions := make([]string, clients)
	for i := range sessions {
		status, out := apiJSON(t, "POST", url+"/api/v1/sessions", token, "")
		if status != http.StatusCreated {
			t.Fatalf("session: %d %v", status, out)
		}
		sessions[i] = out["id"].(string)
	}

	began := time.Now()
	stopAt, startAt, endAt := began.Add(2*time.Second), began.Add(2*time.Second+outage), began.Add(5*time.Second+outage)
	var (
		mu       sync.Mutex
		attempts []sendAttempt
		acked    = make([][]string, clients)
		health   []sendAttempt
	)
	httpc := &http.Client{Timeout: 30 * time.Second}
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			for i := 0; time.Now().Before(endAt); i++ {
				key, text := fmt.Sprintf("c%d-%d", c, i), fmt.Sprintf("Client %d, message %d: a quiet hotel in Porto?", c, i)
				// Retry with the same key until acknowledged, for at most 20 s.
				for give := time.Now().Add(20 * time.Second); time.Now().Before(give); {
					a := sendOnce(httpc, url, token, sessions[c], key, text)
					mu.Lock()
					attempts = append(attempts, a)
					mu.Unlock()
					if a.status == http.StatusOK {
						acked[c] = append(acked[c], text)
						break
					}
					time.Sleep(150 * time.Millisecond)
				}
			}
		})
	}
	wg.Go(func() {
		for time.Now().Before(endAt) {
			a := sendAttempt{start: time.Now()}
			resp, err := httpc.Get(url + "/healthz")
			a.end, a.err = time.Now(), err
			if err == nil {
				a.status = resp.StatusCode
				resp.Body.Close()
			}
			mu.Lock()
			health = append(health, a)
			mu.Unlock()
			time.Sleep(250 * time.Millisecond)
		}
	})
	time.Sleep(time.Until(stopAt))
	proxy.Stop()
	time.Sleep(time.Until(startAt))
	proxy.Start()
	wg.Wait()

	// Requests that began once the stop had taken hold and ended before the
	// database came back are the stop's.
	settled := stopAt.Add(300 * time.Millisecond)
	var during, unavailable, storedYes, storedNo, storedUnknown int
	var slowest time.Duration
	firstOK := time.Time{}
	for _, a := range attempts {
		took := a.end.Sub(a.start)
		slowest = max(slowest, took)
		switch {
		case a.err != nil:
			t.Errorf("a send got no answer: %v", a.err)
			continue
		case a.status >= 500 && a.status != http.StatusServiceUnavailable:
			t.Errorf("a send answered %d (%s)", a.status, a.code)
		case took > deadline+2*time.Second:
			t.Errorf("a send took %v, want at most the deadline (%v) and a little", took.Round(time.Millisecond), deadline)
		}
		if a.status == http.StatusServiceUnavailable {
			unavailable++
			if a.code != "unavailable" || a.retryAfter == "" {
				t.Errorf("503 with code %q and Retry-After %q, want unavailable with Retry-After", a.code, a.retryAfter)
			}
			switch {
			case a.stored == nil:
				storedUnknown++
			case *a.stored:
				storedYes++
			default:
				storedNo++
			}
		}
		if a.start.After(settled) && a.end.Before(startAt) {
			during++
			if a.status != http.StatusServiceUnavailable {
				t.Errorf("a send during the stop answered %d, want 503", a.status)
			}
			// No connection, so no commit whose answer was lost: each
			// answer can say whether the message was stored.
			if a.status == http.StatusServiceUnavailable && a.stored == nil {
				t.Errorf("a 503 during the stop does not say whether the message was stored (error.stored absent)")
			}
		}
		if a.status == http.StatusOK && a.start.After(startAt) && (firstOK.IsZero() || a.end.Before(firstOK)) {
			firstOK = a.end
		}
	}
	if during == 0 {
		t.Fatal("no send fell within the stop")
	}
	if firstOK.IsZero() || firstOK.Sub(startAt) > 5*time.Second {
		t.Errorf("service did not resume within 5 s of the database's return (first 200 after it: %v)", firstOK)
	}
	healthDown, healthBack := 0, false
	for _, h := range health {
		if h.start.After(settled) && h.end.Before(startAt) && h.status == http.StatusServiceUnavailable {
			healthDown++
		}
		if h.start.After(startAt) && h.status == http.StatusOK {
			healthBack = true
		}
	}
	if healthDown == 0 || !healthBack {
		t.Errorf("/healthz: %d answers of 503 during the stop, back to 200 after it: %v", healthDown, healthBack)
	}

	store := openShared(t, dsn)
	total := 0
	for c, id := range sessions {
		checkTranscript(t, store, id, acked[c])
		total += len(acked[c])
	}
	t.Logf("PostgreSQL stopped %v under %d clients: %d sends, %d during the stop, %d answered 503 (stored: %d yes, %d no, %d not told); slowest %v; first 200 %v after the return; %d messages acknowledged, each stored once",
		outage, clients, len(attempts), during, unavailable, storedYes, storedNo, storedUnknown, slowest.Round(time.Millisecond),
		firstOK.Sub(startAt).Round(time.Millisecond), total)
}
