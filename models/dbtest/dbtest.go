// Package dbtest opens real, migrated databases for tests: a fresh SQLite
// file always, and a fresh PostgreSQL schema when CONCIERGE_TEST_POSTGRES
// names a server.
package dbtest

import (
	"context"
	"database/sql"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver for schema setup
	"golang.org/x/crypto/bcrypt"

	"concierge/models"
)

// PostgresEnv names the variable holding a PostgreSQL URL for tests.
const PostgresEnv = "CONCIERGE_TEST_POSTGRES"

// SQLite opens a migrated store on a new SQLite file in a temporary
// directory, closed when the test ends.
func SQLite(tb testing.TB) *models.Store {
	tb.Helper()
	return open(tb, filepath.Join(tb.TempDir(), "test.db"), models.LatestSchemaVersion())
}

// Postgres opens a migrated store in a new, empty PostgreSQL schema that is
// dropped when the test ends. It skips the test when CONCIERGE_TEST_POSTGRES
// is unset, and fails it when CI=true demands PostgreSQL.
func Postgres(tb testing.TB) *models.Store {
	tb.Helper()
	return open(tb, postgresSchema(tb), models.LatestSchemaVersion())
}

// PostgresURL makes a new, empty PostgreSQL schema like Postgres and
// returns its URL, for tests that open their own stores on it (through a
// Proxy, or in a child process); it skips like Postgres.
func PostgresURL(tb testing.TB) string {
	tb.Helper()
	return postgresSchema(tb)
}

// postgresSchema makes a new, empty PostgreSQL schema, dropped when the
// test ends, and returns the URL that selects it (see Postgres).
func postgresSchema(tb testing.TB) string {
	tb.Helper()
	base := os.Getenv(PostgresEnv)
	if base == "" {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("%s must be set in CI", PostgresEnv)
		}
		tb.Skipf("PostgreSQL not configured: set %s=postgres://... to run this test against it", PostgresEnv)
	}
	schema := "t_" + models.NewID()
	admin, err := sql.Open("pgx", base)
	if err != nil {
		tb.Fatalf("open postgres: %v", err)
	}
	defer admin.Close()
	if _, err := admin.Exec("CREATE SCHEMA " + schema); err != nil {
		tb.Fatalf("create schema: %v", err)
	}
	tb.Cleanup(func() {
		db, err := sql.Open("pgx", base)
		if err != nil {
			return
		}
		defer db.Close()
		_, _ = db.Exec("DROP SCHEMA " + schema + " CASCADE")
	})
	u, err := url.Parse(base)
	if err != nil {
		tb.Fatalf("parse %s: %v", PostgresEnv, err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

func open(tb testing.TB, dsn string, version int) *models.Store {
	tb.Helper()
	s, err := models.Open(dsn)
	if err != nil {
		tb.Fatalf("open %s: %v", redact(dsn), err)
	}
	tb.Cleanup(func() { s.Close() })
	s.PasswordCost = bcrypt.MinCost // real bcrypt, cheap: tests create many accounts
	if err := s.MigrateTo(context.Background(), version); err != nil {
		tb.Fatalf("migrate: %v", err)
	}
	return s
}

func redact(dsn string) string {
	if i := strings.Index(dsn, "@"); i >= 0 {
		return "postgres://…" + dsn[i:]
	}
	return dsn
}

// BackendsAt runs fn like Backends on stores migrated only up to version,
// for tests of the migrations that follow it.
func BackendsAt(t *testing.T, version int, fn func(t *testing.T, s *models.Store)) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) { fn(t, open(t, filepath.Join(t.TempDir(), "test.db"), version)) })
	t.Run("postgres", func(t *testing.T) { fn(t, open(t, postgresSchema(t), version)) })
}

// Backends runs fn as a subtest against each available database: SQLite,
// and PostgreSQL when configured.
func Backends(t *testing.T, fn func(t *testing.T, s *models.Store)) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) { fn(t, SQLite(t)) })
	t.Run("postgres", func(t *testing.T) { fn(t, Postgres(t)) })
}

// BackendsTwice runs fn like Backends with two stores open on one
// database, as two instances of the server have them.
func BackendsTwice(t *testing.T, fn func(t *testing.T, a, b *models.Store)) {
	t.Helper()
	latest := models.LatestSchemaVersion()
	t.Run("sqlite", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "test.db")
		fn(t, open(t, path, latest), open(t, path, latest))
	})
	t.Run("postgres", func(t *testing.T) {
		dsn := postgresSchema(t)
		fn(t, open(t, dsn, latest), open(t, dsn, latest))
	})
}
