package locale_test

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"concierge/views/locale"
)

// TestRussianPlurals: Russian has three forms for whole numbers — one (1,
// 21), few (2–4, 22) and many (5–20, 25) — and the catalogue gives each.
func TestRussianPlurals(t *testing.T) {
	ru := locale.For("ru")
	for _, tt := range []struct {
		n    int
		want string
	}{
		{1, "1 заметка"}, {2, "2 заметки"}, {5, "5 заметок"}, {11, "11 заметок"}, {21, "21 заметка"}, {22, "22 заметки"}, {25, "25 заметок"}, {0, "0 заметок"},
	} {
		if got := ru.N("memory.notes_count", tt.n); got != tt.want {
			t.Errorf("ru %d: %q, want %q", tt.n, got, tt.want)
		}
	}
	for _, tt := range []struct {
		lang string
		n    int
		want string
	}{
		{"en", 1, "1 note"}, {"en", 2, "2 notes"}, {"en", 21, "21 notes"},
		{"es", 1, "1 nota"}, {"es", 2, "2 notas"}, {"es", 1000000, "1.000.000 de notas"},
	} {
		if got := locale.For(tt.lang).N("memory.notes_count", tt.n); got != tt.want {
			t.Errorf("%s %d: %q, want %q", tt.lang, tt.n, got, tt.want)
		}
	}
}

// TestDatesAndNumbersFollowTheLanguage: a day and a number are written as
// each language writes them.
func TestDatesAndNumbersFollowTheLanguage(t *testing.T) {
	day := time.Date(2026, time.March, 2, 10, 0, 0, 0, time.UTC)
	for _, tt := range []struct{ lang, date, number string }{
		{"en", "2 Mar 2026", "12,345"},
		{"es", "2 mar 2026", "12.345"},
		{"ru", "2 мар. 2026 г.", "12\u00a0345"},
	} {
		l := locale.For(tt.lang)
		if got := l.Date(day); got != tt.date {
			t.Errorf("%s date: %q, want %q", tt.lang, got, tt.date)
		}
		if got := l.Day("2026-03-02"); got != tt.date {
			t.Errorf("%s day: %q, want %q", tt.lang, got, tt.date)
		}
		if got := l.Number(12345); got != tt.number {
			t.Errorf("%s number: %q, want %q", tt.lang, got, tt.number)
		}
	}
	if got := locale.For("ru").Day("not a date"); got != "not a date" {
		t.Errorf("a non-date is changed: %q", got)
	}
}

func TestFromAcceptLanguage(t *testing.T) {
	for _, tt := range []struct{ header, want string }{
		{"es-ES,es;q=0.9,en;q=0.8", "es"},
		{"ru", "ru"},
		{"ru-RU;q=0.5, es-MX;q=0.9", "es"},
		{"fr-FR, ru;q=0.4", "ru"},
		{"de-DE", ""},
		{"zh-CN,zh;q=0.9", ""},
		{"", ""},
		{"en-GB", "en"},
		{";;;garbage", ""},
	} {
		if got := locale.FromAcceptLanguage(tt.header); got != tt.want {
			t.Errorf("Accept-Language %q: %q, want %q", tt.header, got, tt.want)
		}
	}
}

// pluralForms are the CLDR plural categories each language needs for
// whole and fractional counts.
var pluralForms = map[string][]string{
	"en": {"one", "other"},
	"es": {"one", "many", "other"},
	"ru": {"one", "few", "many", "other"},
}

func catalogue(t *testing.T, lang string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(lang + ".yaml")
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := yaml.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s.yaml: %v", lang, err)
	}
	return m
}

// TestCatalogueCoversEveryString: every message id the views and handlers
// name is in the English catalogue, and every English message is in each
// other catalogue with the plural forms that language needs and the same
// {{.Fields}}.
func TestCatalogueCoversEveryString(t *testing.T) {
	en := catalogue(t, "en")
	fields := regexp.MustCompile(`\{\{\.[A-Za-z]+\}\}`)
	fieldsOf := func(v any) string {
		var all []string
		switch v := v.(type) {
		case string:
			all = fields.FindAllString(v, -1)
		case map[string]any:
			for _, f := range v {
				if s, ok := f.(string); ok {
					all = append(all, fields.FindAllString(s, -1)...)
				}
			}
		}
		sort.Strings(all)
		return strings.Join(compact(all), " ")
	}
	for _, lang := range locale.Languages {
		cat := catalogue(t, lang)
		for id, v := range en {
			got, ok := cat[id]
			if !ok {
				t.Errorf("%s.yaml lacks %q", lang, id)
				continue
			}
			if _, plural := v.(map[string]any); plural {
				gm, ok := got.(map[string]any)
				if !ok {
					t.Errorf("%s.yaml: %q is not a plural message", lang, id)
					continue
				}
				for _, form := range pluralForms[lang] {
					if _, ok := gm[form]; !ok {
						t.Errorf("%s.yaml: %q lacks the plural form %q", lang, id, form)
					}
				}
			}
			if fieldsOf(got) != fieldsOf(v) {
				t.Errorf("%s.yaml: %q has fields %q, English %q", lang, id, fieldsOf(got), fieldsOf(v))
			}
		}
		for id := range cat {
			if _, ok := en[id]; !ok {
				t.Errorf("%s.yaml has %q, which English lacks", lang, id)
			}
		}
	}
	// Every literal id the code names.
	literal := regexp.MustCompile(`(?:\bT|\bN|\.T|\.N)\((?:ctx, )?"([a-z_]+\.[a-z0-9_.]+)"`)
	var used []string
	for _, glob := range []string{"../*.templ", "../*.go", "../../handlers/*.go"} {
		files, _ := filepath.Glob(glob)
		for _, f := range files {
			if strings.HasSuffix(f, "_templ.go") || strings.HasSuffix(f, "_test.go") {
				continue
			}
			b, _ := os.ReadFile(f)
			for _, m := range literal.FindAllStringSubmatch(string(b), -1) {
				// A prefix completed at run time ("role."+role) is
				// checked below with every value it can take.
				if !strings.HasSuffix(m[1], ".") && !strings.HasSuffix(m[1], "_") {
					used = append(used, m[1])
				}
			}
		}
	}
	if len(used) < 100 {
		t.Fatalf("found only %d message ids in the code: the scan is broken", len(used))
	}
	for _, id := range used {
		if _, ok := en[id]; !ok {
			t.Errorf("the code names %q, which en.yaml lacks", id)
		}
	}
	// Ids built from a prefix and a value: every value they can take.
	for _, id := range []string{"role.traveler", "role.support", "role.admin",
		"source.seed", "source.assistant", "source.consolidation", "source.staff", "source.import", "source.traveler", "source.other",
		"login.ended.erased", "login.ended.disabled", "login.ended.password_reset", "login.ended.password_changed",
		"memory.note.edited_by_support", "memory.note.edited_by_you",
		"trips.status.planning", "trips.status.booked", "trips.status.travelled", "trips.status.cancelled",
		"nav.customers", "nav.review", "nav.audit", "nav.health", "nav.erasure", "nav.accounts", "nav.chat", "nav.memory",
		"actor.traveler", "actor.assistant", "actor.consolidation", "actor.support", "actor.admin", "actor.system",
		"csource.seed", "csource.assistant", "csource.consolidation", "csource.staff", "csource.import", "csource.traveler",
		"session.status.open", "session.status.closing", "session.status.closed",
		"runs.status.queued", "runs.status.running", "runs.status.done", "runs.status.failed", "runs.engine.rules", "runs.engine.model",
		"preview.section.base", "preview.section.profile", "preview.section.memories", "preview.section.summary", "preview.section.policy",
		"erasure.reason.data_subject_request", "erasure.reason.account_closure", "erasure.reason.legal_obligation", "erasure.reason.other",
		"blocked.payment_card", "blocked.instruction", "blocked.user_cap", "blocked.other", "category.other", "status.404", "status.500"} {
		if _, ok := en[id]; !ok {
			t.Errorf("en.yaml lacks %q", id)
		}
	}
}

func compact(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// TestMissingIDComesBackAsItself: an id no catalogue has is shown as the
// id, which the coverage test and the browser test can find.
func TestMissingIDComesBackAsItself(t *testing.T) {
	if got := locale.For("ru").T("no.such.message"); got != "no.such.message" {
		t.Errorf("got %q", got)
	}
	if got := locale.For("xx").Lang(); got != "en" {
		t.Errorf("an unknown language falls back to %q, want en", got)
	}
}

// idPrefix is a literal that starts a message id completed at run time.
var idPrefix = regexp.MustCompile(`^[a-z_]+(\.[a-z_]+)*[._]$`)

// stringLiteral is a Go or templ string literal.
var stringLiteral = regexp.MustCompile(`"((?:[^"\\\n]|\\.)*)"`)

// TestNoUnusedMessage: every message of the English catalogue is named
// by the code — as a literal id, or completed at run time from a literal
// prefix such as "role." — so the catalogues hold no words nobody shows.
func TestNoUnusedMessage(t *testing.T) {
	literals := map[string]bool{}
	var prefixes []string
	for _, glob := range []string{"../*.templ", "../*.go", "*.go", "../../handlers/*.go"} {
		files, _ := filepath.Glob(glob)
		for _, f := range files {
			if strings.HasSuffix(f, "_templ.go") || strings.HasSuffix(f, "_test.go") {
				continue
			}
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range stringLiteral.FindAllStringSubmatch(string(b), -1) {
				literals[m[1]] = true
				if idPrefix.MatchString(m[1]) {
					prefixes = append(prefixes, m[1])
				}
			}
		}
	}
	if len(literals) < 500 || len(prefixes) < 5 {
		t.Fatalf("found %d literals and %d prefixes: the scan is broken", len(literals), len(prefixes))
	}
	for id := range catalogue(t, "en") {
		if literals[id] {
			continue
		}
		used := false
		for _, p := range prefixes {
			if strings.HasPrefix(id, p) {
				used = true
				break
			}
		}
		if !used {
			t.Errorf("en.yaml has %q, which no code names", id)
		}
	}
}
