package handlers_test

import (
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"go.yaml.in/yaml/v3"

	"concierge/handlers/browsertest"
)

// pageWords is the text of the page a person reads as the interface: the
// body's visible text without the traveler's data (messages, answers,
// notes, titles, profile values), which stay in the language they were
// written in.
const pageWords = `(() => {
  const copy = document.body.cloneNode(true);
  copy.querySelectorAll('[data-testid="trip-title"], [data-testid="trip-note-text"], [data-testid="trip-conversation"], .answer, .user-text, .note-text, .note-quote, .chip-text, .session-title, .chat-title, .facts dd, [data-testid="note-source-link"], [data-testid="viewer"], .panel-notes li, code, .mono, script, .visually-hidden[data-testid="announce"]').forEach(e => e.remove());
  return copy.innerText;
})()`

// englishLeft lists the English catalogue messages (without fields) that
// lang writes differently, and that the page's words still show.
func englishLeft(t *testing.T, words, lang string) []string {
	t.Helper()
	read := func(l string) map[string]any {
		b, err := os.ReadFile("../views/locale/" + l + ".yaml")
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := yaml.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	en, other := read("en"), read(lang)
	var left []string
	for id, v := range en {
		s, ok := v.(string)
		if !ok || strings.Contains(s, "{{") || len([]rune(s)) < 3 || other[id] == s || strings.HasPrefix(id, "date.") {
			continue
		}
		if regexp.MustCompile(`(^|[^\pL])` + regexp.QuoteMeta(s) + `($|[^\pL])`).MatchString(words) {
			left = append(left, id+": "+s)
		}
	}
	return left
}

// TestBrowserPagesInSpanishAndRussian: John chooses Spanish on his
// account page, then Russian, at a laptop's and a phone's size. Each of
// the translated pages — the chat, a conversation, the memory page, the
// account page — says <html lang> of the choice, shows none of the
// English catalogue's words, and writes dates the language's way (a
// note's end date and a trip's days included); the screenshots are saved.
func TestBrowserPagesInSpanishAndRussian(t *testing.T) {
	e := newEnv(t)
	sessionID := closedConversation(t, e)
	john, tok := e.userID("john@example.com"), e.token("john@example.com")
	if status, out := e.apiCall("POST", "/api/v1/users/"+john+"/trips", tok,
		`{"destination":"Lisbon","start_date":"2027-12-03","end_date":"2027-12-09","status":"planning"}`); status != http.StatusCreated {
		t.Fatalf("add a trip: %d %v", status, out)
	}
	if status, out := e.apiCall("POST", "/api/v1/users/"+john+"/notes", tok,
		`{"text":"I prefer window seats on this winter's flights.","expires_on":"2027-12-31"}`); status != http.StatusCreated {
		t.Fatalf("add a note with an end date: %d %v", status, out)
	}
	for _, size := range viewports {
		t.Run(size.name, func(t *testing.T) {
			ctx := browsertest.New(t, 120*time.Second)
			emulate(t, ctx, size.width, size.height, size.phone)
			browserSignIn(t, ctx, e, "john@example.com")
			for _, tt := range []struct{ lang, heading, month, until, trips, tripDays, planning string }{
				{"es", "Lo que Concierge recuerda", " dic ", "hasta el 31 dic 2027", "Tus viajes", "3 dic 2027 – 9 dic 2027", "en preparación"},
				{"ru", "Что помнит Concierge", " дек. ", "до 31 дек. 2027 г.", "Ваши поездки", "3 дек. 2027 г. – 9 дек. 2027 г.", "планируется"},
			} {
				err := chromedp.Do(ctx, chromedp.Navigate(e.srv.URL+"/account/tokens"), chromedp.WaitVisible(`[data-testid="language-form"]`),
					chromedp.SetValue(`#language-choice`, tt.lang), chromedp.Click(`[data-testid="language-save"]`),
					chromedp.WaitVisible(`[data-testid="flash"]`))
				if err != nil {
					t.Fatalf("choose %s: %v", tt.lang, err)
				}
				for _, pg := range []struct{ name, path, wait string }{
					{"account", "/account/tokens", `[data-testid="language-form"]`},
					{"chat", "/chat", `[data-testid="chat-page"]`},
					{"conversation", "/chat/" + sessionID, `[data-testid="transcript"]`},
					{"memory", "/memory", `[data-testid="memory-page"]`},
				} {
					if err := chromedp.Do(ctx, chromedp.Navigate(e.srv.URL+pg.path), chromedp.WaitVisible(pg.wait)); err != nil {
						t.Fatalf("%s %s: %v", tt.lang, pg.name, err)
					}
					lang, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.documentElement.lang`))
					if lang != tt.lang {
						t.Errorf("%s %s: <html lang=%q>", tt.lang, pg.name, lang)
					}
					words, err := chromedp.Run(ctx, chromedp.Evaluate[string](pageWords))
					if err != nil {
						t.Fatal(err)
					}
					if left := englishLeft(t, words, tt.lang); len(left) > 0 {
						t.Errorf("%s %s still shows English: %v", tt.lang, pg.name, left)
					}
					if pg.name == "memory" {
						if !strings.Contains(words, tt.heading) {
							t.Errorf("%s memory page: no heading %q", tt.lang, tt.heading)
						}
						if dates := text(t, ctx, `[data-testid="notes"]`); !strings.Contains(dates, tt.month) {
							t.Errorf("%s memory page: dates are not written in %s: %q", tt.lang, tt.lang, dates)
						}
						if until := text(t, ctx, `[data-testid="note-until"]`); until != tt.until {
							t.Errorf("%s memory page: end date badge %q, want %q", tt.lang, until, tt.until)
						}
						if trip := text(t, ctx, `[data-testid="trips"]`); !strings.Contains(trip, tt.trips) || !strings.Contains(trip, tt.tripDays) || !strings.Contains(trip, tt.planning) {
							t.Errorf("%s memory page: trips section %q, want %q, %q and %q", tt.lang, trip, tt.trips, tt.tripDays, tt.planning)
						}
					}
					checkFits(t, ctx, tt.lang+" "+pg.name, int(size.width))
					browsertest.Screenshot(t, ctx, "locale-"+tt.lang+"-"+pg.name+"-"+size.name)
				}
			}
		})
	}
}
