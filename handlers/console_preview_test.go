package handlers_test

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"concierge/views/locale"
)

// TestPreviewIsWhatTheNextTurnIsSent checks that the console preview and
// the agent share one assembly: the preview for an opening message is, byte
// for byte, what the first turn of a new session with that message stores
// in its snapshot, and both report the same injected notes.
func TestPreviewIsWhatTheNextTurnIsSent(t *testing.T) {
	t.Parallel()
	f := newConsoleFixture(t)
	const opening = "Can you find me a hotel with a high floor room in Lyon?"
	status, body := f.page("support", http.MethodGet, "/console/customers/"+f.john.ID+"/preview?message="+url.QueryEscape(opening), nil)
	if status != http.StatusOK {
		t.Fatalf("preview: %d", status)
	}
	doc := parseHTML(t, body)
	preview := doc.Find(`[data-testid="preview-instructions"]`).Text()
	if !strings.Contains(preview, "<memories>") {
		t.Fatalf("preview fragment without instructions:\n%s", body)
	}

	_, out := f.e.apiCall("POST", "/api/v1/sessions", f.tokens["john"], "")
	sessionID := out["id"].(string)
	if status, out := f.e.apiCall("POST", "/api/v1/sessions/"+sessionID+"/messages", f.tokens["john"], `{"content":"`+opening+`"}`); status != http.StatusOK {
		t.Fatalf("post message: %d %v", status, out)
	}
	snaps, err := f.e.store.Snapshots(context.Background(), sessionID)
	if err != nil || len(snaps) == 0 {
		t.Fatalf("snapshots: %v, %d", err, len(snaps))
	}
	if snaps[0].Instructions != preview {
		t.Errorf("the preview differs from what the turn was sent\npreview:\n%s\nsnapshot:\n%s", preview, snaps[0].Instructions)
	}
	notes, tokens, ok := snaps[0].Injection()
	if !ok || len(notes) == 0 || tokens.Total() == 0 {
		t.Fatalf("snapshot structure = %+v %+v %v", notes, tokens, ok)
	}
	en := locale.For("en") // the page writes numbers as English does: 1,211
	if got := doc.Find(`[data-testid="preview-note-tokens"]`).Text(); got != en.Number(tokens.GlobalNotes) {
		t.Errorf("preview meter %s tokens, the snapshot recorded %d", got, tokens.GlobalNotes)
	}
	counts := doc.Find(`[data-testid="preview-counts"]`).Text()
	if !strings.Contains(counts, strconv.Itoa(len(notes))+" of ") || !strings.Contains(counts, en.Number(tokens.Total())+" tokens in all") {
		t.Errorf("preview counts %q, snapshot has %d notes and %d tokens", counts, len(notes), tokens.Total())
	}

	// The turn inspector shows the recorded structure.
	status, body = f.page("support", http.MethodGet, "/console/sessions/"+sessionID+"/turns/1", nil)
	if status != http.StatusOK {
		t.Fatalf("turn page: %d", status)
	}
	turn := parseHTML(t, body)
	round := turn.Find(`[data-testid="round"]`).First()
	if n := round.Find(`[data-testid="injected-note"]`).Length(); n != len(notes) {
		t.Errorf("turn inspector lists %d injected notes, the snapshot %d", n, len(notes))
	}
	for i, n := range notes {
		el := round.Find(`[data-testid="injected-note"]`).Eq(i)
		if id, _ := el.Attr("data-note-id"); id != n.ID {
			t.Errorf("injected note %d is %s, want %s", i, id, n.ID)
		}
	}
	if got := round.Find(`[data-testid="token-sections"] li[data-section="policy"] strong`).Text(); got != strconv.Itoa(tokens.Policy) {
		t.Errorf("policy tokens shown %q, recorded %d", got, tokens.Policy)
	}
}

// TestPreviewFollowsItsInputs covers the two preview bugs of issue #14: it
// names the model that really answers, and its meter follows changes
// without a reload (the body refreshes on notes-changed, which note edits
// announce, and on the opening message typed above it).
func TestPreviewFollowsItsInputs(t *testing.T) {
	t.Parallel()
	f := newConsoleFixture(t)
	customer := "/console/customers/" + f.john.ID
	_, body := f.page("support", http.MethodGet, customer, nil)
	doc := parseHTML(t, body)
	if got := doc.Find(`[data-testid="preview-model"]`).Text(); !strings.Contains(got, "offline") || strings.Contains(got, "gpt-4o-mini") {
		t.Errorf("preview names %q, want the offline model", got)
	}
	bodyEl := doc.Find(`[data-testid="preview-body"]`)
	if get, _ := bodyEl.Attr("hx-get"); get != customer+"/preview" {
		t.Errorf("preview body refreshes from %q", get)
	}
	if trig, _ := bodyEl.Attr("hx-trigger"); !strings.Contains(trig, "notes-changed from:body") {
		t.Errorf("preview body trigger %q does not follow note changes", trig)
	}
	if trig, _ := doc.Find(`[data-testid="preview-message"]`).Attr("hx-trigger"); !strings.Contains(trig, "input changed") {
		t.Errorf("the opening message does not refresh the preview: %q", trig)
	}
	before := doc.Find(`[data-testid="preview-counts"]`).Text()

	// Editing a note in place announces the change to the page.
	b := f.pages["support"]
	_, _, csrf := b.get(customer)
	req, _ := http.NewRequest(http.MethodPost, f.e.srv.URL+customer+"/notes/"+f.johnNote+"/delete",
		strings.NewReader(url.Values{"_csrf": {csrf}, "reason": {"asked by the traveler"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("HX-Request", "true")
	resp, err := b.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("HX-Trigger") != "notes-changed" {
		t.Fatalf("delete: %d, HX-Trigger %q", resp.StatusCode, resp.Header.Get("HX-Trigger"))
	}
	_, body = f.page("support", http.MethodGet, customer+"/preview", nil)
	after := parseHTML(t, body).Find(`[data-testid="preview-counts"]`).Text()
	if after == before {
		t.Errorf("the refreshed preview still says %q after a note was deleted", after)
	}
	// Typing in the box answers with what the preview was made for, the
	// notes that go in, and an announcement that leaves the focus alone.
	req, _ = http.NewRequest(http.MethodGet, f.e.srv.URL+customer+"/preview?message="+url.QueryEscape("Find me a hotel in Lyon"), nil)
	req.Header.Set("HX-Request", "true")
	req.Header.Set("HX-Trigger", "preview-message")
	resp, err = b.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	typed, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	pdoc := parseHTML(t, string(typed))
	if got := pdoc.Find(`[data-testid="preview-for"]`).Text(); !strings.Contains(got, "“Find me a hotel in Lyon”") || !strings.Contains(got, "global notes go in") {
		t.Errorf("the typed preview says %q, want what it was made for", strings.Join(strings.Fields(got), " "))
	}
	if n := pdoc.Find(`[data-testid="preview-notes"] li`).Length(); n == 0 {
		t.Error("the typed preview lists no note that goes in")
	}
	if h := resp.Header.Get("HX-Trigger-After-Settle"); !strings.Contains(h, "concierge:announce") || !strings.Contains(h, `"focus":""`) || !strings.Contains(h, "Lyon") {
		t.Errorf("announcement after typing = %q", h)
	}
	if status, _ := f.page("john", http.MethodGet, customer+"/preview", nil); status == http.StatusOK {
		t.Errorf("a traveler can read the console preview")
	}
}
