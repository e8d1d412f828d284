package handlers

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"concierge/agent"
	"concierge/memory"
	"concierge/models"
	"concierge/views/locale"
)

// TestErrorMapping: a request whose context ended is a client that left
// (499, not our failure, logged at debug), however deeply it is wrapped;
// an unknown error is a 500 and internal.
func TestErrorMapping(t *testing.T) {
	t.Parallel()
	e, internal := toError(fmt.Errorf("models: create chat session: %w", context.Canceled))
	if e.Status != statusClientGone || internal {
		t.Errorf("canceled: %d internal=%v, want %d and not internal", e.Status, internal, statusClientGone)
	}
	e, internal = toError(errors.New("disk on fire"))
	if e.Status != http.StatusInternalServerError || !internal {
		t.Errorf("unknown: %d internal=%v, want 500 and internal", e.Status, internal)
	}
}

// TestDomainRefusalsMapOnce: the refusals models and agent return (each
// wrapped, as they arrive) become their status and code through toError,
// the one map; the erasure that could not finish scrubbing is ours (500,
// logged).
func TestDomainRefusalsMapOnce(t *testing.T) {
	t.Parallel()
	wrap := func(err error) error { return fmt.Errorf("models: something: %w", err) }
	for _, c := range []struct {
		err      error
		status   int
		code     string
		internal bool
	}{
		{wrap(models.ErrNoReason), 422, "reason_required", false},
		{wrap(models.ErrReasonTooLong), 422, "reason_too_long", false},
		{wrap(models.ErrNoName), 422, "name_required", false},
		{wrap(models.ErrMessageTooBig), 413, "too_large", false},
		{wrap(models.ErrTitleTooLong), 422, "too_long", false},
		{wrap(models.ErrBadErasureReason), 422, "bad_reason", false},
		{wrap(models.ErrBadTicket), 422, "bad_ticket", false},
		{fmt.Errorf("%w: %w", models.ErrErasureIncomplete, errors.New("checkpoint busy")), 500, "erasure_incomplete", true},
		{wrap(models.ErrBadCredentials), 401, "bad_credentials", false},
		{wrap(models.ErrWrongPassword), 403, "bad_credentials", false},
		{wrap(&models.LockedError{Until: time.Now().Add(time.Minute)}), 429, "locked", false},
		{wrap(agent.ErrDraining), 503, "restarting", false},
		{wrap(models.ErrNotEditable), 409, "not_editable", false},
	} {
		e, internal := toError(c.err)
		if e.Status != c.status || e.Code != c.code || internal != c.internal {
			t.Errorf("%v: %d %s internal=%v, want %d %s internal=%v", c.err, e.Status, e.Code, internal, c.status, c.code, c.internal)
		}
	}
}

// TestEveryDomainCodeHasAStatus: each code memory declares is in
// domainStatus (EINTERNAL aside), so a new refusal cannot fall through to
// a 500.
func TestEveryDomainCodeHasAStatus(t *testing.T) {
	t.Parallel()
	f, err := parser.ParseFile(token.NewFileSet(), "../memory/errors.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]string{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, sp := range g.Specs {
			v := sp.(*ast.ValueSpec)
			for i, n := range v.Names {
				if lit, ok := v.Values[i].(*ast.BasicLit); ok && strings.HasPrefix(n.Name, "E") {
					byName[n.Name], _ = strconv.Unquote(lit.Value)
				}
			}
		}
	}
	if len(byName) < 20 {
		t.Fatalf("read %d codes from memory/errors.go; the parse is broken", len(byName))
	}
	for name, code := range byName {
		if _, ok := domainStatus[code]; !ok && code != memory.EINTERNAL {
			t.Errorf("memory.%s (%q) has no status in domainStatus", name, code)
		}
	}
}

// requestCodes are the codes handlers mint themselves with newError: a
// malformed request (body, form, query, header), the transport (CSRF, rate
// limit, a panic) and the health probe's own answer. A domain refusal is
// a memory.Error returned from below, mapped in domainStatus.
var requestCodes = map[string]bool{
	"unsupported_media_type": true, "too_large": true, "bad_json": true, "bad_form": true, "bad_encoding": true,
	"too_long": true, "bad_idempotency_key": true, "bad_date": true, "invalid": true, "nothing_to_change": true,
	"csrf": true, "rate_limited": true, "internal": true, "unavailable": true,
}

// TestNoDomainNewErrorOutsideErrorsGo reads every handler file but
// errors.go and checks that each newError mints a request code from
// requestCodes, written as a literal so this test can read it.
func TestNoDomainNewErrorOutsideErrorsGo(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	for _, name := range files {
		if name == "errors.go" || strings.HasSuffix(name, "_test.go") || strings.HasSuffix(name, "_templ.go") {
			continue
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if id, ok := call.Fun.(*ast.Ident); !ok || id.Name != "newError" {
				return true
			}
			calls++
			lit, ok := call.Args[1].(*ast.BasicLit)
			if !ok {
				t.Errorf("%s: newError with a code that is not a literal", fset.Position(call.Pos()))
				return true
			}
			code, _ := strconv.Unquote(lit.Value)
			if !requestCodes[code] {
				t.Errorf("%s: newError(%q) mints a domain refusal in handlers: return a memory.Error from models or agent and map it in domainStatus",
					fset.Position(call.Pos()), code)
			}
			return true
		})
	}
	if calls < 10 {
		t.Fatalf("found %d newError calls; the walk is broken", calls)
	}
}

// TestRefusalsInTheReadersLanguage: refusals a page shows beside a form
// (the password policy, a trip ending before it starts, a review's missing
// text, a long search, the profile schema's refusals) read in Spanish and Russian, with their figures, and
// the API keeps the domain's English message.
func TestRefusalsInTheReadersLanguage(t *testing.T) {
	t.Parallel()
	weak := models.CheckPassword("short")
	for _, c := range []struct {
		err  error
		want string // a figure the message must name, or ""
	}{
		{fmt.Errorf("models: reset: %w", weak), strconv.Itoa(models.MinPasswordChars)},
		{models.CheckPassword("password123"), ""},
		{fmt.Errorf("models: edit trip: %w", memory.ErrEndBeforeStart), ""},
		{models.ErrReviewAction, ""},
		{models.ErrReviewNoText, ""},
		{models.ErrReviewNoNote, ""},
		{fmt.Errorf("search: %w", models.ErrSearchTooLong), strconv.Itoa(models.MaxSearchChars)},
		{models.ValidateProfile(memory.Profile{"nickname": "x"}), "/nickname"},
		{models.ValidateProfile(memory.Profile{"visas": "Schengen"}), "array"},
		{models.ValidateProfile(memory.Profile{"passport_expiry": "soon"}), "/passport_expiry"},
		{fmt.Errorf("set profile: %w", models.ValidateProfile(memory.Profile{"name": strings.Repeat("n", 500)})), "/name"},
	} {
		e, internal := toError(c.err)
		if internal || e.Status < 400 || e.Status >= 500 {
			t.Errorf("%v: %d internal=%v, want a refusal (4xx)", c.err, e.Status, internal)
		}
		if e.Message != memory.ErrorMessage(c.err) {
			t.Errorf("%v: API message %q, want the domain's %q", c.err, e.Message, memory.ErrorMessage(c.err))
		}
		en := e.In(locale.For("en"))
		for _, lang := range []string{"es", "ru"} {
			got := e.In(locale.For(lang))
			if got == en || got == "" || strings.Contains(got, "<no value>") || strings.HasPrefix(got, "error.") {
				t.Errorf("%v in %s: %q (English %q)", c.err, lang, got, en)
			}
			if c.want != "" && !strings.Contains(got, c.want) {
				t.Errorf("%v in %s: %q does not name %s", c.err, lang, got, c.want)
			}
		}
	}
}
