package handlers

import (
	"context"
	"log/slog"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"concierge/models"
)

// turnBuckets are the turn histograms' upper bounds in seconds: server time
// is milliseconds, a real model seconds.
var turnBuckets = []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60}

// metrics is the server's own Prometheus registry (no global state): the
// Go and process collectors, the stored-row gauges read from the database
// at each scrape, and every turn's time split into time waiting on the
// model and our own server time, so operators see the overhead.
type metrics struct {
	registry           *prometheus.Registry
	modelTime, ownTime *prometheus.HistogramVec
	turnTime           *prometheus.HistogramVec
}

func newMetrics(store *models.Store, log *slog.Logger) *metrics {
	m := &metrics{registry: prometheus.NewRegistry()}
	hist := func(name, help string) *prometheus.HistogramVec {
		return prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: name, Help: help, Buckets: turnBuckets}, []string{"outcome"})
	}
	m.modelTime = hist("concierge_turn_model_seconds", "Time a chat turn waited on the model, all rounds (this instance).")
	m.ownTime = hist("concierge_turn_server_seconds", "Time a chat turn spent outside the model: database, guardrails, assembly (this instance).")
	m.turnTime = hist("concierge_turn_duration_seconds", "Time to answer a chat turn, model and server together (this instance).")
	m.registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.modelTime, m.ownTime, m.turnTime, &storeCollector{store: store, log: log},
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "concierge_bookkeeping_write_failures_total",
			Help: "Best-effort writes (a token's last use, cleared sign-in counters) that failed without failing their request (this instance)."},
			func() float64 { return float64(store.BookkeepingFailures()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "concierge_db_statements_total",
			Help: "SQL statements sent to the database (this instance); concierge-load reports them per turn."},
			func() float64 { return float64(store.Statements()) }),
		// The pool's waits show a database that cannot keep up (go_sql_*).
		collectors.NewDBStatsCollector(store.Pool(), store.Kind()))
	return m
}

// ObserveTurn records one turn; the agent calls it (agent.Observer).
func (m *metrics) ObserveTurn(model, server time.Duration, answered bool) {
	outcome := "answered"
	if !answered {
		outcome = "failed"
	}
	m.modelTime.WithLabelValues(outcome).Observe(model.Seconds())
	m.ownTime.WithLabelValues(outcome).Observe(server.Seconds())
	m.turnTime.WithLabelValues(outcome).Observe((model + server).Seconds())
}

// handler serves the registry in the Prometheus exposition format; the
// route admits staff bearer tokens only (routes.go).
func (m *metrics) handler() echo.HandlerFunc {
	return echo.WrapHandler(promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{}))
}

// storeCollector reports the memory figures at scrape time. They are
// counts of rows read from the database, so every instance reports the
// same values; retention and erasure lower them, which is why they are
// gauges, not counters.
type storeCollector struct {
	store *models.Store
	log   *slog.Logger
}

var (
	descTurns         = prometheus.NewDesc("concierge_turns_stored", "Traveler messages (chat turns) stored.", nil, nil)
	descWrites        = prometheus.NewDesc("concierge_memory_writes_stored", "Session notes saved by the assistant.", nil, nil)
	descBlocked       = prometheus.NewDesc("concierge_blocked_writes_stored", "Memory writes refused by the guardrails, by category.", []string{"category"}, nil)
	descSupersessions = prometheus.NewDesc("concierge_supersessions_stored", "Notes superseded by a newer conflicting note.", nil, nil)
	descRuns          = prometheus.NewDesc("concierge_consolidation_runs_stored", "Consolidation runs, by engine.", []string{"engine"}, nil)
	descFallbacks     = prometheus.NewDesc("concierge_consolidation_fallbacks_stored", "Model-engine consolidations that fell back to the rules engine.", nil, nil)
	descJobs          = prometheus.NewDesc("concierge_consolidation_jobs", "Consolidation jobs, by status.", []string{"status"}, nil)
	descTravelers     = prometheus.NewDesc("concierge_travelers", "Traveler accounts.", nil, nil)
	descGlobalNotes   = prometheus.NewDesc("concierge_global_notes", "Active global notes across all travelers.", nil, nil)
	descNotesPer      = prometheus.NewDesc("concierge_notes_per_traveler", "Average active global notes per traveler.", nil, nil)
)

// Describe sends the descriptors of the stored-row gauges.
func (c *storeCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descTurns, descWrites, descBlocked, descSupersessions, descRuns, descFallbacks,
		descJobs, descTravelers, descGlobalNotes, descNotesPer} {
		ch <- d
	}
}

// Collect reads the totals once per scrape; when the database does not
// answer, the gauges are left out (and the failure logged) rather than
// reported as zero.
func (c *storeCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	t, err := c.store.Totals(ctx)
	if err != nil {
		c.log.Error("metrics: read totals", "err", err)
		return
	}
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	gauge(descTurns, float64(t.Turns))
	gauge(descWrites, float64(t.MemoryWrites))
	gauge(descSupersessions, float64(t.Supersessions))
	gauge(descFallbacks, float64(t.Fallbacks))
	gauge(descTravelers, float64(t.Travelers))
	gauge(descGlobalNotes, float64(t.GlobalNotes))
	avg := 0.0
	if t.Travelers > 0 {
		avg = float64(t.GlobalNotes) / float64(t.Travelers)
	}
	gauge(descNotesPer, avg)
	for k, v := range t.Blocked {
		gauge(descBlocked, float64(v), k)
	}
	for k, v := range t.Runs {
		gauge(descRuns, float64(v), k)
	}
	for k, v := range t.Jobs {
		gauge(descJobs, float64(v), k)
	}
}
