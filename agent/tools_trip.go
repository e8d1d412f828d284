package agent

import (
	"context"
	"errors"
	"slices"

	"concierge/memory"
	"concierge/models"
)

// withTrip adds to st, which holds the traveler's open trips
// (Store.TurnTrips), what a turn of conversation cs sees of its own trip:
// when the conversation belongs to one, that trip and its notes (the TRIP
// block), which Store.TurnNotes read with the turn's other notes.
func (a *Agent) withTrip(ctx context.Context, cs *models.ChatSession, st *memory.State, notes []memory.Note) error {
	if cs.TripID == "" {
		return nil
	}
	// The trip is usually among those the turn has read already: open, or
	// one of the last travelled.
	mine := func(t memory.Trip) bool { return t.ID == cs.TripID }
	if i := slices.IndexFunc(st.OpenTrips, mine); i >= 0 {
		t := st.OpenTrips[i]
		st.Trip = &t
	} else if i := slices.IndexFunc(st.Trips, mine); i >= 0 {
		t := st.Trips[i]
		st.Trip = &t
	} else {
		trip, err := a.store.TripByID(ctx, cs.UserID, cs.TripID)
		if errors.Is(err, models.ErrNotFound) {
			return nil // deleted meanwhile: the conversation goes on without it
		}
		if err != nil {
			return err
		}
		d := trip.Domain()
		st.Trip = &d
	}
	st.TripNotes = notes
	return nil
}

// updateTrip answers one update_trip call: it creates or fills the
// conversation's trip, or attaches the conversation to the open trip the
// call names, through the trip service. The conversation seen by the
// rest of the turn then belongs to that trip.
func (a *Agent) updateTrip(ctx context.Context, cs *models.ChatSession, call memory.ToolCall) string {
	args, err := memory.ParseUpdateTripArgs(call.Arguments)
	if err != nil {
		return toolResult{Error: "bad_arguments", Message: err.Error() +
			`. Send {"trip","destination","start_date","end_date","travellers","purpose","budget","status"}, null for what was not stated.`}.String()
	}
	up, err := a.notes.Trips().UpdateFromChat(ctx, cs.UserID, cs.ID, args, models.Actor{Kind: models.ActorAssistant})
	if err != nil {
		var de *memory.Error
		if errors.As(err, &de) && de.Code != memory.EINTERNAL {
			a.log.Info("update_trip refused", "session_id", cs.ID, "code", de.Code)
			return toolResult{Error: de.Code, Message: de.Message}.String()
		}
		a.log.Error("update_trip", "session_id", cs.ID, "err", err)
		return toolResult{Error: "failed", Message: "The trip could not be saved just now; carry on without it."}.String()
	}
	cs.TripID = up.Trip.ID
	a.log.Info("trip updated", "session_id", cs.ID, "trip_id", up.Trip.ID, "created", up.Created, "attached", up.Attached)
	msg := "Trip updated."
	switch {
	case up.Created:
		msg = "Trip created; this conversation plans it."
	case up.Attached:
		msg = "This conversation now continues the trip; its notes are in the TRIP block."
	}
	return tripResult{OK: true, Trip: up.Handle, Message: msg}.String()
}

// tripResult is update_trip's result: the trip's handle, not a note id
// (forgetUndone reads note ids from toolResult).
type tripResult struct {
	OK      bool   `json:"ok"`
	Trip    string `json:"trip"`
	Message string `json:"message"`
}

func (r tripResult) String() string { return toolResult{}.marshal(r) }
