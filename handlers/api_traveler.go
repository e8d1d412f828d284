package handlers

import (
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"concierge/memory"
	"concierge/models"
)

// This file is the traveler's self-service, shared by the JSON API (SPEC
// §4) and the traveler's pages: their conversations (list, rename, delete),
// notes written and edited in their own words, and withdrawing an erasure
// request. Owners are checked with sessionFor and currentUser; staff
// endpoints live in api_console.go.

// ownNoteReason is what the audit trail records for a traveler's own writes.
const (
	ownNoteAdded  = "written by the traveler"
	ownNoteEdited = "edited by the traveler"
)

// addOwnNote stores a long-term note the traveler wrote themselves.
// expiresOn is the note's end date (YYYY-MM-DD) or "" for none.
func (s *Server) addOwnNote(c echo.Context, text string, keywords []string, expiresOn string) (*models.Note, error) {
	u := currentUser(c)
	return s.notes.Add(c.Request().Context(), models.NewNote{UserID: u.ID, Kind: models.KindGlobal,
		Note: memory.Note{Text: text, Keywords: keywords, Scope: memory.ScopeDurable, Source: memory.SourceTraveler, ExpiresOn: expiresOn}},
		actorOf(u), ownNoteAdded)
}

// editOwnNote changes the text or the end date (nil: unchanged, "":
// none) of one of the traveler's long-term notes; a pin set by staff or
// consolidation stays as it is.
func (s *Server) editOwnNote(c echo.Context, noteID string, text *string, keywords []string, expiresOn *string) (*models.Note, error) {
	u := currentUser(c)
	return s.notes.Edit(c.Request().Context(), u.ID, noteID, models.NotePatch{Text: text, Keywords: keywords, ExpiresOn: expiresOn}, actorOf(u), ownNoteEdited)
}

// sessionTitle validates a conversation's new title.
func sessionTitle(title string) (string, error) {
	title = strings.Join(strings.Fields(title), " ")
	if title == "" {
		return "", localError(http.StatusUnprocessableEntity, "invalid", "error.no_title")
	}
	return title, nil
}

// renameSession gives the caller's conversation a new title.
func (s *Server) renameSession(c echo.Context, title string) (*models.ChatSession, error) {
	cs, err := s.sessionFor(c, false)
	if err != nil {
		return nil, err
	}
	if title, err = sessionTitle(title); err != nil {
		return nil, err
	}
	return s.store.RenameChatSession(c.Request().Context(), cs.UserID, cs.ID, title)
}

// deleteSession deletes the caller's conversation with its messages and
// snapshots.
func (s *Server) deleteSession(c echo.Context) error {
	cs, err := s.sessionFor(c, false)
	if err != nil {
		return err
	}
	if err := s.store.DeleteChatSession(c.Request().Context(), cs.UserID, cs.ID); err != nil {
		return err
	}
	s.log.Info("conversation deleted", "request_id", requestID(c), "session_id", cs.ID)
	return nil
}

// cancelErasure withdraws the caller's pending erasure request.
func (s *Server) cancelErasure(c echo.Context) error {
	u := currentUser(c)
	if err := s.store.CancelErasureRequest(c.Request().Context(), u.ID); err != nil {
		return err
	}
	s.log.Info("erasure request cancelled", "request_id", requestID(c), "user_id", u.ID)
	return nil
}

// apiSessionItem is one conversation in GET /api/v1/sessions.
type apiSessionItem struct {
	ID        string    `json:"id"`
	Title     string    `json:"title"`
	Status    string    `json:"status"`
	StartedAt time.Time `json:"started_at"`
}

func toAPISession(cs *models.ChatSession) apiSessionItem {
	return apiSessionItem{ID: cs.ID, Title: cs.Title, Status: cs.Status, StartedAt: cs.CreatedAt}
}

// apiListSessionsLimit bounds GET /api/v1/sessions.
const apiListSessionsLimit = 500

func (s *Server) apiListSessions(c echo.Context) error {
	sessions, err := s.store.ChatSessions(c.Request().Context(), currentUser(c).ID, apiListSessionsLimit)
	if err != nil {
		return err
	}
	out := make([]apiSessionItem, len(sessions))
	for i := range sessions {
		out[i] = toAPISession(&sessions[i])
	}
	return c.JSON(http.StatusOK, map[string]any{"sessions": out})
}

func (s *Server) apiRenameSession(c echo.Context) error {
	var req struct {
		Title string `json:"title"`
	}
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	cs, err := s.renameSession(c, req.Title)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, toAPISession(cs))
}

func (s *Server) apiDeleteSession(c echo.Context) error {
	if err := s.deleteSession(c); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// ownNoteRequest is the body of the owner's note writes. The owner cannot
// pin (pins are for safety needs, set by staff or consolidation) and gives
// no reason.
type ownNoteRequest struct {
	Text     *string  `json:"text"`
	Keywords []string `json:"keywords"`
	Pinned   *bool    `json:"pinned"`
	Reason   string   `json:"reason"` // accepted and not needed: the audit says "by the traveler"
	// ExpiresOn is the last day the note holds (YYYY-MM-DD); "" clears it.
	ExpiresOn *string `json:"expires_on"`
}

func (r ownNoteRequest) check() error {
	if r.Pinned != nil {
		return models.ErrCannotPin
	}
	if r.Text == nil && r.ExpiresOn == nil {
		return localError(http.StatusUnprocessableEntity, "nothing_to_change", "error.note_nothing")
	}
	return nil
}

// apiOwnerCreateNote is POST /api/v1/users/{me}/notes for the traveler
// themselves (apiCreateNote hands it over).
func (s *Server) apiOwnerCreateNote(c echo.Context) error {
	var req ownNoteRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	if err := req.check(); err != nil {
		return err
	}
	if req.Text == nil {
		return localError(http.StatusUnprocessableEntity, "nothing_to_change", "error.note_no_text")
	}
	n, err := s.addOwnNote(c, *req.Text, req.Keywords, deref(req.ExpiresOn))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, n.Domain())
}

// apiOwnerUpdateNote is PATCH /api/v1/users/{me}/notes/{note} for the
// traveler themselves (apiUpdateNote hands it over).
func (s *Server) apiOwnerUpdateNote(c echo.Context) error {
	var req ownNoteRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	if err := req.check(); err != nil {
		return err
	}
	n, err := s.editOwnNote(c, c.Param("note"), req.Text, req.Keywords, req.ExpiresOn)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, n.Domain())
}

// ownerCall reports whether the caller is a traveler addressing their own
// /users/{id} path, by "me" or by their id: such calls are the owner's
// self-service, not staff work.
func ownerCall(c echo.Context) bool {
	u := currentUser(c)
	id := c.Param("id")
	return u != nil && !u.Role.IsStaff() && (id == "me" || id == u.ID)
}

func (s *Server) apiCancelErasure(c echo.Context) error {
	if err := s.cancelErasure(c); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// deref is *p, or "" for nil.
func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
