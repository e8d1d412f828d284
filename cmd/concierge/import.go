package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"concierge/memory"
	"concierge/models"
)

// importCmd is "concierge import FILE.jsonl": travelers with profiles and
// trips from a system of record, one JSON object per line (see
// models.ImportRecord), idempotent by external id. It prints progress on
// stderr and ends with a report: rows created, updated, unchanged and
// refused, each refusal with its line and reason (never the line's text).
func importCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("import", flag.ContinueOnError)
	fs.SetOutput(stderr)
	db := fs.String("db", envDefault(getenv, "concierge.db", "CONCIERGE_DB", "DATABASE_URL"), "SQLite file or postgres:// URL")
	path, err := parseOneArg(fs, args, "import FILE.jsonl")
	if err != nil {
		return err
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	store, err := openStore(ctx, *db)
	if err != nil {
		return err
	}
	defer store.Close()
	rep, err := importLines(ctx, store, f, stderr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "import %s: %d lines: %d created, %d updated, %d unchanged, %d refused in %s\n", path, rep.lines,
		rep.counts[models.ImportCreated], rep.counts[models.ImportUpdated], rep.counts[models.ImportUnchanged], len(rep.refused), rep.took.Round(time.Millisecond))
	for _, r := range rep.refused {
		fmt.Fprintf(stdout, "refused line %d: %s\n", r.line, r.reason)
	}
	return nil
}

type importReport struct {
	lines   int
	counts  map[string]int
	refused []refusedLine
	took    time.Duration
}

type refusedLine struct {
	line   int
	reason string
}

// importLines imports r line by line (blank lines skipped), reporting
// progress to progress at most twice a second.
func importLines(ctx context.Context, store *models.Store, r io.Reader, progress io.Writer) (importReport, error) {
	rep := importReport{counts: map[string]int{}}
	start, last := time.Now(), time.Time{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		rep.lines++
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var rec models.ImportRecord
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&rec); err != nil {
			rep.refused = append(rep.refused, refusedLine{rep.lines, "not a traveler record: " + jsonProblem(err)})
			continue
		}
		outcome, err := store.ImportTraveler(ctx, rec)
		if err != nil {
			if ctx.Err() != nil || models.IsUnavailable(err) {
				return rep, err
			}
			rep.refused = append(rep.refused, refusedLine{rep.lines, reasonOf(err)})
		} else {
			rep.counts[outcome]++
		}
		if time.Since(last) >= 500*time.Millisecond {
			last = time.Now()
			fmt.Fprintf(progress, "import: %d lines, %d refused, %s\n", rep.lines, len(rep.refused), time.Since(start).Round(time.Second))
		}
	}
	rep.took = time.Since(start)
	fmt.Fprintf(progress, "import: %d lines, %d refused, done\n", rep.lines, len(rep.refused))
	return rep, sc.Err()
}

// reasonOf is a refusal's reason: the domain error, which says what is
// wrong and where; anything else is ours.
func reasonOf(err error) string {
	if memory.ErrorCode(err) == memory.EINTERNAL {
		return "could not be stored"
	}
	return err.Error()
}

// jsonProblem says what is wrong with a line's JSON without quoting it.
func jsonProblem(err error) string {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te):
		return "field " + te.Field + " has the wrong type"
	case errors.As(err, &se):
		return fmt.Sprintf("invalid JSON at byte %d", se.Offset)
	}
	return "unknown field or invalid JSON"
}
