package handlers_test

import (
	"context"
	"encoding/csv"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"concierge/memory"
	"concierge/models"
)

// TestErasureDueDatesAndReceiptsCSV: a request older than its due date is
// shown overdue; the receipts CSV an auditor downloads holds ids, dates,
// codes, tickets and counts, and no name, e-mail or note text.
func TestErasureDueDatesAndReceiptsCSV(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	priya, err := e.store.UserByEmail(ctx, "priya@example.com")
	if err != nil {
		t.Fatal(err)
	}
	const noteText = "Is allergic to kiwi fruit."
	if _, err := e.store.Notes(memory.Limits{}).Add(ctx, models.NewNote{UserID: priya.ID, Kind: models.KindGlobal,
		Note: memory.Note{Text: noteText, Keywords: []string{"allergy"}, Source: memory.SourceStaff}}, models.Actor{Kind: models.ActorSystem}, "test"); err != nil {
		t.Fatal(err)
	}
	if err := e.store.RecordBlockedWrite(ctx, priya.ID, "", "", memory.CategoryPhone); err != nil {
		t.Fatal(err)
	}
	if status, out := e.apiCall("POST", "/api/v1/users/me/erasure-request", e.token("priya@example.com"), ""); status != http.StatusCreated {
		t.Fatalf("erasure request: %d %v", status, out)
	}
	// The request was made 31 days ago: past the default month.
	if err := e.store.DB().Model(&models.ErasureRequest{}).Where("user_id = ?", priya.ID).
		Update("created_at", time.Now().UTC().Add(-31*24*time.Hour)).Error; err != nil {
		t.Fatal(err)
	}

	b := e.browser()
	b.login("admin@example.com", "demo")
	status, page, _ := b.get("/console/erasure")
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(page))
	if status != http.StatusOK || err != nil {
		t.Fatalf("erasure page: %d %v", status, err)
	}
	row := doc.Find(`[data-testid="erasure-request"]`)
	if row.Length() != 1 || row.AttrOr("data-urgency", "") != models.ErasureOverdue || !row.HasClass("overdue") ||
		!strings.Contains(row.Find(`[data-testid="erasure-due"]`).Text(), "overdue") {
		html, _ := goquery.OuterHtml(row)
		t.Errorf("pending request not shown overdue: %s", html)
	}
	admin := e.token("admin@example.com")
	_, out := e.apiCall("GET", "/api/v1/erasure-requests", admin, "")
	reqs, _ := out["requests"].([]any)
	if len(reqs) != 1 || reqs[0].(map[string]any)["urgency"] != models.ErasureOverdue || reqs[0].(map[string]any)["due_at"] == nil {
		t.Errorf("API requests %v: want one overdue with its due_at", reqs)
	}

	if status, out := e.apiCall("POST", "/api/v1/users/"+priya.ID+"/erase", admin, `{"reason":"data_subject_request","ticket":"DSR-2041"}`); status != http.StatusOK {
		t.Fatalf("erase: %d %v", status, out)
	}
	status, body := e.request("GET", "/api/v1/erasure-receipts.csv", admin, "")
	if status != http.StatusOK {
		t.Fatalf("receipts CSV: %d %s", status, body)
	}
	rows, err := csv.NewReader(strings.NewReader(string(body))).ReadAll()
	if err != nil || len(rows) != 2 {
		t.Fatalf("CSV %q, %v: want a header and one receipt", body, err)
	}
	got := map[string]string{}
	for i, col := range rows[0] {
		got[col] = rows[1][i]
	}
	if got["reason"] != "data_subject_request" || got["ticket"] != "DSR-2041" || got["on_time"] != "false" ||
		!strings.Contains(got["rows_deleted"], "review_items=1") || got["rows_deleted_total"] == "0" {
		t.Errorf("receipt row %v", got)
	}
	for _, personal := range []string{priya.Name, priya.Email, noteText, priya.ID, "kiwi"} {
		if strings.Contains(strings.ToLower(string(body)), strings.ToLower(personal)) {
			t.Errorf("the CSV holds %q", personal)
		}
	}
	if status, _ := e.request("GET", "/api/v1/erasure-receipts.csv", e.token("support@example.com"), ""); status != http.StatusForbidden {
		t.Errorf("support downloading receipts: %d, want 403", status)
	}
}
