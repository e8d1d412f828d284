package handlers_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"concierge/models"
)

// TestMemoryPage walks through "What Concierge remembers": the profile
// without identifiers, the notes with date and source, deleting one and all,
// the export and the erasure request.
func TestMemoryPage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	john := e.signIn("john@example.com")
	johnID := e.userID("john@example.com")
	ctx := context.Background()

	status, body, _ := john.get("/memory")
	if status != http.StatusOK {
		t.Fatalf("GET /memory = %d", status)
	}
	doc := parseHTML(t, body)
	profile := doc.Find(`[data-testid="profile"]`).Text()
	for _, want := range []string{"San Francisco", "Aisle", "United MileagePlus Gold", "Marriott Bonvoy Titanium Elite", "14 Aug 2031", "contact support"} {
		if !strings.Contains(profile, want) {
			t.Errorf("profile lacks %q", want)
		}
	}
	for _, id := range []string{"CUST-10042", "UA-558-221-904", "MB-7781-2290"} {
		if strings.Contains(body, id) {
			t.Errorf("the page shows the identifier %s", id)
		}
	}
	notes := doc.Find(`[data-testid="note"]`)
	if notes.Length() != 5 {
		t.Fatalf("%d notes shown, want John's 5", notes.Length())
	}
	if first := notes.First().Text(); !strings.Contains(first, "Prefers rooms on high floors.") || !strings.Contains(first, "27 May 2025") ||
		!strings.Contains(first, "From your account set-up") {
		t.Errorf("newest note row %q, want its text, date and source", first)
	}
	if c, _ := notes.First().Find("form").Attr("hx-confirm"); c == "" {
		t.Error("deleting a note is not confirmed")
	}

	id, _ := notes.First().Attr("data-note-id")
	resp, frag := john.hx("POST", "/memory/notes/"+id+"/delete", nil)
	if resp.StatusCode != http.StatusOK || parseHTML(t, frag).Find(`[data-testid="note"]`).Length() != 4 {
		t.Fatalf("delete one: %d, want the list with 4 notes", resp.StatusCode)
	}
	if _, err := e.store.NoteByID(ctx, johnID, id); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("deleted note still stored: %v", err)
	}
	if resp, _ := john.hx("POST", "/memory/notes/"+id+"/delete", nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("deleting it again = %d, want 404", resp.StatusCode)
	}
	priya := e.signIn("priya@example.com")
	second, _ := notes.Eq(1).Attr("data-note-id")
	if resp, _ := priya.hx("POST", "/memory/notes/"+second+"/delete", nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("another traveler deleting John's note = %d, want 404", resp.StatusCode)
	}

	resp, frag = john.hx("POST", "/memory/notes/delete-all", nil)
	if resp.StatusCode != http.StatusOK || parseHTML(t, frag).Find(`[data-testid="notes-empty"]`).Length() != 1 {
		t.Fatalf("delete all: %d %s", resp.StatusCode, frag)
	}
	if left, _ := e.store.GlobalNoteRows(ctx, johnID, true); len(left) != 0 {
		t.Errorf("%d global notes left after delete all", len(left))
	}

	exp, err := john.client.Get(e.srv.URL + "/memory/export")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(exp.Body)
	exp.Body.Close()
	var data models.Export
	if err := json.Unmarshal(raw, &data); err != nil || data.User.Email != "john@example.com" {
		t.Errorf("export: %v, user %q", err, data.User.Email)
	}
	if cd := exp.Header.Get("Content-Disposition"); !strings.HasPrefix(cd, "attachment;") || !strings.Contains(cd, ".json") {
		t.Errorf("export Content-Disposition %q, want a JSON attachment", cd)
	}

	resp, frag = john.hx("POST", "/memory/erasure", nil)
	if resp.StatusCode != http.StatusOK || parseHTML(t, frag).Find(`[data-testid="erasure-status"]`).Length() != 1 {
		t.Fatalf("erasure request: %d %s", resp.StatusCode, frag)
	}
	r, err := e.store.PendingErasureRequest(ctx, johnID)
	if err != nil || r.RequestedBy != "traveler" {
		t.Fatalf("pending request %+v, %v", r, err)
	}
	john.hx("POST", "/memory/erasure", nil)
	var n int64
	e.store.DB().Model(&models.ErasureRequest{}).Where("user_id = ?", johnID).Count(&n)
	if n != 1 {
		t.Errorf("%d erasure requests after asking twice, want 1", n)
	}
	_, body, _ = john.get("/memory")
	if parseHTML(t, body).Find(`[data-testid="request-erasure"]`).Length() != 0 {
		t.Error("the page still offers to request erasure")
	}
}
