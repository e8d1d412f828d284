package agent_test

import (
	"strings"
	"testing"
	"time"

	"concierge/agent"
	"concierge/memory"
	"concierge/models"
	"concierge/models/dbtest"
)

// TestForgetTripWish: with the built-in model through the real agent
// path, a trip-only wish said in conversation 1 reaches conversation 2's
// TRIP block with a note handle, and "forget that…" there forgets it: it
// leaves the trip's notes and the next round's instructions, Undo brings
// it back, and once forgotten again and conversation 2 ended it is gone.
// A conversation about another trip is never shown the handle, and a
// model naming it there is told no such note is in its memories.
func TestForgetTripWish(t *testing.T) {
	dbtest.Backends(t, func(t *testing.T, s *models.Store) {
		now := time.Date(2027, 4, 20, 10, 0, 0, 0, time.UTC)
		a, u, clock := priyaOffline(t, s, &now)

		c1, _ := s.CreateChatSession(ctx, u.ID)
		sayTo(t, a, c1.ID, "I'm planning a trip to Lisbon from 3 to 9 May.")
		sayTo(t, a, c1.ID, "This time I want a hotel with a rooftop.")
		open, _ := s.OpenTrips(ctx, u.ID)
		if len(open) != 1 {
			t.Fatalf("open trips = %+v, want Lisbon", open)
		}
		lisbon := open[0].ID
		wish, _ := s.TripNotes(ctx, lisbon)
		if len(wish) != 1 || !strings.Contains(wish[0].Text, "rooftop") {
			t.Fatalf("trip notes = %+v, want the rooftop wish", wish)
		}
		handle := "[" + memory.Handle(wish[0].ID) + "] "
		if _, err := s.CloseSession(ctx, c1.ID, "ended"); err != nil {
			t.Fatal(err)
		}

		now = now.Add(24 * time.Hour)
		c2, _ := s.CreateChatSession(ctx, u.ID)
		sayTo(t, a, c2.ID, "Let's continue with my Lisbon trip. Show me some hotels.")
		if in := lastInstructions(t, s, c2.ID); !strings.Contains(in, "- "+handle+wish[0].Text+" [this trip]") {
			t.Fatalf("conversation 2's TRIP block lacks the wish with its handle %s:\n%s", handle, in)
		}
		res := sayTo(t, a, c2.ID, "Please forget that I want a hotel with a rooftop.")
		if len(res.Forgotten) != 1 || res.Forgotten[0].ID != wish[0].ID {
			t.Fatalf("forgotten = %+v, reply %q; want the rooftop wish", res.Forgotten, res.Reply)
		}
		if tn, _ := s.TripNotes(ctx, lisbon); len(tn) != 0 {
			t.Fatalf("the trip still has %+v", tn)
		}
		sayTo(t, a, c2.ID, "Show me some hotels.")
		if in := lastInstructions(t, s, c2.ID); strings.Contains(in, "rooftop") {
			t.Fatalf("the forgotten wish is still injected:\n%s", in)
		}
		// Undo, from the chat's chip, brings it back to the trip.
		if _, err := a.Notes().Restore(ctx, u.ID, c2.ID, wish[0].ID, models.Actor{ID: u.ID, Kind: models.ActorTraveler}); err != nil {
			t.Fatalf("restore: %v", err)
		}
		if tn, _ := s.TripNotes(ctx, lisbon); len(tn) != 1 {
			t.Fatalf("after Undo the trip has %d notes, want the wish", len(tn))
		}

		// Another trip's conversation: the wish is not shown, and its
		// handle reaches nothing there (a global note makes the forget
		// tool offered).
		if _, err := a.Notes().Add(ctx, models.NewNote{UserID: u.ID, Kind: models.KindGlobal,
			Note: memory.Note{Text: "Prefers aisle seats.", Keywords: []string{"seat"}, Source: memory.SourceTraveler}},
			models.Actor{ID: u.ID, Kind: models.ActorTraveler}, ""); err != nil {
			t.Fatal(err)
		}
		script := &scripted{steps: []func(agent.Request) (agent.Response, error){
			func(agent.Request) (agent.Response, error) {
				return agent.Response{ToolCalls: []memory.ToolCall{{ID: "u1", Name: memory.UpdateTripToolName,
					Arguments: `{"trip":null,"destination":"Oslo","start_date":null,"end_date":null,"travellers":null,"purpose":null,"budget":null,"status":null}`}}}, nil
			},
			func(agent.Request) (agent.Response, error) {
				return agent.Response{ToolCalls: []memory.ToolCall{{ID: "f1", Name: memory.ForgetToolName,
					Arguments: `{"handle":"` + memory.Handle(wish[0].ID) + `","confirm":false}`}}}, nil
			},
			reply("Noted."),
		}}
		b := agent.New(agent.DefaultConfig("gpt-4o-mini"), s, script, quietLog())
		b.SetClock(clock)
		c3, _ := s.CreateChatSession(ctx, u.ID)
		res = sayTo(t, b, c3.ID, "A new trip: Oslo. And forget the rooftop.")
		if len(res.Forgotten) != 0 {
			t.Fatalf("an Oslo conversation forgot %+v", res.Forgotten)
		}
		if in := lastInstructions(t, s, c3.ID); strings.Contains(in, "rooftop") {
			t.Fatalf("the Lisbon wish reached the Oslo conversation:\n%s", in)
		}
		msgs, _ := s.Messages(ctx, c3.ID)
		var answered bool
		for _, m := range msgs {
			if m.Role == string(memory.RoleTool) && m.ToolCallID == "f1" {
				answered = strings.Contains(m.Content, "not_found")
			}
		}
		if !answered {
			t.Fatalf("the forget in the Oslo conversation was not answered not_found: %+v", msgs)
		}
		if tn, _ := s.TripNotes(ctx, lisbon); len(tn) != 1 {
			t.Fatalf("the Lisbon trip has %d notes after the Oslo conversation, want its wish", len(tn))
		}

		// Forgotten again and conversation 2 ended: gone for good.
		if res := sayTo(t, a, c2.ID, "Forget the rooftop hotel."); len(res.Forgotten) != 1 {
			t.Fatalf("second forget: %+v, reply %q", res.Forgotten, res.Reply)
		}
		if _, err := s.CloseSession(ctx, c2.ID, "ended"); err != nil {
			t.Fatal(err)
		}
		if n, err := a.Notes().PurgeForgotten(ctx); err != nil || n != 1 {
			t.Fatalf("purge = %d, %v; want the wish deleted", n, err)
		}
		if _, err := s.NoteByID(ctx, u.ID, wish[0].ID); err == nil {
			t.Fatal("the forgotten wish is still stored")
		}
	})
}
