package handlers_test

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// getWith fetches a page with an Accept-Language header through b's
// cookies and returns the parsed page.
func (b *browser) getWith(t *testing.T, path, acceptLanguage string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, b.e.srv.URL+path, nil)
	if acceptLanguage != "" {
		req.Header.Set("Accept-Language", acceptLanguage)
	}
	resp, err := b.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// TestPageLanguagePrecedence: the account's setting wins over the
// browser's Accept-Language, which wins over English; <html lang> says
// which, and the words follow. Staff see the traveler's choice on the
// customer page.
func TestPageLanguagePrecedence(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	anon := e.browser()
	for _, tt := range []struct{ accept, lang, word string }{
		{"", "en", "Sign in"},
		{"es-ES,es;q=0.9", "es", "Iniciar sesión"},
		{"ru-RU,ru;q=0.9,en;q=0.5", "ru", "Вход"},
		{"zh-CN,zh;q=0.9", "en", "Sign in"},
		{"de-DE, es;q=0.3", "es", "Iniciar sesión"},
	} {
		_, body := anon.getWith(t, "/login", tt.accept)
		doc := parseHTML(t, body)
		if got := doc.Find("html").AttrOr("lang", ""); got != tt.lang {
			t.Errorf("Accept-Language %q: <html lang=%q>, want %q", tt.accept, got, tt.lang)
		}
		if got := doc.Find("h1").Text(); got != tt.word {
			t.Errorf("Accept-Language %q: heading %q, want %q", tt.accept, got, tt.word)
		}
	}

	priya := e.browser()
	priya.login("priya@example.com", "demo")
	if _, body := priya.getWith(t, "/memory", "es"); !strings.Contains(body, `<html lang="es">`) || !strings.Contains(body, "Lo que Concierge recuerda") {
		t.Error("without a setting, the memory page does not follow Accept-Language: es")
	}
	_, _, csrf := priya.get("/account/tokens")
	resp := priya.post("/account/language", url.Values{"_csrf": {csrf}, "language": {"ru"}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/account/tokens?done=language" {
		t.Fatalf("choose Russian: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	_, body := priya.getWith(t, "/account/tokens?done=language", "es")
	doc := parseHTML(t, body)
	if got := doc.Find("html").AttrOr("lang", ""); got != "ru" {
		t.Errorf("with the setting ru and Accept-Language es: lang %q, want ru (the setting wins)", got)
	}
	if got := doc.Find(`[data-testid="flash"]`).Text(); got != "Язык сохранён." {
		t.Errorf("confirmation %q", got)
	}
	if got := doc.Find(`#language-choice option[selected]`).AttrOr("value", ""); got != "ru" {
		t.Errorf("the account page shows the choice %q, want ru", got)
	}
	if _, body := priya.getWith(t, "/chat", "es"); !strings.Contains(body, "Куда дальше?") {
		t.Error("the chat page is not in Russian after choosing it")
	}

	// Staff see it, in their own language.
	support := e.browser()
	support.login("support@example.com", "demo")
	_, body = support.getWith(t, "/console/customers/"+e.userID("priya@example.com"), "en-US")
	doc = parseHTML(t, body)
	if got := doc.Find("html").AttrOr("lang", ""); got != "en" {
		t.Errorf("support's page is in %q, want en: the customer's choice is not the viewer's", got)
	}
	if got := strings.TrimSpace(doc.Find(`[data-testid="customer-language"]`).Text()); got != "Language: Русский" {
		t.Errorf("customer page language = %q, want “Language: Русский”", got)
	}
	_, body = support.getWith(t, "/console/customers/"+e.userID("john@example.com"), "")
	if got := strings.TrimSpace(parseHTML(t, body).Find(`[data-testid="customer-language"]`).Text()); !strings.Contains(got, "browser") {
		t.Errorf("a traveler who chose nothing shows %q", got)
	}

	// Back to the browser's language; a language the pages are not in is refused.
	resp = priya.post("/account/language", url.Values{"_csrf": {csrf}, "language": {""}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("follow the browser: %d", resp.StatusCode)
	}
	if _, body := priya.getWith(t, "/memory", "es"); !strings.Contains(body, `<html lang="es">`) {
		t.Error("after choosing the browser's language, Accept-Language es is not followed")
	}
	if resp := priya.post("/account/language", url.Values{"_csrf": {csrf}, "language": {"fr"}}); resp.StatusCode != http.StatusUnprocessableEntity {
		t.Errorf("language fr: %d, want 422", resp.StatusCode)
	}
}
