package agent_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"concierge/agent"
	"concierge/agent/offline"
	"concierge/agent/openai"
	"concierge/agent/openai/fakeopenai"
	"concierge/memory"
	"concierge/models"
	"concierge/models/dbtest"
)

// tripStory runs Priya's trip over conversations with the built-in model:
// a trip-only wish said in conversation 1 is used in conversation 2 of the
// same trip, absent from a conversation about another trip, never in the
// global notes, and gone with its audit event once the trip ended on the
// simulated clock; the booked trip, travelled, is in the next
// conversation's recent trips.
func TestTripAcrossConversations(t *testing.T) {
	dbtest.Backends(t, func(t *testing.T, s *models.Store) {
		now := time.Date(2027, 4, 20, 10, 0, 0, 0, time.UTC)
		a, u, clock := priyaOffline(t, s, &now)
		w := agent.NewWorker(agent.DefaultWorkerConfig(), s, nil, quietLog())
		w.SetClock(clock)
		turn := func(sid, say string) *agent.TurnResult {
			t.Helper()
			res, err := a.Turn(ctx, sid, say, nil)
			if err != nil {
				t.Fatalf("%q: %v", say, err)
			}
			return res
		}

		c1, _ := s.CreateChatSession(ctx, u.ID)
		turn(c1.ID, "I'm planning a trip to Lisbon from 3 to 9 May.")
		turn(c1.ID, "This time I want a hotel with a rooftop.")
		open, _ := s.OpenTrips(ctx, u.ID)
		if len(open) != 1 || open[0].Destination != "Lisbon" || open[0].StartDate != "2027-05-03" || open[0].EndDate != "2027-05-09" {
			t.Fatalf("open trips = %+v, want Lisbon 3-9 May 2027", open)
		}
		lisbon := open[0].ID
		tn, _ := s.TripNotes(ctx, lisbon)
		if len(tn) != 1 || !strings.Contains(tn[0].Text, "rooftop") {
			t.Fatalf("trip notes = %+v, want the rooftop wish", tn)
		}
		if _, err := s.CloseSession(ctx, c1.ID, "ended"); err != nil {
			t.Fatal(err)
		}
		for w.RunOnce(ctx) {
		}
		if g, _ := s.GlobalNotes(ctx, u.ID); hasText(g, "rooftop") {
			t.Fatalf("the trip wish reached the global notes: %+v", g)
		}

		// Conversation 2 names the trip: it continues it and sees the wish.
		now = now.Add(24 * time.Hour)
		c2, _ := s.CreateChatSession(ctx, u.ID)
		res := turn(c2.ID, "Let's continue with my Lisbon trip. Show me some hotels.")
		if cs, _ := s.ChatSessionByID(ctx, c2.ID); cs.TripID != lisbon {
			t.Fatalf("conversation 2 on trip %q, want %q", cs.TripID, lisbon)
		}
		if in := lastInstructions(t, s, c2.ID); !strings.Contains(in, "rooftop") || !strings.Contains(in, "TRIP [t1]") {
			t.Fatalf("conversation 2 instructions lack the TRIP block:\n%s", in)
		}
		if strings.Contains(res.Reply, "Where would you like to go") {
			t.Errorf("conversation 2 asked for the destination again: %q", res.Reply)
		}

		// Conversation 3, about another trip: asked once, answered no.
		c3, _ := s.CreateChatSession(ctx, u.ID)
		res = turn(c3.ID, "I want to go to Oslo in August.")
		if !strings.Contains(res.Reply, "Is this about your Lisbon trip?") {
			t.Fatalf("with one planning trip the assistant should ask once; replied %q", res.Reply)
		}
		if cs, _ := s.ChatSessionByID(ctx, c3.ID); cs.TripID != "" {
			t.Fatalf("conversation 3 attached on a guess to %q", cs.TripID)
		}
		res = turn(c3.ID, "No, a new one.")
		cs3, _ := s.ChatSessionByID(ctx, c3.ID)
		if cs3.TripID == "" || cs3.TripID == lisbon {
			t.Fatalf("conversation 3 on trip %q, want a new Oslo trip", cs3.TripID)
		}
		if strings.Contains(res.Reply, "Is this about your Lisbon trip?") {
			t.Errorf("asked twice: %q", res.Reply)
		}
		turn(c3.ID, "Show me some hotels.")
		if in := lastInstructions(t, s, c3.ID); strings.Contains(in, "rooftop") {
			t.Fatalf("the Lisbon wish leaked into the Oslo conversation")
		}

		// Booked, then past its end: travelled, in the recent trips; after
		// the grace its notes are gone, with an audit event.
		booked := memory.TripBooked
		if _, err := a.Notes().Trips().Edit(ctx, u.ID, lisbon, models.TripPatch{UpdateTripArgs: memory.UpdateTripArgs{Status: &booked}},
			models.Actor{Kind: models.ActorTraveler, ID: u.ID}, ""); err != nil {
			t.Fatal(err)
		}
		now = time.Date(2027, 5, 20, 9, 0, 0, 0, time.UTC)
		w.Sweep(ctx)
		if tn, _ := s.TripNotes(ctx, lisbon); len(tn) != 0 {
			t.Fatalf("after the trip ended: %d notes, want none", len(tn))
		}
		var ended int64
		s.DB().Model(&models.AuditEvent{}).Where("user_id = ? AND action = ?", u.ID, "trip.notes_ended").Count(&ended)
		if ended != 1 {
			t.Fatalf("trip.notes_ended events = %d, want 1", ended)
		}
		c4, _ := s.CreateChatSession(ctx, u.ID)
		turn(c4.ID, "Hello!")
		if in := lastInstructions(t, s, c4.ID); !strings.Contains(in, "recent_trips") || !strings.Contains(in, "Lisbon") || strings.Contains(in, "rooftop") {
			t.Fatalf("next conversation's instructions lack the travelled trip (or keep its wish):\n%s", in)
		}
	})
}

func hasText(notes []memory.Note, sub string) bool {
	for _, n := range notes {
		if strings.Contains(n.Text, sub) {
			return true
		}
	}
	return false
}

// TestOpenAIUpdateTrip: a model behind the real openai-go client calls
// update_trip (strict schema accepted by the server) to create the trip,
// saves a this_trip wish, and a second conversation that names the trip by
// its handle sees the wish in its TRIP block; a conversation about
// another trip does not.
func TestOpenAIUpdateTrip(t *testing.T) {
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			var s *models.Store
			if backend == "sqlite" {
				s = dbtest.SQLite(t)
			} else {
				s = dbtest.Postgres(t)
			}
			store, _, sid := seededIn(t, s)
			fake := fakeopenai.New(t)
			p := openai.New(openai.Config{BaseURL: fake.URL(), APIKey: "test-key", Model: "gpt-4o-mini", Timeout: 10 * time.Second, MaxRetries: openai.NoRetries})
			a := agent.New(agent.DefaultConfig("gpt-4o-mini"), store, p, quietLog())
			cs, _ := store.ChatSessionByID(ctx, sid)
			fake.ToolCalls(
				fakeopenai.ToolCall{Function: fakeopenai.FunctionCall{Name: memory.UpdateTripToolName,
					Arguments: `{"trip":null,"destination":"Lisbon","start_date":"2027-05-03","end_date":"2027-05-09","travellers":1,"purpose":"leisure","budget":null,"status":null}`}},
				fakeopenai.ToolCall{Function: fakeopenai.FunctionCall{Name: memory.SaveNoteToolName,
					Arguments: `{"text":"Wants a hotel with a rooftop on this trip.","keywords":["hotel","rooftop"],"scope":"this_trip"}`}},
			)
			fake.Reply("Lisbon, 3 to 9 May, with a rooftop hotel: noted.")
			if _, err := a.Turn(ctx, sid, "Lisbon 3-9 May, and this time a hotel with a rooftop.", nil); err != nil {
				t.Fatal(err)
			}
			if reqs := fake.Requests(); len(reqs) != 2 || !strings.Contains(reqs[1].Messages[0].Content, "rooftop") {
				t.Fatalf("round 2 should carry the TRIP block with the wish")
			}
			cs, _ = store.ChatSessionByID(ctx, sid)
			if cs.TripID == "" {
				t.Fatal("the conversation has no trip")
			}
			if sn, _ := store.SessionNotes(ctx, sid); len(sn) != 0 {
				t.Fatalf("the wish is a session note, want a trip note: %+v", sn)
			}

			c2, _ := store.CreateChatSession(ctx, cs.UserID)
			fake.ToolCall(memory.UpdateTripToolName, `{"trip":"t1","destination":null,"start_date":null,"end_date":null,"travellers":null,"purpose":null,"budget":null,"status":null}`)
			fake.Reply("Back to Lisbon.")
			if _, err := a.Turn(ctx, c2.ID, "Back to my Lisbon trip.", nil); err != nil {
				t.Fatal(err)
			}
			reqs := fake.Requests()
			if first := reqs[2].Messages[0].Content; strings.Contains(first, "rooftop") || !strings.Contains(first, "OPEN TRIPS") {
				t.Fatalf("before attaching, conversation 2 saw:\n%s", first)
			}
			if second := reqs[3].Messages[0].Content; !strings.Contains(second, "rooftop") {
				t.Fatalf("after attaching, conversation 2 lacks the wish:\n%s", second)
			}

			c3, _ := store.CreateChatSession(ctx, cs.UserID)
			fake.ToolCall(memory.UpdateTripToolName, `{"trip":null,"destination":"Oslo","start_date":null,"end_date":null,"travellers":null,"purpose":null,"budget":null,"status":null}`)
			fake.Reply("Oslo it is.")
			if _, err := a.Turn(ctx, c3.ID, "Something else: Oslo.", nil); err != nil {
				t.Fatal(err)
			}
			reqs = fake.Requests()
			if last := reqs[len(reqs)-1].Messages[0].Content; strings.Contains(last, "rooftop") || !strings.Contains(last, "TRIP [t2]") {
				t.Fatalf("the Oslo conversation saw:\n%s", last)
			}
			if g, _ := store.GlobalNotes(ctx, cs.UserID); hasText(g, "rooftop") {
				t.Fatal("the wish reached the global notes")
			}
		})
	}
}

// TestContinueTripInSpanish: with one planning trip, a Spanish message about
// a trip is asked, in Spanish, whether it is that trip; "sí" puts the
// conversation on it.
func TestContinueTripInSpanish(t *testing.T) {
	s := dbtest.SQLite(t)
	now := time.Date(2027, 4, 20, 10, 0, 0, 0, time.UTC)
	a, u, _ := priyaOffline(t, s, &now)
	c1, _ := s.CreateChatSession(ctx, u.ID)
	if _, err := a.Turn(ctx, c1.ID, "I'm planning a trip to Lisbon from 3 to 9 May.", nil); err != nil {
		t.Fatal(err)
	}
	open, _ := s.OpenTrips(ctx, u.ID)
	if len(open) != 1 {
		t.Fatalf("open trips = %+v, want Lisbon", open)
	}
	c2, _ := s.CreateChatSession(ctx, u.ID)
	res, err := a.Turn(ctx, c2.ID, "Quiero un hotel con piscina para el viaje.", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Reply, "¿Se trata de tu viaje a Lisbon?") {
		t.Fatalf("the Spanish message was not asked about the Lisbon trip in Spanish: %q", res.Reply)
	}
	if _, err := a.Turn(ctx, c2.ID, "Sí, claro.", nil); err != nil {
		t.Fatal(err)
	}
	if cs, _ := s.ChatSessionByID(ctx, c2.ID); cs.TripID != open[0].ID {
		t.Fatalf("after «sí» the conversation is on trip %q, want %q", cs.TripID, open[0].ID)
	}
}

// priyaOffline seeds the demo data on s, with the store's clock reading
// *now, and returns an agent on the built-in model with the same clock,
// Priya, and that clock.
func priyaOffline(t *testing.T, s *models.Store, now *time.Time) (*agent.Agent, *models.User, func() time.Time) {
	t.Helper()
	clock := func() time.Time { return *now }
	s.Now = clock
	if _, err := s.SeedDemo(ctx, "demo"); err != nil {
		t.Fatal(err)
	}
	u, err := s.UserByEmail(ctx, "priya@example.com")
	if err != nil {
		t.Fatal(err)
	}
	a := agent.New(agent.DefaultConfig("gpt-4o-mini"), s, offline.New(nil), quietLog())
	a.SetClock(clock)
	return a, u, clock
}

// lastInstructions returns the instructions of the session's newest model
// call.
func lastInstructions(t *testing.T, s *models.Store, sid string) string {
	t.Helper()
	snaps, err := s.Snapshots(ctx, sid)
	if err != nil || len(snaps) == 0 {
		t.Fatalf("snapshots of %s: %d, %v", sid, len(snaps), err)
	}
	return snaps[len(snaps)-1].Instructions
}

// TestTripLineFollowsAttach: a conversation moved from one trip to another
// (the chat panel's trip picker) gets a "Trip so far" line naming the trip
// it is on now, not the one the previous reply named.
func TestTripLineFollowsAttach(t *testing.T) {
	dbtest.Backends(t, func(t *testing.T, s *models.Store) {
		now := time.Date(2027, 4, 20, 10, 0, 0, 0, time.UTC)
		a, u, _ := priyaOffline(t, s, &now)
		traveler := models.Actor{Kind: models.ActorTraveler, ID: u.ID}
		lisbon, _, err := a.Notes().Trips().Create(ctx, u.ID, memory.Trip{Destination: "Lisbon", StartDate: "2027-05-03", EndDate: "2027-05-09", Status: memory.TripPlanning}, traveler, "")
		if err != nil {
			t.Fatal(err)
		}
		oslo, _, err := a.Notes().Trips().Create(ctx, u.ID, memory.Trip{Destination: "Oslo", StartDate: "2027-08-10", EndDate: "2027-08-14", Status: memory.TripPlanning}, traveler, "")
		if err != nil {
			t.Fatal(err)
		}
		c, _ := s.CreateChatSession(ctx, u.ID)
		if err := a.Notes().Trips().Attach(ctx, u.ID, c.ID, lisbon.ID, traveler); err != nil {
			t.Fatal(err)
		}
		res, err := a.Turn(ctx, c.ID, "Show me some hotels.", nil)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(res.Reply, "Trip so far") || !strings.Contains(res.Reply, "Lisbon") {
			t.Fatalf("on the Lisbon trip the reply says %q", res.Reply)
		}
		if err := a.Notes().Trips().Attach(ctx, u.ID, c.ID, oslo.ID, traveler); err != nil {
			t.Fatal(err)
		}
		res, err = a.Turn(ctx, c.ID, "What about restaurants?", nil)
		if err != nil {
			t.Fatal(err)
		}
		_, line, _ := strings.Cut(res.Reply, "Trip so far")
		if !strings.Contains(line, "Oslo") || strings.Contains(line, "Lisbon") || !strings.Contains(line, "August") {
			t.Fatalf("after the move to Oslo the trip line is %q", line)
		}
	})
}

// TestContinueQuestionNotAnswered: a message that neither answers "Is this
// about your Lisbon trip?" nor says anything about a trip starts no trip,
// and the reply never calls a trip "a trip" as if it were a place.
func TestContinueQuestionNotAnswered(t *testing.T) {
	dbtest.Backends(t, func(t *testing.T, s *models.Store) {
		now := time.Date(2027, 4, 20, 10, 0, 0, 0, time.UTC)
		a, u, _ := priyaOffline(t, s, &now)
		traveler := models.Actor{Kind: models.ActorTraveler, ID: u.ID}
		if _, _, err := a.Notes().Trips().Create(ctx, u.ID, memory.Trip{Destination: "Lisbon", Status: memory.TripPlanning}, traveler, ""); err != nil {
			t.Fatal(err)
		}
		c, _ := s.CreateChatSession(ctx, u.ID)
		var replies []string
		for _, say := range []string{"How do we get around? I don't drive.", "I can't drive, so no rental cars please.", "Any hotel ideas?"} {
			replies = append(replies, sayTo(t, a, c.ID, say).Reply)
		}
		if !strings.Contains(replies[0], "Is this about your Lisbon trip?") {
			t.Fatalf("with one planning trip the assistant should ask once; replied %q", replies[0])
		}
		if open, _ := s.OpenTrips(ctx, u.ID); len(open) != 1 {
			t.Errorf("open trips = %+v, want only Lisbon", open)
		}
		if cs, _ := s.ChatSessionByID(ctx, c.ID); cs.TripID != "" {
			t.Errorf("the conversation is on trip %q after a message that did not answer", cs.TripID)
		}
		for _, r := range replies {
			for _, as := range []string{"to: ", "in ", "for "} {
				if strings.Contains(r, as+memory.Untitled) {
					t.Errorf("a reply names %q as a place: %q", memory.Untitled, r)
				}
			}
		}
	})
}

// priyaPlanning is Priya's offline agent on 20 February 2027 with a trip
// being planned to each of dests (none for none), opened as her own act.
func priyaPlanning(t *testing.T, s *models.Store, dests ...string) (*agent.Agent, *models.User, []*models.Trip) {
	t.Helper()
	now := time.Date(2027, 2, 20, 10, 0, 0, 0, time.UTC)
	a, u, _ := priyaOffline(t, s, &now)
	traveler := models.Actor{Kind: models.ActorTraveler, ID: u.ID}
	var trips []*models.Trip
	for _, d := range dests {
		tr, _, err := a.Notes().Trips().Create(ctx, u.ID, memory.Trip{Destination: d, Status: memory.TripPlanning}, traveler, "")
		if err != nil {
			t.Fatal(err)
		}
		trips = append(trips, tr)
	}
	return a, u, trips
}

// TestCityNarrowsTheTrip: a trip to a country, continued in a conversation
// that names one of its cities, is narrowed to that city; the trip is
// still asked about once, never attached on a guess.
func TestCityNarrowsTheTrip(t *testing.T) {
	dbtest.Backends(t, func(t *testing.T, s *models.Store) {
		a, u, trips := priyaPlanning(t, s, "Japan")
		japan := trips[0]
		c, _ := s.CreateChatSession(ctx, u.ID)
		var replies []string
		for _, say := range []string{"I'm going to Tokyo in March", "Yes", "Do I need a visa?"} {
			replies = append(replies, sayTo(t, a, c.ID, say).Reply)
		}
		if !strings.Contains(replies[0], "Is this about your Japan trip?") {
			t.Errorf("the Japan trip was not asked about: %q", replies[0])
		}
		cs, _ := s.ChatSessionByID(ctx, c.ID)
		open, _ := s.OpenTrips(ctx, u.ID)
		if cs.TripID != japan.ID || len(open) != 1 || open[0].Destination != "Tokyo" || open[0].StartDate != "2027-03-01" {
			t.Errorf("open trips %+v, conversation on %q; want the Japan trip narrowed to Tokyo in March", open, cs.TripID)
		}
		if !strings.Contains(replies[2], "for Japan") {
			t.Errorf("visa answer on the Tokyo trip = %q, want it about Japan", replies[2])
		}
	})
}

// TestWorkTripPartyNotAsked: a trip for work is not asked how many are
// going, in the turn that says so or later, when the trip keeps the purpose.
func TestWorkTripPartyNotAsked(t *testing.T) {
	dbtest.Backends(t, func(t *testing.T, s *models.Store) {
		a, u, _ := priyaPlanning(t, s)
		c, _ := s.CreateChatSession(ctx, u.ID)
		for _, say := range []string{"I have a conference in Berlin 12-14 May", "What should I do in the evenings?", "Any good restaurants near the venue?"} {
			if r := sayTo(t, a, c.ID, say).Reply; strings.Contains(r, "How many of you") || strings.Contains(r, "Who's travelling") {
				t.Errorf("%q on a work trip: reply %q asks for the party", say, r)
			}
		}
		open, _ := s.OpenTrips(ctx, u.ID)
		if len(open) != 1 || open[0].Purpose != "business" || open[0].Destination != "Berlin" {
			t.Errorf("open trips %+v, want the Berlin trip for business", open)
		}
		c2, _ := s.CreateChatSession(ctx, u.ID) // a later conversation knows the purpose from the trip
		for _, say := range []string{"About my Berlin trip", "What should I do in the evenings there?"} {
			if r := sayTo(t, a, c2.ID, say).Reply; strings.Contains(r, "How many of you") || strings.Contains(r, "Who's travelling") {
				t.Errorf("%q in a later conversation: reply %q asks for the party", say, r)
			}
		}
		if cs, _ := s.ChatSessionByID(ctx, c2.ID); len(open) == 1 && cs.TripID != open[0].ID {
			t.Errorf("the later conversation is on trip %q, want the Berlin trip", cs.TripID)
		}
	})
}

// TestCityOfOneOpenTrip: with trips to Japan and Italy open, a new
// conversation about Tokyo asks about the Japan trip, and a yes narrows
// that trip to Tokyo instead of opening a third.
func TestCityOfOneOpenTrip(t *testing.T) {
	dbtest.Backends(t, func(t *testing.T, s *models.Store) {
		a, u, trips := priyaPlanning(t, s, "Japan", "Italy")
		japan := trips[0]
		c, _ := s.CreateChatSession(ctx, u.ID)
		if r := sayTo(t, a, c.ID, "I'm going to Tokyo in March").Reply; !strings.Contains(r, "Is this about your Japan trip?") {
			t.Errorf("the Japan trip was not asked about: %q", r)
		}
		sayTo(t, a, c.ID, "Yes")
		cs, _ := s.ChatSessionByID(ctx, c.ID)
		open, _ := s.OpenTrips(ctx, u.ID)
		var dests []string
		for _, o := range open {
			dests = append(dests, o.Destination)
		}
		if cs.TripID != japan.ID || len(open) != 2 || !slices.Contains(dests, "Tokyo") || !slices.Contains(dests, "Italy") {
			t.Errorf("open trips %q, conversation on %q; want the Japan trip narrowed to Tokyo beside Italy", dests, cs.TripID)
		}
	})
}
