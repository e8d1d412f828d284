package handlers

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"concierge/memory"
	"concierge/models"
	"concierge/views"
)

// panelTrips fills the side panel's trip part: the conversation's trip
// with its notes (the wishes said for it here and in its other
// conversations) and the traveler's open trips, for the picker.
func (s *Server) panelTrips(c echo.Context, cs *models.ChatSession, panel *views.ChatPanel) error {
	ctx := c.Request().Context()
	open, err := s.store.OpenTrips(ctx, cs.UserID)
	if err != nil {
		return err
	}
	for _, t := range open {
		panel.OpenTrips = append(panel.OpenTrips, panelTrip(t))
	}
	// The turn that just ended may have put the conversation on a trip
	// (update_trip): read where it is now, not where it was.
	if cs, err = s.store.ChatSessionByID(ctx, cs.ID); err != nil {
		return err
	}
	if cs.TripID == "" {
		return nil
	}
	trip, err := s.store.TripByID(ctx, cs.UserID, cs.TripID)
	if errors.Is(err, models.ErrNotFound) {
		return nil // deleted meanwhile
	}
	if err != nil {
		return err
	}
	v := panelTrip(trip.Domain())
	notes, err := s.store.TripNotes(ctx, trip.ID)
	if err != nil {
		return err
	}
	for _, n := range notes {
		v.Notes = append(v.Notes, n.Text)
	}
	panel.Trip = &v
	return nil
}

func panelTrip(t memory.Trip) views.TravelerTrip {
	v := views.TravelerTrip{ID: t.ID, Destination: t.Destination, StartDate: t.StartDate, EndDate: t.EndDate,
		Status: string(t.Status), Open: t.Status.Open()}
	if t.Name != "" || t.Destination != "" || t.Route != "" {
		v.Name = t.Title()
	}
	return v
}

// chatPickTrip puts the conversation on the trip the traveler picked in
// the side panel, or on none, through the trip service the API's POST
// /sessions/{id}/trip uses, and shows the panel again.
func (s *Server) chatPickTrip(c echo.Context) error {
	cs, err := s.sessionFor(c, false)
	if err != nil {
		return err
	}
	u := currentUser(c)
	ctx := c.Request().Context()
	if err := s.notes.Trips().Attach(ctx, u.ID, cs.ID, c.FormValue("trip_id"), actorOf(u)); err != nil {
		return err
	}
	if !fromHTMX(c) {
		return c.Redirect(http.StatusSeeOther, "/chat/"+cs.ID)
	}
	panel, err := s.chatPanelFor(c, cs)
	if err != nil {
		return err
	}
	say := localizer(c).T("chat.say.trip_none")
	if panel.Trip != nil {
		say = localizer(c).T("chat.say.trip_on", "Trip", panel.Trip.Name)
		if panel.Trip.Name == "" {
			say = localizer(c).T("chat.say.trip_on", "Trip", localizer(c).T("trips.untitled"))
		}
	}
	// "?": the picker had the focus before its panel was replaced; a traveler
	// who went on typing while the answer came keeps where they are.
	announce(c, say, "?#panel-trip-select")
	return render(c, http.StatusOK, views.ChatPanelAside(panel, false))
}
