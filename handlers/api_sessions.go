package handlers

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"concierge/agent"
	"concierge/memory"
	"concierge/memory/prompt"
	"concierge/models"
)

// IdempotencyKeyHeader is the request header that makes a message send
// idempotent.
const IdempotencyKeyHeader = "Idempotency-Key"

// MaxIdempotencyKeyLen bounds an idempotency key.
const MaxIdempotencyKeyLen = 255

// idempotencyKey checks a client's key: empty (none), or 1–255 printable
// ASCII characters (a UUID, a random token).
func idempotencyKey(key string) (string, error) {
	if len(key) > MaxIdempotencyKeyLen {
		return "", newError(http.StatusBadRequest, "bad_idempotency_key", "The Idempotency-Key is limited to 255 characters.")
	}
	for i := 0; i < len(key); i++ {
		if key[i] < 0x21 || key[i] > 0x7e {
			return "", newError(http.StatusBadRequest, "bad_idempotency_key", "The Idempotency-Key must be printable ASCII without spaces, such as a UUID.")
		}
	}
	return key, nil
}

// closeWait is how long closing a session waits for its consolidation before
// answering 202.
const closeWait = 3 * time.Second

// sessionFor loads a chat session the caller may see: its owner always,
// staff when allowStaff. Others get 404, so ids of other people's sessions
// are not confirmed.
func (s *Server) sessionFor(c echo.Context, allowStaff bool) (*models.ChatSession, error) {
	cs, ok := c.Get(sessionKey).(*models.ChatSession)
	if !ok || cs.ID != c.Param("id") {
		var err error
		if cs, err = s.store.ChatSessionByID(c.Request().Context(), c.Param("id")); err != nil {
			return nil, err
		}
	}
	u := currentUser(c)
	if cs.UserID == u.ID || (allowStaff && u.Role.IsStaff()) {
		return cs, nil
	}
	return nil, errNotFound
}

func (s *Server) apiCreateSession(c echo.Context) error {
	cs, err := s.store.CreateChatSession(c.Request().Context(), currentUser(c).ID)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, map[string]string{"id": cs.ID, "status": cs.Status})
}

// validateMessage checks a chat message before it is stored: a request
// without one is malformed; the size limit is the store's rule.
func validateMessage(content string) (string, error) {
	content = strings.TrimSpace(content)
	if content == "" {
		return "", localError(http.StatusUnprocessableEntity, "invalid", "error.empty_message")
	}
	return content, models.CheckMessageSize(content)
}

// apiMemoryResult is the memory part of a turn's answer.
type apiMemoryResult struct {
	Saved []memory.Note `json:"saved"`
	// Forgotten are the notes forget_memory_note took out this turn;
	// POST …/notes/{note}/restore brings one back while the conversation is open.
	Forgotten []memory.Note       `json:"forgotten"`
	Blocked   []map[string]string `json:"blocked"`
}

func turnJSON(res *agent.TurnResult) map[string]any {
	blocked := make([]map[string]string, len(res.Blocked))
	for i, cat := range res.Blocked {
		blocked[i] = map[string]string{"reason": cat}
	}
	saved := res.Saved
	if saved == nil {
		saved = []memory.Note{}
	}
	forgotten := res.Forgotten
	if forgotten == nil {
		forgotten = []memory.Note{}
	}
	return map[string]any{
		"reply": res.Reply, "turn": res.Turn,
		"memory": apiMemoryResult{Saved: saved, Forgotten: forgotten, Blocked: blocked},
		"usage":  res.Usage,
	}
}

func (s *Server) apiPostMessage(c echo.Context) error {
	cs, err := s.sessionFor(c, false)
	if err != nil {
		return err
	}
	var req struct {
		Content string `json:"content"`
	}
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	content, err := validateMessage(req.Content)
	if err != nil {
		return err
	}
	key, err := idempotencyKey(c.Request().Header.Get(IdempotencyKeyHeader))
	if err != nil {
		return err
	}
	res, err := s.detachedTurn(c, agent.Post{SessionID: cs.ID, Content: content, IdempotencyKey: key})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, turnJSON(res))
}

// apiMessage is how the API shows a transcript entry.
type apiMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
	Turn    int    `json:"turn"`
}

func (s *Server) apiGetSession(c echo.Context) error {
	cs, err := s.sessionFor(c, true)
	if err != nil {
		return err
	}
	msgs, err := s.store.Messages(c.Request().Context(), cs.ID)
	if err != nil {
		return err
	}
	out := []apiMessage{}
	for _, m := range msgs {
		// The conversation as people had it: tool traffic is in /turns.
		if m.Role == string(memory.RoleTool) || (m.Role == string(memory.RoleAssistant) && m.Content == "") {
			continue
		}
		out = append(out, apiMessage{Role: m.Role, Content: m.Content, Turn: m.Turn})
	}
	return c.JSON(http.StatusOK, map[string]any{"id": cs.ID, "user_id": cs.UserID, "status": cs.Status, "messages": out})
}

func (s *Server) apiGetTurns(c echo.Context) error {
	cs, err := s.sessionFor(c, true)
	if err != nil {
		return err
	}
	snaps, err := s.store.Snapshots(c.Request().Context(), cs.ID)
	if err != nil {
		return err
	}
	// injected is what the instructions carried, as the agent recorded it;
	// absent for snapshots older than that record.
	type injected struct {
		Notes        []prompt.InjectedNote `json:"notes"`
		SessionBlock bool                  `json:"session_block"`
		Tokens       prompt.SectionTokens  `json:"tokens"`
	}
	type request struct {
		Instructions string           `json:"instructions"`
		Injected     *injected        `json:"injected,omitempty"`
		Messages     []memory.Message `json:"messages"`
	}
	type turn struct {
		Turn     int             `json:"turn"`
		Round    int             `json:"round"`
		Model    string          `json:"model"`
		Request  request         `json:"request"`
		Response json.RawMessage `json:"response"`
		Usage    agent.Usage     `json:"usage"`
	}
	out := []turn{}
	for _, sn := range snaps {
		t := turn{Turn: sn.Turn, Round: sn.Round, Model: sn.Model, Request: request{Instructions: sn.Instructions},
			Response: json.RawMessage(sn.Response), Usage: agent.Usage{PromptTokens: sn.PromptTokens, CompletionTokens: sn.CompletionTokens}}
		if err := json.Unmarshal([]byte(sn.Messages), &t.Request.Messages); err != nil {
			return err
		}
		if notes, tokens, ok := sn.Injection(); ok {
			t.Request.Injected = &injected{Notes: notes, SessionBlock: sn.SessionBlock, Tokens: tokens}
		}
		out = append(out, t)
	}
	return c.JSON(http.StatusOK, map[string]any{"turns": out})
}

func (s *Server) apiCloseSession(c echo.Context) error {
	cs, err := s.sessionFor(c, true)
	if err != nil {
		return err
	}
	u := currentUser(c)
	reason := "ended by the traveler"
	if u.ID != cs.UserID {
		reason = "closed by " + string(u.Role)
	}
	status, job, report, err := s.closeAndWait(c.Request().Context(), cs.ID, reason)
	if err != nil {
		return err
	}
	if status != models.JobDone {
		return c.JSON(http.StatusAccepted, map[string]any{"status": "closing", "job": job.ID})
	}
	return c.JSON(http.StatusOK, map[string]any{"status": "closed", "job": job.ID, "consolidation": report})
}

// closeAndWait closes a session and waits a little for its consolidation.
func (s *Server) closeAndWait(ctx context.Context, sessionID, reason string) (string, *models.ConsolidationJob, json.RawMessage, error) {
	job, err := s.store.CloseSession(ctx, sessionID, reason)
	if err != nil {
		return "", nil, nil, err
	}
	if job.Status != models.JobDone {
		done, stopWaiting := s.worker.Done(job.ID)
		defer stopWaiting()
		s.worker.Notify()
		// The job may have finished before we started waiting, or finish on
		// another instance: poll the store as well as waiting for ours.
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		deadline := time.After(closeWait)
	wait:
		for {
			select {
			case <-done:
				break wait
			case <-deadline:
				break wait
			case <-ctx.Done():
				break wait
			case <-tick.C:
				if j, err := s.store.JobByID(ctx, job.ID); err == nil && j.Status == models.JobDone {
					break wait
				}
			}
		}
		if job, err = s.store.JobByID(ctx, job.ID); err != nil {
			return "", nil, nil, err
		}
	}
	if job.Status != models.JobDone {
		return job.Status, job, nil, nil
	}
	rep, err := s.store.ReportForJob(ctx, job.ID)
	if err != nil {
		return "", nil, nil, err
	}
	return job.Status, job, json.RawMessage(rep.Report), nil
}

func (s *Server) apiGetConsolidation(c echo.Context) error {
	ctx := c.Request().Context()
	job, err := s.store.JobByID(ctx, c.Param("job"))
	if err != nil {
		return err
	}
	if u := currentUser(c); job.UserID != u.ID && !u.Role.IsStaff() {
		return errNotFound
	}
	out := map[string]any{"status": job.Status, "job": job.ID, "attempts": job.Attempts}
	if job.Status == models.JobFailed {
		out["error"] = job.Error
	}
	if job.Status == models.JobDone {
		rep, err := s.store.ReportForJob(ctx, job.ID)
		if err != nil {
			return err
		}
		out["report"] = json.RawMessage(rep.Report)
	}
	return c.JSON(http.StatusOK, out)
}

// apiRestoreNote is Undo of a note this conversation forgot at the
// traveler's request: the note is remembered again, with its history.
func (s *Server) apiRestoreNote(c echo.Context) error {
	cs, err := s.sessionFor(c, false)
	if err != nil {
		return err
	}
	u := currentUser(c)
	n, err := s.notes.Restore(c.Request().Context(), u.ID, cs.ID, c.Param("note"), actorOf(u))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, n.Domain())
}
