package models

import (
	"context"
	"sync"
	"time"
)

// MaxLease bounds how far ahead any lease or lock may be set: one set
// further ahead than that was written by a clock that ran fast (or by a
// bug), and is treated as stale rather than blocking its session or job
// for as long as that clock was wrong.
const MaxLease = time.Minute

// clockRefresh is how often the store reads the database's clock again.
const clockRefresh = time.Minute

// dbClock is the database's clock as this process follows it: the
// database's time at one reading, plus the time this process measured
// since on its monotonic clock. So what instances share — leases, locks,
// expiry, the idle sweep, retention — compares against one clock, however
// wrong each machine's wall clock is.
type dbClock struct {
	mu      sync.Mutex
	dbAt    time.Time // the database's clock_timestamp() at the reading
	localAt time.Time // this process's time.Now() then (its monotonic reading counts)
	stop    chan struct{}
	done    chan struct{}
}

// startClock reads the database's clock, on PostgreSQL, and keeps reading
// it every clockRefresh. On SQLite one process's clock is the only clock.
func (s *Store) startClock(ctx context.Context) error {
	if !s.postgres {
		return nil
	}
	if err := s.readClock(ctx); err != nil {
		return err
	}
	c := &s.clock
	c.stop, c.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(c.done)
		t := time.NewTicker(clockRefresh)
		defer t.Stop()
		for {
			select {
			case <-c.stop:
				return
			case <-t.C:
				// A failed reading keeps the last one: the monotonic clock
				// goes on from it.
				_ = s.readClock(context.Background())
			}
		}
	}()
	return nil
}

func (s *Store) stopClock() {
	if c := &s.clock; c.stop != nil {
		close(c.stop)
		<-c.done
		c.stop = nil
	}
}

func (s *Store) readClock(ctx context.Context) error {
	before := time.Now()
	var db time.Time
	if err := s.db.WithContext(ctx).Raw("SELECT clock_timestamp()").Row().Scan(&db); err != nil {
		return err
	}
	after := time.Now()
	s.clock.mu.Lock()
	defer s.clock.mu.Unlock()
	s.clock.dbAt, s.clock.localAt = db, before.Add(after.Sub(before)/2)
	return nil
}

// SharedNow is the time that what instances share is compared against:
// the database's clock on PostgreSQL, the store's clock on SQLite.
func (s *Store) SharedNow() time.Time {
	if !s.postgres {
		return s.now()
	}
	s.clock.mu.Lock()
	defer s.clock.mu.Unlock()
	if s.clock.dbAt.IsZero() {
		return s.now()
	}
	return s.clock.dbAt.Add(time.Since(s.clock.localAt)).UTC()
}
