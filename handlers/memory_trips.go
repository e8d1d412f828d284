package handlers

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"concierge/memory"
	"concierge/models"
	"concierge/views"
)

// myTrips are the traveler's trips as the memory page lists them.
func (s *Server) myTrips(c echo.Context) ([]views.TravelerTrip, error) {
	ctx := c.Request().Context()
	trips, err := s.store.Trips(ctx, currentUser(c).ID, 100)
	if err != nil {
		return nil, err
	}
	out := make([]views.TravelerTrip, 0, len(trips))
	for _, t := range trips {
		v := views.TravelerTrip{ID: t.ID, Destination: t.Destination, StartDate: t.StartDate, EndDate: t.EndDate,
			Status: string(t.Status), Open: t.Status.Open()}
		if t.Name != "" || t.Destination != "" || t.Route != "" {
			v.Name = t.Title()
		}
		notes, err := s.store.TripNotes(ctx, t.ID)
		if err != nil {
			return nil, err
		}
		for _, n := range notes {
			v.Notes = append(v.Notes, n.Text)
		}
		sessions, err := s.store.TripSessions(ctx, t.ID)
		if err != nil {
			return nil, err
		}
		for _, cs := range sessions {
			v.Conversations = append(v.Conversations, views.TripConversation{ID: cs.ID, Title: cs.Title, Started: cs.CreatedAt})
		}
		out = append(out, v)
	}
	return out, nil
}

// myTripEdit renames or cancels one of the traveler's trips.
func (s *Server) myTripEdit(c echo.Context) error {
	u := currentUser(c)
	var p models.TripPatch
	if name := strings.TrimSpace(c.FormValue("name")); name != "" {
		p.Name = &name
	}
	if c.FormValue("status") == string(memory.TripCancelled) {
		st := memory.TripCancelled
		p.Status = &st
	}
	if _, err := s.notes.Trips().Edit(c.Request().Context(), u.ID, c.Param("trip"), p, actorOf(u), "changed by the traveler"); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/memory")
}

// myTripDelete deletes one of the traveler's trips and its notes.
func (s *Server) myTripDelete(c echo.Context) error {
	u := currentUser(c)
	if err := s.notes.Trips().Delete(c.Request().Context(), u.ID, c.Param("trip"), actorOf(u), "deleted by the traveler"); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/memory")
}
