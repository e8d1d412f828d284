package handlers_test

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"concierge/models"
	"concierge/models/dbtest"
)

// TestTripEditsThroughPagesAndAPI, on SQLite and PostgreSQL: staff's trip
// form on the customer page refuses without a reason and refuses an end
// before the start (the trip service's rule, as the API's), saves with a
// reason; a trip's note is corrected through the note routes, page and
// API alike; the API's attach takes a conversation off its trip with
// trip_id "" and its trip-only wish goes back to the conversation.
func TestTripEditsThroughPagesAndAPI(t *testing.T) {
	t.Parallel()
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			var store *models.Store
			if backend == "sqlite" {
				store = dbtest.SQLite(t)
			} else {
				store = dbtest.Postgres(t)
			}
			e := newEnvWith(t, envOptions{store: store})
			uid, tripID, _ := tripWithNote(t, e, "Lisbon", "Wants a hotel with a rooftop on this trip.")
			b := e.browser()
			if resp := b.login("support@example.com", "demo"); resp.StatusCode != http.StatusSeeOther {
				t.Fatalf("sign in = %d", resp.StatusCode)
			}
			status, page, csrf := b.get("/console/customers/" + uid)
			if status != http.StatusOK || !strings.Contains(page, `data-trip="`+tripID+`"`) || !strings.Contains(page, "rooftop") {
				t.Fatalf("customer page = %d, want the trip and its wish", status)
			}
			save := func(form url.Values) (int, string) {
				t.Helper()
				form.Set("_csrf", csrf)
				req, _ := http.NewRequest("POST", e.srv.URL+"/console/customers/"+uid+"/trips/"+tripID, strings.NewReader(form.Encode()))
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				req.Header.Set("HX-Request", "true")
				resp, err := b.client.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				body, _ := io.ReadAll(resp.Body)
				return resp.StatusCode, string(body)
			}
			for _, tc := range []struct {
				name  string
				form  url.Values
				error string
			}{
				{"no reason", url.Values{"destination": {"Porto"}, "start_date": {"2027-05-03"}, "end_date": {"2027-05-09"}, "status": {"planning"}}, "reason"},
				{"end before start", url.Values{"destination": {"Lisbon"}, "start_date": {"2027-05-03"}, "end_date": {"2027-05-01"}, "status": {"planning"}, "reason": {"called"}}, "The end date is before the start date."},
				{"bad status", url.Values{"destination": {"Lisbon"}, "start_date": {"2027-05-03"}, "end_date": {"2027-05-09"}, "status": {"gone"}, "reason": {"called"}}, "status must be"},
			} {
				status, body := save(tc.form)
				if status != http.StatusOK || !strings.Contains(body, `data-testid="trip-edit-form"`) || !strings.Contains(body, tc.error) {
					t.Errorf("%s: %d, want the form again with %q: %.400s", tc.name, status, tc.error, body)
				}
			}
			if tr, _ := e.store.TripByID(t.Context(), uid, tripID); tr.Destination != "Lisbon" || tr.EndDate != "2027-05-09" {
				t.Fatalf("a refused edit changed the trip: %+v", tr)
			}
			status, body := save(url.Values{"destination": {"Lisbon"}, "start_date": {"2027-05-03"}, "end_date": {"2027-05-09"}, "status": {"cancelled"}, "reason": {"customer cancelled"}})
			if status != http.StatusOK || strings.Contains(body, "trip-edit-form") {
				t.Fatalf("cancel = %d: %.400s", status, body)
			}
			if tr, _ := e.store.TripByID(t.Context(), uid, tripID); tr.Status != "cancelled" {
				t.Fatalf("trip after cancel = %+v", tr)
			}
			if tn, _ := e.store.TripNotes(t.Context(), tripID); len(tn) != 0 {
				t.Fatalf("a cancelled trip kept its notes: %+v", tn)
			}

			// A trip's note is edited through the API as a long-term one is.
			_, tripID2, note2 := tripWithNote(t, e, "Oslo", "Wants a sauna on this trip.")
			staff := e.token("support@example.com")
			if status, out := e.apiCall("PATCH", "/api/v1/users/"+uid+"/notes/"+note2, staff, `{"text":"Wants a hotel with a sauna on this trip.","reason":"called in"}`); status != http.StatusOK {
				t.Fatalf("PATCH trip note = %d %v", status, out)
			}
			if tn, _ := e.store.TripNotes(t.Context(), tripID2); len(tn) != 1 || tn[0].Text != "Wants a hotel with a sauna on this trip." {
				t.Fatalf("trip note after PATCH = %+v", tn)
			}

			// The API's attach with no trip takes the conversation off it.
			priya := e.token("priya@example.com")
			sid := e.openSession(priya)
			if status, out := e.apiCall("POST", "/api/v1/sessions/"+sid+"/trip", priya, `{"trip_id":"`+tripID2+`"}`); status != http.StatusOK {
				t.Fatalf("attach = %d %v", status, out)
			}
			if status, out := e.apiCall("POST", "/api/v1/sessions/"+sid+"/trip", priya, `{"trip_id":""}`); status != http.StatusOK || out["trip_id"] != "" {
				t.Fatalf("detach = %d %v", status, out)
			}
			if cs, _ := e.store.ChatSessionByID(t.Context(), sid); cs.TripID != "" {
				t.Fatalf("conversation still on %q", cs.TripID)
			}
			if status, out := e.apiCall("POST", "/api/v1/sessions/"+sid+"/trip", priya, `{"trip_id":"`+tripID+`"}`); status != http.StatusUnprocessableEntity && status != http.StatusBadRequest {
				t.Fatalf("attach to a cancelled trip = %d %v, want a refusal", status, out)
			}
		})
	}
}
