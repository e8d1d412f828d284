package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"time"

	"concierge/models"
)

// backupCmd is "concierge backup DEST": a consistent copy of the live
// SQLite database through SQLite's online backup, with progress on stderr
// and the copy checked. On PostgreSQL it prints the pg_dump invocation.
func backupCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("backup", flag.ContinueOnError)
	fs.SetOutput(stderr)
	db := fs.String("db", envDefault(getenv, "concierge.db", "CONCIERGE_DB", "DATABASE_URL"), "SQLite file or postgres:// URL")
	dest, err := parseOneArg(fs, args, "backup DEST")
	if err != nil {
		return err
	}
	if models.IsPostgresURL(*db) {
		fmt.Fprintf(stdout, "concierge backup copies SQLite databases; for PostgreSQL use pg_dump:\n\n  %s\n\nand restore with pg_restore --clean --if-exists --dbname=URL %s\n", pgDumpCommand(*db, dest), dest)
		return errors.New("backup: not made (PostgreSQL)")
	}
	start := time.Now()
	last := time.Time{}
	err = models.BackupSQLite(ctx, *db, dest, func(copied, total int) {
		if time.Since(last) >= 500*time.Millisecond || copied == total {
			last = time.Now()
			fmt.Fprintf(stderr, "backup: %d of %d pages (%d%%)\n", copied, total, 100*copied/max(total, 1))
		}
	})
	if err != nil {
		return err
	}
	info, err := os.Stat(dest)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "backed up %s to %s: %d bytes in %s; integrity_check ok\n", *db, dest, info.Size(), time.Since(start).Round(time.Millisecond))
	return nil
}

// restoreCmd is "concierge restore SRC": replaces the SQLite database with a
// backup, refusing while a server has it open.
func restoreCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("restore", flag.ContinueOnError)
	fs.SetOutput(stderr)
	db := fs.String("db", envDefault(getenv, "concierge.db", "CONCIERGE_DB", "DATABASE_URL"), "the SQLite file to replace")
	src, err := parseOneArg(fs, args, "restore SRC")
	if err != nil {
		return err
	}
	if models.IsPostgresURL(*db) {
		fmt.Fprintf(stdout, "concierge restore replaces SQLite databases; for PostgreSQL use pg_restore:\n\n  pg_restore --clean --if-exists --dbname=%s %s\n", shellQuote(redactURL(*db)), src)
		return errors.New("restore: not done (PostgreSQL)")
	}
	if err := models.RestoreSQLite(ctx, src, *db, nil); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "restored %s from %s; integrity_check ok\n", *db, src)
	return nil
}

// parseOneArg parses flags around exactly one positional argument.
func parseOneArg(fs *flag.FlagSet, args []string, usage string) (string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return "", err
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(pos) != 1 {
		return "", fmt.Errorf("usage: concierge %s [--db DB]", usage)
	}
	return pos[0], nil
}

// pgDumpCommand is the pg_dump invocation for the database dsn names, its
// password left to PGPASSWORD.
func pgDumpCommand(dsn, dest string) string {
	return fmt.Sprintf("pg_dump --format=custom --file=%s --dbname=%s", shellQuote(dest), shellQuote(redactURL(dsn)))
}

// redactURL drops a password from a URL (pg_dump reads PGPASSWORD or
// ~/.pgpass), so that it is not printed.
func redactURL(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil || u.User == nil {
		return dsn
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.User(u.User.Username())
	}
	return u.String()
}

func shellQuote(s string) string {
	out := "'"
	for _, r := range s {
		if r == '\'' {
			out += `'\''`
			continue
		}
		out += string(r)
	}
	return out + "'"
}
