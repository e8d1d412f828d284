package handlers

// This file is the console's notes of a customer: add, show, edit and
// delete, each through the note service (models.Notes).

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"concierge/memory"
	"concierge/models"
	"concierge/views"
)

func noteRow(customerID string, n *models.Note, csrf string) views.NoteRow {
	d := n.Domain()
	return views.NoteRow{CustomerID: customerID, ID: n.ID, Text: n.Text, Keywords: d.Keywords, Scope: n.Scope,
		LastUpdate: n.LastUpdateDate, Source: n.Source, Pinned: n.Pinned, Status: n.Status, SessionID: n.SessionID,
		CSRF: csrf, Editable: (n.Kind == models.KindGlobal || n.Kind == models.KindTrip) && n.Status == models.StatusActive, ExpiresOn: n.ExpiresOn, Until: untilDay(n.ExpiresOn)}
}

// notesChanged tells the page (htmx) that a note changed, so that the
// preview's token meter follows without a reload.
func notesChanged(c echo.Context) {
	c.Response().Header().Set(hxTrigger, "notes-changed")
}

// inlineErrorStatus is the status of a form fragment sent back with its
// error: 422, except to htmx, which by default does not swap 4xx answers
// into the page.
func inlineErrorStatus(c echo.Context) int {
	if fromHTMX(c) {
		return http.StatusOK
	}
	return http.StatusUnprocessableEntity
}

// splitKeywords reads "a, b c" as keywords.
func splitKeywords(s string) []string {
	f := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == ';' })
	if f == nil {
		return []string{}
	}
	return f
}

func (s *Server) consoleAddNote(c echo.Context) error {
	u := subjectOf(c)
	text, kw, pinned, reasonIn := c.FormValue("text"), c.FormValue("keywords"), c.FormValue("pinned") == "on", c.FormValue("reason")
	fail := func(msg string) error {
		vm, err := s.customerPage(c, u)
		if err != nil {
			return err
		}
		vm.NewNote = views.NoteRow{CustomerID: u.ID, CSRF: vm.CSRF, Text: text, Keywords: splitKeywords(kw), Pinned: pinned, Reason: reasonIn, Error: msg}
		return render(c, http.StatusUnprocessableEntity, views.CustomerPageView(s.page(c, u.Name, "customers"), vm))
	}
	reason, err := models.CheckReason(reasonIn)
	if err != nil {
		return fail(userMessage(c, err))
	}
	_, err = s.notes.Add(c.Request().Context(), models.NewNote{UserID: u.ID, Kind: models.KindGlobal,
		Note: memory.Note{Text: text, Keywords: splitKeywords(kw), Pinned: pinned, Source: memory.SourceStaff}}, actorOf(currentUser(c)), reason)
	if e, _ := toError(err); err != nil && e.Status < 500 {
		return fail(e.In(localizer(c)))
	}
	if err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/console/customers/"+u.ID+"?done=note")
}

// consoleNote renders one note row in the mode the route names: shown,
// edit form or delete confirmation (htmx fragments).
func (s *Server) consoleNote(mode string) echo.HandlerFunc {
	return func(c echo.Context) error {
		n, err := s.store.NoteByID(c.Request().Context(), subjectOf(c).ID, c.Param("note"))
		if err != nil {
			return err
		}
		row := noteRow(n.UserID, n, csrfToken(c))
		row.Mode = mode
		switch mode {
		case "edit":
			announce(c, "", "#text-"+n.ID)
		case "delete":
			announce(c, "", "#dreason-"+n.ID)
		default: // Cancel: back to the button that opened the form
			announce(c, "", "#note-edit-"+n.ID)
		}
		return render(c, http.StatusOK, views.NoteItem(row))
	}
}

func (s *Server) consoleUpdateNote(c echo.Context) error {
	ctx := c.Request().Context()
	n, err := s.store.NoteByID(ctx, subjectOf(c).ID, c.Param("note"))
	if err != nil {
		return err
	}
	text, kw, pinned, reasonIn := c.FormValue("text"), c.FormValue("keywords"), c.FormValue("pinned") == "on", c.FormValue("reason")
	fail := func(at, msg string) error {
		row := noteRow(n.UserID, n, csrfToken(c))
		row.Mode, row.Error, row.ErrorAt, row.Text, row.Keywords, row.Pinned, row.Reason = "edit", msg, at, text, splitKeywords(kw), pinned, reasonIn
		announce(c, "", "#"+at+n.ID)
		return render(c, inlineErrorStatus(c), views.NoteItem(row))
	}
	reason, err := models.CheckReason(reasonIn)
	if err != nil {
		return fail("reason-", userMessage(c, err))
	}
	var tp *string
	var kws []string
	d := n.Domain()
	if text != d.Text {
		tp = &text
	}
	if k := splitKeywords(kw); strings.Join(k, ",") != strings.Join(d.Keywords, ",") {
		kws = k
	}
	var pp *bool
	if pinned != n.Pinned {
		pp = &pinned
	}
	var ep *string
	if until := strings.TrimSpace(c.FormValue("expires_on")); until != n.ExpiresOn {
		ep = &until
	}
	updated, err := s.updateNote(c, n.UserID, n.ID, models.NotePatch{Text: tp, Keywords: kws, Pinned: pp, ExpiresOn: ep}, reason)
	if e, _ := toError(err); err != nil && e.Status < 500 {
		return fail("text-", e.In(localizer(c)))
	}
	if err != nil {
		return err
	}
	notesChanged(c)
	announce(c, localizer(c).T("cnote.say.saved", "Text", updated.Text), "#note-"+n.ID)
	return render(c, http.StatusOK, views.NoteItem(noteRow(n.UserID, updated, csrfToken(c))))
}

func (s *Server) consoleDeleteNote(c echo.Context) error {
	ctx := c.Request().Context()
	n, err := s.store.NoteByID(ctx, subjectOf(c).ID, c.Param("note"))
	if err != nil {
		return err
	}
	reason, err := models.CheckReason(c.FormValue("reason"))
	if err != nil {
		row := noteRow(n.UserID, n, csrfToken(c))
		row.Mode, row.Error = "delete", userMessage(c, err)
		announce(c, "", "#dreason-"+n.ID)
		return render(c, inlineErrorStatus(c), views.NoteItem(row))
	}
	if err := s.notes.Delete(ctx, n.UserID, n.ID, actorOf(currentUser(c)), reason); err != nil {
		return err
	}
	// An empty answer removes the row (hx-swap outerHTML).
	notesChanged(c)
	announce(c, localizer(c).T("cnote.say.deleted"), "#global-notes-title")
	return c.HTML(http.StatusOK, "")
}
