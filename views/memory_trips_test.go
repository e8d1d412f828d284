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

// TestTripsSectionInEachLanguage: the trips section writes a trip's
// status, its days, a missing name and the counts in the page's language,
// with Russian plural forms.
func TestTripsSectionInEachLanguage(t *testing.T) {
	trips := []views.TravelerTrip{
		{ID: "t1", Name: "Lisbon", StartDate: "2027-05-03", EndDate: "2027-05-09", Status: "planning", Open: true,
			Notes: []string{"A rooftop hotel.", "Late check-out.", "Near the tram."}},
		{ID: "t2", StartDate: "2027-06-01", Status: "cancelled"},
	}
	for _, tt := range []struct {
		lang, title, status, days, from, unnamed, notes, count string
	}{
		{"en", "Your trips", "planning", "3 May 2027 – 9 May 2027", "from 1 Jun 2027", "Unnamed trip", "3 notes for this trip", "2 trips"},
		{"es", "Tus viajes", "en preparación", "3 may 2027 – 9 may 2027", "desde el 1 jun 2027", "Viaje sin nombre", "3 notas para este viaje", "2 viajes"},
		{"ru", "Ваши поездки", "планируется", "3 мая 2027 г. – 9 мая 2027 г.", "с 1 июн. 2027 г.", "Поездка без названия", "3 заметки для этой поездки", "2 поездки"},
	} {
		t.Run(tt.lang, func(t *testing.T) {
			var buf bytes.Buffer
			if err := views.TripsSection("csrf", trips).Render(locale.With(context.Background(), locale.For(tt.lang)), &buf); err != nil {
				t.Fatal(err)
			}
			doc, err := goquery.NewDocumentFromReader(&buf)
			if err != nil {
				t.Fatal(err)
			}
			get := func(sel string) string { return strings.TrimSpace(doc.Find(sel).First().Text()) }
			rows := doc.Find(`[data-testid="trip"]`)
			second := rows.Eq(1)
			for _, c := range []struct{ what, got, want string }{
				{"heading", get("#trips-title"), tt.title},
				{"status", get(`[data-testid="trip-status"]`), tt.status},
				{"days", get(`[data-testid="trip-dates"]`), tt.days},
				{"start only", strings.TrimSpace(second.Find(`[data-testid="trip-dates"]`).Text()), tt.from},
				{"no name", strings.TrimSpace(second.Find(`[data-testid="trip-title"]`).Text()), tt.unnamed},
				{"notes count", doc.Find(`[data-testid="trip-notes-list"]`).AttrOr("aria-label", ""), tt.notes},
				{"trips count", doc.Find("#trips-title .count").AttrOr("aria-label", ""), tt.count},
			} {
				if !strings.HasPrefix(c.got, c.want) {
					t.Errorf("%s = %q, want %q", c.what, c.got, c.want)
				}
			}
			if v := second.Find(`[data-testid="trip-name"]`).AttrOr("value", "?"); v != "" {
				t.Errorf("an unnamed trip's name box holds %q", v)
			}
		})
	}
}
