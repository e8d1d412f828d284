package handlers_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestConsoleProfileInWords: the console's profile card says a visa, a
// loyalty programme and a policy as the traveler's own page does, not as
// "type: …, valid until: …" pairs, and staff still see the identifiers.
func TestConsoleProfileInWords(t *testing.T) {
	e := newEnv(t)
	support := e.signIn("support@example.com")
	status, body, _ := support.get("/console/customers/" + e.userID("john@example.com"))
	if status != http.StatusOK {
		t.Fatalf("customer page = %d", status)
	}
	card := parseHTML(t, body).Find(`[data-testid="profile"] dl.kv`).Text() // the card, not its edit form's YAML
	for _, want := range []string{"Schengen C (multiple entry), valid until 31 Mar 2027", "United MileagePlus Gold (member id: UA-558-221-904)", "Allianz Travel AllTrips Premier — covers"} {
		if !strings.Contains(card, want) {
			t.Errorf("console profile lacks %q", want)
		}
	}
	for _, raw := range []string{"type: Schengen", "valid until: n/a", "program: United", "provider: Allianz"} {
		if strings.Contains(card, raw) {
			t.Errorf("console profile shows the raw pair %q", raw)
		}
	}
}
