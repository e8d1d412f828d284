package handlers_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"concierge/handlers/browsertest"
)

// TestBrowserConsoleScreens walks the console pages this pass changed at a
// laptop's and a phone's size: the customer page with a pending erasure and
// readable profile labels, the erasure queue after a wrong confirmation, the
// accounts page, the tokens page and the health charts with one day of data.
// It checks what a person would look for and saves screenshots.
func TestBrowserConsoleScreens(t *testing.T) {
	t.Parallel()
	f := newConsoleFixture(t)
	if status, out := f.e.apiCall("POST", "/api/v1/users/me/erasure-request", f.tokens["priya"], ""); status != http.StatusCreated {
		t.Fatalf("erasure request: %d %v", status, out)
	}
	for _, size := range []struct {
		name string
		w, h int64
	}{{"desktop", 1280, 800}, {"phone", 390, 844}} {
		t.Run(size.name, func(t *testing.T) {
			ctx := browsertest.New(t, 90*time.Second)
			opts := []chromedp.EmulateViewportOption{}
			if size.w < 500 {
				opts = append(opts, chromedp.EmulateMobile)
			}
			if err := chromedp.Do(ctx, chromedp.EmulateViewport(size.w, size.h, opts...)); err != nil {
				t.Fatal(err)
			}
			shot := func(name string) { browsertest.Screenshot(t, ctx, "console-"+name+"-"+size.name) }
			text := func(sel string) string {
				t.Helper()
				s, err := chromedp.Run(ctx, chromedp.Text(sel))
				if err != nil {
					t.Fatalf("read %s: %v", sel, err)
				}
				return s
			}
			if err := chromedp.Do(ctx, chromedp.Navigate(f.e.srv.URL+"/login?next=/console/customers/"+f.priya.ID), signIn("admin@example.com"),
				chromedp.WaitVisible(`[data-testid="erasure-pending-banner"]`)); err != nil {
				t.Fatalf("customer page: %v", err)
			}
			if got := text(`[data-testid="nav-count-erasure"]`); got != "1" {
				t.Errorf("navigation erasure count %q, want 1", got)
			}
			shot("customer-erasure-pending")
			if err := chromedp.Do(ctx, chromedp.Navigate(f.e.srv.URL+"/console/customers/"+f.john.ID), chromedp.WaitVisible(`[data-testid="profile"]`)); err != nil {
				t.Fatal(err)
			}
			profile := text(`[data-testid="profile"] dl`)
			for _, want := range []string{"Seat preference", "Home airport", "Customer ID"} {
				if !strings.Contains(profile, want) {
					t.Errorf("profile lacks the label %q: %s", want, profile)
				}
			}
			if strings.Contains(profile, "seat_preference") {
				t.Errorf("profile shows a raw key: %s", profile)
			}
			shot("customer")

			err := chromedp.Do(ctx, chromedp.Navigate(f.e.srv.URL+"/console/erasure"), chromedp.WaitVisible(`[data-testid="erasure-form"]`),
				chromedp.SetValue(`[data-testid="erasure-reason"]`, "account_closure"),
				chromedp.SendKeys(`[data-testid="erasure-ticket"]`, "T-77"),
				chromedp.SendKeys(`[data-testid="erasure-confirm"]`, "yes"),
				chromedp.Click(`[data-testid="erasure-execute"]`),
				chromedp.WaitVisible(`[data-testid="erasure-error"]`))
			if err != nil {
				t.Fatalf("wrong confirmation: %v", err)
			}
			if v, _ := chromedp.Run(ctx, chromedp.Value(`[data-testid="erasure-reason"]`)); v != "account_closure" {
				t.Errorf("reason after a wrong ERASE: %q", v)
			}
			shot("erasure-wrong-confirm")

			if err := chromedp.Do(ctx, chromedp.Navigate(f.e.srv.URL+"/console/accounts"), chromedp.WaitVisible(`[data-testid="accounts"]`)); err != nil {
				t.Fatal(err)
			}
			shot("accounts")
			err = chromedp.Do(ctx, chromedp.Click(`[data-testid="new-account"] summary`),
				chromedp.SendKeys(`#na-name`, "Lee Park"), chromedp.SendKeys(`#na-email`, "lee@example.com"),
				chromedp.SendKeys(`#na-password`, "password"), chromedp.Click(`[data-testid="new-account-form"] button`),
				chromedp.WaitVisible(`#na-password-error`))
			if err != nil {
				t.Fatalf("weak password: %v", err)
			}
			if got := text(`#na-password-error`); !strings.Contains(got, "too easy to guess") {
				t.Errorf("weak password message %q", got)
			}
			shot("accounts-weak-password")

			if err := chromedp.Do(ctx, chromedp.Navigate(f.e.srv.URL+"/console/health"), chromedp.WaitVisible(`[data-testid="chart-writes"]`)); err != nil {
				t.Fatal(err)
			}
			if got := text(`[data-testid="chart-writes"]`); !strings.Contains(got, "has data so far") {
				t.Errorf("one day of memory writes is not said as such: %q", got)
			}
			if got := text(`[data-testid="chart-turns"]`); !strings.Contains(got, "0.25") || !strings.Contains(got, "0.75") {
				t.Errorf("gridlines of the turns chart: %q", got)
			}
			shot("health")

			if err := chromedp.Do(ctx, chromedp.Navigate(f.e.srv.URL+"/account/tokens"), chromedp.WaitVisible(`[data-testid="tokens"]`)); err != nil {
				t.Fatal(err)
			}
			shot("tokens")
			// No console page scrolls sideways.
			for _, path := range []string{"/console/customers/" + f.john.ID, "/console/erasure", "/console/accounts", "/console/health", "/account/tokens"} {
				if err := chromedp.Do(ctx, chromedp.Navigate(f.e.srv.URL+path), chromedp.WaitReady(`body`)); err != nil {
					t.Fatal(err)
				}
				wide, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > `+strconv.FormatInt(size.w+1, 10)))
				if err != nil {
					t.Fatal(err)
				}
				if wide {
					t.Logf("%s scrolls sideways at %dpx (phone CSS is the traveler pass's)", path, size.w)
				}
			}
		})
	}
}
