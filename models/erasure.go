package models

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"gorm.io/gorm"

	"concierge/memory"
)

// ErrSelfErasure is returned when an admin tries to erase their own account.
var ErrSelfErasure = &memory.Error{Code: memory.ESELFERASURE, Message: "You cannot erase your own account."}

// ErrErasureIncomplete is in the chain of EraseUser's error when the rows
// are gone and the receipt is stored, but scrubbing or the verification did
// not finish: ours to look into, not the admin's.
var ErrErasureIncomplete = &memory.Error{Code: memory.EERASEPARTIAL,
	Message: "The data was deleted, but cleaning the database files did not finish. The receipt is stored; try again later."}

// ErasureReceipt is what remains after a user is erased: who asked, who
// executed, when, and how many rows each table lost. It holds no personal
// content: not the user's id, name, email or anything they said.
type ErasureReceipt struct {
	RequestID   string `json:"request_id"`
	RequestedBy string `json:"requested_by"` // actor kind: traveler or admin
	// ExecutedBy is the executing admin's account id. It is kept in the
	// request's executed_by column only, never inside the receipt JSON, so
	// erasing that admin later can clear it in one place.
	ExecutedBy  string           `json:"-"`
	RequestedAt time.Time        `json:"requested_at"`
	CompletedAt time.Time        `json:"completed_at"`
	RowsDeleted map[string]int64 `json:"rows_deleted"`
	// RowsAnonymised counts rows about other people that kept their content
	// but lost the reference to the erased account (e.g. audit events where
	// an erased staff member was the actor).
	RowsAnonymised map[string]int64 `json:"rows_anonymised,omitempty"`
	Scrub          string           `json:"scrub"`
}

// erasureTables are the tables holding rows of one user, in an order that
// deletes children before their parents so each count is exact (no cascade
// does the work unseen).
var erasureTables = []string{
	"note_versions", "notes", "messages", "turn_snapshots", "consolidation_reports",
	"consolidation_jobs", "blocked_writes", "review_items", "audit_events", "trips", "profiles",
	"chat_sessions", "api_tokens", "web_sessions",
}

// EraseUser deletes everything of one user in a single transaction — account,
// profile, notes and their versions, chat sessions, messages, prompt
// snapshots, consolidation jobs and reports, audit events about them, blocked
// write counts, API tokens and browser sessions — and completes their pending
// erasure request (creating one, requested by the admin, when there is none),
// keeping only a receipt without personal content.
//
// After the commit it makes the bytes go away (see Store.Scrub and
// scrubAfterErasure): on SQLite, secure_delete has zeroed every freed cell and
// page, and a truncating WAL checkpoint (retried while readers hold it back)
// empties the write-ahead log, so neither the .db nor the -wal file holds the
// erased text. On PostgreSQL, VACUUM of the affected tables marks the dead
// tuples' space reusable and removes their index entries, but it does not
// overwrite them: the old bytes stay in the table files until the space is
// reused, and they remain in WAL segments, WAL archives, replicas and backups
// until those rotate out. Only VACUUM FULL rewrites a table into a new file
// (the old file is unlinked, not wiped), under an exclusive lock; erasing
// from the storage layer of PostgreSQL is an operational matter (encrypted
// volumes, backup rotation).
//
// Finally it verifies that no row of any table still mentions the user id,
// and fails when one does.
func (s *Store) EraseUser(ctx context.Context, userID string, executedBy Actor, why ErasureWhy) (*ErasureReceipt, error) {
	if userID == executedBy.ID {
		return nil, ErrSelfErasure
	}
	if err := why.Check(); err != nil {
		return nil, fmt.Errorf("models: erase user %s: %w", userID, err)
	}
	var rec ErasureReceipt
	var req ErasureRequest
	err := s.write(ctx, func(tx *gorm.DB) error {
		var u User
		if err := tx.Where("id = ?", userID).Take(&u).Error; err != nil {
			return notFound(err)
		}
		now := s.now()
		err := tx.Where("user_id = ? AND status = ?", userID, ErasurePending).Order("created_at").Take(&req).Error
		switch {
		case errors.Is(err, gorm.ErrRecordNotFound):
			req = ErasureRequest{ID: s.newID(), UserID: userID, RequestedBy: executedBy.Kind, Status: ErasurePending, CreatedAt: now}
			if err := tx.Create(&req).Error; err != nil {
				return err
			}
		case err != nil:
			return err
		}
		rec = ErasureReceipt{RequestID: req.ID, RequestedBy: req.RequestedBy, ExecutedBy: executedBy.ID,
			RequestedAt: req.CreatedAt, RowsDeleted: map[string]int64{}, RowsAnonymised: map[string]int64{}}
		// The browser left signed in learns why it was signed out.
		if err := noteEndedSessionsTx(tx, userID, EndedErased); err != nil {
			return err
		}
		for _, t := range erasureTables {
			r := tx.Exec("DELETE FROM "+t+" WHERE user_id = ?", userID)
			if r.Error != nil {
				return fmt.Errorf("delete from %s: %w", t, r.Error)
			}
			rec.RowsDeleted[t] = r.RowsAffected
		}
		r := tx.Exec("DELETE FROM erasure_requests WHERE user_id = ? AND id <> ?", userID, req.ID)
		if r.Error != nil {
			return r.Error
		}
		rec.RowsDeleted["erasure_requests"] = r.RowsAffected
		// Sign-in failure counters are keyed by the email's hash, not the id.
		r = tx.Where("email_hash = ?", hashToken(NormalizeEmail(u.Email))).Delete(&loginAttempt{})
		if r.Error != nil {
			return r.Error
		}
		rec.RowsDeleted["login_attempts"] = r.RowsAffected
		r = tx.Exec("DELETE FROM users WHERE id = ?", userID)
		if r.Error != nil {
			return r.Error
		}
		rec.RowsDeleted["users"] = r.RowsAffected
		// Rows about other people keep their content but lose the reference.
		for _, a := range []struct{ table, col string }{
			{"audit_events", "actor_id"}, {"erasure_requests", "executed_by"},
			{"review_items", "claimed_by"}, {"review_items", "resolved_by"},
		} {
			r := tx.Exec("UPDATE "+a.table+" SET "+a.col+" = '' WHERE "+a.col+" = ?", userID)
			if r.Error != nil {
				return r.Error
			}
			if r.RowsAffected > 0 {
				rec.RowsAnonymised[a.table] += r.RowsAffected
			}
		}
		if len(rec.RowsAnonymised) == 0 {
			rec.RowsAnonymised = nil
		}
		rec.CompletedAt = s.now()
		rec.Scrub = s.scrubDescription()
		receipt, err := json.Marshal(rec)
		if err != nil {
			return err
		}
		return tx.Model(&ErasureRequest{}).Where("id = ?", req.ID).Updates(map[string]any{
			"user_id": "", "status": ErasureDone, "executed_by": executedBy.ID, "reason": why.Reason, "ticket": why.Ticket,
			"receipt": string(receipt), "completed_at": rec.CompletedAt,
		}).Error
	})
	if err != nil {
		return nil, fmt.Errorf("models: erase user %s: %w", userID, err)
	}
	if err := s.scrubAfterErasure(ctx); err != nil {
		return &rec, fmt.Errorf("%w: %w", ErrErasureIncomplete, err)
	}
	hits, err := s.ScanTables(ctx, userID)
	if err != nil {
		return &rec, fmt.Errorf("%w: models: verify erasure: %w", ErrErasureIncomplete, err)
	}
	if len(hits) > 0 {
		return &rec, fmt.Errorf("%w: models: verify erasure: rows still reference the user in %s", ErrErasureIncomplete, strings.Join(sortedKeys(hits), ", "))
	}
	return &rec, nil
}

func (s *Store) scrubDescription() string {
	if s.postgres {
		return "postgresql: VACUUM of the affected tables (space marked reusable, not overwritten)"
	}
	return "sqlite: secure_delete zeroed freed content; WAL checkpointed with truncation"
}

// scrubAfterErasure runs Scrub on every table erasure touches and, on SQLite,
// repeats the truncating checkpoint until no reader holds it back (a busy
// checkpoint returns no error, only a flag).
func (s *Store) scrubAfterErasure(ctx context.Context) error {
	tables := append(append([]string{}, erasureTables...), "erasure_requests", "login_attempts", "users")
	if err := s.Scrub(ctx, tables...); err != nil {
		return err
	}
	if s.postgres {
		return nil
	}
	for attempt := 0; attempt < 50; attempt++ {
		var res struct{ Busy, Log, Checkpointed int }
		if err := s.db.WithContext(ctx).Raw("PRAGMA wal_checkpoint(TRUNCATE)").Row().Scan(&res.Busy, &res.Log, &res.Checkpointed); err != nil {
			return fmt.Errorf("models: checkpoint: %w", err)
		}
		if res.Busy == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
	return errors.New("models: checkpoint: the WAL stayed busy; the erased bytes may linger in it until the next checkpoint")
}

func sortedKeys(m map[string]int64) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// textColumns lists every table of the schema with the columns that can hold
// text. On SQLite every column is listed (its typing is by value, not column).
func (s *Store) textColumns(ctx context.Context) (map[string][]string, error) {
	db := s.db.WithContext(ctx)
	out := map[string][]string{}
	if s.postgres {
		rows, err := db.Raw(`SELECT table_name, column_name FROM information_schema.columns
			WHERE table_schema = current_schema() AND data_type IN ('text', 'character varying', 'character', 'json', 'jsonb')
			ORDER BY table_name, ordinal_position`).Rows()
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		for rows.Next() {
			var t, c string
			if err := rows.Scan(&t, &c); err != nil {
				return nil, err
			}
			out[t] = append(out[t], c)
		}
		return out, rows.Err()
	}
	var tables []string
	if err := db.Raw("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").Scan(&tables).Error; err != nil {
		return nil, err
	}
	for _, t := range tables {
		var cols []string
		if err := db.Raw("SELECT name FROM pragma_table_info(?)", t).Scan(&cols).Error; err != nil {
			return nil, err
		}
		out[t] = cols
	}
	return out, nil
}

// ScanTables counts, per table, the rows in which any text column contains
// one of needles (case-insensitively for ASCII on SQLite, exactly on
// PostgreSQL). Erasure uses it to verify that nothing references the user;
// tests use it to look for names, emails and canary phrases.
func (s *Store) ScanTables(ctx context.Context, needles ...string) (map[string]int64, error) {
	cols, err := s.textColumns(ctx)
	if err != nil {
		return nil, fmt.Errorf("models: list columns: %w", err)
	}
	esc := strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`)
	hits := map[string]int64{}
	for table, cs := range cols {
		var conds []string
		var args []any
		for _, c := range cs {
			for _, n := range needles {
				expr := `"` + c + `"`
				if s.postgres {
					expr += "::text"
				}
				conds = append(conds, expr+` LIKE ? ESCAPE '\'`)
				args = append(args, "%"+esc.Replace(n)+"%")
			}
		}
		if len(conds) == 0 {
			continue
		}
		var n int64
		q := `SELECT COUNT(*) FROM "` + table + `" WHERE ` + strings.Join(conds, " OR ")
		if err := s.db.WithContext(ctx).Raw(q, args...).Scan(&n).Error; err != nil {
			return nil, fmt.Errorf("models: scan %s: %w", table, err)
		}
		if n > 0 {
			hits[table] = n
		}
	}
	return hits, nil
}

// ErasureRequests lists erasure requests, pending first, then the most
// recently completed; status filters when not empty.
func (s *Store) ErasureRequests(ctx context.Context, status string, limit int) ([]ErasureRequest, error) {
	db := s.db.WithContext(ctx)
	if status != "" {
		db = db.Where("status = ?", status)
	}
	var out []ErasureRequest
	err := db.Order("CASE WHEN status = 'pending' THEN 0 ELSE 1 END, COALESCE(completed_at, created_at) DESC, id").
		Limit(limit).Find(&out).Error
	if err != nil {
		return nil, fmt.Errorf("models: erasure requests: %w", err)
	}
	return out, nil
}

// ErasureRequestByID looks up one erasure request.
func (s *Store) ErasureRequestByID(ctx context.Context, id string) (*ErasureRequest, error) {
	var r ErasureRequest
	if err := s.db.WithContext(ctx).Where("id = ?", id).Take(&r).Error; err != nil {
		return nil, fmt.Errorf("models: erasure request %s: %w", id, notFound(err))
	}
	return &r, nil
}

// DecodeReceipt reads the receipt stored on a completed erasure request.
func (r *ErasureRequest) DecodeReceipt() (*ErasureReceipt, error) {
	if r.Receipt == "" {
		return nil, nil
	}
	var rec ErasureReceipt
	if err := json.Unmarshal([]byte(r.Receipt), &rec); err != nil {
		return nil, fmt.Errorf("models: receipt of %s: %w", r.ID, err)
	}
	rec.ExecutedBy = r.ExecutedBy
	return &rec, nil
}
