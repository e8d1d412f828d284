package handlers_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestNoteSourceAfterStaffEditAndDeletedAudit: a note the assistant saved
// from a conversation says "staff" as its source once support rewrites it,
// and the memory page says it was edited by support beside the
// conversation it came from. Once the note is deleted, the customer's
// audit trail says its text was removed, in words, and never shows the
// placeholder "(deleted note)".
func TestNoteSourceAfterStaffEditAndDeletedAudit(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	john, support := e.token("john@example.com"), e.token("support@example.com")
	id := e.userID("john@example.com")
	converse(t, e, john, "I'm allergic to peanuts.")
	status, mem := e.apiCall("GET", "/api/v1/users/"+id+"/memory", support, "")
	if status != http.StatusOK {
		t.Fatalf("memory: %d %v", status, mem)
	}
	var noteID, source string
	for _, n := range mem["global_notes"].([]any) {
		n := n.(map[string]any)
		if strings.Contains(strings.ToLower(n["text"].(string)), "peanut") {
			noteID, source = n["id"].(string), n["source"].(string)
		}
	}
	if noteID == "" {
		t.Fatalf("no peanut note in %v", mem["global_notes"])
	}
	if source == "staff" {
		t.Fatalf("the note starts as staff's (%q): the test would prove nothing", source)
	}
	status, out := e.apiCall("PATCH", "/api/v1/users/"+id+"/notes/"+noteID, support, `{"text":"Severe peanut allergy: no peanuts at all.","reason":"traveler called to clarify"}`)
	if status != http.StatusOK {
		t.Fatalf("edit: %d %v", status, out)
	}
	_, mem = e.apiCall("GET", "/api/v1/users/"+id+"/memory", support, "")
	for _, n := range mem["global_notes"].([]any) {
		if n := n.(map[string]any); n["id"] == noteID && n["source"] != "staff" {
			t.Errorf("source after a staff edit = %v, want staff", n["source"])
		}
	}
	b := e.browser()
	b.login("john@example.com", "demo")
	_, page, _ := b.get("/memory")
	row := parseHTML(t, page).Find(`[data-note-id="` + noteID + `"] [data-testid="note-source"]`).Text()
	if !strings.Contains(row, "From your conversation") || !strings.Contains(row, "edited by support") {
		t.Errorf("the memory page's source line = %q, want the conversation and “edited by support”", strings.Join(strings.Fields(row), " "))
	}

	if status, out := e.apiCall("DELETE", "/api/v1/users/"+id+"/notes/"+noteID, support, `{"reason":"asked to forget"}`); status != http.StatusOK && status != http.StatusNoContent {
		t.Fatalf("delete: %d %v", status, out)
	}
	s := e.browser()
	s.login("support@example.com", "demo")
	_, audit, _ := s.get("/console/customers/" + id + "/audit")
	if strings.Contains(audit, "(deleted note)") {
		t.Error("the audit trail shows the placeholder “(deleted note)”")
	}
	doc := parseHTML(t, audit)
	if n := doc.Find(`[data-testid="audit-redacted"]`).Length(); n == 0 {
		t.Error("no audit entry says its note's text was removed")
	}
	if got := doc.Find(`[data-testid="audit-event"][data-action="note.delete"] [data-testid="audit-reason"]`).Text(); got != "asked to forget" {
		t.Errorf("the deletion's own reason = %q, want it kept", got)
	}
}
