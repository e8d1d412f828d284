package models_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"golang.org/x/crypto/bcrypt"

	"concierge/models"
	"concierge/models/dbtest"
)

// openVia opens and migrates a store on dsn with a short deadline.
func openVia(t *testing.T, dsn string, deadline time.Duration) *models.Store {
	t.Helper()
	s, err := models.Open(dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	s.PasswordCost = bcrypt.MinCost
	s.Deadline = deadline
	if err := s.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestDeadlineFrozenPostgres freezes the network between the store and
// PostgreSQL (a proxy of the test's own; the shared server is not
// touched): reads and writes fail as unavailable within the deadline
// instead of hanging, and work again once the network does.
func TestDeadlineFrozenPostgres(t *testing.T) {
	base := dbtest.PostgresURL(t)
	proxy := dbtest.NewProxy(t, dbtest.PostgresTarget(t, base))
	const deadline = 500 * time.Millisecond
	s := openVia(t, proxy.Via(t, base), deadline)
	ctx := context.Background()
	u, err := s.CreateUser(ctx, "frozen@example.com", "Frozen", models.RoleTraveler, "correct horse battery")
	if err != nil {
		t.Fatal(err)
	}

	proxy.Freeze()
	checks := []struct {
		name string
		do   func() error
	}{
		{"read", func() error { _, err := s.UserByID(ctx, u.ID); return err }},
		{"write outside a transaction", func() error { _, err := s.CreateWebSession(ctx, u.ID, time.Hour, 0); return err }},
		{"write transaction", func() error {
			_, err := s.SetUserDisabled(ctx, u.ID, true, models.Actor{Kind: "system"}, "test")
			return err
		}},
	}
	for _, c := range checks {
		start := time.Now()
		err := c.do()
		took := time.Since(start)
		if !models.IsUnavailable(err) {
			t.Errorf("%s while frozen: got %v, want an unavailable error", c.name, err)
		}
		if took > deadline+time.Second {
			t.Errorf("%s while frozen took %v, want at most the deadline (%v) and a little", c.name, took, deadline)
		}
		t.Logf("%s while frozen: unavailable after %v", c.name, took.Round(time.Millisecond))
	}

	proxy.Thaw()
	var last error
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if _, last = s.UserByID(ctx, u.ID); last == nil {
			break
		}
	}
	if last != nil {
		t.Fatalf("read 5 s after the network came back: %v", last)
	}
}

// readWithoutPause starts n readers that read user without pause; the
// function it returns stops them and says how many reads there were, how
// many failed, and why.
func readWithoutPause(s *models.Store, userID string, n int) func() (reads, fails int, why error) {
	var (
		wg           sync.WaitGroup
		mu           sync.Mutex
		reads, fails int
		why          error
		stop         = make(chan struct{})
	)
	for range n {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				_, err := s.UserByID(context.Background(), userID)
				mu.Lock()
				reads++
				if err != nil {
					fails++
					why = errors.Join(why, err)
				}
				mu.Unlock()
			}
		})
	}
	return func() (int, int, error) {
		close(stop)
		wg.Wait()
		return reads, fails, why
	}
}

// TestReadRetriedOnDeadConnection terminates every backend of the store's
// pool (pg_terminate_backend, as an operator or a failover does) and
// checks that reads do not fail for it: the first read that meets a dead
// pooled connection is sent again on a fresh one.
func TestReadRetriedOnDeadConnection(t *testing.T) {
	base := dbtest.PostgresURL(t)
	app := "t_" + models.NewID()
	u, _ := url.Parse(base)
	q := u.Query()
	q.Set("application_name", app)
	u.RawQuery = q.Encode()
	s := openVia(t, u.String(), 5*time.Second)
	admin := dbtest.Postgres(t) // another pool, to terminate the first one's backends
	ctx := context.Background()
	user, err := s.CreateUser(ctx, "dead-conn@example.com", "Dead", models.RoleTraveler, "correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	// Eight readers read without pause while every backend of the pool is
	// terminated three times.
	stop := readWithoutPause(s, user.ID, 8)
	killed := 0
	for range 3 {
		time.Sleep(300 * time.Millisecond)
		var n int
		if err := admin.DB().Raw("SELECT COUNT(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = ?", app).Scan(&n).Error; err != nil {
			t.Fatal(err)
		}
		killed += n
	}
	time.Sleep(300 * time.Millisecond)
	reads, fails, first := stop()
	if killed == 0 {
		t.Fatal("no backend of the store's pool was found to terminate")
	}
	t.Logf("%d reads, %d backends terminated, %d reads failed", reads, killed, fails)
	if fails > 0 {
		t.Errorf("%d of %d reads failed while backends were terminated: %v", fails, reads, first)
	}
}

// TestCloseIdleBesideReaders has four goroutines close the pool's idle
// connections over and over (as migrations of two stores in one process
// could) while four readers use half the pool: no read fails, and
// afterwards the pool can still hand out as many connections as it may
// hold (closing them must not lose a slot, nor close one the pool still
// lists as idle); with nothing else running, it leaves none idle.
func TestCloseIdleBesideReaders(t *testing.T) {
	s := dbtest.Postgres(t)
	ctx := context.Background()
	user, err := s.CreateUser(ctx, "close-idle@example.com", "Idle", models.RoleTraveler, "correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	stop := readWithoutPause(s, user.ID, 4)
	var closers sync.WaitGroup
	for range 4 {
		closers.Go(func() {
			for range 300 {
				s.CloseIdle()
			}
		})
	}
	closers.Wait()
	if reads, fails, why := stop(); fails > 0 {
		t.Errorf("%d of %d reads failed while idle connections were closed: %v", fails, reads, why)
	}
	pool, err := s.DB().DB()
	if err != nil {
		t.Fatal(err)
	}
	if before := pool.Stats().Idle; before == 0 {
		t.Fatal("no connection idle after the readers stopped")
	} else if s.CloseIdle(); pool.Stats().Idle != 0 {
		t.Errorf("%d of %d idle connections left open by CloseIdle with nothing else running", pool.Stats().Idle, before)
	}
	held := make([]*sql.Conn, 0, pool.Stats().MaxOpenConnections)
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	wait, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	for range cap(held) {
		c, err := pool.Conn(wait)
		if err != nil {
			t.Fatalf("connection %d of %d: %v (a slot of the pool was lost)", len(held)+1, cap(held), err)
		}
		if err := c.PingContext(wait); err != nil {
			t.Fatalf("connection %d of %d: %v", len(held)+1, cap(held), err)
		}
		held = append(held, c)
	}
}

// TestDeadlineLockedSQLiteWriter has another process hold SQLite's write
// lock: the write the writer is running waits on the busy timeout, and a
// write queued behind it fails as unavailable within the deadline, while
// reads keep answering.
func TestDeadlineLockedSQLiteWriter(t *testing.T) {
	s := dbtest.SQLite(t)
	const deadline = 300 * time.Millisecond
	s.Deadline = deadline
	ctx := context.Background()
	u, err := s.CreateUser(ctx, "stuck@example.com", "Stuck", models.RoleTraveler, "correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	// Another process's write transaction holds the database's lock.
	other, err := sql.Open("sqlite3", s.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	lock, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if _, err := lock.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	defer lock.ExecContext(ctx, "ROLLBACK")
	// The first write is taken by the writer, which then waits for the
	// connection; the next one waits for the writer.
	go func() { _, _ = s.SetUserDisabled(ctx, u.ID, true, models.Actor{Kind: "system"}, "test") }()
	time.Sleep(50 * time.Millisecond)
	start := time.Now()
	_, err = s.SetUserDisabled(ctx, u.ID, false, models.Actor{Kind: "system"}, "test")
	took := time.Since(start)
	if !models.IsUnavailable(err) || took > deadline+time.Second {
		t.Errorf("write behind a stuck writer: got %v after %v, want unavailable within about %v", err, took, deadline)
	}
	if _, err := s.UserByID(ctx, u.ID); err != nil {
		t.Errorf("read beside a stuck writer: %v", err)
	}
}

// TestClosedConnectionIsUnavailable: a statement on a connection pgx has
// already closed (the server went away between checkout and use) fails
// with "conn closed"; that is the database being away, answered 503 and
// retried, never a 500.
func TestClosedConnectionIsUnavailable(t *testing.T) {
	ctx := context.Background()
	conn, err := pgconn.Connect(ctx, dbtest.PostgresURL(t))
	if err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)
	_, err = conn.Exec(ctx, "SELECT 1").ReadAll()
	if err == nil {
		t.Fatal("a statement on a closed connection passed")
	}
	if wrapped := fmt.Errorf("models: submit message to s1: %w", err); !models.IsUnavailable(wrapped) {
		t.Fatalf("%v is not classed as the database being away", wrapped)
	}
}
