package handlers

import (
	"encoding/json"
	"errors"
	"net/http"
	"slices"

	"github.com/labstack/echo/v4"

	"concierge/models"
	"concierge/views"
)

// myMemory is "What Concierge remembers": the traveler's profile, long-term
// notes and controls over their data.
func (s *Server) myMemory(c echo.Context) error {
	ctx := c.Request().Context()
	u := currentUser(c)
	profile, err := s.store.Profile(ctx, u.ID)
	if err != nil {
		return err
	}
	notes, err := s.myNotes(c)
	if err != nil {
		return err
	}
	v := views.RemembersView{Profile: profileFacts(profile), Notes: notes}
	if v.Erasure, err = s.myErasure(c); err != nil {
		return err
	}
	return render(c, http.StatusOK, views.RemembersPage(s.page(c, "What Concierge remembers", "memory"), v))
}

// myNotes are the traveler's long-term notes, most recently updated first.
func (s *Server) myNotes(c echo.Context) ([]views.TravelerNote, error) {
	global, err := s.store.GlobalNotes(c.Request().Context(), currentUser(c).ID)
	if err != nil {
		return nil, err
	}
	notes := travelerNotes(global)
	slices.Reverse(notes) // stored oldest first
	return notes, nil
}

// myErasure is the traveler's pending erasure request, or nil.
func (s *Server) myErasure(c echo.Context) (*views.ErasureStatus, error) {
	r, err := s.store.PendingErasureRequest(c.Request().Context(), currentUser(c).ID)
	if errors.Is(err, models.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &views.ErasureStatus{Requested: travelerDate(r.CreatedAt)}, nil
}

// myNotesChanged answers a change to the notes: the refreshed list for
// htmx, the page again for a plain form.
func (s *Server) myNotesChanged(c echo.Context) error {
	if !fromHTMX(c) {
		return c.Redirect(http.StatusSeeOther, "/memory")
	}
	notes, err := s.myNotes(c)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, views.RemembersNotes(s.page(c, "", "").CSRF, notes))
}

// travelerActor is the signed-in traveler as the audit trail records them.
func travelerActor(u *models.User) models.Actor {
	return models.Actor{ID: u.ID, Kind: models.ActorTraveler}
}

// myMemoryDelete hard-deletes one of the traveler's notes.
func (s *Server) myMemoryDelete(c echo.Context) error {
	u := currentUser(c)
	if err := s.store.DeleteNote(c.Request().Context(), u.ID, c.Param("note"), travelerActor(u), "deleted by the traveler"); err != nil {
		return err
	}
	return s.myNotesChanged(c)
}

// myMemoryDeleteAll hard-deletes all of the traveler's long-term notes.
func (s *Server) myMemoryDeleteAll(c echo.Context) error {
	u := currentUser(c)
	if _, err := s.store.DeleteGlobalNotes(c.Request().Context(), u.ID, travelerActor(u), "all deleted by the traveler"); err != nil {
		return err
	}
	return s.myNotesChanged(c)
}

// myMemoryExport downloads everything Concierge holds about the traveler.
func (s *Server) myMemoryExport(c echo.Context) error {
	u := currentUser(c)
	exp, err := s.store.ExportUserData(c.Request().Context(), u.ID)
	if err != nil {
		return err
	}
	body, err := json.MarshalIndent(exp, "", "  ")
	if err != nil {
		return err
	}
	h := c.Response().Header()
	h.Set(echo.HeaderContentDisposition, `attachment; filename="concierge-data-`+exp.ExportedAt.UTC().Format("2006-01-02")+`.json"`)
	h.Set(echo.HeaderCacheControl, "no-store")
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSONCharsetUTF8, body)
}

// myMemoryErase records the traveler's request to erase their account.
func (s *Server) myMemoryErase(c echo.Context) error {
	u := currentUser(c)
	r, err := s.store.CreateErasureRequest(c.Request().Context(), u.ID, "traveler", "requested by the traveler")
	if err != nil {
		return err
	}
	s.log.Info("erasure requested", "request_id", requestID(c), "user_id", u.ID, "erasure_id", r.ID)
	if !fromHTMX(c) {
		return c.Redirect(http.StatusSeeOther, "/memory")
	}
	return render(c, http.StatusOK, views.ErasureSection(s.page(c, "", "").CSRF, &views.ErasureStatus{Requested: travelerDate(r.CreatedAt)}))
}
