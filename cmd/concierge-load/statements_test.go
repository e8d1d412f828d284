package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"
	"gorm.io/gorm"

	"concierge/agent"
	"concierge/agent/offline"
	"concierge/handlers"
	"concierge/memory"
	"concierge/models"
	"concierge/models/dbtest"
)

// BenchmarkTurnStatements counts the SQL statements one turn without tools
// runs (the burst script: one model call, no tool), from the message's
// POST to its answer, sent by one client so no other work is in the
// count (GORM's statements; a transaction's BEGIN and COMMIT are not
// among them). It reports statements/turn and, with -v, logs the
// statements of the last turn in order, each by its first words, so every
// one can be given a reason. It measures; it asserts nothing.
//
//	go test ./cmd/concierge-load -run '^$' -bench TurnStatements -benchtime 30x -v
func BenchmarkTurnStatements(b *testing.B) {
	b.Run("sqlite", func(b *testing.B) { benchTurnStatements(b, dbtest.SQLite(b)) })
	if os.Getenv("CONCIERGE_TEST_POSTGRES") != "" {
		b.Run("postgres", func(b *testing.B) { benchTurnStatements(b, dbtest.Postgres(b)) })
	}
}

// stmtLog records the statements GORM runs, by their SQL's first words.
type stmtLog struct {
	mu   sync.Mutex
	on   bool
	list []string
}

func (l *stmtLog) add(db *gorm.DB) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.on {
		return
	}
	sql := strings.Join(strings.Fields(db.Statement.SQL.String()), " ")
	if len(sql) > 90 {
		sql = sql[:90]
	}
	l.list = append(l.list, sql)
}

func (l *stmtLog) take(on bool) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.list
	l.list, l.on = nil, on
	return out
}

func benchTurnStatements(b *testing.B, store *models.Store) {
	store.PasswordCost = bcrypt.MinCost
	ctx := context.Background()
	if _, err := store.SeedDemo(ctx, "demo"); err != nil {
		b.Fatal(err)
	}
	var log stmtLog
	cb := store.DB().Callback()
	for name, p := range map[string]interface {
		Register(string, func(*gorm.DB)) error
	}{
		"create": cb.Create().After("*"), "query": cb.Query().After("*"), "update": cb.Update().After("*"),
		"delete": cb.Delete().After("*"), "row": cb.Row().After("*"), "raw": cb.Raw().After("*"),
	} {
		if err := p.Register("count_statements_"+name, log.add); err != nil {
			b.Fatal(err)
		}
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	ag := agent.New(agent.DefaultConfig("gpt-4o-mini"), store, offline.New(memory.NewTokenCounter("gpt-4o-mini")), logger)
	cfg := handlers.DefaultConfig()
	cfg.Offline = true
	srv := httptest.NewServer(handlers.NewServer(cfg, store, ag, nil, logger))
	b.Cleanup(srv.Close)
	httpc := &http.Client{Timeout: time.Minute}
	tok, err := signInRetrying(ctx, httpc, srv.URL, "john@example.com", "demo")
	if err != nil {
		b.Fatal(err)
	}
	c := &client{base: srv.URL, token: tok, http: httpc}
	var s struct {
		ID string `json:"id"`
	}
	if status, err := c.call(ctx, "POST", "/api/v1/sessions", nil, &s); err != nil || status != http.StatusCreated {
		b.Fatalf("open session: %d %v", status, err)
	}
	send := func(i int) {
		status, err := c.call(ctx, "POST", "/api/v1/sessions/"+s.ID+"/messages", map[string]string{"content": burstScript[i%len(burstScript)]}, nil)
		if err != nil || status != http.StatusOK {
			b.Fatalf("turn %d: status %d: %v", i, status, err)
		}
	}
	send(0) // the session's first turn reads what later ones find ready
	total := 0
	var last []string
	b.ResetTimer()
	for i := range b.N {
		log.take(true)
		send(i + 1)
		// Work the turn leaves behind (a summary, the trip's update) runs
		// after its answer: give it a moment, so it is counted with it.
		time.Sleep(20 * time.Millisecond)
		last = log.take(false)
		total += len(last)
	}
	b.StopTimer()
	b.ReportMetric(float64(total)/float64(b.N), "statements/turn")
	if testing.Verbose() {
		b.Logf("the last turn's %d statements, in order:\n  %s", len(last), strings.Join(last, "\n  "))
	}
}
