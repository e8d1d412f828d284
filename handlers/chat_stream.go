package handlers

import (
	"bytes"
	"context"
	"errors"
	"html"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"concierge/agent"
	"concierge/models"
	"concierge/views"
)

// chatStream is a view of the conversation's answer as server-sent events.
// The answer itself is produced by the turn runner, whoever watches: this
// stream joins the running turn (or starts one for a pending message), sends
// what was generated so far and then the rest live as "delta" events
// (escaped HTML), then one "done" event with the bubble's final HTML — the
// answer with its memory chips, or the error with a Retry. A conversation
// already answered gets its stored answer at once. Every delta carries an
// event id (the turn's run and the text's length), so EventSource resumes
// a dropped stream where it stopped (Last-Event-ID); a stream that cannot
// resume gets the text so far as one "text" event that replaces what the
// bubble shows. It always answers 200 with an event stream, so refusals
// too end with a done event instead of reconnecting in a loop.
func (s *Server) chatStream(c echo.Context) error {
	cs, err := s.sessionFor(c, false)
	if err != nil {
		e, _ := toError(err)
		if e.Status != http.StatusNotFound {
			return err
		}
		return streamRefusal(c, c.Param("id"), "chat.failed.gone")
	}
	release, ok := s.streams.acquire(currentUser(c).ID, s.cfg.MaxStreams, s.cfg.MaxStreamsPerUser)
	if !ok {
		c.Response().Header().Set("Retry-After", strconv.Itoa(retryAfterSeconds(s.turns.RetryAfter())))
		return s.sendFinal(c, s.startStream(c), views.AnswerFailed(cs.ID, "chat.failed.too_many_windows", true))
	}
	defer release()
	w := s.startStream(c)
	req := c.Request()
	ctx, stop := s.untilAbandoned(req.Context())
	defer stop()
	c.SetRequest(req.WithContext(ctx))
	final, err := s.followTurn(c, cs, w)
	c.SetRequest(req)
	switch {
	case err == nil:
		return s.sendFinal(c, w, final)
	case s.gaveUp(ctx, err):
		// Shutdown gave up on this answer: the last event says so, with
		// Retry (the message is stored; a retry on the next instance
		// answers it).
		return s.sendFinal(c, w, s.refusedTurn(cs.ID, agent.ErrDraining))
	case clientGone(c):
		s.log.Debug("stream closed by the client", "request_id", requestID(c), "session_id", cs.ID)
		return nil
	case errors.Is(err, errStreamWrite):
		s.log.Debug("stream client stopped reading", "request_id", requestID(c), "session_id", cs.ID)
		return nil
	default:
		return s.streamFailed(c, w, cs.ID, err)
	}
}

// keepAliveEvery is how often a stream that has nothing new sends a comment,
// so proxies keep it open and a departed client is noticed.
const keepAliveEvery = 15 * time.Second

// busyPoll is how often a stream whose answer runs on another instance
// checks whether it was stored (or its lease expired and it can be taken over).
const busyPoll = time.Second

// followTurn sends the turn's text and returns the final bubble.
func (s *Server) followTurn(c echo.Context, cs *models.ChatSession, w *sseWriter) (templ.Component, error) {
	ctx := c.Request().Context()
	lastID := c.Request().Header.Get("Last-Event-ID")
	busySince := time.Time{}
	for {
		t, err := s.turns.Join(cs.ID)
		if err != nil {
			return s.refusedTurn(cs.ID, err), nil
		}
		offset := resumeOffset(lastID, t)
		s.log.Debug("stream joined a turn", "request_id", requestID(c), "session_id", cs.ID, "run", t.ID(), "resume_at", offset, "generated", t.Len())
		if offset < 0 {
			offset = 0
			if t.Len() == 0 {
				// nothing to place yet
			} else if chunk, next, _, err := t.Next(ctx, 0); err == nil && chunk != "" {
				// The browser shows text we cannot place: replace it.
				if err := w.event(eventID(t, next), "text", html.EscapeString(chunk)); err != nil {
					return nil, err
				}
				offset = next
			}
		}
		for {
			wait, cancel := context.WithTimeout(ctx, keepAliveEvery)
			chunk, next, ended, err := t.Next(wait, offset)
			cancel()
			switch {
			case ctx.Err() != nil:
				return nil, ctx.Err()
			case err != nil: // nothing new for a while
				if err := w.comment("keep-alive"); err != nil {
					return nil, err
				}
				continue
			case chunk != "":
				if err := w.event(eventID(t, next), "delta", html.EscapeString(chunk)); err != nil {
					return nil, err
				}
				offset = next
				lastID = eventID(t, next)
				continue
			}
			if ended {
				break
			}
		}
		res, err := t.Result()
		switch agent.FailureKind(err) {
		case "":
			panel, err := s.chatPanelFor(c, cs)
			if err != nil {
				return nil, err
			}
			return views.AnswerDone(answerBubble(cs.ID, res.Turn, res.Reply, res.Saved, res.Forgotten, res.Blocked), panel), nil
		case agent.FailAnswered:
			// Opened after the answer was given (a reload, a reconnect, a
			// second tab): the answer as the transcript has it.
			return s.lastAnswer(c, cs)
		case agent.FailSessionClosed:
			return views.AnswerFailed(cs.ID, sessionEndedText, false), nil
		case agent.FailBusy:
			// Another instance holds the answer lease (or took it over):
			// wait for its answer to be stored, or for the lease to run
			// out if it died.
			if busySince.IsZero() {
				busySince = time.Now()
			}
			if time.Since(busySince) > s.turns.Timeout() {
				return views.AnswerFailed(cs.ID, "chat.failed.elsewhere", true), nil
			}
			if err := w.comment("answered elsewhere"); err != nil {
				return nil, err
			}
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-s.turns.Stopping():
				return s.refusedTurn(cs.ID, agent.ErrDraining), nil
			case <-time.After(busyPoll):
			}
			lastID = "" // a new run: its text, if any, starts afresh
			continue
		case agent.FailTimeout:
			return views.AnswerFailed(cs.ID, "chat.failed.timeout", true), nil
		case agent.FailCanceled:
			return views.AnswerFailed(cs.ID, "chat.failed.restarted", true), nil
		case agent.FailModel:
			var me *agent.ModelError
			errors.As(err, &me)
			return views.AnswerFailed(cs.ID, agent.Explain(me), true), nil
		default:
			return nil, err
		}
	}
}

// refusedTurn is the bubble for a turn the runner would not start.
func (s *Server) refusedTurn(sessionID string, err error) templ.Component {
	if errors.Is(err, agent.ErrDraining) {
		return views.AnswerFailed(sessionID, "chat.failed.restarting", true)
	}
	return views.AnswerFailed(sessionID, "chat.failed.busy", true)
}

// eventID names a point in a turn's text: the run and the length so far.
func eventID(t *agent.Turn, offset int) string { return t.ID() + "." + strconv.Itoa(offset) }

// resumeOffset is where a reconnecting stream resumes in t's text, or -1
// when its last event id names another run or no place in this one.
func resumeOffset(lastID string, t *agent.Turn) int {
	run, off, ok := strings.Cut(lastID, ".")
	if !ok || run != t.ID() {
		return -1
	}
	n, err := strconv.Atoi(off)
	if err != nil || n < 0 || n > t.Len() {
		return -1
	}
	return n
}

// streamRetry is how long EventSource waits before it reconnects a dropped
// stream. Reconnecting is safe: the stream resumes from the last event id
// and never starts a second model call.
const streamRetry = 2 * time.Second

// startStream answers with an event stream whose events have the
// configured write deadline.
func (s *Server) startStream(c echo.Context) *sseWriter {
	return openStream(c, s.cfg.StreamWriteTimeout)
}

// openStream answers with an event stream, each event written within
// timeout.
func openStream(c echo.Context, timeout time.Duration) *sseWriter {
	w := c.Response()
	h := w.Header()
	h.Set(echo.HeaderContentType, "text/event-stream")
	h.Set(echo.HeaderCacheControl, "no-store") // answers are personal: never kept by a cache or proxy
	h.Set("X-Accel-Buffering", "no")           // no proxy buffering of the stream
	w.WriteHeader(http.StatusOK)
	sw := &sseWriter{w: w, rc: http.NewResponseController(w), timeout: timeout}
	_ = sw.write("retry: " + strconv.Itoa(int(streamRetry.Milliseconds())) + "\n\n")
	return sw
}

// streamRefusal ends a stream that cannot run (the conversation is gone,
// the sign-in expired) with a final bubble saying so. An error status would
// only make the browser's SSE client reconnect again and again.
func streamRefusal(c echo.Context, sessionID, message string) error {
	return sendFinal(c, openStream(c, DefaultConfig().StreamWriteTimeout), views.AnswerFailed(sessionID, message, false), nil)
}

// streamFailed logs our own failure and tells the browser, in the stream.
func (s *Server) streamFailed(c echo.Context, w *sseWriter, sessionID string, err error) error {
	s.log.Error("chat stream failed", "request_id", requestID(c), "session_id", sessionID, "err_kind", agent.FailureKind(err), "err", err)
	return s.sendFinal(c, w, views.AnswerFailed(sessionID, "chat.failed.ours", true))
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
		last := bubbles[n-1]
		if res := s.turns.Recent(cs.ID); res != nil && res.Turn == last.Turn {
			last.Blocked = res.Blocked // refusals are not in the transcript
		}
		panel, err := s.chatPanelFor(c, cs)
		if err != nil {
			return nil, err
		}
		return views.AnswerDone(last, panel), nil
	}
	return views.AnswerFailed(cs.ID, "chat.failed.nothing", false), nil
}

func (s *Server) sendFinal(c echo.Context, w *sseWriter, final templ.Component) error {
	return sendFinal(c, w, final, s.turns.Stopping())
}

// sendFinal sends the done event, then lingers until the browser closes
// the stream or stopping (shutdown) is closed.
func sendFinal(c echo.Context, w *sseWriter, final templ.Component, stopping <-chan struct{}) error {
	ctx := c.Request().Context()
	var buf bytes.Buffer
	if err := final.Render(ctx, &buf); err != nil {
		if clientGone(c) {
			return nil
		}
		return err
	}
	if err := w.event("", "done", buf.String()); err != nil {
		return nil // the client is gone or stuck; nothing more to tell it
	}
	// Let the browser close the stream (sse-close="done") before we do;
	// a shutdown does not wait for that.
	select {
	case <-ctx.Done():
	case <-stopping:
	case <-time.After(streamLinger):
	}
	return nil
}

// streamLinger is how long a finished stream stays open for the browser to
// close it first.
const streamLinger = 5 * time.Second

// errStreamWrite says a stream event could not be written in time.
var errStreamWrite = errors.New("handlers: stream write failed")

// sseWriter writes server-sent events, each under its own write deadline.
type sseWriter struct {
	w       *echo.Response
	rc      *http.ResponseController
	timeout time.Duration
}

// event writes one event (an id when not empty) and flushes it; data may
// span several lines.
func (w *sseWriter) event(id, name, data string) error {
	data = strings.ReplaceAll(strings.ReplaceAll(data, "\r\n", "\n"), "\r", "\n")
	var b strings.Builder
	if id != "" {
		b.WriteString("id: " + id + "\n")
	}
	b.WriteString("event: " + name + "\n")
	for _, line := range strings.Split(data, "\n") {
		b.WriteString("data: " + line + "\n")
	}
	b.WriteString("\n")
	return w.write(b.String())
}

// comment writes an SSE comment, which EventSource ignores.
func (w *sseWriter) comment(text string) error { return w.write(": " + text + "\n\n") }

func (w *sseWriter) write(s string) error {
	if w.timeout > 0 {
		_ = w.rc.SetWriteDeadline(time.Now().Add(w.timeout))
	}
	if _, err := w.w.Write([]byte(s)); err != nil {
		return errors.Join(errStreamWrite, err)
	}
	if err := w.rc.Flush(); err != nil {
		return errors.Join(errStreamWrite, err)
	}
	return nil
}

// streamCounts counts open streams, overall and per traveler.
type streamCounts struct {
	mu      sync.Mutex
	total   int
	perUser map[string]int
}

// acquire takes a place for one more stream of the user, within the caps
// (0 means none); release gives it back.
func (sc *streamCounts) acquire(userID string, maxTotal, maxPerUser int) (release func(), ok bool) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if (maxTotal > 0 && sc.total >= maxTotal) || (maxPerUser > 0 && sc.perUser[userID] >= maxPerUser) {
		return nil, false
	}
	sc.total++
	sc.perUser[userID]++
	return func() {
		sc.mu.Lock()
		defer sc.mu.Unlock()
		sc.total--
		if sc.perUser[userID]--; sc.perUser[userID] == 0 {
			delete(sc.perUser, userID)
		}
	}, true
}

// clientGone reports whether the client of the request went away.
func clientGone(c echo.Context) bool { return c.Request().Context().Err() != nil }

// retryAfterSeconds is d as a Retry-After value, at least one second.
func retryAfterSeconds(d time.Duration) int { return max(1, int((d+time.Second-1)/time.Second)) }

// detachedTurn sends a message through the turn runner (Runner.Send: store
// it, answer it on the runner's turn) and waits for its answer: if the
// client hangs up, the turn still finishes and stores its answer, and the
// request ends with errClientGone.
//
// When shutdown gives up on the turn (Abandon), the request still gets a
// status: 409 answer_in_progress with the turn when the message was
// stored, else 503 restarting.
func (s *Server) detachedTurn(c echo.Context, p agent.Post) (*agent.TurnResult, error) {
	var stored storedTurn
	p.OnStored, p.Trace = stored.set, requestSpan(c)
	ctx, stop := s.untilAbandoned(c.Request().Context())
	defer stop()
	res, err := s.turns.Send(ctx, p)
	if err != nil && s.gaveUp(ctx, err) {
		return nil, restartingError(stored.get())
	}
	if clientGone(c) {
		s.log.Debug("client left during its turn; the answer is still stored", "request_id", requestID(c))
		return nil, errClientGone
	}
	// The turn may have outlasted the response's write deadline.
	if s.cfg.WriteTimeout > 0 {
		_ = http.NewResponseController(c.Response()).SetWriteDeadline(time.Now().Add(s.cfg.WriteTimeout))
	}
	return res, err
}
