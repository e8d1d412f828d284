package models

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base32"
	"errors"
	"fmt"
	"log/slog"
	mrand "math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mattn/go-sqlite3"
	"go.opentelemetry.io/otel/trace"
	"gorm.io/driver/postgres"
	"gorm.io/driver/sqlite"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
	"gorm.io/plugin/dbresolver"

	"concierge/memory"
)

// The store's sentinel errors are memory.Error values: their codes are
// translated to HTTP statuses in one place (handlers/errors.go), and
// errors.Is still matches them through any wrapping.
var (
	// ErrNotFound is returned when a looked-up row does not exist.
	ErrNotFound = &memory.Error{Code: memory.ENOTFOUND, Message: "We could not find what you were looking for."}
	// ErrConflict is returned when a write collides with existing data.
	ErrConflict = &memory.Error{Code: memory.ECONFLICT, Message: "This collides with something that already exists."}
)

// Store owns every query Concierge makes. It is safe for concurrent use.
type Store struct {
	db       *gorm.DB
	sqlDB    *sql.DB
	postgres bool
	path     string  // SQLite file path, empty for PostgreSQL
	writer   *writer // SQLite's group commit (see write); nil on PostgreSQL
	// promptTexts holds the shared prompt texts known to be stored, by id.
	promptTexts sync.Map

	dummyOnce sync.Once
	dummy     []byte

	// Now and NewID are injectable so tests are deterministic.
	Now   func() time.Time
	NewID func() string
	// PasswordCost is the bcrypt cost of new password hashes; 0 means
	// bcrypt.DefaultCost. Tests lower it to keep suites fast.
	PasswordCost int
	// Sleep waits out a sign-in delay; nil waits on a timer. Tests replace
	// it to see the delay without spending it.
	Sleep func(ctx context.Context, d time.Duration) error
	// Log receives the store's own warnings (a bookkeeping write that
	// failed); nil discards them.
	Log *slog.Logger
	// Deadline bounds each statement outside a transaction and each write
	// transaction, waiting for the SQLite writer included; past it the
	// work is cancelled and fails with an UnavailableError. 0 means
	// DefaultDeadline.
	Deadline time.Duration

	health writeHealth
	clock  dbClock
	// statements counts the SQL statements sent, for /metrics (see
	// Statements).
	statements atomic.Int64
	// stopIndex ends SQLite's background search-index step (indexLoop).
	stopIndex chan struct{}
	indexWG   sync.WaitGroup
	tracer    trace.Tracer // nil: tracing off (see Trace)
	// unserve releases the serve lock HoldServing took.
	unserve func()
}

// DefaultDeadline is the store's deadline when none is set: long enough
// for any request's statement on a healthy database, short enough that a
// client hears 503 before it gives up.
const DefaultDeadline = 5 * time.Second

func (s *Store) deadline() time.Duration {
	if s.Deadline > 0 {
		return s.Deadline
	}
	return DefaultDeadline
}

// IsPostgres reports whether the store talks to PostgreSQL.
func (s *Store) IsPostgres() bool { return s.postgres }

// Kind names the database: "postgres" or "sqlite".
func (s *Store) Kind() string {
	if s.postgres {
		return "postgres"
	}
	return "sqlite"
}

// Path is the SQLite database file, or "" on PostgreSQL.
func (s *Store) Path() string { return s.path }

// Pool is the connection pool of writes and transactions (on PostgreSQL,
// of everything), for its statistics.
func (s *Store) Pool() *sql.DB { return s.sqlDB }

// DB exposes the GORM handle to tests in this package's test helpers.
func (s *Store) DB() *gorm.DB { return s.db }

func (s *Store) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC()
	}
	return time.Now().UTC()
}

func (s *Store) newID() string {
	if s.NewID != nil {
		return s.NewID()
	}
	return NewID()
}

var idEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// NewID returns an opaque, unguessable identifier: 128 random bits in
// lowercase base32 (26 characters).
func NewID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(fmt.Sprintf("models: crypto/rand failed: %v", err))
	}
	return idEncoding.EncodeToString(b[:])
}

// IsPostgresURL reports whether dsn selects PostgreSQL.
func IsPostgresURL(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// Open connects to the database dsn names: a postgres:// URL or a SQLite file
// path. SQLite is opened with WAL, a busy timeout, foreign keys, secure_delete
// and immediate write transactions, so concurrent requests wait instead of
// failing with "database is locked".
func Open(dsn string) (*Store, error) {
	cfg := &gorm.Config{
		Logger:                 logger.Discard,
		SkipDefaultTransaction: true,
		TranslateError:         true, // unique violations become gorm.ErrDuplicatedKey on both databases
		NowFunc:                func() time.Time { return time.Now().UTC() },
	}
	s := &Store{}
	var dialector, readDialector gorm.Dialector
	if IsPostgresURL(dsn) {
		s.postgres = true
		dialector = postgres.Open(dsn)
	} else {
		if dsn == "" {
			return nil, errors.New("models: open: empty database path")
		}
		s.path = strings.TrimPrefix(dsn, "file:")
		if i := strings.IndexByte(s.path, '?'); i >= 0 {
			s.path = s.path[:i]
		}
		// Every turn runs the same few statements; preparing each on every
		// call was a tenth of a turn's CPU. The driver keeps prepared
		// statements per connection (_stmt_cache_size), as pgx does by
		// default on PostgreSQL; GORM's own PrepareStmt is not used, it
		// leaves statements in progress at commit on SQLite.
		common := "file:" + s.path + "?_journal_mode=WAL&_busy_timeout=10000&_foreign_keys=on&_secure_delete=on&_synchronous=NORMAL&_stmt_cache_size=128"
		dialector = sqlite.Open(common + "&_txlock=immediate")
		readDialector = sqlite.Open(common)
	}
	db, err := gorm.Open(dialector, cfg)
	// Two processes opening a new SQLite file at the same moment race to
	// switch it to WAL, which takes an exclusive lock that SQLite refuses
	// at once (SQLITE_BUSY, no busy handler) rather than wait for: retry
	// for a while, as the busy timeout would for any other statement.
	for deadline := time.Now().Add(10 * time.Second); isBusy(err) && time.Now().Before(deadline); {
		time.Sleep(25*time.Millisecond + time.Duration(mrand.IntN(50))*time.Millisecond)
		db, err = gorm.Open(dialector, cfg)
	}
	if err != nil {
		return nil, fmt.Errorf("models: open: %w", err)
	}
	s.db = db
	s.sqlDB, err = db.DB()
	if err != nil {
		return nil, fmt.Errorf("models: open: %w", err)
	}
	if err := s.boundStatements(db); err != nil {
		return nil, fmt.Errorf("models: open: %w", err)
	}
	if s.postgres {
		// Reads that meet a connection the server closed are sent again
		// on a fresh one (see retryPool).
		pool := &retryPool{DB: s.sqlDB}
		db.ConnPool, db.Statement.ConnPool = pool, pool
		if err := retryDeadReads(db, s.sqlDB); err != nil {
			return nil, err
		}
		// Sized for the machine, not for the number of turns in flight: no
		// connection is held while the model thinks, so a few per core
		// serve any number of waiting turns. As many stay idle as may be
		// open, so a burst does not open and close connections.
		n := max(8, 4*runtime.NumCPU())
		s.sqlDB.SetMaxOpenConns(n)
		s.sqlDB.SetMaxIdleConns(n)
	} else {
		// SQLite has one writer at a time. Writes (and every transaction)
		// go through one connection, so they queue in-process instead of
		// sleeping on busy_timeout against each other; reads outside a
		// transaction go to a separate pool, which WAL lets run beside
		// the writer. dbresolver does the routing.
		s.sqlDB.SetMaxOpenConns(1)
		s.sqlDB.SetMaxIdleConns(1)
		readers := max(4, 2*runtime.NumCPU())
		err := db.Use(dbresolver.Register(dbresolver.Config{Replicas: []gorm.Dialector{readDialector}}).
			SetMaxOpenConns(readers).SetMaxIdleConns(readers).SetConnMaxLifetime(time.Hour))
		if err != nil {
			return nil, fmt.Errorf("models: open read pool: %w", err)
		}
		s.writer = startWriter(db, &s.statements)
	}
	s.sqlDB.SetConnMaxLifetime(time.Hour)
	if err := s.Ping(context.Background()); err != nil {
		if s.writer != nil {
			s.writer.close()
		}
		s.sqlDB.Close()
		return nil, err
	}
	if err := s.startClock(context.Background()); err != nil {
		s.sqlDB.Close()
		return nil, fmt.Errorf("models: read the database's clock: %w", err)
	}
	if s.writer != nil {
		s.stopIndex = make(chan struct{})
		s.indexWG.Go(func() { s.indexLoop(s.stopIndex) })
	}
	return s, nil
}

// Statements is how many SQL statements the store has sent since it
// opened: every statement through GORM, and the savepoints of SQLite's
// group commit (a transaction's BEGIN and COMMIT are not counted).
// concierge-load divides it by the turns of a run.
func (s *Store) Statements() int64 { return s.statements.Load() }

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	if err := s.sqlDB.PingContext(ctx); err != nil {
		return fmt.Errorf("models: ping: %w", err)
	}
	return nil
}

// Close closes the database; on SQLite it first folds the WAL back into the
// main file.
func (s *Store) Close() error {
	s.stopClock()
	if s.unserve != nil {
		defer s.unserve()
	}
	if s.stopIndex != nil {
		close(s.stopIndex)
		s.indexWG.Wait()
		// What the last step did not reach is indexed before the writer
		// stops (a later open would index it too).
		_, _ = s.indexPending(context.Background())
		s.stopIndex = nil
	}
	if s.writer != nil {
		s.writer.close()
	}
	if !s.postgres {
		_ = s.db.Exec("PRAGMA wal_checkpoint(TRUNCATE)").Error
	}
	return s.sqlDB.Close()
}

// Scrub makes deleted bytes go away from the database files: on SQLite,
// the full-text index is merged so deleted messages' entries leave it,
// secure_delete has already zeroed freed pages, and a truncating WAL
// checkpoint removes the old page images from the log. On PostgreSQL a
// VACUUM of the affected tables lets their dead tuples be reused.
func (s *Store) Scrub(ctx context.Context, tables ...string) error {
	db := s.db.WithContext(ctx)
	if !s.postgres {
		if err := s.optimizeSearch(ctx); err != nil {
			return fmt.Errorf("models: scrub search index: %w", err)
		}
		if err := db.Exec("PRAGMA wal_checkpoint(TRUNCATE)").Error; err != nil {
			return fmt.Errorf("models: scrub: %w", err)
		}
		return nil
	}
	for _, t := range tables {
		if err := db.Exec("VACUUM " + t).Error; err != nil {
			return fmt.Errorf("models: vacuum %s: %w", t, err)
		}
	}
	return nil
}

// isBusy reports whether err is SQLite's "database is locked".
func isBusy(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && (se.Code == sqlite3.ErrBusy || se.Code == sqlite3.ErrLocked)
}

func notFound(err error) error {
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return ErrNotFound
	}
	return err
}
