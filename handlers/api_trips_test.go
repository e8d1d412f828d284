package handlers_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"concierge/models"
	"concierge/models/dbtest"
)

// TestTripsThroughAPI, with the built-in model on SQLite and PostgreSQL:
// the trip a conversation plans is listed with its notes and conversation;
// a second conversation picked onto it (the side panel's attach) sees the
// wish; the traveler renames it; staff need a reason; an external id
// updates instead of adding; deleting it removes its notes; the export
// has the trips.
func TestTripsThroughAPI(t *testing.T) {
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
			priya := e.token("priya@example.com")
			staff := e.token("support@example.com")
			s1 := e.openSession(priya)
			e.say(priya, s1, "I'm planning a trip to Lisbon from 3 to 9 May.")
			e.say(priya, s1, "This time I want a hotel with a rooftop.")

			status, out := e.apiCall("GET", "/api/v1/users/me/trips", priya, "")
			trips := notesOf(out["trips"])
			if status != http.StatusOK || len(trips) != 1 || trips[0]["destination"] != "Lisbon" || trips[0]["status"] != "planning" {
				t.Fatalf("GET trips = %d %v", status, out)
			}
			trip := trips[0]["id"].(string)
			if !hasNote(notesOf(trips[0]["notes"]), "rooftop") || len(trips[0]["conversations"].([]any)) != 1 {
				t.Fatalf("trip = %v, want the rooftop note and one conversation", trips[0])
			}

			s2 := e.openSession(priya)
			if status, out := e.apiCall("POST", "/api/v1/sessions/"+s2+"/trip", priya, `{"trip_id":"`+trip+`"}`); status != http.StatusOK {
				t.Fatalf("attach = %d %v", status, out)
			}
			e.say(priya, s2, "Show me some hotels.")
			_, turns := e.apiCall("GET", "/api/v1/sessions/"+s2+"/turns", staff, "")
			if !strings.Contains(stringOf(turns), "rooftop") {
				t.Fatal("conversation 2 was not given the trip's wish")
			}
			s3 := e.openSession(priya)
			e.say(priya, s3, "Hello!")
			_, turns = e.apiCall("GET", "/api/v1/sessions/"+s3+"/turns", staff, "")
			if strings.Contains(stringOf(turns), "rooftop") {
				t.Fatal("a conversation without the trip was given its wish")
			}
			if _, mem := e.apiCall("GET", "/api/v1/users/me/memory", priya, ""); hasNote(notesOf(mem["global_notes"]), "rooftop") {
				t.Fatal("the trip wish is a global note")
			}

			if status, out := e.apiCall("PATCH", "/api/v1/users/me/trips/"+trip, priya, `{"name":"Lisbon with Sam"}`); status != http.StatusOK || out["name"] != "Lisbon with Sam" {
				t.Fatalf("rename = %d %v", status, out)
			}
			_, me := e.apiCall("GET", "/api/v1/me", priya, "")
			pid := me["user"].(map[string]any)["id"].(string)
			if status, out := e.apiCall("PATCH", "/api/v1/users/"+pid+"/trips/"+trip, staff, `{"travellers":2}`); status != http.StatusUnprocessableEntity {
				t.Fatalf("staff edit without a reason = %d %v, want 422", status, out)
			}
			if status, out := e.apiCall("PATCH", "/api/v1/users/"+pid+"/trips/"+trip, staff, `{"travellers":2,"reason":"called in"}`); status != http.StatusOK || out["travellers"] != float64(2) {
				t.Fatalf("staff edit = %d %v", status, out)
			}
			body := `{"destination":"Oslo","start_date":"2026-01-02","end_date":"2026-01-05","status":"travelled","external_id":"crm-77","reason":"crm"}`
			if status, out := e.apiCall("POST", "/api/v1/users/"+pid+"/trips", staff, body); status != http.StatusCreated {
				t.Fatalf("POST trip = %d %v", status, out)
			}
			if status, out := e.apiCall("POST", "/api/v1/users/"+pid+"/trips", staff, strings.Replace(body, "2026-01-05", "2026-01-06", 1)); status != http.StatusOK || out["end_date"] != "2026-01-06" {
				t.Fatalf("POST trip again = %d %v, want 200 updating it", status, out)
			}
			if status, out := e.apiCall("POST", "/api/v1/users/"+pid+"/trips", staff, `{"destination":"Rome","purpose":"fun","reason":"x"}`); status != http.StatusUnprocessableEntity && status != http.StatusBadRequest {
				t.Fatalf("bad purpose = %d %v", status, out)
			}
			_, export := e.apiCall("GET", "/api/v1/users/me/export", priya, "")
			if ex := stringOf(export); !strings.Contains(ex, "Lisbon with Sam") || !strings.Contains(ex, "crm-77") {
				t.Fatal("the export lacks the trips")
			}

			if status, _ := e.apiCall("DELETE", "/api/v1/users/me/trips/"+trip, priya, ""); status != http.StatusNoContent {
				t.Fatalf("delete = %d", status)
			}
			var left int64
			e.store.DB().Model(&models.Note{}).Where("text LIKE ?", "%rooftop%").Count(&left)
			if left != 0 {
				t.Fatal("the deleted trip's note is still stored")
			}
			if _, out := e.apiCall("GET", "/api/v1/users/me/trips", priya, ""); len(notesOf(out["trips"])) != 1 {
				t.Fatalf("after delete: %v", out)
			}
		})
	}
}

func stringOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestProfileThroughAPI: staff replace a profile through the API; a
// profile the schema refuses is 422 naming the field path; a traveler
// cannot; the schema is published.
func TestProfileThroughAPI(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	staff := e.token("support@example.com")
	priya := e.token("priya@example.com")
	_, me := e.apiCall("GET", "/api/v1/me", priya, "")
	pid := me["user"].(map[string]any)["id"].(string)
	if status, out := e.apiCall("GET", "/api/v1/schema/profile", priya, ""); status != http.StatusOK || out["additionalProperties"] != false {
		t.Fatalf("schema = %d %v", status, out)
	}
	ok := `{"profile":{"name":"Priya Sharma","home_city":"Pune","currency":"INR","loyalty_programs":[{"program":"Air India Flying Returns","status":"Silver","member_id":"AI-1"}]},"reason":"crm sync"}`
	if status, out := e.apiCall("PUT", "/api/v1/users/"+pid+"/profile", staff, ok); status != http.StatusOK {
		t.Fatalf("PUT profile = %d %v", status, out)
	}
	bad := `{"profile":{"name":"Priya","loyalty_programs":[{"program":"X","tier":"Gold"}]},"reason":"crm sync"}`
	status, out := e.apiCall("PUT", "/api/v1/users/"+pid+"/profile", staff, bad)
	if status != http.StatusUnprocessableEntity || errorCode(out) != "invalid_profile" || !strings.Contains(stringOf(out), "/loyalty_programs/0/tier") {
		t.Fatalf("bad profile = %d %v, want 422 naming /loyalty_programs/0/tier", status, out)
	}
	if status, _ := e.apiCall("PUT", "/api/v1/users/me/profile", priya, ok); status != http.StatusForbidden {
		t.Fatalf("traveler PUT profile = %d, want 403", status)
	}
	if _, mem := e.apiCall("GET", "/api/v1/users/me/memory", priya, ""); mem["profile"].(map[string]any)["currency"] != "INR" {
		t.Fatalf("memory profile = %v", mem["profile"])
	}
}
