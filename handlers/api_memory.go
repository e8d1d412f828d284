package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"concierge/memory"
	"concierge/models"
)

func (s *Server) apiGetMemory(c echo.Context) error {
	ctx := c.Request().Context()
	subject := subjectOf(c)
	profile, err := s.store.Profile(ctx, subject.ID)
	if err != nil {
		return err
	}
	global, err := s.store.GlobalNotes(ctx, subject.ID)
	if err != nil {
		return err
	}
	session := []memory.Note{}
	if open, err := s.store.ChatSessions(ctx, subject.ID, 1); err != nil {
		return err
	} else if len(open) == 1 && open[0].Status == models.SessionOpen {
		if session, err = s.store.SessionNotes(ctx, open[0].ID); err != nil {
			return err
		}
	}
	trips, err := s.store.Trips(ctx, subject.ID, memory.MaxTrips)
	if err != nil {
		return err
	}
	if trips == nil {
		trips = []memory.Trip{}
	}
	return c.JSON(http.StatusOK, map[string]any{
		"user": toAPIUser(subject), "profile": profile, "global_notes": global, "session_notes": session, "trips": trips,
	})
}
