package handlers_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"concierge/memory"
	"concierge/models"
)

// TestConsoleProfileInWords: the console's profile card says a visa, a
// loyalty programme and a policy as the traveler's own page does, not as
// "type: …, valid until: …" pairs, and staff still see the identifiers.
func TestConsoleProfileInWords(t *testing.T) {
	t.Parallel()
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

// TestAuditSaysTheTripJoined: "Conversation joined to a trip" names the
// trip, or says it was deleted since, never its raw id.
func TestAuditSaysTheTripJoined(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	john := e.userID("john@example.com")
	trips := e.store.Notes(memory.Limits{}).Trips()
	sys := models.Actor{Kind: models.ActorSystem}
	var ids []string
	for _, dest := range []string{"Lisbon", "Oslo"} {
		tr, _, err := trips.Create(ctx, john, memory.Trip{Destination: dest}, sys, "test")
		if err != nil {
			t.Fatal(err)
		}
		cs, err := e.store.CreateChatSession(ctx, john)
		if err != nil {
			t.Fatal(err)
		}
		if err := trips.Attach(ctx, john, cs.ID, tr.ID, models.Actor{Kind: models.ActorTraveler, ID: john}); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, tr.ID)
	}
	if err := trips.Delete(ctx, john, ids[1], models.Actor{Kind: models.ActorTraveler, ID: john}, "deleted by the traveler"); err != nil {
		t.Fatal(err)
	}
	status, body, _ := e.signIn("support@example.com").get("/console/customers/" + john + "/audit")
	if status != http.StatusOK {
		t.Fatalf("audit page = %d", status)
	}
	reasons := parseHTML(t, body).Find(`[data-testid="audit-reason"]`).Text()
	for _, want := range []string{"the trip “Lisbon”", "a trip deleted since"} {
		if !strings.Contains(reasons, want) {
			t.Errorf("audit reasons %q lack %q", reasons, want)
		}
	}
	for _, id := range ids {
		if strings.Contains(reasons, id) {
			t.Errorf("audit reasons show the trip id %s", id)
		}
	}
}
