package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"concierge/agent"
	"concierge/agent/offline"
	"concierge/handlers"
	"concierge/memory"
	"concierge/models/dbtest"
)

// TestSoakSmall runs the soak for a few seconds with a few clients across
// two servers over one SQLite database and checks the counts it reads back.
func TestSoakSmall(t *testing.T) {
	store := dbtest.SQLite(t)
	store.PasswordCost = bcrypt.MinCost
	ctx := context.Background()
	if _, err := store.SeedDemo(ctx, "demo"); err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	var urls []string
	for range 2 {
		ag := agent.New(agent.DefaultConfig("gpt-4o-mini"), store, offline.New(memory.NewTokenCounter("gpt-4o-mini")), log)
		wcfg := agent.DefaultWorkerConfig()
		wcfg.Poll = 50 * time.Millisecond
		w := agent.NewWorker(wcfg, store, nil, log)
		wctx, stop := context.WithCancel(ctx)
		w.Start(wctx)
		cfg := handlers.DefaultConfig()
		cfg.Offline = true
		srv := httptest.NewServer(handlers.NewServer(cfg, store, ag, w, log))
		t.Cleanup(func() { srv.Close(); stop(); w.Wait() })
		urls = append(urls, srv.URL)
	}
	var out bytes.Buffer
	err := runSoak(ctx, soakConfig{URLs: urls, Emails: []string{"john@example.com", "priya@example.com"}, Password: "demo",
		Clients: 4, Duration: 2 * time.Second, Settle: 20 * time.Second, Session: 3, Racing: 0.5}, &out)
	t.Log(out.String())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"stored twice or more 0, missing 0, stored but unanswered 0", "0 duplicates", "consolidations still pending after 20s: 0"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q", want)
		}
	}
}
