package models

import (
	"context"
	"database/sql/driver"
	"errors"
	"io"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/mattn/go-sqlite3"
	"gorm.io/gorm"
)

// Stored says whether the message a request carried was stored before the
// database went away.
type Stored int

// The answers UnavailableError.Stored can give.
const (
	StoredUnknown Stored = iota // the request carried no message, or we cannot tell
	StoredNo                    // nothing of the request was written
	StoredYes                   // the message is stored; only its answer is missing
)

// UnavailableError is a database that could not be reached, did not answer
// within the store's deadline, or refused a write (disk full, read-only,
// I/O error). Nothing about the request was wrong: the same request may be
// sent again (with the same Idempotency-Key) once the database is back.
type UnavailableError struct {
	Err    error
	Stored Stored
	// commitLost says the connection went away while the transaction was
	// committing: it may or may not have been stored, whatever the caller
	// would mark.
	commitLost bool
}

func (e *UnavailableError) Error() string { return "models: database unavailable: " + e.Err.Error() }

func (e *UnavailableError) Unwrap() error { return e.Err }

// errDeadline is the cause of a context the store's deadline ended.
var errDeadline = errors.New("models: the database did not answer within the deadline")

// IsUnavailable reports whether err means the database is away or refuses
// writes, rather than a refusal of the request itself.
func IsUnavailable(err error) bool {
	var ue *UnavailableError
	return errors.As(err, &ue) || unavailable(err)
}

// MarkStored records on an UnavailableError in err's chain whether the
// request's message was stored, unless that is already known. Other errors
// are returned as they are.
func MarkStored(err error, stored Stored) error {
	var ue *UnavailableError
	if errors.As(err, &ue) && ue.Stored == StoredUnknown && !ue.commitLost {
		ue.Stored = stored
	}
	return err
}

// asUnavailable wraps err in an UnavailableError when it is one and is not
// wrapped yet.
func asUnavailable(err error) error {
	var ue *UnavailableError
	if err == nil || errors.As(err, &ue) || !unavailable(err) {
		return err
	}
	return &UnavailableError{Err: err}
}

// unavailable classifies a driver error.
func unavailable(err error) bool {
	if err == nil {
		return false
	}
	// pgconn.ErrConnClosed: the pooled connection was closed under the
	// statement (the server went away between checkout and use).
	if errors.Is(err, errDeadline) || errors.Is(err, errStoreClosed) || errors.Is(err, driver.ErrBadConn) ||
		errors.Is(err, pgconn.ErrConnClosed) {
		return true
	}
	var se sqlite3.Error
	if errors.As(err, &se) {
		switch se.Code {
		case sqlite3.ErrFull, sqlite3.ErrIoErr, sqlite3.ErrReadonly, sqlite3.ErrCantOpen, sqlite3.ErrCorrupt, sqlite3.ErrNotADB:
			return true
		}
		return false
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code[:2] {
		case "08", // connection exception
			"53", // insufficient resources: disk full, out of memory, too many connections
			"57", // operator intervention: shutdown, cannot connect now
			"58": // system error: I/O
			return true
		}
		return pe.Code == "25006" // read-only transaction (a standby, or default_transaction_read_only)
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	return errors.As(err, &ce) || errors.As(err, &ne) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, io.EOF) || pgconn.Timeout(err)
}

// deadConnection reports whether err came from a pooled connection the
// server had already closed (restarted, or its backend terminated): the
// statement may be sent again on a fresh one if it was a read.
func deadConnection(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code == "57P01" || pe.Code == "57P02" || pe.Code == "57P03" || pe.Code[:2] == "08"
	}
	return errors.Is(err, driver.ErrBadConn) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) || pgconn.SafeToRetry(err)
}

// writeHealth follows whether the database takes writes: the store's
// writes report how they ended, and best-effort bookkeeping writes that
// failed are counted.
type writeHealth struct {
	bookkeepingFailures atomic.Int64

	mu        sync.Mutex
	refused   error     // the last write refused for the database's reasons, nil once the database is back
	refusedAt time.Time // when
}

// noteWrite records a write that the database refused. Successes do not
// clear it: on a nearly full disk small writes pass while larger ones fail,
// so the state clears only when no write was refused for refusalWindow and
// a probe passes (CheckWrites).
func (h *writeHealth) noteWrite(err error) {
	if err == nil || !IsUnavailable(err) {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.refused, h.refusedAt = err, time.Now()
}

// BookkeepingFailures counts best-effort writes (a token's last use, a
// cleared sign-in counter) that failed without failing their request.
func (s *Store) BookkeepingFailures() int64 { return s.health.bookkeepingFailures.Load() }

// bookkeeping runs a side write that must not fail the request that caused
// it: a failure is logged with what it was, counted, and noted for the
// health check.
func (s *Store) bookkeeping(ctx context.Context, what string, fn func(ctx context.Context) error) {
	err := asUnavailable(fn(ctx))
	s.health.noteWrite(err)
	if err == nil {
		return
	}
	s.health.bookkeepingFailures.Add(1)
	s.logger().Warn("bookkeeping write failed; the request goes on", "write", what, "err", err)
}

func (s *Store) logger() *slog.Logger {
	if s.Log != nil {
		return s.Log
	}
	return slog.New(slog.DiscardHandler)
}

// refusalWindow is how long after a refused write the health check keeps
// answering that the database refuses writes.
const refusalWindow = 5 * time.Second

// CheckWrites reports whether the database takes writes: an error while a
// write was refused for the database's reasons (disk full, read-only,
// unreachable) within refusalWindow. After that it tries a write of its own
// and clears the state when that works, so the check recovers with the
// database even if nobody writes.
func (s *Store) CheckWrites(ctx context.Context) error {
	h := &s.health
	h.mu.Lock()
	refused, at := h.refused, h.refusedAt
	h.mu.Unlock()
	if refused == nil {
		return nil
	}
	if time.Since(at) < refusalWindow {
		return &UnavailableError{Err: refused}
	}
	// Changes one row and changes it back: the page ends as it was but
	// is written to the log at commit (SQLite skips a rewrite with the
	// same content), so a full disk or a read-only database refuses it.
	err := s.write(ctx, func(tx *gorm.DB) error {
		const row = " WHERE version = (SELECT MAX(version) FROM schema_migrations)"
		if err := tx.Exec("UPDATE schema_migrations SET name = name || '~'" + row).Error; err != nil {
			return err
		}
		return tx.Exec("UPDATE schema_migrations SET name = substr(name, 1, length(name) - 1)" + row).Error
	})
	if err != nil {
		return &UnavailableError{Err: err}
	}
	h.mu.Lock()
	if h.refusedAt.Equal(at) {
		h.refused = nil
	}
	h.mu.Unlock()
	return nil
}
