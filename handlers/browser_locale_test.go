package handlers_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"go.yaml.in/yaml/v3"

	"concierge/handlers/browsertest"
	"concierge/models/dbtest"
)

// The untranslated-words check. A Spanish or Russian page fails when any
// text a person reads or hears — every text node, the document's title,
// and the placeholder, aria-label, title, alt, data-label and hx-confirm
// attributes and the value of buttons — holds a word of the product's
// English interface that the page's language does not use, or a message
// id the catalogue lacks (shown as itself). The English interface is every
// word of the English catalogue, of the templates' literal text and of the
// prose literals in views and handlers, so a string never added to the
// catalogue is caught as well as one left untranslated. Data is not
// interface: what the database holds (names, e-mails, notes, messages,
// titles, trips, profile values, reasons) is taken out of the text before
// it is read, and elements that show only data or code (transcripts,
// instructions, tool calls, ids) are skipped.

// pageTexts walks the page and returns every piece of interface text with
// where it was found.
const pageTexts = `((extra) => {
  const skip = '[data-testid="trip-title"], [data-testid="trip-note-text"], [data-testid="trip-conversation"], .answer, .user-text, .note-text, .note-quote, .chip-text, .session-title, .chat-title, [data-testid="note-source-link"], .panel-notes li, code, pre, .mono, script, style, .msg-text, .toolcall, .kw, blockquote, .said, [data-testid="preview-notes"], [data-testid="decision"] td:first-child, [data-testid="decision"] td.small, [data-testid="diff"] li > span:nth-child(2), .event-subject, del, ins, [data-testid="audit-reason"], [data-testid="customer-name"], [data-testid="customer-email"], [data-testid="token-name"]';
  const lang = document.documentElement.lang, out = [];
  const where = el => (el.dataset && el.dataset.testid) || el.id || el.tagName.toLowerCase();
  const walk = (node) => {
    if (node.nodeType === Node.ELEMENT_NODE) {
      if (node.matches(skip) || (extra && node.matches(extra))) return;
      // A name written in its own language (the choice of language).
      if (node.hasAttribute('lang') && node !== document.documentElement && node.getAttribute('lang') !== lang) return;
      for (const a of ['placeholder', 'aria-label', 'title', 'alt', 'data-label', 'hx-confirm']) {
        const v = node.getAttribute(a);
        if (v) out.push({where: where(node) + '@' + a, text: v});
      }
      if ((node.tagName === 'INPUT' && (node.type === 'submit' || node.type === 'button')) || node.tagName === 'BUTTON') {
        if (node.value && node.tagName === 'INPUT') out.push({where: where(node) + '@value', text: node.value});
      }
      for (const c of node.childNodes) walk(c);
    } else if (node.nodeType === Node.TEXT_NODE) {
      const t = node.textContent.trim();
      if (t) out.push({where: where(node.parentElement), text: t});
    }
  };
  walk(document.body);
  out.push({where: 'title', text: document.title});
  return out;
})`

type pageText struct{ Where, Text string }

// vocabulary is the English interface's words and, per language, the
// words its catalogue uses (which a page in that language may show).
type vocabulary struct {
	english map[string]string // word → an English source it comes from
	allowed map[string]map[string]bool
}

var (
	wordRE     = regexp.MustCompile(`\pL+`)
	fieldRE    = regexp.MustCompile(`\{\{\.[A-Za-z]+\}\}`)
	goExprRE   = regexp.MustCompile(`\{[^{}\n]*\}`)
	tagRE      = regexp.MustCompile(`<[^>]*>`)
	attrRE     = regexp.MustCompile(`(?:placeholder|aria-label|title|alt|value|hx-confirm|data-label)="([^"{}]*)"`)
	literalRE  = regexp.MustCompile(`"((?:[^"\\\n]|\\.)*)"`)
	messageID  = regexp.MustCompile(`\b[a-z]+(?:_[a-z]+)*\.[a-z_]+(?:\.[a-z0-9_]+)*\b`)
	emailRE    = regexp.MustCompile(`\S+@\S+`)
	urlRE      = regexp.MustCompile(`(?:https?://|/)[\w./?=&#%-]+`)
	latinOnly  = regexp.MustCompile(`^[A-Za-z]+$`)
	catalogues = map[string]map[string]any{}
	// cataloguesMu guards catalogues: the tests that read them run in
	// parallel.
	cataloguesMu sync.Mutex
)

func readCatalogue(t *testing.T, lang string) map[string]any {
	t.Helper()
	cataloguesMu.Lock()
	defer cataloguesMu.Unlock()
	if c, ok := catalogues[lang]; ok {
		return c
	}
	b, err := os.ReadFile("../views/locale/" + lang + ".yaml")
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := yaml.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	catalogues[lang] = m
	return m
}

// messageTexts are a catalogue's messages, plural forms included, without
// their fields.
func messageTexts(cat map[string]any) []string {
	var out []string
	for _, v := range cat {
		switch v := v.(type) {
		case string:
			out = append(out, fieldRE.ReplaceAllString(v, " "))
		case map[string]any:
			for _, f := range v {
				if s, ok := f.(string); ok {
					out = append(out, fieldRE.ReplaceAllString(s, " "))
				}
			}
		}
	}
	return out
}

func loadVocabulary(t *testing.T) vocabulary {
	t.Helper()
	v := vocabulary{english: map[string]string{}, allowed: map[string]map[string]bool{}}
	add := func(text, from string) {
		for _, w := range wordRE.FindAllString(text, -1) {
			if len(w) >= 3 && latinOnly.MatchString(w) {
				if _, ok := v.english[strings.ToLower(w)]; !ok {
					v.english[strings.ToLower(w)] = from
				}
			}
		}
	}
	for _, s := range messageTexts(readCatalogue(t, "en")) {
		add(s, "en.yaml: "+s)
	}
	templs, _ := filepath.Glob("../views/*.templ")
	for _, f := range templs {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range attrRE.FindAllStringSubmatch(string(b), -1) {
			add(m[1], filepath.Base(f)+": "+m[1])
		}
		for _, line := range strings.Split(string(b), "\n") {
			line = strings.TrimSpace(line)
			// Only markup lines carry text a page shows; Go lines of the
			// file (func, return, if) are code.
			if !strings.HasPrefix(line, "<") {
				continue
			}
			text := tagRE.ReplaceAllString(goExprRE.ReplaceAllString(line, " "), " ")
			add(text, filepath.Base(f)+": "+strings.TrimSpace(text))
		}
	}
	var goFiles []string
	for _, g := range []string{"../views/*.go", "*.go"} {
		fs, _ := filepath.Glob(g)
		goFiles = append(goFiles, fs...)
	}
	for _, f := range goFiles {
		if strings.HasSuffix(f, "_templ.go") || strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "//") || strings.Contains(line, "s.log.") {
				continue // comments and log lines never reach a page
			}
			for _, m := range literalRE.FindAllStringSubmatch(line, -1) {
				// Prose: a capitalised phrase of words, as a message is.
				if strings.Contains(m[1], " ") && regexp.MustCompile(`^[A-Z][a-z]+ [a-z]`).MatchString(m[1]) {
					add(m[1], filepath.Base(f)+": "+m[1])
				}
			}
		}
	}
	for _, lang := range []string{"es", "ru"} {
		allowed := map[string]bool{}
		for _, s := range messageTexts(readCatalogue(t, lang)) {
			for _, w := range wordRE.FindAllString(s, -1) {
				allowed[strings.ToLower(w)] = true
			}
		}
		v.allowed[lang] = allowed
	}
	if len(v.english) < 600 {
		t.Fatalf("the English interface has only %d words: the scan is broken", len(v.english))
	}
	return v
}

// dataStrings are the values the database holds for people: what a page
// shows as data, in the language it was written in.
func dataStrings(t *testing.T, e *env) []string {
	t.Helper()
	ctx := context.Background()
	users, err := e.store.SearchUsers(ctx, "", 100)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	keep := map[string]bool{"name": true, "email": true, "text": true, "keywords": true, "content": true, "title": true,
		"destination": true, "route": true, "reason": true, "proposed": true, "current": true, "label": true, "why": true, "fallback_reason": true}
	var walk func(key string, v any, all bool)
	walk = func(key string, v any, all bool) {
		switch v := v.(type) {
		case string:
			if all || keep[key] {
				out = append(out, v)
			}
		case []any:
			for _, x := range v {
				walk(key, x, all)
			}
		case map[string]any:
			for k, x := range v {
				walk(k, x, all || k == "profile")
			}
		}
	}
	for _, u := range users {
		out = append(out, u.Name, u.Email)
		exp, err := e.store.ExportUserData(ctx, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(exp)
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		walk("", m, false)
	}
	// Longest first, so a note is taken out before a word of it.
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

// englishOnPage lists the interface texts of a page in lang that hold an
// English word of the interface or a message id.
func englishOnPage(texts []pageText, v vocabulary, lang string, data []string) []string {
	var bad []string
	for _, pt := range texts {
		s := pt.Text
		for _, d := range data {
			if len(d) >= 3 {
				s = strings.ReplaceAll(s, d, " ")
			}
		}
		s = urlRE.ReplaceAllString(emailRE.ReplaceAllString(s, " "), " ")
		if id := messageID.FindString(s); id != "" {
			bad = append(bad, pt.Where+": message id "+id+" in "+strings.TrimSpace(pt.Text))
			continue
		}
		for _, w := range wordRE.FindAllString(s, -1) {
			lw := strings.ToLower(w)
			if from, ok := v.english[lw]; ok && !v.allowed[lang][lw] {
				bad = append(bad, pt.Where+": "+w+" in "+strings.TrimSpace(pt.Text)+" (English from "+from+")")
				break
			}
		}
	}
	return bad
}

// checkPage reads the page now open in ctx: <html lang>, every interface
// text, and it fits the width; then saves its screenshot.
func checkPage(t *testing.T, ctx context.Context, v vocabulary, data []string, lang, name string, width int64) {
	checkPageSkipping(t, ctx, v, data, lang, name, width, "")
}

// checkPageSkipping is checkPage leaving out the elements skip selects.
func checkPageSkipping(t *testing.T, ctx context.Context, v vocabulary, data []string, lang, name string, width int64, skip string) {
	t.Helper()
	got, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.documentElement.lang`))
	if got != lang {
		t.Errorf("%s %s: <html lang=%q>", lang, name, got)
	}
	texts, err := chromedp.Run(ctx, chromedp.Evaluate[[]pageText](pageTexts+"("+strconv.Quote(skip)+")"))
	if err != nil {
		t.Fatalf("%s %s: %v", lang, name, err)
	}
	if len(texts) < 5 {
		t.Fatalf("%s %s: only %d texts read", lang, name, len(texts))
	}
	for _, b := range englishOnPage(texts, v, lang, data) {
		t.Errorf("%s %s still shows English: %s", lang, name, b)
	}
	checkFits(t, ctx, lang+" "+name, int(width))
	browsertest.Screenshot(t, ctx, "locale-"+lang+"-"+name)
}

// phoneAgain restores a phone's viewport, which a full-page screenshot
// leaves reset.
func phoneAgain(t *testing.T, ctx context.Context, width, height int64, phone bool) {
	t.Helper()
	if os.Getenv("CONCIERGE_SCREENSHOTS") != "" {
		emulate(t, ctx, width, height, phone)
	}
}

// step bounds one step of a browser test, so that a page that never
// shows what it waits for fails at that page, not at the test's timeout.
func step(ctx context.Context) context.Context {
	c, cancel := context.WithTimeout(ctx, 45*time.Second)
	go func() { <-c.Done(); cancel() }()
	return c
}

func clearCookies(t *testing.T, ctx context.Context) {
	t.Helper()
	if _, err := chromedp.Call(ctx, network.ClearBrowserCookies, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
}

func chooseLanguage(t *testing.T, ctx context.Context, e *env, lang string) {
	t.Helper()
	err := chromedp.Do(step(ctx), chromedp.Navigate(e.srv.URL+"/account/tokens"), chromedp.WaitVisible(`[data-testid="language-form"]`),
		chromedp.SetValue(`#language-choice`, lang), chromedp.Click(`[data-testid="language-save"]`),
		chromedp.WaitVisible(`[data-testid="flash"]`))
	if err != nil {
		t.Fatalf("choose %s: %v", lang, err)
	}
}

// TestEnglishCheckCatchesEnglish: the check itself finds an English label
// left on a Spanish page, a literal of the code that never reached the
// catalogue and a missing message id, and passes Spanish words, data and
// the product's name.
func TestEnglishCheckCatchesEnglish(t *testing.T) {
	v := loadVocabulary(t)
	data := []string{"Prefers aisle seats."}
	for _, tt := range []struct {
		text string
		bad  bool
	}{
		{"Notas globales", false},
		{"Global notes", true},
		{"Lo que Concierge recuerda", false},
		{"Prefers aisle seats.", false},
		{"john@example.com", false},
		{"Fell back to the rules engine:", true},    // a catalogue message
		{"Type ERASE in capitals to confirm", true}, // was a handler literal
		{"customer.notes.title", true},
		{"Estado: open", true},
	} {
		got := englishOnPage([]pageText{{"p", tt.text}}, v, "es", data)
		if (len(got) > 0) != tt.bad {
			t.Errorf("%q: found %v, want English found = %v", tt.text, got, tt.bad)
		}
	}
}

// TestBrowserPagesInSpanishAndRussian: at a laptop's and a phone's size,
// Priya chooses Spanish on her account page, then Russian, and reads her
// pages — the chat, a conversation, the memory page, the account page —
// while an admin, who chose the same language, reads every console page
// staff see about her: search, her customer page with a note's edit and
// delete forms, its audit trail and consolidations, a session and what
// the model saw, the review queue, the audit trail, memory health, the
// erasure queue with a pending and a done request, accounts, an error page
// and a refused form. Every page says <html lang> of the choice, shows no
// English word of the interface, writes dates the language's way and
// fits the width; the screenshots are saved.
func TestBrowserPagesInSpanishAndRussian(t *testing.T) {
	t.Parallel()
	e := reviewEnv(t, dbtest.SQLite(t))
	priya, tok := e.userID("priya@example.com"), e.token("priya@example.com")
	admin := e.token("admin@example.com")
	sessionID := converse(t, e, tok, "I'm allergic to peanuts.", "I prefer window seats now.", "A friend told me I must see the Louvre.")
	if status, out := e.apiCall("POST", "/api/v1/users/"+priya+"/trips", tok,
		`{"destination":"Lisbon","start_date":"2027-12-03","end_date":"2027-12-09","status":"planning"}`); status != http.StatusCreated {
		t.Fatalf("add a trip: %d %v", status, out)
	}
	status, out := e.apiCall("POST", "/api/v1/users/"+priya+"/notes", tok, `{"text":"I prefer trains this winter.","expires_on":"2027-12-31"}`)
	if status != http.StatusCreated {
		t.Fatalf("add a note with an end date: %d %v", status, out)
	}
	note := out["id"].(string)
	if status, out := e.apiCall("PUT", "/api/v1/users/"+priya+"/profile", admin,
		`{"profile":{"name":"Priya","home_city":"Lisbon","seat_preference":"window","visas":[{"type":"Schengen","valid_until":"2028-05-01"}]},"reason":"customer called"}`); status != http.StatusOK {
		t.Fatalf("profile: %d %v", status, out)
	}
	// An erasure done (a traveler made for it) and one pending (John's).
	status, out = e.apiCall("POST", "/api/v1/users", admin, `{"email":"gone@example.com","name":"Gone Traveler","role":"traveler","password":"correct horse battery"}`)
	if status != http.StatusCreated {
		t.Fatalf("create a traveler: %d %v", status, out)
	}
	if status, out := e.apiCall("POST", "/api/v1/users/"+out["id"].(string)+"/erase", admin, `{"reason":"account_closure","ticket":"DSR-7"}`); status != http.StatusOK {
		t.Fatalf("erase: %d %v", status, out)
	}
	if status, out := e.apiCall("POST", "/api/v1/users/me/erasure-request", e.token("john@example.com"), ""); status != http.StatusCreated && status != http.StatusOK {
		t.Fatalf("erasure request: %d %v", status, out)
	}
	turn := "/turns/1"
	v := loadVocabulary(t)
	data := dataStrings(t, e)
	for _, size := range viewports {
		t.Run(size.name, func(t *testing.T) {
			ctx := browsertest.New(t, 900*time.Second)
			emulate(t, ctx, size.width, size.height, size.phone)
			for _, tt := range []struct{ lang, heading, month, until, tripDays, planning, valid string }{
				{"es", "Lo que Concierge recuerda", " dic ", "hasta el 31 dic 2027", "3 dic 2027 – 9 dic 2027", "en preparación", "Schengen, válido hasta el 1 may 2028"},
				{"ru", "Что помнит Concierge", " дек. ", "до 31 дек. 2027 г.", "3 дек. 2027 г. – 9 дек. 2027 г.", "планируется", "Schengen, действует до 1 мая 2028 г."},
			} {
				clearCookies(t, ctx)
				phoneAgain(t, ctx, size.width, size.height, size.phone)
				browserSignIn(t, ctx, e, "priya@example.com")
				chooseLanguage(t, ctx, e, tt.lang)
				for _, pg := range []struct{ name, path, wait string }{
					{"account", "/account/tokens", `[data-testid="language-form"]`},
					{"chat", "/chat", `[data-testid="chat-page"]`},
					{"conversation", "/chat/" + sessionID, `[data-testid="transcript"]`},
					{"memory", "/memory", `[data-testid="memory-page"]`},
				} {
					phoneAgain(t, ctx, size.width, size.height, size.phone)
					if err := chromedp.Do(step(ctx), chromedp.Navigate(e.srv.URL+pg.path), chromedp.WaitVisible(pg.wait)); err != nil {
						t.Fatalf("%s %s: %v", tt.lang, pg.name, err)
					}
					checkPage(t, ctx, v, data, tt.lang, pg.name+"-"+size.name, size.width)
					if pg.name == "memory" {
						words := text(t, ctx, `main`)
						if !strings.Contains(words, tt.heading) {
							t.Errorf("%s memory page: no heading %q", tt.lang, tt.heading)
						}
						if until := text(t, ctx, `[data-testid="note-until"]`); until != tt.until {
							t.Errorf("%s memory page: end date badge %q, want %q", tt.lang, until, tt.until)
						}
						if trip := text(t, ctx, `[data-testid="trips"]`); !strings.Contains(trip, tt.tripDays) || !strings.Contains(trip, tt.planning) {
							t.Errorf("%s memory page: trips section %q, want %q and %q", tt.lang, trip, tt.tripDays, tt.planning)
						}
						if !strings.Contains(words, tt.valid) {
							t.Errorf("%s memory page: the visa is not said in %s (want %q)", tt.lang, tt.lang, tt.valid)
						}
					}
				}

				// The admin, in the same language.
				clearCookies(t, ctx)
				if err := chromedp.Do(step(ctx), chromedp.Navigate(e.srv.URL+"/login"), signIn("admin@example.com")); err != nil {
					t.Fatalf("admin signs in: %v", err)
				}
				chooseLanguage(t, ctx, e, tt.lang)
				customer := "/console/customers/" + priya
				for _, pg := range []struct{ name, path, wait string }{
					{"console-account", "/account/tokens", `[data-testid="language-form"]`},
					{"console-search", "/console?q=priya", `[data-testid="customer-result"]`},
					{"console-customer", customer, `[data-testid="global-notes"]`},
					{"console-customer-audit", customer + "/audit", `[data-testid="audit-timeline"]`},
					{"console-consolidations", customer + "/consolidations", `[data-testid="run"]`},
					{"console-session", "/console/sessions/" + sessionID, `[data-testid="transcript"]`},
					{"console-turn", "/console/sessions/" + sessionID + turn, `[data-testid="turn-stats"]`},
					{"console-review", "/console/review", `[data-testid="review-item"]`},
					{"console-review-resolved", "/console/review?status=resolved", `[data-testid="review-list"]`},
					{"console-audit", "/console/audit", `[data-testid="audit-timeline"]`},
					{"console-health", "/console/health", `[data-testid="health-stats"]`},
					{"console-erasure", "/console/erasure", `[data-testid="erasure-receipt"]`},
					{"console-accounts", "/console/accounts", `[data-testid="accounts"]`},
					{"console-not-found", "/console/customers/no-such-account", `[data-testid="error-page"]`},
				} {
					phoneAgain(t, ctx, size.width, size.height, size.phone)
					if err := chromedp.Do(step(ctx), chromedp.Navigate(e.srv.URL+pg.path), chromedp.WaitVisible(pg.wait)); err != nil {
						t.Fatalf("%s %s: %v", tt.lang, pg.name, err)
					}
					checkPage(t, ctx, v, data, tt.lang, pg.name+"-"+size.name, size.width)
					if pg.name == "console-customer" {
						if dates := text(t, ctx, `[data-testid="global-notes"]`); !strings.Contains(dates, tt.month) {
							t.Errorf("%s customer page: note dates are not written in %s: %q", tt.lang, tt.lang, dates)
						}
					}
				}
				// The note's edit and delete forms (htmx), and a refused
				// edit: the reason left out.
				row := `#note-` + note
				phoneAgain(t, ctx, size.width, size.height, size.phone)
				err := chromedp.Do(step(ctx), chromedp.Navigate(e.srv.URL+customer), htmxReady(), htmxProcessed(row+` [data-testid="note-edit"]`),
					chromedp.Click(row+` [data-testid="note-edit"]`), chromedp.WaitVisible(row+` [data-testid="note-edit-form"]`), htmxProcessed(row+` [data-testid="note-edit-form"]`),
					chromedp.Click(row+` [data-testid="note-save"]`), chromedp.WaitVisible(row+` [data-testid="note-error"]`))
				if err != nil {
					t.Fatalf("%s edit a note without a reason: %v", tt.lang, err)
				}
				checkPage(t, ctx, v, data, tt.lang, "console-note-refused-"+size.name, size.width)
				phoneAgain(t, ctx, size.width, size.height, size.phone)
				err = chromedp.Do(step(ctx), chromedp.Navigate(e.srv.URL+customer), htmxReady(), htmxProcessed(row+` [data-testid="note-delete"]`),
					chromedp.Click(row+` [data-testid="note-delete"]`), chromedp.WaitVisible(row+` [data-testid="note-delete-form"]`))
				if err != nil {
					t.Fatalf("%s open the delete form: %v", tt.lang, err)
				}
				checkPage(t, ctx, v, data, tt.lang, "console-note-delete-"+size.name, size.width)
				// A flash after a change.
				phoneAgain(t, ctx, size.width, size.height, size.phone)
				if err := chromedp.Do(step(ctx), chromedp.Navigate(e.srv.URL+customer+"?done=note"), chromedp.WaitVisible(`[data-testid="flash"]`)); err != nil {
					t.Fatal(err)
				}
				checkPage(t, ctx, v, data, tt.lang, "console-flash-"+size.name, size.width)
			}
		})
	}
}
