package handlers

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"concierge/agent"
	"concierge/memory"
	"concierge/models"
	"concierge/views"
)

// chatSessionListSize is how many conversations the session list shows.
const chatSessionListSize = 30

// fromHTMX reports whether htmx sent the request (so a fragment is wanted).

// chatIndex resumes the newest open conversation, or shows the welcome.
func (s *Server) chatIndex(c echo.Context) error {
	sessions, err := s.store.ChatSessions(c.Request().Context(), currentUser(c).ID, chatSessionListSize)
	if err != nil {
		return err
	}
	for _, cs := range sessions {
		if cs.Status == models.SessionOpen {
			if c.QueryParam("deleted") != "" {
				return c.Redirect(http.StatusSeeOther, "/chat/"+cs.ID+"?deleted=1")
			}
			return c.Redirect(http.StatusSeeOther, "/chat/"+cs.ID)
		}
	}
	v := views.ChatView{Sessions: chatSessionItems(sessions, ""), Notice: chatNotice(c)}
	return render(c, http.StatusOK, views.ChatPage(s.page(c, "page.chat", "chat"), v))
}

// chatNew starts a conversation and opens it.
func (s *Server) chatNew(c echo.Context) error {
	cs, err := s.store.CreateChatSession(c.Request().Context(), currentUser(c).ID)
	if err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/chat/"+cs.ID)
}

// chatShow is one conversation with its full transcript.
func (s *Server) chatShow(c echo.Context) error {
	cs, err := s.sessionFor(c, false)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	u := currentUser(c)
	sessions, err := s.store.ChatSessions(ctx, u.ID, chatSessionListSize)
	if err != nil {
		return err
	}
	msgs, err := s.store.Messages(ctx, cs.ID)
	if err != nil {
		return err
	}
	notes, err := s.store.NotesFromSession(ctx, cs.ID)
	if err != nil {
		return err
	}
	p := s.page(c, "page.chat", "chat")
	v := views.ChatView{Sessions: chatSessionItems(sessions, cs.ID), SessionID: cs.ID, Title: chatTitle(cs),
		Open: cs.Status == models.SessionOpen, MessageKey: models.NewID(), Notice: chatNotice(c)}
	v.Messages, v.Pending = chatTranscript(cs, msgs, notes)
	if v.Panel, err = s.chatPanelFor(c, cs); err != nil {
		return err
	}
	if !v.Open {
		if v.Outcome, err = s.chatOutcomeFor(c, cs, p.CSRF); err != nil {
			return err
		}
	}
	return render(c, http.StatusOK, views.ChatPage(p, v))
}

// chatSend stores the traveler's message (before any model call, so it is
// never lost) and answers with it and a bubble that streams the answer.
func (s *Server) chatSend(c echo.Context) error {
	cs, err := s.sessionFor(c, false)
	if err != nil {
		return err
	}
	content, err := validateMessage(c.FormValue("content"))
	if err != nil {
		return err
	}
	key, err := idempotencyKey(c.FormValue("idempotency_key"))
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	// A place in the model's queue first (when it is full the message is
	// refused, 503, rather than stored with no answer coming), then the
	// message is stored. From there the answer is the server's work: it is
	// produced and stored whether or not the browser opens the stream or
	// stays to read it.
	turn, _, err := s.turns.Submit(agent.Post{SessionID: cs.ID, Content: content, IdempotencyKey: key, Trace: requestSpan(c)})
	if err != nil {
		return err
	}
	if !fromHTMX(c) {
		return c.Redirect(http.StatusSeeOther, "/chat/"+cs.ID)
	}
	title := ""
	if cs.Title == "" { // the first message named the conversation
		if cs, err = s.store.ChatSessionByID(ctx, cs.ID); err != nil {
			return err
		}
		title = chatTitle(cs)
	}
	return render(c, http.StatusOK, views.SendResult(cs.ID, views.ChatBubble{Text: content, Turn: turn}, title))
}

// chatPending answers Retry: it tries the pending message again (a failure
// shown to the stream is forgotten) and answers with a fresh bubble whose
// stream follows that try.
func (s *Server) chatPending(c echo.Context) error {
	cs, err := s.sessionFor(c, false)
	if err != nil {
		return err
	}
	if cs.Status != models.SessionOpen {
		return render(c, http.StatusOK, views.AnswerFailed(cs.ID, sessionEndedText, false))
	}
	if _, err := s.turns.Retry(cs.ID); err != nil {
		return render(c, http.StatusOK, s.refusedTurn(cs.ID, err))
	}
	return render(c, http.StatusOK, views.StreamingBubble(cs.ID))
}

// sessionEndedText is the message id of what a traveler is told about a
// conversation that ended (AnswerFailed writes it in their language).
const sessionEndedText = "chat.failed.ended"

// chatUndo deletes a note the assistant saved in this conversation and
// shows the chip as undone, with the panel refreshed.
func (s *Server) chatUndo(c echo.Context) error {
	cs, err := s.sessionFor(c, false)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	u := currentUser(c)
	n, err := s.notes.Undo(ctx, u.ID, cs.ID, c.Param("note"), actorOf(u))
	if err != nil {
		return err
	}
	panel, err := s.chatPanelFor(c, cs)
	if err != nil {
		return err
	}
	chip := views.MemoryChip{SessionID: cs.ID, NoteID: n.ID, Text: n.Text, Undone: true}
	announce(c, localizer(c).T("chat.chip.undone", "Text", n.Text), "#chip-"+n.ID)
	return render(c, http.StatusOK, views.UndoResult(chip, panel))
}

// chatRestore is Undo of a note forgotten on request in this
// conversation: the note is remembered again, with its history.
func (s *Server) chatRestore(c echo.Context) error {
	cs, err := s.sessionFor(c, false)
	if err != nil {
		return err
	}
	u := currentUser(c)
	n, err := s.notes.Restore(c.Request().Context(), u.ID, cs.ID, c.Param("note"), actorOf(u))
	if err != nil {
		return err
	}
	panel, err := s.chatPanelFor(c, cs)
	if err != nil {
		return err
	}
	chip := views.MemoryChip{SessionID: cs.ID, NoteID: n.ID, Text: n.Text, Restored: true}
	announce(c, localizer(c).T("chat.chip.restored", "Text", n.Text), "#chip-"+n.ID)
	return render(c, http.StatusOK, views.UndoResult(chip, panel))
}

// chatEnd closes the conversation (waiting a little for its consolidation)
// and shows what happened to the traveler's memory.
func (s *Server) chatEnd(c echo.Context) error {
	cs, err := s.sessionFor(c, false)
	if err != nil {
		return err
	}
	if cs.Status == models.SessionOpen {
		if _, _, _, err := s.closeAndWait(c.Request().Context(), cs.ID, "ended by the traveler"); err != nil {
			return err
		}
		cs.Status = models.SessionClosing
	}
	if !fromHTMX(c) {
		return c.Redirect(http.StatusSeeOther, "/chat/"+cs.ID)
	}
	csrf := csrfToken(c)
	outcome, err := s.chatOutcomeFor(c, cs, csrf)
	if err != nil {
		return err
	}
	panel, err := s.chatPanelFor(c, cs)
	if err != nil {
		return err
	}
	announceOutcome(c, outcome, "")
	return render(c, http.StatusOK, views.EndResult(*outcome, panel, csrf))
}

// announceOutcome moves the focus to the outcome of an ended conversation
// and says it; the next Tab reaches "Start a new conversation". While
// the consolidation runs the polled box takes the focus, and when it
// finishes its replacement takes it back only if the focus fell to the
// page body (only "?" + selector), so a traveler who moved on is left be.
func announceOutcome(c echo.Context, o *views.ChatOutcome, only string) {
	switch {
	case o.Working():
		if only == "" {
			announce(c, localizer(c).T("chat.say.ended_working"), "#outcome-working")
		}
	case o.Status == "failed":
		announce(c, localizer(c).T("chat.say.ended_failed"), only+"#outcome-title")
	default:
		announce(c, localizer(c).T("chat.say.ended_done"), only+"#outcome-title")
	}
}

// chatOutcome is polled while the consolidation of an ended conversation runs.
func (s *Server) chatOutcome(c echo.Context) error {
	cs, err := s.sessionFor(c, false)
	if err != nil {
		return err
	}
	outcome, err := s.chatOutcomeFor(c, cs, csrfToken(c))
	if err != nil {
		return err
	}
	announceOutcome(c, outcome, "?")
	return render(c, http.StatusOK, views.OutcomeBox(*outcome))
}

// chatOutcomeFor builds the outcome of an ended conversation from its job
// and, once done, its consolidation report.
func (s *Server) chatOutcomeFor(c echo.Context, cs *models.ChatSession, csrf string) (*views.ChatOutcome, error) {
	ctx := c.Request().Context()
	job, err := s.store.JobForSession(ctx, cs.ID)
	if errors.Is(err, models.ErrNotFound) {
		return nil, errNotFound // still open: nothing to show
	}
	if err != nil {
		return nil, err
	}
	out := &views.ChatOutcome{SessionID: cs.ID, CSRF: csrf, Status: job.Status}
	if job.Status != models.JobDone {
		return out, nil
	}
	rep, err := s.store.ReportForJob(ctx, job.ID)
	if err != nil {
		return nil, err
	}
	notes, err := s.store.NotesFromSession(ctx, cs.ID)
	if err != nil {
		return nil, err
	}
	if err := fillOutcome(out, rep.Report, notes); err != nil {
		return nil, err
	}
	return out, nil
}

// chatPanelFor builds the side panel: profile highlights, global notes and
// this conversation's notes.
func (s *Server) chatPanelFor(c echo.Context, cs *models.ChatSession) (views.ChatPanel, error) {
	ctx := c.Request().Context()
	panel := views.ChatPanel{SessionID: cs.ID, Ended: cs.Status != models.SessionOpen}
	profile, err := s.store.Profile(ctx, cs.UserID)
	if err != nil {
		return panel, err
	}
	global, err := s.store.GlobalNotes(ctx, cs.UserID)
	if err != nil {
		return panel, err
	}
	travelerOrder(global, func(n memory.Note) bool { return n.Pinned })
	panel.Global = travelerNotes(global)
	var session []memory.Note
	if !panel.Ended {
		if session, err = s.store.SessionNotes(ctx, cs.ID); err != nil {
			return panel, err
		}
		panel.Session = travelerNotes(session)
	}
	panel.Profile = withOverrides(profileHighlights(localizer(c), profile), profile, append(session, global...))
	panel.CSRF = csrfToken(c)
	return panel, s.panelTrips(c, cs, &panel)
}
