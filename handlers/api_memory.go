package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"concierge/memory"
	"concierge/models"
)

// subjectUser resolves the {id} of a /users/{id} path ("me" is the caller)
// and checks the caller may act on that user: themselves, or anyone when
// staff is allowed. Others get 404.
func (s *Server) subjectUser(c echo.Context, allowStaff bool) (*models.User, error) {
	u := currentUser(c)
	id := c.Param("id")
	if id == "me" || id == u.ID {
		return u, nil
	}
	if !allowStaff || !u.Role.IsStaff() {
		return nil, errNotFound
	}
	return s.store.UserByID(c.Request().Context(), id)
}

func (s *Server) apiGetMemory(c echo.Context) error {
	ctx := c.Request().Context()
	subject, err := s.subjectUser(c, true)
	if err != nil {
		return err
	}
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
