package handlers_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"concierge/agent"
	"concierge/agent/offline"
	"concierge/handlers"
	"concierge/memory"
	"concierge/models"
	"concierge/models/dbtest"
)

// BenchmarkReviewPage renders /console/review for support with 10,000 open
// items of 200 travelers (every kind), through the real router and
// database: the whole request, counts and navigation included.
func BenchmarkReviewPage(b *testing.B) {
	for name, open := range map[string]func(testing.TB) *models.Store{"sqlite": dbtest.SQLite, "postgres": dbtest.Postgres} {
		b.Run(name, func(b *testing.B) {
			store := open(b)
			ctx := context.Background()
			if _, err := store.SeedDemo(ctx, "demo"); err != nil {
				b.Fatal(err)
			}
			log := slog.New(slog.NewTextHandler(io.Discard, nil))
			ag := agent.New(agent.DefaultConfig("gpt-4o-mini"), store, offline.New(memory.NewTokenCounter("gpt-4o-mini")), log)
			srv := httptest.NewServer(handlers.NewServer(handlers.DefaultConfig(), store, ag, agent.NewWorker(agent.DefaultWorkerConfig(), store, nil, log), log))
			b.Cleanup(srv.Close)
			start := time.Now().UTC().Add(-30 * 24 * time.Hour)
			var items []models.ReviewItem
			for u := range 200 {
				user, err := store.CreateUser(ctx, fmt.Sprintf("bench-%d@example.com", u), fmt.Sprintf("Traveler %d", u), models.RoleTraveler, "right-pass")
				if err != nil {
					b.Fatal(err)
				}
				for i := range 50 {
					n := u*50 + i
					items = append(items, models.ReviewItem{ID: models.NewID(), UserID: user.ID, Kind: models.ReviewKinds[n%len(models.ReviewKinds)],
						Status: models.ReviewOpen, SessionID: models.NewID(), Turn: 1 + i%7, NoteID: models.NewID(), Category: "secret",
						CreatedAt: start.Add(time.Duration(n) * time.Minute)})
				}
			}
			if err := store.DB().CreateInBatches(items, 500).Error; err != nil {
				b.Fatal(err)
			}
			if store.IsPostgres() {
				// What autovacuum does after a bulk load like this one; with
				// the statistics of the empty table the planner walks the
				// open-items index once per traveler (about 0.8 s a page).
				if err := store.DB().Exec("ANALYZE review_items, users").Error; err != nil {
					b.Fatal(err)
				}
			}
			support, err := store.UserByEmail(ctx, "support@example.com")
			if err != nil {
				b.Fatal(err)
			}
			cookie, err := store.CreateWebSession(ctx, support.ID, time.Hour, 0)
			if err != nil {
				b.Fatal(err)
			}
			req, _ := http.NewRequest("GET", srv.URL+"/console/review", nil)
			req.AddCookie(&http.Cookie{Name: "concierge_session", Value: cookie})
			b.ResetTimer()
			for b.Loop() {
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					b.Fatalf("status %d", resp.StatusCode)
				}
			}
		})
	}
}
