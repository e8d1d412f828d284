package models

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/mattn/go-sqlite3"
)

// backupStep is how many pages one step of an online backup copies (with
// 4 KiB pages, 16 MiB): each step holds a read snapshot only briefly.
const backupStep = 4096

// BackupProgress reports an online backup's pages copied and the total.
type BackupProgress func(copied, total int)

// ErrServing is returned by RestoreSQLite while a server has the database
// open.
var ErrServing = errors.New("a Concierge server is running on this database; stop it first")

// BackupSQLite copies the live SQLite database src to a new file dest
// through SQLite's online backup API, while servers keep reading and
// writing it, then checks the copy with PRAGMA integrity_check. The copy
// is consistent: it is the database as of one moment. Steps of backupStep
// pages report progress; when a write from another connection restarts the
// backup, the rest is copied in one step, under one read snapshot (in WAL
// mode readers never block the writers).
func BackupSQLite(ctx context.Context, src, dest string, progress BackupProgress) error {
	if _, err := os.Stat(dest); err == nil {
		return fmt.Errorf("models: backup: %s exists; choose a new file", dest)
	}
	err := copySQLite(ctx, "file:"+src+"?_busy_timeout=10000", dest, progress)
	if err != nil {
		os.Remove(dest)
		return fmt.Errorf("models: backup %s: %w", src, err)
	}
	if err := CheckSQLite(ctx, dest); err != nil {
		return fmt.Errorf("models: backup %s: the copy fails its check: %w", src, err)
	}
	return nil
}

// copySQLite runs the online backup of srcDSN's main database into dest.
func copySQLite(ctx context.Context, srcDSN, dest string, progress BackupProgress) error {
	srcDB, err := sql.Open("sqlite3", srcDSN)
	if err != nil {
		return err
	}
	defer srcDB.Close()
	destDB, err := sql.Open("sqlite3", "file:"+dest+"?_busy_timeout=10000")
	if err != nil {
		return err
	}
	defer destDB.Close()
	srcConn, err := srcDB.Conn(ctx)
	if err != nil {
		return err
	}
	defer srcConn.Close()
	destConn, err := destDB.Conn(ctx)
	if err != nil {
		return err
	}
	defer destConn.Close()
	return destConn.Raw(func(d any) error {
		return srcConn.Raw(func(s any) error {
			bk, err := d.(*sqlite3.SQLiteConn).Backup("main", s.(*sqlite3.SQLiteConn), "main")
			if err != nil {
				return err
			}
			step, left := backupStep, -1
			for {
				if err := ctx.Err(); err != nil {
					bk.Close()
					return err
				}
				done, err := bk.Step(step)
				if err != nil {
					bk.Close()
					return err
				}
				total, remaining := bk.PageCount(), bk.Remaining()
				if progress != nil {
					progress(total-remaining, total)
				}
				if done {
					return bk.Close()
				}
				if left >= 0 && remaining > left {
					step = -1 // restarted by a write: finish under one snapshot
				}
				left = remaining
				time.Sleep(5 * time.Millisecond) // let the writer in between steps
			}
		})
	})
}

// searchIndexMismatch is what PRAGMA integrity_check says when the search
// index does not hold every row of its content table, messages. Ours never
// does by design: tool results are not indexed, and new messages wait up to
// a second for the background step (search.go). The pragma still checks
// every b-tree of the index's own tables; only its comparison with the
// content is set aside.
const searchIndexMismatch = "malformed inverted index for FTS4 table main.message_fts"

// CheckSQLite runs PRAGMA integrity_check on the SQLite file path.
func CheckSQLite(ctx context.Context, path string) error {
	db, err := sql.Open("sqlite3", "file:"+path)
	if err != nil {
		return err
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, "PRAGMA integrity_check")
	if err != nil {
		return err
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return err
		}
		if line != "ok" && line != searchIndexMismatch {
			problems = append(problems, line)
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(problems) > 0 {
		return fmt.Errorf("integrity_check: %d problems, the first: %s", len(problems), problems[0])
	}
	return nil
}

// RestoreSQLite replaces the SQLite database dest with the backup src,
// after checking src. It refuses while a server has dest open (each holds
// a shared lock on <dest>.serve-lock, see HoldServing) and holds the
// schema lock meanwhile, so a server starting during the restore waits.
func RestoreSQLite(ctx context.Context, src, dest string, progress BackupProgress) error {
	if err := CheckSQLite(ctx, src); err != nil {
		return fmt.Errorf("models: restore: %s fails its check: %w", src, err)
	}
	unserve, err := tryLockFile(dest+".serve-lock", true)
	if err != nil {
		return fmt.Errorf("models: restore: %w", err)
	}
	defer unserve()
	unlock, err := lockFile(dest + ".migrate-lock")
	if err != nil {
		return fmt.Errorf("models: restore: %w", err)
	}
	defer unlock()
	// The backup API writes the pages through dest's own connection, so
	// its WAL and shared memory stay right.
	if err := copySQLite(ctx, "file:"+src, dest, progress); err != nil {
		return fmt.Errorf("models: restore into %s: %w", dest, err)
	}
	if err := CheckSQLite(ctx, dest); err != nil {
		return fmt.Errorf("models: restore: %s fails its check after the copy: %w", dest, err)
	}
	return nil
}

// HoldServing marks the SQLite database as served by this process until
// the store closes (a shared lock on <db>.serve-lock), so RestoreSQLite
// refuses to run beside it; it fails while a restore runs. On PostgreSQL it
// does nothing.
func (s *Store) HoldServing() error {
	if s.postgres {
		return nil
	}
	unlock, err := tryLockFile(s.path+".serve-lock", false)
	if err != nil {
		if errors.Is(err, ErrServing) {
			return fmt.Errorf("models: %s is being restored; start the server once the restore is done", s.path)
		}
		return fmt.Errorf("models: serve lock: %w", err)
	}
	s.unserve = unlock
	return nil
}
