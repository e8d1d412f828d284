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

// TestBrowserPagesThirdPass checks, in Chromium at a laptop's and a phone's
// size, what the third pass over the pages changed: a refused sign-in
// lands back on the form with the focus on the password and its error,
// and a reload sends nothing again; a traveler whose account was erased
// is told so on the sign-in page; the console preview says what it did
// when something is typed in its box; the health charts' labels are at
// least 11 px on screen. It saves screenshots of each.
func TestBrowserPagesThirdPass(t *testing.T) {
	t.Parallel()
	for _, size := range viewports {
		t.Run(size.name, func(t *testing.T) {
			f := newConsoleFixture(t)
			ctx := browsertest.New(t, 120*time.Second)
			emulate(t, ctx, size.width, size.height, size.phone)
			shot := func(name string) { browsertest.Screenshot(t, ctx, "pages3-"+name+"-"+size.name) }
			eval := func(js string) string {
				t.Helper()
				v, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
				if err != nil {
					t.Fatalf("evaluate %s: %v", js, err)
				}
				return v
			}

			// A wrong password: back on the form, by a redirect.
			err := chromedp.Do(ctx, chromedp.Navigate(f.e.srv.URL+"/login"), chromedp.WaitVisible(`[data-testid="login-form"]`),
				chromedp.SendKeys(`#email`, "john@example.com"), chromedp.SendKeys(`#password`, "wrong"),
				chromedp.Click(`[data-testid="login-form"] button`), chromedp.WaitVisible(`#password-error`), htmxReady())
			if err != nil {
				t.Fatalf("wrong password: %v", err)
			}
			if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.activeElement && document.activeElement.id === "password"`, chromedp.WithPollingTimeout(5*time.Second))); err != nil {
				t.Errorf("focus after a refused sign-in is on %q, want #password", eval(`document.activeElement.id || document.activeElement.tagName`))
			}
			if got := eval(`location.pathname + location.search`); got != "/login" {
				t.Errorf("after a refused sign-in the page is %s, want /login (a GET)", got)
			}
			if got := eval(`document.getElementById("email").value`); got != "john@example.com" {
				t.Errorf("email kept = %q", got)
			}
			shot("login-error")
			// A reload is a GET of the form: no error, so nothing was posted.
			if err := chromedp.Do(ctx, chromedp.Reload(), chromedp.WaitVisible(`[data-testid="login-form"]`)); err != nil {
				t.Fatal(err)
			}
			if got := eval(`String(document.querySelectorAll('[data-testid="login-error"]').length) + " " + performance.getEntriesByType("navigation")[0].type`); got != "0 reload" {
				t.Errorf("after a reload: %q, want no error on a reloaded page", got)
			}

			// Priya is signed in when an admin erases her account.
			email := "priya@example.com"
			if err := chromedp.Do(ctx, chromedp.Navigate(f.e.srv.URL+"/login?next=/memory"), signIn(email)); err != nil {
				t.Fatalf("sign in: %v", err)
			}
			if status, out := f.e.apiCall("POST", "/api/v1/users/"+f.e.userID(email)+"/erase", f.tokens["admin"], `{"reason":"data_subject_request","ticket":"DSR-3"}`); status != http.StatusOK {
				t.Fatalf("erase: %d %v", status, out)
			}
			if err := chromedp.Do(ctx, chromedp.Navigate(f.e.srv.URL+"/chat"), chromedp.WaitVisible(`[data-testid="login-notice"]`), htmxReady()); err != nil {
				t.Fatalf("the erased traveler's next page: %v", err)
			}
			if got := eval(`document.querySelector('[data-testid="login-notice"]').textContent`); !strings.Contains(got, "Your account has been erased") {
				t.Errorf("notice = %q", got)
			}
			if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.activeElement && document.activeElement.id === "login-notice"`, chromedp.WithPollingTimeout(5*time.Second))); err != nil {
				t.Errorf("focus after the erasure is on %q, want the notice", eval(`document.activeElement.id || document.activeElement.tagName`))
			}
			shot("signed-out-erased")

			// Support types an opening into the preview box.
			if err := chromedp.Do(ctx, chromedp.Navigate(f.e.srv.URL+"/login"), signIn("support@example.com"), chromedp.Navigate(f.e.srv.URL+"/console/customers/"+f.john.ID),
				chromedp.WaitVisible(`[data-testid="preview-message"]`), htmxReady()); err != nil {
				t.Fatalf("customer page: %v", err)
			}
			if err := chromedp.Do(ctx, chromedp.ScrollIntoView(`[data-testid="preview-message"]`), chromedp.SendKeys(`[data-testid="preview-message"]`, "Find me a hotel in Lyon")); err != nil {
				t.Fatal(err)
			}
			if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`(document.querySelector('[data-testid="preview-for"]')||{}).textContent.includes("Lyon")`, chromedp.WithPollingTimeout(10*time.Second))); err != nil {
				t.Fatalf("the preview never said it was made for the typed opening: %q", eval(`document.querySelector('[data-testid="preview-for"]').textContent`))
			}
			if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.getElementById("announce").textContent.includes("Lyon")`, chromedp.WithPollingTimeout(5*time.Second))); err != nil {
				t.Errorf("the live region did not say what the preview holds: %q", eval(`document.getElementById("announce").textContent`))
			}
			if got := eval(`document.activeElement.id`); got != "preview-message" {
				t.Errorf("typing in the preview box moved the focus to %q", got)
			}
			shot("preview-typed")

			// The health charts' axis labels, as drawn on screen.
			if err := chromedp.Do(ctx, chromedp.Navigate(f.e.srv.URL+"/console/health"), chromedp.WaitVisible(`.chart-svg`)); err != nil {
				t.Fatal(err)
			}
			smallest := eval(`String(Math.min(...[...document.querySelectorAll(".chart-svg .tick")].map(e => {
				const svg = e.ownerSVGElement, scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
				return parseFloat(getComputedStyle(e).fontSize) * scale;
			})))`)
			if px, err := strconv.ParseFloat(smallest, 64); err != nil || px < 11 {
				t.Errorf("the smallest chart axis label is %s px on screen, want at least 11", smallest)
			}
			t.Logf("%s: smallest chart label %s px", size.name, smallest)
			overflow := eval(`String([...document.querySelectorAll(".chart-svg .tick.y")].filter(e => e.getBBox().x < 0).length)`)
			if overflow != "0" {
				t.Errorf("%s y-axis labels are cut off at the chart's left edge", overflow)
			}
			shot("health")
		})
	}
}
