package handlers

import (
	"bytes"
	"context"
	"errors"
	"html"
	"net/http"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"concierge/agent"
	"concierge/models"
	"concierge/views"
)

// chatStream answers the conversation's pending message as server-sent
// events: "delta" events carry the answer's text as it is generated
// (escaped HTML), then one "done" event carries the bubble's final HTML —
// the rendered answer with its memory chips, or the error with a Retry — and
// the stream ends. It always answers 200 with an event stream, so that the
// browser never reconnects in a loop; opening it again after an answer was
// given sends that answer once more.
func (s *Server) chatStream(c echo.Context) error {
	cs, err := s.sessionFor(c, false)
	if err != nil {
		e, _ := toError(err)
		if e.Status != http.StatusNotFound {
			return err
		}
		return streamRefusal(c, c.Param("id"), "This conversation is no longer available.")
	}
	w := startStream(c)

	ctx := c.Request().Context()
	res, err := s.agent.Answer(ctx, cs.ID, func(delta string) {
		writeSSE(w, "delta", html.EscapeString(delta))
	})
	var final templ.Component
	var me *agent.ModelError
	switch {
	case err == nil:
		panel, err := s.chatPanelFor(c, cs)
		if err != nil {
			return s.streamFailed(c, cs.ID, err)
		}
		final = views.AnswerDone(answerBubble(cs.ID, res.Turn, res.Reply, res.Saved, res.Blocked), panel)
	case errors.Is(err, agent.ErrNothingToAnswer):
		// Opened again after the answer was given (a reconnect, a second
		// tab): send the last answer as the transcript has it.
		if final, err = s.lastAnswer(c, cs); err != nil {
			return s.streamFailed(c, cs.ID, err)
		}
	case errors.Is(err, models.ErrSessionClosed):
		final = views.AnswerFailed(cs.ID, sessionEndedText, false)
	case errors.Is(err, models.ErrBusy):
		final = views.AnswerFailed(cs.ID, "This message is being answered in another window. Wait a moment, then retry here.", true)
	case ctx.Err() != nil:
		return nil // the browser went away; the message stays pending
	case errors.As(err, &me):
		final = views.AnswerFailed(cs.ID, agent.Explain(me), true)
	default:
		return s.streamFailed(c, cs.ID, err)
	}
	return sendFinal(ctx, w, final)
}

// startStream answers with an event stream that EventSource must not
// reconnect by itself: a reconnect would run the model again, so it is told
// to wait ten minutes (Chromium mishandled a one-hour value in our tests).
func startStream(c echo.Context) *echo.Response {
	w := c.Response()
	h := w.Header()
	h.Set(echo.HeaderContentType, "text/event-stream")
	h.Set(echo.HeaderCacheControl, "no-cache")
	h.Set("X-Accel-Buffering", "no") // no proxy buffering of the stream
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte("retry: 600000\n\n"))
	w.Flush()
	return w
}

// streamRefusal ends a stream that cannot run (the conversation is gone,
// the sign-in expired) with a final bubble saying so. An error status would
// only make the browser's SSE client reconnect again and again.
func streamRefusal(c echo.Context, sessionID, message string) error {
	startStream(c)
	return sendFinal(c.Request().Context(), c.Response(), views.AnswerFailed(sessionID, message, false))
}

// streamFailed logs our own failure and tells the browser, in the stream.
func (s *Server) streamFailed(c echo.Context, sessionID string, err error) error {
	s.log.Error("chat stream failed", "request_id", requestID(c), "session_id", sessionID, "err", err)
	return sendFinal(c.Request().Context(), c.Response(),
		views.AnswerFailed(sessionID, "Something went wrong on our side. Please try again.", true))
}

// lastAnswer renders the conversation's last answered turn.
func (s *Server) lastAnswer(c echo.Context, cs *models.ChatSession) (templ.Component, error) {
	ctx := c.Request().Context()
	msgs, err := s.store.Messages(ctx, cs.ID)
	if err != nil {
		return nil, err
	}
	notes, err := s.store.NotesFromSession(ctx, cs.ID)
	if err != nil {
		return nil, err
	}
	bubbles, _ := chatTranscript(cs, msgs, notes)
	if n := len(bubbles); n > 0 && bubbles[n-1].Assistant {
		panel, err := s.chatPanelFor(c, cs)
		if err != nil {
			return nil, err
		}
		return views.AnswerDone(bubbles[n-1], panel), nil
	}
	return views.AnswerFailed(cs.ID, "There is no message waiting for an answer.", false), nil
}

func sendFinal(ctx context.Context, w *echo.Response, final templ.Component) error {
	var buf bytes.Buffer
	if err := final.Render(ctx, &buf); err != nil {
		return err
	}
	writeSSE(w, "done", buf.String())
	// Let the browser close the stream (sse-close="done") before we do, so
	// it never sees a dropped connection it might retry.
	select {
	case <-ctx.Done():
	case <-time.After(streamLinger):
	}
	return nil
}

// streamLinger is how long a finished stream stays open for the browser to
// close it first.
const streamLinger = 5 * time.Second

// writeSSE writes one event and flushes it; data may span several lines.
func writeSSE(w *echo.Response, event, data string) {
	data = strings.ReplaceAll(strings.ReplaceAll(data, "\r\n", "\n"), "\r", "\n")
	var b strings.Builder
	b.WriteString("event: " + event + "\n")
	for _, line := range strings.Split(data, "\n") {
		b.WriteString("data: " + line + "\n")
	}
	b.WriteString("\n")
	_, _ = w.Write([]byte(b.String()))
	w.Flush()
}
