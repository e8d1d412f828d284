package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"concierge/handlers/browsertest"
)

// seedConversation gives John a few turns (one saving a note, one whose
// note is refused) and a closed, consolidated earlier session.
func seedConversation(t *testing.T, e *env) {
	t.Helper()
	tok := e.token("john@example.com")
	for _, msgs := range [][]string{
		{"I'm vegetarian, please remember that.", "This time I'd like a window seat, I want to sleep."},
		{"Find me a flight from San Francisco to Lisbon next month.", "My card is 4111 1111 1111 1111, save it."},
	} {
		status, out := e.apiCall("POST", "/api/v1/sessions", tok, "")
		if status != http.StatusCreated {
			t.Fatalf("create session: %d %v", status, out)
		}
		id := out["id"].(string)
		for _, m := range msgs {
			if status, out := e.apiCall("POST", "/api/v1/sessions/"+id+"/messages", tok, `{"content":"`+m+`"}`); status != http.StatusOK {
				t.Fatalf("message: %d %v", status, out)
			}
		}
		if len(msgs) > 0 && strings.Contains(msgs[0], "vegetarian") {
			if status, out := e.apiCall("POST", "/api/v1/sessions/"+id+"/close", tok, ""); status != http.StatusOK && status != http.StatusAccepted {
				t.Fatalf("close: %d %v", status, out)
			}
		}
	}
}

// htmxReady waits until the page has loaded and htmx has processed it, so a
// click on an hx-get button is not lost.
func htmxReady() chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		_, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.readyState === "complete" && !!window.htmx`))
		return err
	})
}

func signIn(email string) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(
		chromedp.WaitVisible(`[data-testid="login-form"]`),
		chromedp.SendKeys(`#email`, email),
		chromedp.SendKeys(`#password`, "demo"),
		chromedp.Click(`[data-testid="login-form"] button`),
		chromedp.WaitVisible(`[data-testid="viewer"]`),
	)
}

// TestBrowserSupportEditsNote: support finds John, edits a note with a
// reason, sees the change in the audit timeline, and opens what the model
// saw on a turn.
func TestBrowserSupportEditsNote(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	seedConversation(t, e)
	priya, err := e.store.UserByEmail(t.Context(), "priya@example.com")
	if err != nil {
		t.Fatal(err)
	}
	john, err := e.store.UserByEmail(t.Context(), "john@example.com")
	if err != nil {
		t.Fatal(err)
	}
	var aisle string
	notes, _ := e.store.GlobalNotes(t.Context(), john.ID)
	for _, n := range notes {
		if n.Text == "Prefers aisle seats." {
			aisle = n.ID
		}
	}
	if aisle == "" {
		t.Fatal("John has no aisle note")
	}
	ctx := browsertest.New(t, 120*time.Second)
	err = chromedp.Do(ctx,
		chromedp.Navigate(e.srv.URL+"/login?next=/console"),
		signIn("support@example.com"),
		chromedp.WaitVisible(`[data-testid="customer-search"]`),
		chromedp.SendKeys(`#q`, "John"),
		// htmx swaps the results in as you type: wait for the filtered list.
		chromedp.WaitNotPresent(`[data-testid="customer-result"][href$="`+priya.ID+`"]`),
		chromedp.WaitVisible(`[data-testid="customer-result"]`),
	)
	if err != nil {
		t.Fatalf("search: %v", err)
	}
	found, _ := chromedp.Run(ctx, chromedp.Text(`[data-testid="customer-results"]`))
	if !strings.Contains(found, "john@example.com") || strings.Contains(found, "priya@example.com") {
		t.Errorf("search for John found %q", found)
	}
	err = chromedp.Do(ctx,
		chromedp.Click(`[data-testid="customer-result"]`),
		chromedp.WaitVisible(`[data-testid="customer-name"]`),
		chromedp.WaitVisible(`[data-testid="token-meter"]`),
		htmxReady(),
	)
	if err != nil {
		t.Fatalf("open customer: %v", err)
	}
	browsertest.Screenshot(t, ctx, "customer-page")
	meter, _ := chromedp.Run(ctx, chromedp.Text(`[data-testid="preview-note-tokens"]`))

	const newText = "Prefers aisle seats on flights over two hours."
	err = chromedp.Do(ctx,
		chromedp.Click(`[data-note-id="`+aisle+`"] [data-testid="note-edit"]`),
		chromedp.WaitVisible(`[data-testid="note-edit-form"]`),
		chromedp.SetValue(`[data-testid="note-edit-form"] textarea`, newText),
		// Saving without a reason is refused inline.
		htmxProcessed(`[data-testid="note-save"]`),
		chromedp.Click(`[data-testid="note-save"]`),
		chromedp.WaitVisible(`[data-testid="note-error"]`),
		chromedp.SendKeys(`[data-testid="note-edit-form"] [data-testid="note-reason"]`, "Customer clarified on the phone"),
		htmxProcessed(`[data-testid="note-save"]`),
		chromedp.Click(`[data-testid="note-save"]`),
		chromedp.WaitNotPresent(`[data-testid="note-edit-form"]`),
	)
	if err != nil {
		t.Fatalf("edit note: %v", err)
	}
	shown, _ := chromedp.Run(ctx, chromedp.Text(`[data-testid="global-notes"]`))
	if !strings.Contains(shown, newText) {
		t.Errorf("notes after the edit: %q", shown)
	}
	// The preview follows without a reload: its meter after the note grew,
	// its instructions after an opening message is typed (relevance puts
	// the comparing note first; the edited aisle note was first by recency).
	// Note lines carry a handle ("- [n4k2z] …") while the forget tool is offered.
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](fmt.Sprintf(`document.querySelector('[data-testid="preview-note-tokens"]').textContent.trim() !== %q`, meter),
		chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		t.Errorf("the preview meter stayed at %s tokens after the note grew: %v", meter, err)
	}
	err = chromedp.Do(ctx,
		htmxProcessed(`#preview-message`),
		chromedp.SendKeys(`#preview-message`, "compare options for me"),
		chromedp.Poll[chromedp.Void](`(function(){ var t = document.querySelector('[data-testid="preview-instructions"]').textContent;
			var a = t.search(/\n- (\[\w+\] )?Likes to compare/), b = t.search(/\n- (\[\w+\] )?Prefers aisle/); return a >= 0 && b >= 0 && a < b; })()`, chromedp.WithPollingTimeout(10*time.Second)),
	)
	if err != nil {
		t.Errorf("the preview did not follow the opening message: %v", err)
	}

	err = chromedp.Do(ctx,
		chromedp.Click(`.tabs a[href$="/audit"]`),
		chromedp.WaitVisible(`[data-testid="audit-timeline"]`),
	)
	if err != nil {
		t.Fatalf("audit: %v", err)
	}
	timeline, _ := chromedp.Run(ctx, chromedp.Text(`[data-testid="audit-timeline"]`))
	for _, want := range []string{"Note edited", "Customer clarified on the phone", "Prefers aisle seats.", newText, "Sam Support"} {
		if !strings.Contains(timeline, want) {
			t.Errorf("audit timeline lacks %q", want)
		}
	}
	browsertest.Screenshot(t, ctx, "audit-timeline")

	err = chromedp.Do(ctx,
		chromedp.Click(`.tabs a:first-child`),
		chromedp.WaitVisible(`[data-testid="session-link"]`),
		chromedp.Click(`[data-testid="session-link"]`),
		chromedp.WaitVisible(`[data-testid="inspect-turn"]`),
		chromedp.Click(`[data-testid="inspect-turn"]`),
		chromedp.WaitVisible(`[data-testid="snapshot-instructions"]`),
	)
	if err != nil {
		t.Fatalf("inspect a turn: %v", err)
	}
	instr, _ := chromedp.Run(ctx, chromedp.Text(`[data-testid="snapshot-instructions"]`))
	for _, want := range []string{"<user_profile>", "<memories>", "GLOBAL:", "<memory_policy>"} {
		if !strings.Contains(instr, want) {
			t.Errorf("the instructions shown lack %q", want)
		}
	}
	if strings.Contains(instr, "UA-558-221-904") {
		t.Error("a private loyalty id is shown as sent to the model")
	}
	browsertest.Screenshot(t, ctx, "turn-inspector")

	err = chromedp.Do(ctx,
		chromedp.Navigate(e.srv.URL+"/console/health"),
		chromedp.WaitVisible(`[data-testid="chart-writes"]`),
	)
	if err != nil {
		t.Fatalf("health: %v", err)
	}
	browsertest.Screenshot(t, ctx, "health-dashboard")
}

// TestBrowserAdminExecutesErasure: a traveler asks to be erased; an admin
// executes the request from the queue and sees the receipt.
func TestBrowserAdminExecutesErasure(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tok := e.token("priya@example.com")
	if status, out := e.apiCall("POST", "/api/v1/users/me/erasure-request", tok, ""); status != http.StatusCreated {
		t.Fatalf("erasure request: %d %v", status, out)
	}
	ctx := browsertest.New(t, 60*time.Second)
	err := chromedp.Do(ctx,
		chromedp.Navigate(e.srv.URL+"/login?next=/console/erasure"),
		signIn("admin@example.com"),
		chromedp.WaitVisible(`[data-testid="erasure-request"]`),
	)
	if err != nil {
		t.Fatalf("open queue: %v", err)
	}
	pending, _ := chromedp.Run(ctx, chromedp.Text(`[data-testid="erasure-pending"]`))
	if !strings.Contains(pending, "Priya") {
		t.Errorf("pending requests: %q", pending)
	}
	err = chromedp.Do(ctx,
		chromedp.SetValue(`[data-testid="erasure-reason"]`, "data_subject_request"),
		chromedp.SendKeys(`[data-testid="erasure-ticket"]`, "DSR-2041"),
		chromedp.SendKeys(`[data-testid="erasure-confirm"]`, "erase"),
		chromedp.Click(`[data-testid="erasure-execute"]`),
		chromedp.WaitVisible(`[data-testid="erasure-error"]`),
	)
	if err != nil {
		t.Fatalf("wrong confirmation: %v", err)
	}
	// A wrong confirmation keeps what the admin chose.
	reason, err := chromedp.Run(ctx, chromedp.Value(`[data-testid="erasure-reason"]`))
	if err != nil {
		t.Fatal(err)
	}
	ticket, err := chromedp.Run(ctx, chromedp.Value(`[data-testid="erasure-ticket"]`))
	if err != nil {
		t.Fatal(err)
	}
	if reason != "data_subject_request" || ticket != "DSR-2041" {
		t.Errorf("after a wrong ERASE the form holds reason %q and ticket %q, want what the admin chose", reason, ticket)
	}
	browsertest.Screenshot(t, ctx, "erasure-wrong-confirm")
	err = chromedp.Do(ctx,
		chromedp.SendKeys(`[data-testid="erasure-confirm"]`, "ERASE"),
		chromedp.Click(`[data-testid="erasure-execute"]`),
		chromedp.WaitVisible(`[data-testid="erasure-receipt"].highlight`),
	)
	if err != nil {
		t.Fatalf("execute: %v", err)
	}
	receipt, _ := chromedp.Run(ctx, chromedp.Text(`[data-testid="erasure-receipt"].highlight`))
	for _, want := range []string{"users", "web_sessions", "Alex Admin", "Data-subject request", "DSR-2041"} {
		if !strings.Contains(receipt, want) {
			t.Errorf("receipt lacks %q: %s", want, receipt)
		}
	}
	if strings.Contains(receipt, "Priya") || strings.Contains(receipt, "priya@example.com") {
		t.Errorf("the receipt holds personal content: %s", receipt)
	}
	browsertest.Screenshot(t, ctx, "erasure-receipt")
	if _, err := e.store.UserByEmail(t.Context(), "priya@example.com"); err == nil {
		t.Error("Priya's account still exists")
	}
}
