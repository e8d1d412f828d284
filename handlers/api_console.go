package handlers

import (
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"concierge/memory"
	"concierge/models"
)

func (s *Server) apiSearchUsers(c echo.Context) error {
	found, err := s.store.SearchUsers(c.Request().Context(), c.QueryParam("q"), 50)
	if err != nil {
		return err
	}
	users := visibleTo(currentUser(c), found)
	out := make([]apiUser, len(users))
	for i := range users {
		out[i] = toAPIUser(&users[i])
	}
	return c.JSON(http.StatusOK, map[string]any{"users": out})
}

func (s *Server) apiCreateNote(c echo.Context) error {
	if ownerCall(c) {
		return s.apiOwnerCreateNote(c) // a traveler's own note (api_traveler.go)
	}
	subject := subjectOf(c)
	var req struct {
		Text     string   `json:"text"`
		Keywords []string `json:"keywords"`
		Pinned   bool     `json:"pinned"`
		Reason   string   `json:"reason"`
		// ExpiresOn is the last day the note holds (YYYY-MM-DD), or "".
		ExpiresOn string `json:"expires_on"`
	}
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	reason, err := models.CheckReason(req.Reason)
	if err != nil {
		return err
	}
	n, err := s.notes.Add(c.Request().Context(), models.NewNote{UserID: subject.ID, Kind: models.KindGlobal,
		Note: memory.Note{Text: req.Text, Keywords: req.Keywords, Scope: memory.ScopeDurable, Pinned: req.Pinned, Source: memory.SourceStaff, ExpiresOn: req.ExpiresOn}},
		actorOf(currentUser(c)), reason)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, n.Domain())
}

func (s *Server) apiUpdateNote(c echo.Context) error {
	if ownerCall(c) {
		return s.apiOwnerUpdateNote(c) // a traveler editing their own note (api_traveler.go)
	}
	subject := subjectOf(c)
	var req struct {
		Text     *string  `json:"text"`
		Keywords []string `json:"keywords"`
		Pinned   *bool    `json:"pinned"`
		Reason   string   `json:"reason"`
		// ExpiresOn sets the last day the note holds; "" clears it.
		ExpiresOn *string `json:"expires_on"`
	}
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	reason, err := models.CheckReason(req.Reason)
	if err != nil {
		return err
	}
	n, err := s.updateNote(c, subject.ID, c.Param("note"), models.NotePatch{Text: req.Text, Keywords: req.Keywords, Pinned: req.Pinned, ExpiresOn: req.ExpiresOn}, reason)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, n.Domain())
}

// updateNote applies a staff change to a note through the note service.
func (s *Server) updateNote(c echo.Context, userID, noteID string, p models.NotePatch, reason string) (*models.Note, error) {
	return s.notes.Edit(c.Request().Context(), userID, noteID, p, actorOf(currentUser(c)), reason)
}

func (s *Server) apiDeleteNote(c echo.Context) error {
	subject := subjectOf(c)
	u := currentUser(c)
	var req struct {
		Reason string `json:"reason"`
	}
	if c.Request().ContentLength != 0 {
		if err := decodeJSON(c, &req); err != nil {
			return err
		}
	}
	reason := strings.TrimSpace(req.Reason)
	if u.ID != subject.ID || u.Role.IsStaff() {
		var err error
		if reason, err = models.CheckReason(req.Reason); err != nil {
			return err
		}
	} else if reason == "" {
		reason = "deleted by the traveler"
	}
	if err := s.notes.Delete(c.Request().Context(), subject.ID, c.Param("note"), actorOf(u), reason); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// apiAuditEvent is how the API shows an audit event: who, what, why and
// from where, without the payloads.
type apiAuditEvent struct {
	ID              string    `json:"id"`
	At              time.Time `json:"at"`
	Actor           string    `json:"actor"`
	ActorID         string    `json:"actor_id,omitempty"`
	Action          string    `json:"action"`
	NoteID          string    `json:"note_id"`
	Reason          string    `json:"reason"`
	SessionID       string    `json:"session_id,omitempty"`
	MessageID       string    `json:"message_id,omitempty"`
	ConsolidationID string    `json:"consolidation_id,omitempty"`
}

// auditFilter reads actor, action, from and to (YYYY-MM-DD, both inclusive)
// from the query string.
func auditFilter(c echo.Context) (models.AuditFilter, error) {
	f := models.AuditFilter{ActorKind: c.QueryParam("actor"), Action: c.QueryParam("action")}
	for _, p := range []struct {
		name string
		dst  *time.Time
		days int
	}{{"from", &f.From, 0}, {"to", &f.To, 1}} {
		v := c.QueryParam(p.name)
		if v == "" {
			continue
		}
		d, err := time.Parse(memory.DateLayout, v)
		if err != nil {
			return f, localError(http.StatusBadRequest, "bad_date", "error.bad_date")
		}
		*p.dst = d.AddDate(0, 0, p.days)
	}
	return f, nil
}

func (s *Server) apiAudit(c echo.Context) error {
	subject := subjectOf(c)
	f, err := auditFilter(c)
	if err != nil {
		return err
	}
	f.UserID = subject.ID
	events, err := s.store.AuditEvents(c.Request().Context(), f)
	if err != nil {
		return err
	}
	out := make([]apiAuditEvent, len(events))
	for i, e := range events {
		out[i] = apiAuditEvent{ID: e.ID, At: e.CreatedAt, Actor: e.ActorKind, ActorID: e.ActorID, Action: e.Action, NoteID: e.NoteID,
			Reason: e.Reason, SessionID: e.SessionID, MessageID: e.MessageID, ConsolidationID: e.ConsolidationID}
	}
	return c.JSON(http.StatusOK, map[string]any{"events": out})
}

func (s *Server) apiExport(c echo.Context) error {
	subject := subjectOf(c)
	exp, err := s.store.ExportUserData(c.Request().Context(), subject.ID)
	if err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderContentDisposition, `attachment; filename="concierge-export.json"`)
	return c.JSON(http.StatusOK, exp)
}

func (s *Server) apiRequestErasure(c echo.Context) error {
	u := currentUser(c)
	ctx := c.Request().Context()
	r, created, err := s.store.RequestErasure(ctx, u.ID, actorOf(u), travelerErasureReason)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	s.log.Info("erasure requested", "request_id", requestID(c), "erasure_request", r.ID)
	return c.JSON(status, map[string]string{"id": r.ID, "status": r.Status})
}

// apiErasureRequest is how the API shows an erasure request.
type apiErasureRequest struct {
	ID          string                 `json:"id"`
	Status      string                 `json:"status"`
	UserID      string                 `json:"user_id,omitempty"`
	RequestedBy string                 `json:"requested_by"`
	ExecutedBy  string                 `json:"executed_by,omitempty"`
	CreatedAt   time.Time              `json:"created_at"`
	RequestedAt time.Time              `json:"requested_at"`
	DueAt       time.Time              `json:"due_at"`
	Urgency     string                 `json:"urgency,omitempty"` // due_soon or overdue while pending
	CompletedAt *time.Time             `json:"completed_at,omitempty"`
	Receipt     *models.ErasureReceipt `json:"receipt,omitempty"`
}

func (s *Server) apiErasureRequests(c echo.Context) error {
	reqs, err := s.store.ErasureRequests(c.Request().Context(), c.QueryParam("status"), 500)
	if err != nil {
		return err
	}
	out := make([]apiErasureRequest, len(reqs))
	now := s.store.Clock()
	for i, r := range reqs {
		rec, err := r.DecodeReceipt()
		if err != nil {
			return err
		}
		out[i] = apiErasureRequest{ID: r.ID, Status: r.Status, UserID: r.UserID, RequestedBy: r.RequestedBy, ExecutedBy: r.ExecutedBy,
			CreatedAt: r.CreatedAt, RequestedAt: r.CreatedAt, DueAt: r.DueAt(s.cfg.ErasureDue), Urgency: r.Urgency(now, s.cfg.ErasureDue),
			CompletedAt: r.CompletedAt, Receipt: rec}
	}
	return c.JSON(http.StatusOK, map[string]any{"requests": out})
}

// erase runs an erasure and logs it.
func (s *Server) erase(c echo.Context, userID string, why models.ErasureWhy) (*models.ErasureReceipt, error) {
	u := currentUser(c)
	rec, err := s.store.EraseUser(c.Request().Context(), userID, actorOf(u), why)
	switch {
	case err != nil && rec == nil:
		return nil, err
	case err != nil:
		// The rows are gone and the receipt is stored (the error is an
		// ErrErasureIncomplete, a 500): log which request it was.
		s.log.Error("erasure incomplete", "request_id", requestID(c), "erasure_request", rec.RequestID, "err", err)
		return nil, err
	}
	s.log.Info("user erased", "request_id", requestID(c), "erasure_request", rec.RequestID, "executed_by", u.ID, "reason", why.Reason)
	return rec, nil
}

func (s *Server) apiErase(c echo.Context) error {
	var req struct {
		Reason string `json:"reason"`
		Ticket string `json:"ticket"`
	}
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	why, err := models.NewErasureWhy(req.Reason, req.Ticket)
	if err != nil {
		return err
	}
	rec, err := s.erase(c, subjectOf(c).ID, why)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"receipt": rec})
}
