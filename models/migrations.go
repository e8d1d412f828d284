package models

import (
	"context"
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"
)

// migration is one append-only schema change. Its SQL uses {{ts}}, {{bool}}
// and {{text}} placeholders that each dialect fills in.
type migration struct {
	Version int
	Name    string
	SQL     string
}

// dialectMigrations give, by version, the statements of migrations that the
// two databases express differently (full-text search) or that hold
// semicolons (trigger bodies); such a migration's SQL is empty.
var dialectMigrations = map[int]func(postgres bool) []string{
	9:  searchMigration,
	10: leanWritesMigration,
	31: searchLaterMigration,
}

// migrations is the schema's whole history, in order. Never edit or reorder a
// released entry: append a new one. The one exception is a statement that
// changes nothing on every database the entry already ran on and lets it
// run where it used to fail (migration 5's repair of duplicated turns): a
// database at a given version still has exactly one schema.
var migrations = []migration{
	{1, "accounts and authentication", `
CREATE TABLE users (
	id TEXT PRIMARY KEY,
	email TEXT NOT NULL,
	name TEXT NOT NULL,
	role TEXT NOT NULL,
	password_hash TEXT NOT NULL,
	failed_logins INTEGER NOT NULL DEFAULT 0,
	locked_until {{ts}},
	created_at {{ts}} NOT NULL,
	updated_at {{ts}} NOT NULL
);
CREATE UNIQUE INDEX users_email ON users (email);
CREATE TABLE web_sessions (
	id TEXT PRIMARY KEY,
	user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	expires_at {{ts}} NOT NULL,
	created_at {{ts}} NOT NULL
);
CREATE INDEX web_sessions_user ON web_sessions (user_id);
CREATE TABLE api_tokens (
	id TEXT PRIMARY KEY,
	user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	hash TEXT NOT NULL,
	expires_at {{ts}} NOT NULL,
	created_at {{ts}} NOT NULL,
	last_used_at {{ts}}
);
CREATE UNIQUE INDEX api_tokens_hash ON api_tokens (hash);
CREATE INDEX api_tokens_user ON api_tokens (user_id);
`},
	{2, "profiles, trips, notes and chat", `
CREATE TABLE profiles (
	user_id TEXT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
	data {{text}} NOT NULL,
	updated_at {{ts}} NOT NULL
);
CREATE TABLE trips (
	id TEXT PRIMARY KEY,
	user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	route TEXT NOT NULL,
	start_date TEXT NOT NULL,
	end_date TEXT NOT NULL,
	purpose TEXT NOT NULL DEFAULT '',
	flight TEXT NOT NULL DEFAULT '',
	hotel TEXT NOT NULL DEFAULT '',
	created_at {{ts}} NOT NULL
);
CREATE INDEX trips_user ON trips (user_id, start_date);
CREATE TABLE chat_sessions (
	id TEXT PRIMARY KEY,
	user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	title TEXT NOT NULL DEFAULT '',
	status TEXT NOT NULL,
	last_activity_at {{ts}} NOT NULL,
	close_reason TEXT NOT NULL DEFAULT '',
	closed_at {{ts}},
	created_at {{ts}} NOT NULL
);
CREATE INDEX chat_sessions_user ON chat_sessions (user_id, created_at);
CREATE INDEX chat_sessions_idle ON chat_sessions (status, last_activity_at);
CREATE TABLE messages (
	id TEXT PRIMARY KEY,
	session_id TEXT NOT NULL REFERENCES chat_sessions (id) ON DELETE CASCADE,
	user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	seq INTEGER NOT NULL,
	turn INTEGER NOT NULL,
	role TEXT NOT NULL,
	content {{text}} NOT NULL,
	tool_calls {{text}} NOT NULL DEFAULT '',
	tool_call_id TEXT NOT NULL DEFAULT '',
	failed {{bool}} NOT NULL DEFAULT FALSE,
	created_at {{ts}} NOT NULL
);
CREATE UNIQUE INDEX messages_session_seq ON messages (session_id, seq);
CREATE INDEX messages_created ON messages (created_at);
CREATE TABLE turn_snapshots (
	id TEXT PRIMARY KEY,
	session_id TEXT NOT NULL REFERENCES chat_sessions (id) ON DELETE CASCADE,
	user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	turn INTEGER NOT NULL,
	round INTEGER NOT NULL,
	model TEXT NOT NULL,
	instructions {{text}} NOT NULL,
	messages {{text}} NOT NULL,
	response {{text}} NOT NULL,
	prompt_tokens INTEGER NOT NULL,
	completion_tokens INTEGER NOT NULL,
	created_at {{ts}} NOT NULL
);
CREATE INDEX turn_snapshots_session ON turn_snapshots (session_id, turn, round);
CREATE INDEX turn_snapshots_created ON turn_snapshots (created_at);
CREATE TABLE notes (
	id TEXT PRIMARY KEY,
	user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	kind TEXT NOT NULL,
	text TEXT NOT NULL,
	keywords TEXT NOT NULL,
	scope TEXT NOT NULL,
	last_update_date TEXT NOT NULL,
	pinned {{bool}} NOT NULL DEFAULT FALSE,
	source TEXT NOT NULL,
	status TEXT NOT NULL,
	superseded_by TEXT NOT NULL DEFAULT '',
	expires_on TEXT NOT NULL DEFAULT '',
	session_id TEXT NOT NULL DEFAULT '',
	message_id TEXT NOT NULL DEFAULT '',
	consolidation_id TEXT NOT NULL DEFAULT '',
	created_at {{ts}} NOT NULL,
	updated_at {{ts}} NOT NULL
);
CREATE INDEX notes_user ON notes (user_id, kind, status);
CREATE INDEX notes_session ON notes (session_id);
CREATE TABLE note_versions (
	id TEXT PRIMARY KEY,
	note_id TEXT NOT NULL REFERENCES notes (id) ON DELETE CASCADE,
	user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	version INTEGER NOT NULL,
	text TEXT NOT NULL,
	keywords TEXT NOT NULL,
	pinned {{bool}} NOT NULL DEFAULT FALSE,
	status TEXT NOT NULL,
	actor TEXT NOT NULL,
	reason TEXT NOT NULL DEFAULT '',
	created_at {{ts}} NOT NULL
);
CREATE INDEX note_versions_note ON note_versions (note_id, version);
`},
	{3, "consolidation, audit, erasure and blocked writes", `
CREATE TABLE consolidation_jobs (
	id TEXT PRIMARY KEY,
	session_id TEXT NOT NULL REFERENCES chat_sessions (id) ON DELETE CASCADE,
	user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	status TEXT NOT NULL,
	attempts INTEGER NOT NULL DEFAULT 0,
	locked_by TEXT NOT NULL DEFAULT '',
	locked_until {{ts}},
	error TEXT NOT NULL DEFAULT '',
	created_at {{ts}} NOT NULL,
	started_at {{ts}},
	finished_at {{ts}}
);
CREATE UNIQUE INDEX consolidation_jobs_session ON consolidation_jobs (session_id);
CREATE INDEX consolidation_jobs_status ON consolidation_jobs (status, locked_until);
CREATE TABLE consolidation_reports (
	id TEXT PRIMARY KEY,
	job_id TEXT NOT NULL,
	user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	session_id TEXT NOT NULL,
	engine TEXT NOT NULL,
	fallback_reason TEXT NOT NULL DEFAULT '',
	report {{text}} NOT NULL,
	created_at {{ts}} NOT NULL
);
CREATE INDEX consolidation_reports_user ON consolidation_reports (user_id, created_at);
CREATE UNIQUE INDEX consolidation_reports_job ON consolidation_reports (job_id);
CREATE TABLE audit_events (
	id TEXT PRIMARY KEY,
	user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	actor_id TEXT NOT NULL DEFAULT '',
	actor_kind TEXT NOT NULL,
	action TEXT NOT NULL,
	note_id TEXT NOT NULL DEFAULT '',
	reason TEXT NOT NULL DEFAULT '',
	before {{text}} NOT NULL DEFAULT '',
	after {{text}} NOT NULL DEFAULT '',
	session_id TEXT NOT NULL DEFAULT '',
	message_id TEXT NOT NULL DEFAULT '',
	consolidation_id TEXT NOT NULL DEFAULT '',
	created_at {{ts}} NOT NULL
);
CREATE INDEX audit_events_user ON audit_events (user_id, created_at);
CREATE INDEX audit_events_created ON audit_events (created_at);
CREATE TABLE erasure_requests (
	id TEXT PRIMARY KEY,
	user_id TEXT NOT NULL DEFAULT '',
	requested_by TEXT NOT NULL,
	status TEXT NOT NULL,
	executed_by TEXT NOT NULL DEFAULT '',
	reason TEXT NOT NULL DEFAULT '',
	receipt {{text}} NOT NULL DEFAULT '',
	created_at {{ts}} NOT NULL,
	completed_at {{ts}}
);
CREATE INDEX erasure_requests_status ON erasure_requests (status, created_at);
CREATE TABLE blocked_writes (
	id TEXT PRIMARY KEY,
	user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	session_id TEXT NOT NULL DEFAULT '',
	category TEXT NOT NULL,
	created_at {{ts}} NOT NULL
);
CREATE INDEX blocked_writes_created ON blocked_writes (created_at, category);
`},
	{4, "answer lease on chat sessions", `
ALTER TABLE chat_sessions ADD COLUMN answering_until {{ts}};
`},
	// 5: the answer lease names its holder; user turns are unique per
	// session; a client's idempotency key stores a message once; every
	// write to a user's notes advances memory_version. Sessions where the
	// old race gave two user messages one turn are renumbered first, in
	// transcript order (each user message opens the next turn, the
	// messages after it belong to it), so the unique index can be built;
	// their prompt snapshots keep the old numbers.
	{5, "lease holders, unique turns, idempotency keys, memory version", `
ALTER TABLE chat_sessions ADD COLUMN answering_by TEXT NOT NULL DEFAULT '';
ALTER TABLE messages ADD COLUMN idempotency_key TEXT;
CREATE UNIQUE INDEX messages_session_idempotency ON messages (session_id, idempotency_key);
UPDATE messages SET turn = (SELECT COUNT(*) FROM messages u WHERE u.session_id = messages.session_id AND u.role = 'user' AND u.seq <= messages.seq)
WHERE session_id IN (SELECT d.session_id FROM messages d WHERE d.role = 'user' GROUP BY d.session_id, d.turn HAVING COUNT(*) > 1);
CREATE UNIQUE INDEX messages_session_user_turn ON messages (session_id, turn) WHERE role = 'user';
ALTER TABLE users ADD COLUMN memory_version BIGINT NOT NULL DEFAULT 0;
`},
	// The structure of the instructions, so that nothing reads the prompt
	// text back. Snapshots from before get memory_injected from the one
	// marker the old text had for "no memory at all"; their notes, section
	// tokens and session block stay unknown (empty, false).
	{6, "what each prompt snapshot injected", `
ALTER TABLE turn_snapshots ADD COLUMN injected_notes {{text}} NOT NULL DEFAULT '';
ALTER TABLE turn_snapshots ADD COLUMN section_tokens {{text}} NOT NULL DEFAULT '';
ALTER TABLE turn_snapshots ADD COLUMN memory_injected {{bool}} NOT NULL DEFAULT FALSE;
ALTER TABLE turn_snapshots ADD COLUMN session_block {{bool}} NOT NULL DEFAULT FALSE;
UPDATE turn_snapshots SET memory_injected = TRUE WHERE instructions NOT LIKE '%GLOBAL:
- (none yet)
</memories>%';
`},
	{8, "disabled accounts, sign-in attempts per email and address, erasure reasons from a list", `
ALTER TABLE users ADD COLUMN disabled_at {{ts}};
ALTER TABLE users DROP COLUMN failed_logins;
ALTER TABLE users DROP COLUMN locked_until;
CREATE TABLE login_attempts (
	email_hash TEXT NOT NULL,
	address TEXT NOT NULL,
	failures INTEGER NOT NULL DEFAULT 0,
	locked_until {{ts}},
	updated_at {{ts}} NOT NULL,
	PRIMARY KEY (email_hash, address)
);
CREATE INDEX login_attempts_updated ON login_attempts (updated_at);
ALTER TABLE erasure_requests ADD COLUMN ticket TEXT NOT NULL DEFAULT '';
UPDATE erasure_requests SET reason = 'other'
	WHERE reason NOT IN ('', 'data_subject_request', 'account_closure', 'legal_obligation', 'other');
`},
	{9, "conversation search and summaries", ""}, // see dialectMigrations
	{10, "fewer index writes per message", ""},   // see dialectMigrations
	// A snapshot's instructions start and end with the same standing
	// orders and memory policy on most rounds, about half of the text:
	// those are stored once, by the hash of their text, and the snapshot
	// names them (see TurnSnapshot). They hold no traveler's data.
	{11, "prompt texts shared by snapshots", `
CREATE TABLE prompt_texts (
	id TEXT PRIMARY KEY,
	text TEXT NOT NULL
);
ALTER TABLE turn_snapshots ADD COLUMN instructions_head TEXT NOT NULL DEFAULT '';
ALTER TABLE turn_snapshots ADD COLUMN instructions_tail TEXT NOT NULL DEFAULT '';
`},
	// The review queue (SPEC §2.6): items that need a person, each created
	// in the transaction of the write that caused it. An item names what it
	// is about by id (note, consolidation job, refused category), never by
	// a copy of a note's text, so deleting a note needs no scrub here.
	{12, "review queue", `
CREATE TABLE review_items (
	id TEXT PRIMARY KEY,
	user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	kind TEXT NOT NULL,
	status TEXT NOT NULL,
	session_id TEXT NOT NULL DEFAULT '',
	turn INTEGER NOT NULL DEFAULT 0,
	message_id TEXT NOT NULL DEFAULT '',
	note_id TEXT NOT NULL DEFAULT '',
	consolidation_id TEXT NOT NULL DEFAULT '',
	category TEXT NOT NULL DEFAULT '',
	field TEXT NOT NULL DEFAULT '',
	current_value TEXT NOT NULL DEFAULT '',
	proposed_value TEXT NOT NULL DEFAULT '',
	created_at {{ts}} NOT NULL,
	claimed_by TEXT NOT NULL DEFAULT '',
	claimed_until {{ts}},
	resolved_by TEXT NOT NULL DEFAULT '',
	resolved_at {{ts}},
	action TEXT NOT NULL DEFAULT '',
	reason TEXT NOT NULL DEFAULT ''
);
CREATE INDEX review_items_open ON review_items (status, created_at);
CREATE INDEX review_items_user ON review_items (user_id);
`},
	// A token's owner names it, and the list shows the first characters of
	// the token itself (not its id), so a token can be recognised. Tokens
	// issued before keep an empty label and prefix.
	{13, "API token labels and visible prefixes", `
ALTER TABLE api_tokens ADD COLUMN label TEXT NOT NULL DEFAULT '';
ALTER TABLE api_tokens ADD COLUMN prefix TEXT NOT NULL DEFAULT '';
`},
	// Trips are records of their own (issue 24): a status, a destination,
	// travellers, a budget, the traveler's name for it and an external id
	// from the system of record (unique per traveler). A conversation
	// belongs to at most one trip (chat_sessions.trip_id) and a trip note
	// (kind 'trip') to its trip (notes.trip_id); an imported traveler has
	// the system of record's id (users.external_id). The trips stored before
	// were the demo's past trips: travelled.
	{24, "trips as records: status, conversations, trip notes", `
ALTER TABLE trips ADD COLUMN destination TEXT NOT NULL DEFAULT '';
ALTER TABLE trips ADD COLUMN name TEXT NOT NULL DEFAULT '';
ALTER TABLE trips ADD COLUMN travellers INTEGER NOT NULL DEFAULT 0;
ALTER TABLE trips ADD COLUMN budget TEXT NOT NULL DEFAULT '';
ALTER TABLE trips ADD COLUMN status TEXT NOT NULL DEFAULT 'travelled';
ALTER TABLE trips ADD COLUMN external_id TEXT;
ALTER TABLE trips ADD COLUMN updated_at {{ts}};
ALTER TABLE trips ADD COLUMN notes_ended_at {{ts}};
CREATE UNIQUE INDEX trips_external ON trips (user_id, external_id) WHERE external_id IS NOT NULL;
CREATE INDEX trips_status ON trips (status, end_date);
ALTER TABLE chat_sessions ADD COLUMN trip_id TEXT NOT NULL DEFAULT '';
ALTER TABLE notes ADD COLUMN trip_id TEXT NOT NULL DEFAULT '';
CREATE INDEX notes_trip ON notes (trip_id) WHERE trip_id <> '';
ALTER TABLE users ADD COLUMN external_id TEXT;
CREATE UNIQUE INDEX users_external ON users (external_id) WHERE external_id IS NOT NULL;
`},
	// A browser session that someone else ended (an erasure, a disabled
	// account, a password reset) leaves the hash of its cookie and why, so
	// the sign-in page can say what happened. It names no account; rows go
	// when the session would have expired. (Numbered after its issue:
	// versions are assigned ahead.)
	{28, "why browser sessions ended", `
CREATE TABLE ended_web_sessions (
	id TEXT PRIMARY KEY,
	reason TEXT NOT NULL,
	expires_at {{ts}} NOT NULL
);
CREATE INDEX ended_web_sessions_expires ON ended_web_sessions (expires_at);
`},
	// The language an account's pages are in (en, es, ru), chosen on the
	// account page; empty: the browser's Accept-Language, else English.
	{30, "account language", `
ALTER TABLE users ADD COLUMN language TEXT NOT NULL DEFAULT '';
`},
	// SQLite indexes new messages for full text in a background step
	// (searchLaterMigration); nothing changes on PostgreSQL.
	{31, "search index off the write path", ""},
}

// leanWritesMigration drops what every message paid for and nothing read.
// Each commit writes every page it touched to the log, a page per index at
// least: a turn wrote about 27 pages, most of them index pages.
//   - messages_created and turn_snapshots_created: transcripts expire by
//     session (DeleteExpiredTranscripts walks the closed sessions' rows).
//   - messages_session_idempotency held every message, keyed or not; it
//     now holds the keyed user messages only, and keys stay unique.
//   - chat_sessions_idle had last_activity_at, so every message moved the
//     session's entry; the sweep now finds open sessions by status and
//     checks their activity (on PostgreSQL, the session's updates can then
//     stay in place, no index naming a column they change).
//   - SQLite's full-text index is rebuilt with matchinfo=fts3: it no
//     longer keeps a length per document and a total, which no search
//     reads (matches are ordered by position in the conversation).
func leanWritesMigration(postgres bool) []string {
	stmts := []string{
		`DROP INDEX messages_created`,
		`DROP INDEX turn_snapshots_created`,
		`DROP INDEX messages_session_idempotency`,
		`CREATE UNIQUE INDEX messages_session_idempotency ON messages (session_id, idempotency_key) WHERE idempotency_key IS NOT NULL`,
		`DROP INDEX chat_sessions_idle`,
		`CREATE INDEX chat_sessions_status ON chat_sessions (status)`,
	}
	if postgres {
		return stmts
	}
	// The triggers that keep the index in step name the table, not its
	// definition: they write into the new one.
	return append(stmts,
		`DROP TABLE message_fts`,
		`CREATE VIRTUAL TABLE message_fts USING fts4(content="messages", content, matchinfo=fts3, tokenize=unicode61 "remove_diacritics=2")`,
		indexAllMessages,
	)
}

// LatestSchemaVersion is the version a fully migrated database has: the
// highest in the list (versions are assigned ahead, so the list may hold
// them out of order).
func LatestSchemaVersion() int {
	v := 0
	for _, m := range migrations {
		v = max(v, m.Version)
	}
	return v
}

func (s *Store) dialectSQL(sql string) string {
	r := strings.NewReplacer("{{ts}}", "DATETIME", "{{bool}}", "BOOLEAN", "{{text}}", "TEXT")
	if s.postgres {
		r = strings.NewReplacer("{{ts}}", "TIMESTAMPTZ", "{{bool}}", "BOOLEAN", "{{text}}", "TEXT")
	}
	return r.Replace(sql)
}

// schemaMigration is the row recorded for each applied migration.
type schemaMigration struct {
	Version   int `gorm:"primaryKey;autoIncrement:false"`
	Name      string
	AppliedAt time.Time
}

func (schemaMigration) TableName() string { return "schema_migrations" }

// Migrate applies every migration the database has not seen yet.
func (s *Store) Migrate(ctx context.Context) error {
	return s.MigrateTo(ctx, LatestSchemaVersion())
}

// MigrateTo applies pending migrations up to and including version, each in
// its own transaction, and records them in schema_migrations, under the
// schema lock (see withSchemaLock) so that instances starting together
// migrate one after the other.
func (s *Store) MigrateTo(ctx context.Context, version int) error {
	return s.withSchemaLock(ctx, func() error { return s.migrateTo(ctx, version) })
}

// MigrateAndSeed applies every pending migration and then, when
// demoPassword is not empty, seeds the demo accounts into a new database —
// both under one hold of the schema lock, so that N instances started at
// once on a new database all start: the first migrates and seeds, the
// others find both done. It reports whether it seeded.
func (s *Store) MigrateAndSeed(ctx context.Context, demoPassword string) (bool, error) {
	seeded := false
	err := s.withSchemaLock(ctx, func() error {
		if err := s.migrateTo(ctx, LatestSchemaVersion()); err != nil {
			return err
		}
		if demoPassword == "" {
			return nil
		}
		var err error
		seeded, err = s.SeedDemo(ctx, demoPassword)
		return err
	})
	return seeded, err
}

// schemaLockKey is the PostgreSQL advisory lock id of migrations and seeding.
const schemaLockKey = 727001

// withSchemaLock runs fn holding the database's schema lock: a
// session-level advisory lock on PostgreSQL, an exclusive flock(2) on a
// lock file beside the database on SQLite (SQLite's own locks cannot be
// held across the many transactions of a migration and a seed, and a
// second descriptor on the database file itself would break SQLite's POSIX
// locks).
func (s *Store) withSchemaLock(ctx context.Context, fn func() error) error {
	if !s.postgres {
		unlock, err := lockFile(s.path + ".migrate-lock")
		if err != nil {
			return fmt.Errorf("models: schema lock: %w", err)
		}
		defer unlock()
		return fn()
	}
	// A session-level lock needs one connection for lock, work and unlock.
	conn, err := s.sqlDB.Conn(ctx)
	if err != nil {
		return fmt.Errorf("models: schema lock: %w", err)
	}
	// A pooled connection that prepared a statement against the old schema
	// would answer "cached plan must not change result type" once a
	// migration changed a table it reads. Deferred first, so it runs last,
	// after the lock's own connection is back in the pool: the idle ones
	// are closed, and the next statements are prepared afresh.
	defer closeIdle(s.sqlDB)
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock($1)", schemaLockKey); err != nil {
		return fmt.Errorf("models: schema lock: %w", err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", schemaLockKey)
	return fn()
}

func (s *Store) migrateTo(ctx context.Context, version int) error {
	db := s.db.WithContext(ctx)
	if err := db.Exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at ` + s.dialectSQL("{{ts}}") + ` NOT NULL)`).Error; err != nil {
		return fmt.Errorf("models: create schema_migrations: %w", err)
	}
	var applied []schemaMigration
	if err := db.Order("version").Find(&applied).Error; err != nil {
		return fmt.Errorf("models: read schema_migrations: %w", err)
	}
	done := map[int]bool{}
	for _, m := range applied {
		done[m.Version] = true
	}
	for _, m := range migrations {
		if m.Version > version || done[m.Version] {
			continue
		}
		err := db.Transaction(func(tx *gorm.DB) error {
			stmts := strings.Split(s.dialectSQL(m.SQL), ";")
			if f, ok := dialectMigrations[m.Version]; ok {
				stmts = f(s.postgres)
			}
			for _, stmt := range stmts {
				if strings.TrimSpace(stmt) == "" {
					continue
				}
				if err := tx.Exec(stmt).Error; err != nil {
					return err
				}
			}
			return tx.Create(&schemaMigration{Version: m.Version, Name: m.Name, AppliedAt: s.now()}).Error
		})
		if err != nil {
			return fmt.Errorf("models: migration %d (%s): %w", m.Version, m.Name, err)
		}
	}
	return nil
}

// SchemaVersion reports the highest migration applied to the database.
func (s *Store) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	err := s.db.WithContext(ctx).Raw("SELECT COALESCE(MAX(version), 0) FROM schema_migrations").Scan(&v).Error
	if err != nil {
		return 0, fmt.Errorf("models: schema version: %w", err)
	}
	return v, nil
}
