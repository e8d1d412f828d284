package handlers_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"concierge/handlers/browsertest"
)

// TestBrowserLogin signs in through the real login form in Chromium.
func TestBrowserLogin(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := browsertest.New(t, 60*time.Second)
	err := chromedp.Do(ctx,
		chromedp.Navigate(e.srv.URL+"/login"),
		chromedp.WaitVisible(`[data-testid="login-form"]`),
		chromedp.SendKeys(`#email`, "support@example.com"),
		chromedp.SendKeys(`#password`, "wrong"),
		chromedp.Click(`[data-testid="login-form"] button`),
		chromedp.WaitVisible(`[data-testid="login-error"]`),
	)
	if err != nil {
		t.Fatalf("wrong password: %v", err)
	}
	browsertest.Screenshot(t, ctx, "login-error")
	err = chromedp.Do(ctx,
		// The page came back with the email kept and the password empty.
		chromedp.SendKeys(`#password`, "demo"),
		chromedp.Click(`[data-testid="login-form"] button`),
		chromedp.WaitVisible(`[data-testid="viewer"]`),
	)
	if err != nil {
		t.Fatalf("sign in: %v", err)
	}
	who, err := chromedp.Run(ctx, chromedp.Text(`[data-testid="viewer"]`))
	if err != nil || !strings.Contains(who, "Sam Support") {
		t.Errorf("signed in as %q (%v), want Sam Support", who, err)
	}
	url, _ := chromedp.Run(ctx, chromedp.Location())
	if !strings.HasSuffix(url, "/console") {
		t.Errorf("support landed on %s, want /console", url)
	}
}
