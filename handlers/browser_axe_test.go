package handlers_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"concierge/handlers/browsertest"
)

// axeState is one page state the accessibility check visits: a page as a
// role sees it, optionally after some clicks that change part of it.
type axeState struct {
	name, who, path, wait string
	then                  chromedp.Action[chromedp.Void] // optional: reach the state from the loaded page
}

// TestBrowserAxe runs axe-core (WCAG 2.2 A and AA rules) on every page
// state of the four demo accounts and the signed-out visitor, at a laptop's
// and a phone's size, and fails on any serious or critical violation.
func TestBrowserAxe(t *testing.T) {
	t.Parallel()
	f := newConsoleFixture(t)
	seedConversation(t, f.e)
	if status, out := f.e.apiCall("POST", "/api/v1/users/me/erasure-request", f.tokens["priya"], ""); status != http.StatusCreated {
		t.Fatalf("erasure request: %d %v", status, out)
	}
	closed := closedConversation(t, f.e)
	john, customer := "/chat/"+f.sessionID, "/console/customers/"+f.john.ID
	click := func(sel, wait string) chromedp.Action[chromedp.Void] {
		return chromedp.Steps(htmxReady(), chromedp.Click(sel), chromedp.WaitVisible(wait))
	}
	states := []axeState{
		{name: "login", who: "anon", path: "/login", wait: `[data-testid="login-form"]`},
		{name: "login-error", who: "anon", path: "/login", wait: `[data-testid="login-form"]`, then: chromedp.Steps(
			chromedp.SendKeys(`#email`, "nobody@example.com"), chromedp.SendKeys(`#password`, "wrong-password"),
			chromedp.Click(`[data-testid="login-form"] button`), chromedp.WaitVisible(`[data-testid="login-error"]`))},
		{name: "chat-index", who: "john", path: "/chat", wait: `[data-testid="chat-page"]`},
		{name: "chat-conversation", who: "john", path: john, wait: `[data-testid="transcript"]`},
		{name: "chat-rename", who: "john", path: john, wait: `[data-testid="transcript"]`,
			then: click(`[data-testid="rename-session"]`, `[data-testid="rename-form"]`)},
		{name: "chat-closed", who: "john", path: "/chat/" + closed, wait: `[data-testid="chat-page"]`},
		{name: "memory", who: "john", path: "/memory", wait: `[data-testid="memory-page"]`},
		{name: "memory-edit", who: "john", path: "/memory", wait: `[data-testid="memory-page"]`,
			then: click(`[data-testid="edit-note"]`, `[data-testid="edit-form"]`)},
		{name: "tokens-traveler", who: "john", path: "/account/tokens", wait: `[data-testid="tokens"]`},
		{name: "tokens-created", who: "john", path: "/account/tokens", wait: `[data-testid="tokens"]`, then: chromedp.Steps(htmxReady(),
			chromedp.SendKeys(`#token-label`, "backup script"), chromedp.Click(`[data-testid="token-create"]`), chromedp.WaitVisible(`#token-secret`))},
		{name: "chat-welcome", who: "priya", path: "/chat", wait: `[data-testid="chat-page"]`},
		{name: "memory-empty", who: "priya", path: "/memory", wait: `[data-testid="memory-page"]`},
		{name: "console-search", who: "support", path: "/console?q=john", wait: `[data-testid="customer-results"]`},
		{name: "customer", who: "support", path: customer, wait: `[data-testid="profile"]`},
		{name: "customer-note-edit", who: "support", path: customer, wait: `[data-testid="profile"]`,
			then: click(`[data-testid="note-edit"]`, `[data-testid="note-edit-form"]`)},
		{name: "session", who: "support", path: "/console/sessions/" + f.sessionID, wait: `[data-testid="transcript"]`},
		{name: "turn", who: "support", path: "/console/sessions/" + f.sessionID + "/turns/1", wait: `[data-testid="snapshot-instructions"]`},
		{name: "audit", who: "support", path: "/console/audit", wait: `[data-testid="audit-timeline"]`},
		{name: "customer-audit", who: "support", path: customer + "/audit", wait: `main`},
		{name: "consolidations", who: "support", path: customer + "/consolidations", wait: `main`},
		{name: "health", who: "support", path: "/console/health", wait: `[data-testid="health-stats"]`},
		{name: "tokens-staff", who: "support", path: "/account/tokens", wait: `[data-testid="tokens"]`},
		{name: "erasure", who: "admin", path: "/console/erasure", wait: `main`},
		{name: "accounts", who: "admin", path: "/console/accounts", wait: `[data-testid="accounts"]`},
		{name: "accounts-refused", who: "admin", path: "/console/accounts", wait: `[data-testid="accounts"]`, then: chromedp.Steps(
			chromedp.Click(`#account-`+f.john.ID+` details.account-more > summary`), chromedp.Click(`#account-`+f.john.ID+` [data-testid="account-disable"]`),
			chromedp.WaitVisible(`#dr-`+f.john.ID+`-error`))},
		{name: "erasure-refused", who: "admin", path: "/console/erasure", wait: `[data-testid="erasure-form"]`, then: chromedp.Steps(
			chromedp.SetValue(`[data-testid="erasure-reason"]`, "account_closure"), chromedp.SendKeys(`[data-testid="erasure-confirm"]`, "no"),
			chromedp.Click(`[data-testid="erasure-execute"]`), chromedp.WaitVisible(`[data-testid="erasure-error"]`))},
		{name: "customer-admin", who: "admin", path: customer, wait: `[data-testid="admin-actions"]`},
	}
	emails := map[string]string{"john": "john@example.com", "priya": "priya@example.com", "support": "support@example.com", "admin": "admin@example.com"}
	clean, total := 0, 0
	for _, vp := range viewports {
		t.Run(vp.name, func(t *testing.T) {
			ctx := browsertest.New(t, 3*time.Minute)
			emulate(t, ctx, vp.width, vp.height, vp.phone)
			signedIn := ""
			for _, st := range states {
				if st.who != signedIn {
					if _, err := chromedp.Call(ctx, network.ClearBrowserCookies, cdp.Empty{}); err != nil {
						t.Fatal(err)
					}
					if st.who != "anon" {
						if err := chromedp.Do(ctx, chromedp.Navigate(f.e.srv.URL+"/login"), signIn(emails[st.who])); err != nil {
							t.Fatalf("sign in as %s: %v", st.who, err)
						}
					}
					signedIn = st.who
				}
				err := chromedp.Do(ctx, chromedp.Navigate(f.e.srv.URL+st.path), chromedp.WaitVisible(st.wait))
				if err == nil && st.then != nil {
					err = chromedp.Do(ctx, st.then)
				}
				if err != nil {
					t.Errorf("%s: reach the state: %v", st.name, err)
					continue
				}
				browsertest.Screenshot(t, ctx, st.name+"-"+vp.name)
				vs, err := browsertest.Axe(ctx)
				if err != nil {
					t.Fatalf("%s: %v", st.name, err)
				}
				total++
				bad := browsertest.Serious(vs)
				if len(bad) == 0 {
					clean++
				}
				var lines []string
				for _, v := range bad {
					lines = append(lines, v.String())
				}
				if len(bad) > 0 {
					t.Errorf("%s as %s: %d serious or critical violations:\n  %s", st.name, st.who, len(bad), strings.Join(lines, "\n  "))
				}
				if minor := len(vs) - len(bad); minor > 0 {
					t.Logf("%s: %d minor or moderate violations: %v", st.name, minor, vs)
				}
			}
		})
	}
	t.Log(fmt.Sprintf("axe-core: %d of %d page states without a serious or critical violation", clean, total))
}
