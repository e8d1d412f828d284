package models

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"
	"gorm.io/gorm"

	"concierge/memory"
)

// settingSpan is the per-statement setting that holds a statement's span.
const settingSpan = "concierge:span"

// Trace records the store's work as spans of tp's tracer, inside a trace
// that is already going (a request's, a turn's, a job's): each write
// transaction ("db.write" and the store method that wrote, such as
// "db.write Store.SubmitUserMessage"; on SQLite it covers the wait for the
// group commit), and each statement sent on its own or, on PostgreSQL,
// inside a transaction ("SELECT messages"). Statements of work that is not
// traced record nothing. Spans carry the database, the operation, the
// table and row counts — never a statement's text or values. Call it once,
// before the store is used; a nil tp leaves tracing off.
func (s *Store) Trace(tp trace.TracerProvider) error {
	if tp == nil {
		return nil
	}
	s.tracer = tp.Tracer("concierge/models", trace.WithSchemaURL(semconv.SchemaURL))
	system := s.dbSystem()
	start := func(op string) func(*gorm.DB) {
		return func(db *gorm.DB) {
			ctx := db.Statement.Context
			if ctx == nil || !trace.SpanContextFromContext(ctx).IsValid() {
				return
			}
			_, span := s.tracer.Start(ctx, "SQL", trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(system))
			db.InstanceSet(settingSpan, statementSpan{span: span, op: op})
		}
	}
	end := func(db *gorm.DB) {
		v, ok := db.InstanceGet(settingSpan)
		if !ok {
			return
		}
		db.Statement.Settings.Delete(fmt.Sprintf("%p", db.Statement) + settingSpan)
		st := v.(statementSpan)
		// Named once the statement is built: the operation (for raw SQL,
		// its first keyword) and the table.
		name, table := statementName(db, st.op), db.Statement.Table
		st.span.SetAttributes(semconv.DBOperationName(name))
		if table != "" {
			st.span.SetAttributes(semconv.DBCollectionName(table))
			name += " " + table
		}
		st.span.SetName(name)
		if db.RowsAffected >= 0 {
			st.span.SetAttributes(semconv.DBResponseReturnedRows(int(db.RowsAffected)))
		}
		if db.Error != nil && !errors.Is(db.Error, gorm.ErrRecordNotFound) {
			failedSpan(st.span, db.Error)
		}
		st.span.End()
	}
	cb := s.db.Callback()
	type registrar = func(name string, fn func(*gorm.DB)) error
	for _, p := range []struct {
		main, op      string
		before, after registrar
	}{
		{"query", "SELECT", cb.Query().Before("gorm:query").Register, cb.Query().After("gorm:query").Register},
		{"create", "INSERT", cb.Create().Before("gorm:create").Register, cb.Create().After("gorm:create").Register},
		{"update", "UPDATE", cb.Update().Before("gorm:update").Register, cb.Update().After("gorm:update").Register},
		{"delete", "DELETE", cb.Delete().Before("gorm:delete").Register, cb.Delete().After("gorm:delete").Register},
		{"raw", "", cb.Raw().Before("gorm:raw").Register, cb.Raw().After("gorm:raw").Register},
		{"row", "", cb.Row().Before("gorm:row").Register, cb.Row().After("gorm:row").Register},
	} {
		if err := p.before("concierge:trace_before_"+p.main, start(p.op)); err != nil {
			return err
		}
		if err := p.after("concierge:trace_after_"+p.main, end); err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) dbSystem() attribute.KeyValue {
	if s.postgres {
		return semconv.DBSystemNamePostgreSQL
	}
	return semconv.DBSystemNameSQLite
}

// statementSpan is a statement's span and the kind of statement it is.
type statementSpan struct {
	span trace.Span
	op   string
}

// statementName is a statement's operation: op, or for raw SQL (op "")
// the first keyword of its text, which holds no values.
func statementName(db *gorm.DB, op string) string {
	if op != "" {
		return op
	}
	word, _, _ := strings.Cut(strings.TrimSpace(db.Statement.SQL.String()), " ")
	word = strings.ToUpper(word)
	if word == "" || strings.IndexFunc(word, func(r rune) bool { return r < 'A' || r > 'Z' }) >= 0 {
		return "SQL"
	}
	return word
}

// startWrite begins the span of one write transaction, named after the
// store method that asked for it, when ctx is traced; nil otherwise.
func (s *Store) startWrite(ctx context.Context) (context.Context, trace.Span) {
	if s.tracer == nil || !trace.SpanContextFromContext(ctx).IsValid() {
		return ctx, nil
	}
	return s.tracer.Start(ctx, "db.write "+writeCaller(), trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(s.dbSystem()))
}

// writeCaller names the exported store method that called write: the
// first frame above it that is not models' own plumbing (closures,
// unexported helpers), such as "Notes.CommitRound".
func writeCaller() string {
	var pcs [8]uintptr
	// Skip runtime.Callers, writeCaller, startWrite and write.
	n := runtime.Callers(4, pcs[:])
	frames := runtime.CallersFrames(pcs[:n])
	first := ""
	for {
		f, more := frames.Next()
		name := f.Function
		if i := strings.LastIndex(name, "/"); i >= 0 {
			name = name[i+1:]
		}
		pkg, fn, _ := strings.Cut(name, ".")
		if pkg != "models" {
			break
		}
		fn = strings.NewReplacer("(*", "", ")", "").Replace(fn)
		if first == "" {
			first = fn
		}
		short := fn[strings.LastIndex(fn, ".")+1:]
		if short != "" && short[0] >= 'A' && short[0] <= 'Z' && !strings.Contains(fn, ".func") {
			return fn
		}
		if !more {
			break
		}
	}
	return first
}

// endWrite ends a write transaction's span with its outcome.
func endWrite(span trace.Span, err error) {
	if span == nil {
		return
	}
	if err != nil {
		failedSpan(span, err)
	}
	span.End()
}

// failedSpan marks span failed with a word for the error — never its text,
// which may quote the values of a statement.
func failedSpan(span trace.Span, err error) {
	kind := "_OTHER"
	switch {
	case unavailable(err):
		kind = "unavailable"
	case errors.Is(err, gorm.ErrDuplicatedKey):
		kind = "duplicate"
	case errors.Is(err, context.Canceled):
		kind = "canceled"
	case memory.ErrorCode(err) != memory.EINTERNAL:
		kind = memory.ErrorCode(err) // a refusal of ours: busy, conflict, lease lost…
	}
	span.SetAttributes(semconv.ErrorTypeKey.String(kind))
	span.SetStatus(codes.Error, kind)
}
