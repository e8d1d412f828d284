package handlers

import (
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"concierge/models"
)

// turnLatencyBuckets are the histogram's upper bounds in seconds: a turn
// with the offline model takes milliseconds, a real model seconds.
var turnLatencyBuckets = []float64{0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60}

// latencyHistogram is a Prometheus-style histogram of turn durations,
// labelled by route. It lives in one process: each instance reports its own.
type latencyHistogram struct {
	mu     sync.Mutex
	series map[string]*latencySeries // by route and status class
}

type latencySeries struct {
	route, code string
	counts      []uint64 // per bucket, not cumulative
	sum         float64
	count       uint64
}

func newLatencyHistogram() *latencyHistogram {
	return &latencyHistogram{series: map[string]*latencySeries{}}
}

func (h *latencyHistogram) observe(route, code string, d time.Duration) {
	sec := d.Seconds()
	h.mu.Lock()
	defer h.mu.Unlock()
	key := route + "\x00" + code
	s := h.series[key]
	if s == nil {
		s = &latencySeries{route: route, code: code, counts: make([]uint64, len(turnLatencyBuckets))}
		h.series[key] = s
	}
	for i, b := range turnLatencyBuckets {
		if sec <= b {
			s.counts[i]++
			break
		}
	}
	s.sum += sec
	s.count++
}

// isTurnRoute reports whether a route runs a chat turn: posting a message
// (API or page) or streaming its answer.
func isTurnRoute(method, path string) bool {
	return (method == http.MethodPost && strings.HasSuffix(path, "/messages")) ||
		strings.HasSuffix(path, "/stream") || strings.HasSuffix(path, "/answer")
}

// observeTurns is the middleware that times chat turns for /metrics.
func observeTurns(h *latencyHistogram) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if !isTurnRoute(c.Request().Method, c.Path()) {
				return next(c)
			}
			start := time.Now()
			err := next(c)
			status := c.Response().Status
			if err != nil {
				e, _ := toError(err)
				status = e.Status
			}
			h.observe(c.Path(), strconv.Itoa(status/100)+"xx", time.Since(start))
			return err
		}
	}
}

// metrics serves the Prometheus text format. The page routes authenticate
// by cookie, so this endpoint reads the bearer token itself and answers in
// plain text: scrapers are not browsers.
func (s *Server) metrics(h *latencyHistogram) echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx := c.Request().Context()
		auth := c.Request().Header.Get(echo.HeaderAuthorization)
		if !strings.HasPrefix(auth, "Bearer ") {
			c.Response().Header().Set(echo.HeaderWWWAuthenticate, `Bearer realm="concierge"`)
			return c.String(http.StatusUnauthorized, "a staff bearer token is required\n")
		}
		u, err := s.store.UserByAPIToken(ctx, strings.TrimSpace(strings.TrimPrefix(auth, "Bearer ")))
		if errors.Is(err, models.ErrNotFound) {
			c.Response().Header().Set(echo.HeaderWWWAuthenticate, `Bearer realm="concierge"`)
			return c.String(http.StatusUnauthorized, "a staff bearer token is required\n")
		}
		if err != nil {
			return err
		}
		if !u.Role.IsStaff() {
			return c.String(http.StatusForbidden, "staff only\n")
		}
		tot, err := s.store.Totals(ctx)
		if err != nil {
			return err
		}
		var b strings.Builder
		writeTotals(&b, tot)
		h.write(&b)
		c.Response().Header().Set(echo.HeaderContentType, "text/plain; version=0.0.4; charset=utf-8")
		return c.String(http.StatusOK, b.String())
	}
}

func metric(b *strings.Builder, name, typ, help string) {
	fmt.Fprintf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, typ)
}

func labelled(b *strings.Builder, name, label string, m map[string]int64) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(b, "%s{%s=%q} %d\n", name, label, k, m[k])
	}
}

// writeTotals writes the memory figures. They are counts of rows read from
// the database, so every instance reports the same values; retention and
// erasure lower them, which is why they are gauges, not counters.
func writeTotals(b *strings.Builder, t *models.MetricTotals) {
	metric(b, "concierge_turns_stored", "gauge", "Traveler messages (chat turns) stored.")
	fmt.Fprintf(b, "concierge_turns_stored %d\n", t.Turns)
	metric(b, "concierge_memory_writes_stored", "gauge", "Session notes saved by the assistant.")
	fmt.Fprintf(b, "concierge_memory_writes_stored %d\n", t.MemoryWrites)
	metric(b, "concierge_blocked_writes_stored", "gauge", "Memory writes refused by the guardrails, by category.")
	labelled(b, "concierge_blocked_writes_stored", "category", t.Blocked)
	metric(b, "concierge_supersessions_stored", "gauge", "Notes superseded by a newer conflicting note.")
	fmt.Fprintf(b, "concierge_supersessions_stored %d\n", t.Supersessions)
	metric(b, "concierge_consolidation_runs_stored", "gauge", "Consolidation runs, by engine.")
	labelled(b, "concierge_consolidation_runs_stored", "engine", t.Runs)
	metric(b, "concierge_consolidation_fallbacks_stored", "gauge", "Model-engine consolidations that fell back to the rules engine.")
	fmt.Fprintf(b, "concierge_consolidation_fallbacks_stored %d\n", t.Fallbacks)
	metric(b, "concierge_consolidation_jobs", "gauge", "Consolidation jobs, by status.")
	labelled(b, "concierge_consolidation_jobs", "status", t.Jobs)
	metric(b, "concierge_travelers", "gauge", "Traveler accounts.")
	fmt.Fprintf(b, "concierge_travelers %d\n", t.Travelers)
	metric(b, "concierge_global_notes", "gauge", "Active global notes across all travelers.")
	fmt.Fprintf(b, "concierge_global_notes %d\n", t.GlobalNotes)
	metric(b, "concierge_notes_per_traveler", "gauge", "Average active global notes per traveler.")
	avg := 0.0
	if t.Travelers > 0 {
		avg = float64(t.GlobalNotes) / float64(t.Travelers)
	}
	fmt.Fprintf(b, "concierge_notes_per_traveler %s\n", strconv.FormatFloat(avg, 'f', -1, 64))
}

// write renders the histogram in the Prometheus text format.
func (h *latencyHistogram) write(b *strings.Builder) {
	metric(b, "concierge_turn_duration_seconds", "histogram", "Time to answer a chat turn, by route and status class (this instance).")
	h.mu.Lock()
	defer h.mu.Unlock()
	keys := make([]string, 0, len(h.series))
	for k := range h.series {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		s := h.series[k]
		labels := fmt.Sprintf("route=%q,code=%q", s.route, s.code)
		var cum uint64
		for i, ub := range turnLatencyBuckets {
			cum += s.counts[i]
			fmt.Fprintf(b, "concierge_turn_duration_seconds_bucket{%s,le=%q} %d\n", labels, strconv.FormatFloat(ub, 'f', -1, 64), cum)
		}
		fmt.Fprintf(b, "concierge_turn_duration_seconds_bucket{%s,le=\"+Inf\"} %d\n", labels, s.count)
		fmt.Fprintf(b, "concierge_turn_duration_seconds_sum{%s} %s\n", labels, strconv.FormatFloat(s.sum, 'f', -1, 64))
		fmt.Fprintf(b, "concierge_turn_duration_seconds_count{%s} %d\n", labels, s.count)
	}
}
