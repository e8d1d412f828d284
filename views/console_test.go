package views_test

import (
	"math"
	"strings"
	"testing"

	"concierge/views"
)

func staffPage(role string) views.Page {
	return views.Page{Title: "John Doe", Viewer: &views.Viewer{Name: "Sam", Role: role}, CSRF: "tok"}
}

func TestCustomerPage(t *testing.T) {
	vm := views.CustomerPage{
		Customer: views.ConsoleUser{ID: "u1", Name: "John Doe", Email: "john@example.com", Role: "traveler"},
		CSRF:     "tok",
		Notes: []views.NoteRow{
			{CustomerID: "u1", ID: "n1", Text: "Prefers aisle seats.", Keywords: []string{"seat"}, Pinned: true, Editable: true},
			{CustomerID: "u1", ID: "n2", Text: `<script>alert(1)</script>`, Keywords: []string{"x"}, Editable: true},
		},
		Preview: views.Preview{Instructions: "<memories>\nGLOBAL:\n- Prefers aisle seats.\n</memories>", NoteTokens: 12, Budget: 600, MeterWidth: 8},
	}
	tests := []struct {
		name      string
		role      string
		wantAdmin bool
	}{{"support", "support", false}, {"admin", "admin", true}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vm.IsAdmin = tt.wantAdmin
			doc := renderDoc(t, views.CustomerPageView(staffPage(tt.role), vm))
			if got := doc.Find(`[data-testid="customer-name"]`).Text(); got != "John Doe" {
				t.Errorf("customer name %q", got)
			}
			if n := doc.Find(`[data-testid="note"]`).Length(); n != 2 {
				t.Errorf("%d notes, want 2", n)
			}
			if doc.Find(`[data-note-id="n1"]`).HasClass("pinned") != true {
				t.Error("the pinned note is not marked pinned")
			}
			if doc.Find("script:not([src])").Length() != 0 {
				t.Error("note text rendered as a script")
			}
			if w, _ := doc.Find(`[data-testid="token-meter"] .meter-fill`).Attr("width"); w != "8" {
				t.Errorf("meter width %q, want 8", w)
			}
			if !strings.Contains(doc.Find(`[data-testid="preview-instructions"]`).Text(), "<memories>") {
				t.Error("the preview does not show the instructions verbatim")
			}
			if got := doc.Find(`[data-testid="admin-actions"]`).Length() == 1; got != tt.wantAdmin {
				t.Errorf("admin actions shown = %v, want %v", got, tt.wantAdmin)
			}
		})
	}
}

func TestNoteItemModes(t *testing.T) {
	n := views.NoteRow{CustomerID: "u1", ID: "n1", Text: "Prefers aisle seats.", Keywords: []string{"seat", "aisle"}, CSRF: "tok", Editable: true}
	doc := renderDoc(t, views.NoteItem(n))
	if hx, _ := doc.Find(`[data-testid="note-edit"]`).Attr("hx-get"); hx != "/console/customers/u1/notes/n1/edit" {
		t.Errorf("edit button hx-get %q", hx)
	}
	n.Mode, n.Error = "edit", "Give a reason for this change; it is kept in the audit trail."
	doc = renderDoc(t, views.NoteItem(n))
	if doc.Find(`[data-testid="note-edit-form"]`).Length() != 1 || doc.Find(`[data-testid="note-error"]`).Length() != 1 {
		t.Error("edit mode lacks the form or its error")
	}
	if v, _ := doc.Find(`input[name="keywords"]`).Attr("value"); v != "seat, aisle" {
		t.Errorf("keywords field %q", v)
	}
	n.Mode, n.Error = "delete", ""
	doc = renderDoc(t, views.NoteItem(n))
	if hx, _ := doc.Find(`[data-testid="note-delete-form"]`).Attr("hx-post"); hx != "/console/customers/u1/notes/n1/delete" {
		t.Errorf("delete form hx-post %q", hx)
	}
	n.Mode, n.Editable = "", false
	if renderDoc(t, views.NoteItem(n)).Find(`[data-testid="note-edit"]`).Length() != 0 {
		t.Error("a read-only note offers editing")
	}
}

func TestAuditTimeline(t *testing.T) {
	p := views.AuditPage{Events: []views.AuditRow{{Action: "note.update", Actor: "support", ActorName: "Sam", Reason: "typo",
		Changes: []views.Change{{Field: "text", Before: "Likes tee.", After: "Likes tea."}}, FromLabel: "the console"}}}
	doc := renderDoc(t, views.AuditPageView(staffPage("support"), p))
	ev := doc.Find(`[data-testid="audit-event"]`)
	if ev.Length() != 1 {
		t.Fatalf("%d events", ev.Length())
	}
	if ev.Find("del").Text() != "Likes tee." || ev.Find("ins").Text() != "Likes tea." {
		t.Errorf("before → after not shown: %q", ev.Text())
	}
	if ev.Find(`[data-testid="audit-reason"]`).Text() != "typo" || !strings.Contains(ev.Text(), "Note edited") {
		t.Errorf("event text %q", ev.Text())
	}
}

func TestCharts(t *testing.T) {
	days := []string{"2026-03-01", "2026-03-02", "2026-03-03"}
	c := views.LineChart(views.EnglishChartWords(), "w", "Writes", "help", days, "", views.Series{Name: "a", Class: "c0", Values: []float64{1, math.NaN(), 3}})
	if len(c.Lines) != 1 || len(c.Lines[0].Dots) != 2 || c.Empty {
		t.Fatalf("line chart = %+v", c)
	}
	doc := renderDoc(t, views.HealthPageView(staffPage("support"), views.HealthPage{Since: days[0], Until: days[2], Charts: []views.Chart{c,
		views.StackedBarChart(views.EnglishChartWords(), "b", "Blocked", "", days, views.Series{Name: "secret", Class: "c1", Values: []float64{0, 2, 1}}),
		views.CategoryBarChart(views.EnglishChartWords(), "n", "Notes", "", []string{"0", "1–2"}, []float64{0, 0}, "c5")}}))
	if doc.Find(`[data-testid="chart-w"] polyline`).Length() != 1 {
		t.Error("no line drawn")
	}
	if n := doc.Find(`[data-testid="chart-b"] rect.bar`).Length(); n != 2 {
		t.Errorf("%d bars, want 2 (zero days draw nothing)", n)
	}
	if !strings.Contains(doc.Find(`[data-testid="chart-n"]`).Text(), "No data") {
		t.Error("an all-zero chart does not say so")
	}
	for _, tick := range c.YTicks {
		if strings.Contains(tick.Label, ".") && tick.Label != "0.5" && tick.Label != "1.5" && tick.Label != "2.5" {
			t.Errorf("untidy tick %q", tick.Label)
		}
	}
}

func TestErasureReceipt(t *testing.T) {
	p := views.ErasurePage{Highlight: "r1", Done: []views.ErasureRow{{ID: "r1", ExecutedBy: "Alex",
		Receipt: &views.ReceiptView{Rows: []views.KV{{Key: "messages", Value: "3"}, {Key: "users", Value: "1"}}, Total: 4}}}}
	doc := renderDoc(t, views.ErasurePageView(staffPage("admin"), p))
	r := doc.Find(`[data-testid="erasure-receipt"]`)
	if !r.HasClass("highlight") || r.Find(`[data-testid="receipt-total"]`).Text() != "4" {
		t.Errorf("receipt = %q", r.Text())
	}
}
