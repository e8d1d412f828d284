package views_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"concierge/views"
	"concierge/views/locale"
)

// TestPanelTripPicker: the side panel says which trip the conversation is
// on, in the page's language; the picker offers no trip and the open
// trips with the current one selected, a travelled current trip among
// them, dates only where two trips share a name; an ended conversation
// shows its trip without the picker.
func TestPanelTripPicker(t *testing.T) {
	lisbon := views.TravelerTrip{ID: "a", Name: "Lisbon", StartDate: "2027-05-03", EndDate: "2027-05-09", Status: "planning", Open: true}
	lisbon2 := views.TravelerTrip{ID: "b", Name: "Lisbon", StartDate: "2027-09-01", Status: "booked", Open: true}
	oslo := views.TravelerTrip{ID: "c", Name: "Oslo", Status: "planning", Open: true}
	past := views.TravelerTrip{ID: "d", Name: "Rome", Status: "travelled"}
	render := func(t *testing.T, lang string, p views.ChatPanel) *goquery.Document {
		t.Helper()
		var buf bytes.Buffer
		if err := views.ChatPanelAside(p, false).Render(locale.With(context.Background(), locale.For(lang)), &buf); err != nil {
			t.Fatal(err)
		}
		doc, err := goquery.NewDocumentFromReader(&buf)
		if err != nil {
			t.Fatal(err)
		}
		return doc
	}
	open := []views.TravelerTrip{lisbon, lisbon2, oslo}
	for _, tt := range []struct{ lang, none, title string }{
		{"en", "not part of a trip", "Trip"}, {"es", "no forma parte", "Viaje"}, {"ru", "не относится", "Поездка"},
	} {
		t.Run(tt.lang, func(t *testing.T) {
			doc := render(t, tt.lang, views.ChatPanel{SessionID: "s", OpenTrips: open})
			if got := doc.Find(`[data-testid="panel-trip-current"]`).Text(); !strings.Contains(got, tt.none) {
				t.Errorf("current = %q, want %q", got, tt.none)
			}
			if got := strings.TrimSpace(doc.Find("#panel-trip-title").Text()); got != tt.title {
				t.Errorf("heading = %q, want %q", got, tt.title)
			}
			if doc.Find(`label[for="panel-trip-select"]`).Length() != 1 {
				t.Error("the picker has no label")
			}
		})
	}
	withWish := oslo
	withWish.Notes = []string{"Wants a sauna on this trip."}
	doc := render(t, "en", views.ChatPanel{SessionID: "s", Trip: &withWish, OpenTrips: open})
	if got := doc.Find(`[data-testid="panel-trip-notes"] li`).Text(); !strings.Contains(got, "sauna") {
		t.Errorf("the trip's notes in the panel = %q", got)
	}
	var opts []string
	doc.Find(`[data-testid="panel-trip-select"] option`).Each(func(_ int, s *goquery.Selection) {
		opts = append(opts, s.AttrOr("value", "?")+"="+strings.TrimSpace(s.Text()))
	})
	if got, want := strings.Join(opts, " | "), "=No trip | a=Lisbon · 3 May 2027 – 9 May 2027 | b=Lisbon · from 1 Sep 2027 | c=Oslo"; got != want {
		t.Errorf("options = %s\nwant      %s", got, want)
	}
	if v := doc.Find(`option[selected]`).AttrOr("value", "?"); v != "c" {
		t.Errorf("selected = %q, want the current trip", v)
	}
	doc = render(t, "en", views.ChatPanel{SessionID: "s", Trip: &past, OpenTrips: []views.TravelerTrip{oslo}})
	if v := doc.Find(`option[selected]`).Text(); v != "Rome (travelled)" {
		t.Errorf("a travelled current trip is offered as %q", v)
	}
	doc = render(t, "en", views.ChatPanel{SessionID: "s", Ended: true, Trip: &oslo, OpenTrips: open})
	if doc.Find(`[data-testid="panel-trip-form"]`).Length() != 0 || !strings.Contains(doc.Find(`[data-testid="panel-trip-current"]`).Text(), "Oslo") {
		t.Error("an ended conversation should show its trip without the picker")
	}
}
