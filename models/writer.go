package models

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"

	"gorm.io/gorm"
)

// maxBatch bounds how many write transactions one SQLite commit carries.
const maxBatch = 64

// writeOp is one write transaction waiting for the SQLite writer.
type writeOp struct {
	ctx  context.Context
	fn   func(tx *gorm.DB) error
	done chan error
}

// writer is SQLite's group commit. SQLite has one writer at a time, and a
// commit costs far more than the statements before it (the WAL frames and
// the full-text index's new segment), so one goroutine owns the writes:
// it takes every transaction queued at that moment, runs each under its
// own savepoint inside one database transaction, and commits once. A
// transaction that fails is rolled back to its savepoint alone; the
// others stand. Nothing waits to fill a batch: when one transaction is
// queued, it runs at once, alone. Queued transactions are taken in
// arrival order, unlike database/sql's waiters for a busy connection.
type writer struct {
	db *gorm.DB
	// statements is the store's count of statements sent (Statements).
	statements *atomic.Int64
	ops        chan *writeOp
	stop       chan struct{}
	once       sync.Once
	wg         sync.WaitGroup
}

func startWriter(db *gorm.DB, statements *atomic.Int64) *writer {
	w := &writer{db: db, statements: statements, ops: make(chan *writeOp), stop: make(chan struct{})}
	w.wg.Go(w.loop)
	return w
}

// close stops the writer once the transactions already handed to it are
// done; later writes fail. Closing twice is harmless.
func (w *writer) close() {
	w.once.Do(func() { close(w.stop) })
	w.wg.Wait()
}

func (w *writer) loop() {
	batch := make([]*writeOp, 0, maxBatch)
	for {
		select {
		case <-w.stop:
			return
		case op := <-w.ops:
			batch = append(batch[:0], op)
		}
	more:
		for len(batch) < maxBatch {
			select {
			case op := <-w.ops:
				batch = append(batch, op)
			default:
				break more
			}
		}
		w.run(batch)
	}
}

// run commits one batch and tells each transaction how it ended.
func (w *writer) run(batch []*writeOp) {
	errs := make([]error, len(batch))
	// Statements run without their callers' cancellation: interrupting a
	// statement can roll back the whole transaction, and with it the
	// batch. A caller that gave up before its turn is skipped.
	err := w.db.WithContext(context.Background()).Transaction(func(tx *gorm.DB) error {
		if len(batch) == 1 {
			if errs[0] = batch[0].ctx.Err(); errs[0] == nil {
				errs[0] = w.apply(tx, batch[0])
			}
			return errs[0]
		}
		// Savepoints go straight to the transaction's connection: through
		// GORM's statement pipeline they cost as much as a real statement.
		conn := tx.Statement.ConnPool
		exec := func(q string) error {
			w.statements.Add(1)
			_, err := conn.ExecContext(context.Background(), q)
			return err
		}
		for i, op := range batch {
			if errs[i] = op.ctx.Err(); errs[i] != nil {
				continue
			}
			sp := "w" + strconv.Itoa(i)
			if err := exec("SAVEPOINT " + sp); err != nil {
				return err
			}
			if errs[i] = w.apply(tx, op); errs[i] != nil {
				if err := exec("ROLLBACK TO " + sp); err != nil {
					return err
				}
			}
			if err := exec("RELEASE " + sp); err != nil {
				return err
			}
		}
		return nil
	})
	for i, op := range batch {
		if errs[i] == nil {
			errs[i] = err // the commit failed: nothing of the batch was stored
		}
		op.done <- errs[i]
	}
}

// apply runs one transaction's function, turning a panic into its error
// so that the writer keeps serving the others.
func (w *writer) apply(tx *gorm.DB, op *writeOp) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("models: write transaction panicked: %v", r)
		}
	}()
	return op.fn(tx)
}

// errStoreClosed is returned by writes after Close.
var errStoreClosed = errors.New("models: the store is closed")

// write runs fn as one write transaction: on SQLite through the writer's
// group commit, on PostgreSQL as a transaction of its own (PostgreSQL runs
// them side by side and groups its own log flushes). It is the one way the
// store writes in a transaction. Once handed to the writer, fn runs to the
// end even if ctx ends meanwhile, and write reports how it ended.
//
// The store's deadline bounds the transaction on PostgreSQL and the wait for
// the writer on SQLite; a database that is away or refuses the write gives
// an UnavailableError, and the outcome is noted for the health check.
func (s *Store) write(ctx context.Context, fn func(tx *gorm.DB) error) error {
	ctx, span := s.startWrite(ctx)
	err := asUnavailable(s.writeOnce(ctx, fn))
	s.health.noteWrite(err)
	endWrite(span, err)
	return err
}

func (s *Store) writeOnce(ctx context.Context, fn func(tx *gorm.DB) error) error {
	dctx, cancel := context.WithTimeoutCause(ctx, s.deadline(), errDeadline)
	defer cancel()
	if s.writer == nil {
		ran := false
		err := s.db.WithContext(dctx).Transaction(func(tx *gorm.DB) error {
			err := fn(tx)
			ran = err == nil
			return err
		})
		err = deadlineCause(dctx, err)
		if ran && unavailable(err) {
			// COMMIT was sent and no answer came back: it may have landed.
			return &UnavailableError{Err: err, commitLost: true}
		}
		return err
	}
	op := &writeOp{ctx: ctx, fn: fn, done: make(chan error, 1)}
	select {
	case s.writer.ops <- op:
	case <-s.writer.stop:
		return errStoreClosed
	case <-dctx.Done():
		return context.Cause(dctx)
	}
	return <-op.done
}
