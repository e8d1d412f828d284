package models

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"

	"gorm.io/gorm"
)

// deadlineCause turns err into the store's deadline error when ctx ended
// because of that deadline (the driver only says "context deadline
// exceeded", which a caller's own timeout says too).
func deadlineCause(ctx context.Context, err error) error {
	if err != nil && context.Cause(ctx) == errDeadline {
		return fmt.Errorf("%w: %w", errDeadline, err)
	}
	return err
}

// Keys of the per-statement settings boundStatements keeps.
const (
	settingCancel = "concierge:deadline_cancel"
	settingCtx    = "concierge:caller_ctx"
)

// boundStatements gives every statement run outside a transaction the
// store's deadline, and wraps the errors of a database that is away in an
// UnavailableError, through GORM callbacks around each kind of statement.
// Statements inside a transaction are bounded by the transaction's own
// context (see write); SQLite's writer runs them without one on purpose.
func (s *Store) boundStatements(db *gorm.DB) error {
	before := func(db *gorm.DB) {
		if _, inTx := db.Statement.ConnPool.(gorm.TxCommitter); inTx || db.Statement.Context == nil {
			return
		}
		ctx, cancel := context.WithTimeoutCause(db.Statement.Context, s.deadline(), errDeadline)
		db.InstanceSet(settingCtx, db.Statement.Context)
		db.InstanceSet(settingCancel, cancel)
		db.Statement.Context = ctx
	}
	after := func(db *gorm.DB) {
		s.statements.Add(1)
		if c, ok := db.InstanceGet(settingCancel); ok {
			db.Error = deadlineCause(db.Statement.Context, db.Error)
			c.(context.CancelFunc)()
			// A chained query may run again on this statement (Count, then
			// Find): it gets the caller's context back, not the spent one.
			orig, _ := db.InstanceGet(settingCtx)
			db.Statement.Context = orig.(context.Context)
			db.Statement.Settings.Delete(fmt.Sprintf("%p", db.Statement) + settingCancel)
		}
		db.Error = asUnavailable(db.Error)
	}
	cb := db.Callback()
	type registrar = func(name string, fn func(*gorm.DB)) error
	pairs := []struct {
		main          string
		before, after registrar
	}{
		{"gorm:query", cb.Query().Before("gorm:query").Register, cb.Query().After("gorm:query").Register},
		{"gorm:create", cb.Create().Before("gorm:create").Register, cb.Create().After("gorm:create").Register},
		{"gorm:update", cb.Update().Before("gorm:update").Register, cb.Update().After("gorm:update").Register},
		{"gorm:delete", cb.Delete().Before("gorm:delete").Register, cb.Delete().After("gorm:delete").Register},
		{"gorm:raw", cb.Raw().Before("gorm:raw").Register, cb.Raw().After("gorm:raw").Register},
	}
	for _, p := range pairs {
		if err := p.before("concierge:deadline_before_"+p.main, before); err != nil {
			return err
		}
		if err := p.after("concierge:deadline_after_"+p.main, after); err != nil {
			return err
		}
	}
	return nil
}

// retryPool is PostgreSQL's connection pool as GORM sees it. A read outside
// a transaction that fails on a pooled connection the server had closed
// (it restarted, or its backend was terminated) is sent again (at most
// deadRetries times); so is BEGIN, since a transaction that never started
// wrote nothing. Other writes are not sent twice: they may have run.
type retryPool struct{ *sql.DB }

// GetDBConn lets gorm.DB.DB find the *sql.DB under the wrapper.
func (p *retryPool) GetDBConn() (*sql.DB, error) { return p.DB, nil }

// deadRetries bounds the retries of one statement. Every dead connection a
// try meets is discarded (the driver marks it closed, and the pool drops a
// closed connection when it comes back), so a server that closed them all
// costs at most one try per connection the pool may hold, and the try after
// that gets a fresh one. The idle connections are not closed in advance:
// database/sql's SetMaxIdleConns(0) closes them from a slice that still
// shares its array with the free list, so a connection returned meanwhile
// can take a closing one's place (the race detector sees it, and the pool
// then closes a connection it still holds).
func deadRetries(db *sql.DB) int { return db.Stats().MaxOpenConnections + 1 }

func (p *retryPool) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	rows, err := p.DB.QueryContext(ctx, query, args...)
	for i := 0; err != nil && deadConnection(err) && ctx.Err() == nil && i < deadRetries(p.DB); i++ {
		rows, err = p.DB.QueryContext(ctx, query, args...)
	}
	return rows, err
}

func (p *retryPool) BeginTx(ctx context.Context, opts *sql.TxOptions) (*sql.Tx, error) {
	tx, err := p.DB.BeginTx(ctx, opts)
	for i := 0; err != nil && deadConnection(err) && ctx.Err() == nil && i < deadRetries(p.DB); i++ {
		tx, err = p.DB.BeginTx(ctx, opts)
	}
	return tx, err
}

// closeIdle closes the connections idle in db's pool at the time of the
// call, each taken out and handed back as bad (driver.ErrBadConn from Raw
// tells the pool to close it) rather than through SetMaxIdleConns (see
// deadRetries). A connection in use meanwhile is left alone.
func closeIdle(db *sql.DB) {
	for range db.Stats().Idle {
		c, err := db.Conn(context.Background())
		if err != nil {
			return
		}
		_ = c.Raw(func(any) error { return driver.ErrBadConn })
		_ = c.Close()
	}
}

// retryDeadReads sends a query outside a transaction again when its
// connection died after the pool handed it out — while its rows were being
// read, which retryPool cannot see (the server terminated the backend
// mid-answer). A read has no effect, so running it again is safe; the
// query's SQL is built already and its result is scanned afresh.
func retryDeadReads(db *gorm.DB, pool *sql.DB) error {
	query := db.Callback().Query().Get("gorm:query")
	return db.Callback().Query().Replace("gorm:query", func(db *gorm.DB) {
		query(db)
		for i := 0; db.Error != nil && deadConnection(db.Error) && i < deadRetries(pool); i++ {
			if _, inTx := db.Statement.ConnPool.(gorm.TxCommitter); inTx || db.Statement.Context.Err() != nil {
				return
			}
			db.Error = nil
			query(db)
		}
	})
}
