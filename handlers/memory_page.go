package handlers

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"concierge/memory"
	"concierge/models"
	"concierge/views"
)

// myMemory is "What Concierge remembers": the traveler's profile, long-term
// notes with their sources, the open conversation's notes and controls
// over their data.
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
	open, err := s.store.OpenSessionNotes(ctx, u.ID)
	if err != nil {
		return err
	}
	global, err := s.store.GlobalNotes(ctx, u.ID)
	if err != nil {
		return err
	}
	travelerOrder(global, func(n memory.Note) bool { return n.Pinned })
	facts := withOverrides(profileFacts(localizer(c), profile), profile, append(domainRows(open), global...))
	v := views.RemembersView{Profile: facts, Notes: notes}
	if v.Trip, err = s.myTripNotes(c); err != nil {
		return err
	}
	if v.Trips, err = s.myTrips(c); err != nil {
		return err
	}
	if v.Erasure, err = s.myErasure(c); err != nil {
		return err
	}
	return render(c, http.StatusOK, views.RemembersPage(s.page(c, "page.memory", "memory"), v))
}

// myNotes are the traveler's long-term notes with where each came from:
// pinned (safety) notes first, then the most recently updated.
func (s *Server) myNotes(c echo.Context) ([]views.TravelerNote, error) {
	ctx := c.Request().Context()
	u := currentUser(c)
	rows, err := s.store.GlobalNoteRows(ctx, u.ID, false)
	if err != nil {
		return nil, err
	}
	travelerOrder(rows, func(n models.Note) bool { return n.Pinned })
	sources, err := s.store.NoteSources(ctx, u.ID, rows)
	if err != nil {
		return nil, err
	}
	out := make([]views.TravelerNote, len(rows))
	for i := range rows {
		out[i] = travelerNoteRow(&rows[i], sources)
	}
	return out, nil
}

// myNote is one of the traveler's long-term notes as the list shows it.
func (s *Server) myNote(c echo.Context, id string) (views.TravelerNote, error) {
	ctx := c.Request().Context()
	u := currentUser(c)
	n, err := s.store.NoteByID(ctx, u.ID, id)
	if err != nil {
		return views.TravelerNote{}, err
	}
	if n.Kind != models.KindGlobal || n.Status != models.StatusActive {
		return views.TravelerNote{}, errNotFound
	}
	sources, err := s.store.NoteSources(ctx, u.ID, []models.Note{*n})
	if err != nil {
		return views.TravelerNote{}, err
	}
	return travelerNoteRow(n, sources), nil
}

// quoteChars bounds the quoted message a note came from.
const quoteChars = 140

// travelerNoteRow is a stored note with its source as the traveler sees it.
func travelerNoteRow(n *models.Note, sources map[string]models.NoteSource) views.TravelerNote {
	d := n.Domain()
	v := travelerNotes([]memory.Note{d})[0]
	if src, ok := sources[n.ID]; ok {
		o := &views.NoteOrigin{}
		if !src.SessionGone {
			o.SessionID, o.Title, o.Date = src.SessionID, src.SessionTitle, travelerDate(src.SessionStarted)
			o.Quote = shorten(src.Message, quoteChars)
		}
		v.From = o
		// The conversation is where the note came from; a later rewrite is
		// said beside it (the note's source is its last writer).
		switch d.Source {
		case memory.SourceStaff:
			v.EditedBy = "support"
		case memory.SourceTraveler:
			v.EditedBy = "you"
		}
	}
	return v
}

// shorten cuts text to at most n characters, at a word where it can.
func shorten(text string, n int) string {
	text = strings.Join(strings.Fields(text), " ")
	r := []rune(text)
	if len(r) <= n {
		return text
	}
	cut := string(r[:n-1])
	if i := strings.LastIndex(cut, " "); i > n/2 {
		cut = cut[:i]
	}
	return cut + "…"
}

// myTripNotes are the notes the traveler's open conversations staged.
func (s *Server) myTripNotes(c echo.Context) ([]views.TripNote, error) {
	ctx := c.Request().Context()
	u := currentUser(c)
	rows, err := s.store.OpenSessionNotes(ctx, u.ID)
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	sources, err := s.store.NoteSources(ctx, u.ID, rows)
	if err != nil {
		return nil, err
	}
	out := make([]views.TripNote, 0, len(rows))
	for _, n := range rows {
		title := sources[n.ID].SessionTitle
		out = append(out, views.TripNote{ID: n.ID, Text: n.Text, SessionID: n.SessionID, Session: title,
			ThisTrip: n.Scope == string(memory.ScopeThisTrip)})
	}
	return out, nil
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

// announce asks static/chat.js, once htmx has settled the swap, to say
// what the change did in the page's live region and to move the focus to
// the element focus selects — never leaving it on the page body.
func announce(c echo.Context, say, focus string) {
	b, _ := json.Marshal(map[string]map[string]string{"concierge:announce": {"say": say, "focus": focus}})
	c.Response().Header().Set(hxTriggerAfterSettle, asciiJSON(b))
}

// asciiJSON writes every non-ASCII character of a JSON text as a \u
// escape: browsers read response headers as Latin-1, so "“Lisboa”" would
// arrive garbled otherwise.
func asciiJSON(b []byte) string {
	var out strings.Builder
	for _, r := range string(b) {
		switch {
		case r < utf8.RuneSelf:
			out.WriteRune(r)
		case r > 0xFFFF:
			r1, r2 := utf16.EncodeRune(r)
			fmt.Fprintf(&out, "\\u%04x\\u%04x", r1, r2)
		default:
			fmt.Fprintf(&out, "\\u%04x", r)
		}
	}
	return out.String()
}

// myNotesChanged answers a change to the notes: the refreshed list for
// htmx (announcing say and focusing focus), the page again for a plain form.
func (s *Server) myNotesChanged(c echo.Context, say, focus string) error {
	if !fromHTMX(c) {
		return c.Redirect(http.StatusSeeOther, "/memory")
	}
	notes, err := s.myNotes(c)
	if err != nil {
		return err
	}
	if focus == "" || !slices.ContainsFunc(notes, func(n views.TravelerNote) bool { return focus == "#note-"+n.ID }) {
		focus = "#notes-title"
	}
	announce(c, say, focus)
	return render(c, http.StatusOK, views.RemembersNotes(csrfToken(c), notes, views.NoteForm{}))
}

// myMemoryAdd stores a note the traveler wrote in their own words.
func (s *Server) myMemoryAdd(c echo.Context) error {
	n, err := s.addOwnNote(c, c.FormValue("text"), nil, strings.TrimSpace(c.FormValue("expires_on")))
	if err != nil {
		return err
	}
	return s.myNotesChanged(c, localizer(c).T("memory.say.added", "Text", n.Text), "#note-"+n.ID)
}

// myMemoryNote is one note's row again (Cancel of an edit).
func (s *Server) myMemoryNote(c echo.Context) error {
	n, err := s.myNote(c, c.Param("note"))
	if err != nil {
		return err
	}
	announce(c, "", "#edit-"+n.ID)
	return render(c, http.StatusOK, views.RemembersNote(csrfToken(c), n))
}

// myMemoryEditForm replaces a note's row with its edit form.
func (s *Server) myMemoryEditForm(c echo.Context) error {
	n, err := s.myNote(c, c.Param("note"))
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, views.NoteEditForm(csrfToken(c), n, views.NoteForm{NoteID: n.ID, Text: n.Text}))
}

// myMemoryEdit changes a note's text, through the same checks as new notes.
func (s *Server) myMemoryEdit(c echo.Context) error {
	cur, err := s.myNote(c, c.Param("note"))
	if err != nil {
		return err
	}
	text := c.FormValue("text")
	var until *string
	if u := strings.TrimSpace(c.FormValue("expires_on")); u != cur.ExpiresOn {
		until = &u
	}
	if _, err := s.editOwnNote(c, c.Param("note"), &text, nil, until); err != nil {
		return err
	}
	if !fromHTMX(c) {
		return c.Redirect(http.StatusSeeOther, "/memory")
	}
	n, err := s.myNote(c, c.Param("note"))
	if err != nil {
		return err
	}
	announce(c, localizer(c).T("memory.say.updated", "Text", n.Text), "#edit-"+n.ID)
	return render(c, http.StatusOK, views.RemembersNote(csrfToken(c), n))
}

// myMemoryDelete hard-deletes one of the traveler's notes; the focus moves
// to the note that took its place (the next one, else the one before).
func (s *Server) myMemoryDelete(c echo.Context) error {
	ctx := c.Request().Context()
	u := currentUser(c)
	before, err := s.myNotes(c)
	if err != nil {
		return err
	}
	id := c.Param("note")
	if err := s.notes.Delete(ctx, u.ID, id, actorOf(u), "deleted by the traveler"); err != nil {
		return err
	}
	focus := ""
	if i := slices.IndexFunc(before, func(n views.TravelerNote) bool { return n.ID == id }); i >= 0 {
		switch {
		case i+1 < len(before):
			focus = "#note-" + before[i+1].ID
		case i > 0:
			focus = "#note-" + before[i-1].ID
		}
	}
	return s.myNotesChanged(c, localizer(c).T("memory.say.deleted"), focus)
}

// myMemoryDeleteAll hard-deletes all of the traveler's long-term notes.
func (s *Server) myMemoryDeleteAll(c echo.Context) error {
	u := currentUser(c)
	n, err := s.notes.DeleteGlobal(c.Request().Context(), u.ID, actorOf(u), "all deleted by the traveler")
	if err != nil {
		return err
	}
	return s.myNotesChanged(c, localizer(c).N("memory.say.deleted_all", n), "")
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

// travelerErasureReason is kept with a traveler's own erasure request, from
// the page and the API alike.
const travelerErasureReason = "requested by the traveler"

// myMemoryErase records the traveler's request to erase their account.
func (s *Server) myMemoryErase(c echo.Context) error {
	u := currentUser(c)
	r, _, err := s.store.RequestErasure(c.Request().Context(), u.ID, actorOf(u), travelerErasureReason)
	if err != nil {
		return err
	}
	s.log.Info("erasure requested", "request_id", requestID(c), "user_id", u.ID, "erasure_id", r.ID)
	if !fromHTMX(c) {
		return c.Redirect(http.StatusSeeOther, "/memory")
	}
	announce(c, localizer(c).T("memory.say.erasure_requested"), "#erasure-title")
	return render(c, http.StatusOK, views.ErasureSection(csrfToken(c), &views.ErasureStatus{Requested: travelerDate(r.CreatedAt)}))
}

// myMemoryCancelErasure withdraws the traveler's pending erasure request.
func (s *Server) myMemoryCancelErasure(c echo.Context) error {
	if err := s.cancelErasure(c); err != nil {
		return err
	}
	if !fromHTMX(c) {
		return c.Redirect(http.StatusSeeOther, "/memory")
	}
	announce(c, localizer(c).T("memory.say.erasure_cancelled"), "#erasure-title")
	return render(c, http.StatusOK, views.ErasureSection(csrfToken(c), nil))
}
