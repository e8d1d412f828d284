package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"concierge/handlers/browsertest"
)

// keyboard drives a page with keys only and checks where the focus is.
type keyboard struct {
	t   *testing.T
	ctx context.Context
}

// activeMatches is true when the focused element matches sel.
func (k keyboard) activeMatches(sel string) bool {
	ok, err := chromedp.Run(k.ctx, chromedp.Evaluate[bool](fmt.Sprintf(`!!document.activeElement && document.activeElement.matches(%q)`, sel)))
	return err == nil && ok
}

// focusAt waits until the element matching sel has the focus.
func (k keyboard) focusAt(step, sel string) {
	k.t.Helper()
	deadline := time.Now().Add(8 * time.Second)
	for time.Now().Before(deadline) {
		if k.activeMatches(sel) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	now, _ := chromedp.Run(k.ctx, chromedp.Evaluate[string](focused+` + " | announce: " + document.getElementById("announce").outerHTML`))
	k.t.Fatalf("%s: the focus is on %q, want %s", step, now, sel)
}

// tabTo presses Tab (Shift+Tab when back) until sel has the focus, at most
// max times, and fails when it never does: the control is not reachable.
func (k keyboard) tabTo(sel string, back bool, max int) int {
	k.t.Helper()
	var path []string
	var opts []chromedp.KeyOption
	if back {
		opts = append(opts, chromedp.KeyModifiers(chromedp.ModifierShift))
	}
	for i := 1; i <= max; i++ {
		if err := chromedp.Do(k.ctx, chromedp.KeyEvent(kb.Tab, opts...)); err != nil {
			k.t.Fatal(err)
		}
		if k.activeMatches(sel) {
			return i
		}
		now, _ := chromedp.Run(k.ctx, chromedp.Evaluate[string](focused))
		path = append(path, now)
	}
	k.t.Fatalf("%s is not reached within %d presses of Tab: %s", sel, max, strings.Join(path, " → "))
	return 0
}

func (k keyboard) keys(s string) {
	k.t.Helper()
	if err := chromedp.Do(k.ctx, chromedp.KeyEvent(s)); err != nil {
		k.t.Fatal(err)
	}
}

// said waits until the live region says something containing want.
func (k keyboard) said(step, want string) {
	k.t.Helper()
	_, err := chromedp.Run(k.ctx, chromedp.Poll[bool](fmt.Sprintf(`document.getElementById("announce").textContent.includes(%q)`, want),
		chromedp.WithPollingTimeout(8*time.Second)))
	if err != nil {
		got, _ := chromedp.Run(k.ctx, chromedp.Evaluate[string](`document.getElementById("announce").textContent`))
		k.t.Errorf("%s: the live region says %q, want %q", step, got, want)
	}
}

func (k keyboard) ready() {
	k.t.Helper()
	if err := chromedp.Do(k.ctx, chromedp.WaitReady(`body`), htmxReady()); err != nil {
		k.t.Fatal(err)
	}
}

// TestBrowserKeyboardTraveler walks the traveler's journey with the
// keyboard alone — sign in, send, Undo, rename, end, start a new
// conversation — and checks where the focus is after every step.
func TestBrowserKeyboardTraveler(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := browsertest.New(t, 90*time.Second)
	k := keyboard{t, ctx}
	if err := chromedp.Do(ctx, chromedp.Navigate(e.srv.URL+"/login"), chromedp.WaitVisible(`[data-testid="login-form"]`)); err != nil {
		t.Fatal(err)
	}
	k.focusAt("sign-in page", "#email")
	k.keys("priya@example.com")
	k.keys(kb.Tab)
	k.keys("demo" + kb.Enter)
	if err := chromedp.Do(ctx, chromedp.WaitVisible(`[data-testid="chat-welcome"]`)); err != nil {
		t.Fatal(err)
	}
	k.ready()
	k.tabTo(`[data-testid="start-session"]`, false, 15)
	k.keys(kb.Enter)
	if err := chromedp.Do(ctx, chromedp.WaitVisible(`[data-testid="composer"]`)); err != nil {
		t.Fatal(err)
	}
	k.ready()
	k.focusAt("new conversation", "#message")

	// The conversation's actions come first after the skip link.
	if err := chromedp.Do(ctx, chromedp.Focus(`.skip`)); err != nil {
		t.Fatal(err)
	}
	if n := k.tabTo(`#rename-session`, false, 12); n > 5 {
		t.Errorf("Rename is the %dth stop from the top of the page; the conversation's actions should come right after the header", n)
	}
	if err := chromedp.Do(ctx, chromedp.Focus(`#message`)); err != nil {
		t.Fatal(err)
	}

	// Send: the box keeps the focus.
	k.keys("Remember that I am vegetarian" + kb.Enter)
	if err := chromedp.Do(ctx, chromedp.WaitVisible(`[data-testid="chip-undo"]`),
		chromedp.Poll[chromedp.Void](`document.querySelector('[data-testid="streaming"]') === null`)); err != nil {
		t.Fatal(err)
	}
	k.focusAt("send", "#message")

	// Undo: back from the box to the chip's Undo; the focus goes to the chip.
	// The chip comes with the stream's last event; Enter before htmx has
	// taken its Undo button would press a button that does nothing yet.
	if err := chromedp.Do(ctx, htmxProcessed(`[data-testid="chip-undo"]`)); err != nil {
		t.Fatal(err)
	}
	k.tabTo(`[data-testid="chip-undo"]`, true, 10)
	k.keys(kb.Enter)
	k.focusAt("Undo", `[id^="chip-"]`)
	k.said("Undo", "will not be remembered")

	// Rename: the form takes the focus, saving gives it back to Rename.
	k.tabTo(`#rename-session`, true, 30)
	k.keys(kb.Enter)
	k.focusAt("Rename opened", `[data-testid="rename-input"]`)
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`document.activeElement.select()`)); err != nil {
		t.Fatal(err)
	}
	k.keys("Lisbon food" + kb.Enter)
	k.focusAt("Rename saved", `#rename-session`)
	k.said("Rename", "Lisbon food")

	// End: the focus goes to the outcome, and the next Tab reaches
	// "Start a new conversation".
	k.tabTo(`[data-testid="end-session"]`, false, 10)
	k.keys(kb.Enter)
	k.focusAt("End", `#outcome-working, #outcome-title`)
	if err := chromedp.Do(ctx, chromedp.WaitVisible(`#outcome-title`)); err != nil {
		t.Fatal(err)
	}
	k.focusAt("End finished", `#outcome-title`)
	k.said("End", "Conversation ended")
	k.tabTo(`[data-testid="new-session-after"]`, false, 1)

	// Start a new conversation: the new page's message box has the focus.
	from, _ := chromedp.Run(ctx, chromedp.Location())
	k.keys(kb.Enter)
	waitNewPage(t, ctx, from)
	k.focusAt("start a new conversation", "#message")
}

// TestBrowserKeyboardAdmin: an admin disables an account (first without a
// reason, then with one), enables it again and executes an erasure, with
// the keyboard alone, checking the focus after every step; no step's page
// answers a reload by sending the form again.
func TestBrowserKeyboardAdmin(t *testing.T) {
	t.Parallel()
	f := newConsoleFixture(t)
	if status, out := f.e.apiCall("POST", "/api/v1/users/me/erasure-request", f.tokens["priya"], ""); status != http.StatusCreated {
		t.Fatalf("erasure request: %d %v", status, out)
	}
	ctx := browsertest.New(t, 90*time.Second)
	k := keyboard{t, ctx}
	if err := chromedp.Do(ctx, chromedp.Navigate(f.e.srv.URL+"/login?next=/console/accounts"), signIn("admin@example.com"),
		chromedp.WaitVisible(`[data-testid="accounts"]`)); err != nil {
		t.Fatal(err)
	}
	k.ready()
	id := f.john.ID
	row := `#account-` + id
	openMore := func() {
		t.Helper()
		k.tabTo(row+` details.account-more > summary`, false, 80)
		if open, _ := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector(`+fmt.Sprintf("%q", row+" details.account-more")+`).open`)); !open {
			k.keys(kb.Enter)
		}
	}
	notResubmitted := func(step string) {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.Reload(), chromedp.WaitReady(`body`)); err != nil {
			t.Fatalf("%s: reload: %v", step, err)
		}
		if url, _ := chromedp.Run(ctx, chromedp.Location()); strings.Contains(url, "/disable") || strings.Contains(url, "/enable") || strings.Contains(url, "/execute") {
			t.Errorf("%s: the page after the form is %s, which a reload sends again", step, url)
		}
		k.ready()
	}

	// Disable without a reason: the error is at the disable form's reason,
	// which has the focus, and the form stays open.
	openMore()
	k.tabTo(`#dr-`+id, false, 5)
	k.keys(kb.Enter)
	if err := chromedp.Do(ctx, chromedp.WaitVisible(`#dr-`+id+`-error`)); err != nil {
		t.Fatalf("disable without a reason: %v", err)
	}
	k.ready()
	k.focusAt("disable without a reason", `#dr-`+id)
	if got := text(t, ctx, `#dr-`+id+`-error`); !strings.Contains(got, "reason") {
		t.Errorf("disable without a reason says %q", got)
	}
	k.keys("Left the company" + kb.Enter)
	if err := chromedp.Do(ctx, chromedp.WaitVisible(row+` [data-testid="account-disabled"]`)); err != nil {
		t.Fatal(err)
	}
	k.ready()
	k.focusAt("disable", row)
	k.said("disable", "Account disabled")
	notResubmitted("disable")
	if u, _ := f.e.store.UserByID(t.Context(), id); u.DisabledAt == nil {
		t.Fatal("the account is not disabled")
	}

	// Enable again.
	openMore()
	k.tabTo(`#dr-`+id, false, 5)
	k.keys("Came back" + kb.Enter)
	if err := chromedp.Do(ctx, chromedp.WaitVisible(`[data-testid="flash"]`), chromedp.WaitNotPresent(row+` [data-testid="account-disabled"]`)); err != nil {
		t.Fatal(err)
	}
	k.ready()
	k.focusAt("enable", row)
	k.said("enable", "enabled again")
	if u, _ := f.e.store.UserByID(t.Context(), id); u.DisabledAt != nil {
		t.Fatal("the account is still disabled")
	}

	// Erase Priya: a wrong confirmation first, then the real one.
	if err := chromedp.Do(ctx, chromedp.Navigate(f.e.srv.URL+"/console/erasure"), chromedp.WaitVisible(`[data-testid="erasure-form"]`)); err != nil {
		t.Fatal(err)
	}
	k.ready()
	k.tabTo(`[data-testid="erasure-reason"]`, false, 30)
	k.keys(kb.ArrowDown) // the first reason of the list
	k.keys(kb.Tab)
	k.keys("DSR-7")
	k.keys(kb.Tab)
	k.keys("erase" + kb.Enter)
	if err := chromedp.Do(ctx, chromedp.WaitVisible(`[data-testid="erasure-error"]`)); err != nil {
		t.Fatal(err)
	}
	k.ready()
	k.focusAt("wrong confirmation", `[data-testid="erasure-confirm"]`)
	if v, _ := chromedp.Run(ctx, chromedp.Value(`[data-testid="erasure-ticket"]`)); v != "DSR-7" {
		t.Errorf("after a wrong confirmation the ticket is %q, want what the admin typed", v)
	}
	k.keys("ERASE" + kb.Enter)
	if err := chromedp.Do(ctx, chromedp.WaitVisible(`[data-testid="erasure-receipt"]`)); err != nil {
		t.Fatal(err)
	}
	k.ready()
	k.focusAt("erase", `[data-testid="erasure-receipt"]`)
	k.said("erase", "Erasure done")
	notResubmitted("erase")
	if _, err := f.e.store.UserByID(t.Context(), f.priya.ID); err == nil {
		t.Error("Priya's account is still there")
	}
}
