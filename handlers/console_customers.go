package handlers

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"concierge/memory"
	"concierge/models"
	"concierge/views"
)

// consoleTime is how the console shows instants (UTC).
const consoleTime = "2006-01-02 15:04 UTC"

func fmtTime(t time.Time) string { return t.UTC().Format(consoleTime) }

func csrfToken(c echo.Context) string {
	tok, _ := c.Get(middleware.DefaultCSRFConfig.ContextKey).(string)
	return tok
}

func toConsoleUser(u *models.User) views.ConsoleUser {
	return views.ConsoleUser{ID: u.ID, Name: u.Name, Email: u.Email, Role: string(u.Role)}
}

func (s *Server) consoleSearch(c echo.Context) error {
	q := strings.TrimSpace(c.QueryParam("q"))
	found, err := s.store.SearchUsers(c.Request().Context(), q, 50)
	if err != nil {
		return err
	}
	users := visibleTo(currentUser(c), found)
	vm := views.CustomerSearch{Query: q, Searched: q != ""}
	for i := range users {
		vm.Results = append(vm.Results, toConsoleUser(&users[i]))
	}
	return render(c, http.StatusOK, views.CustomerSearchPage(s.page(c, "Customers", "customers"), vm))
}

func noteRow(customerID string, n *models.Note, csrf string) views.NoteRow {
	d := n.Domain()
	return views.NoteRow{CustomerID: customerID, ID: n.ID, Text: n.Text, Keywords: d.Keywords, Scope: n.Scope,
		LastUpdate: n.LastUpdateDate, Source: n.Source, Pinned: n.Pinned, Status: n.Status, SessionID: n.SessionID,
		CSRF: csrf, Editable: n.Kind == models.KindGlobal && n.Status == models.StatusActive}
}

// profileFields flattens a profile for display, keys sorted.
func profileFields(p memory.Profile) []views.KV {
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]views.KV, 0, len(keys))
	for _, k := range keys {
		out = append(out, views.KV{Key: views.FieldLabel(k), Value: displayValue(p[k])})
	}
	return out
}

// displayValue renders a profile value compactly: scalars as they are,
// lists and objects as short readable text.
func displayValue(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case nil:
		return "—"
	case []any:
		parts := make([]string, len(t))
		for i, x := range t {
			parts[i] = displayValue(x)
		}
		return strings.Join(parts, "; ")
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = strings.ToLower(views.FieldLabel(k)) + ": " + displayValue(t[k])
		}
		return strings.Join(parts, ", ")
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// previewMessageMax bounds the opening message a preview assumes.
const previewMessageMax = 500

// preview shows the instructions the first turn of the customer's next
// session would be sent if they opened with message, assembled by the agent
// itself, and what they cost, all read from the structure the agent returns.
func (s *Server) preview(ctx context.Context, customerID, message string) (views.Preview, error) {
	if len(message) > previewMessageMax {
		message = strings.ToValidUTF8(message[:previewMessageMax], "")
	}
	st, in, err := s.agent.PreviewInstructions(ctx, customerID, message)
	if err != nil {
		return views.Preview{}, err
	}
	tok := in.Tokens
	pv := views.Preview{CustomerID: customerID, Message: message, Instructions: in.Text, Model: s.agent.ProviderName(),
		Encoding: s.agent.TokenEncoding(), TotalTokens: tok.Total(), Sections: tokenSections(tok), NoteTokens: tok.GlobalNotes,
		Budget: in.GlobalBudget, NotesInjected: in.GlobalNotes(), NotesTotal: len(st.Global)}
	for _, n := range in.Notes {
		if n.Pinned {
			pv.PinnedInjected++
		}
	}
	budget := max(pv.Budget, 1)
	pv.PercentOfBudget = pv.NoteTokens * 100 / budget
	pv.MeterWidth = min(views.MeterMax, pv.NoteTokens*views.MeterMax/budget)
	switch {
	case pv.PercentOfBudget >= 90:
		pv.MeterClass = "meter-full"
	case pv.PercentOfBudget >= 70:
		pv.MeterClass = "meter-high"
	default:
		pv.MeterClass = "meter-ok"
	}
	return pv, nil
}

// tokenSections lists the sections of the instructions with their tokens.
func tokenSections(t memory.SectionTokens) []views.TokenSection {
	out := []views.TokenSection{{Name: "base", Tokens: t.Base}, {Name: "profile", Tokens: t.Profile}, {Name: "memories", Tokens: t.Memories}}
	if t.Summary > 0 {
		out = append(out, views.TokenSection{Name: "summary", Tokens: t.Summary})
	}
	return append(out, views.TokenSection{Name: "policy", Tokens: t.Policy})
}

// consolePreview renders the preview's body for the opening message typed
// above it (htmx), or the whole card's body after a note changed.
func (s *Server) consolePreview(c echo.Context) error {
	u := subjectOf(c)
	pv, err := s.preview(c.Request().Context(), u.ID, strings.TrimSpace(c.QueryParam("message")))
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, views.PreviewBody(pv))
}

// notesChanged tells the page (htmx) that a note changed, so that the
// preview's token meter follows without a reload.
func notesChanged(c echo.Context) {
	c.Response().Header().Set("HX-Trigger", "notes-changed")
}

// customerPage gathers everything the customer page shows.
func (s *Server) customerPage(c echo.Context, u *models.User) (views.CustomerPage, error) {
	ctx := c.Request().Context()
	csrf := csrfToken(c)
	vm := views.CustomerPage{Customer: toConsoleUser(u), IsAdmin: currentUser(c).Role == models.RoleAdmin, CSRF: csrf,
		NewNote: views.NoteRow{CustomerID: u.ID, CSRF: csrf}}
	profile, err := s.store.Profile(ctx, u.ID)
	if err != nil {
		return vm, err
	}
	vm.ProfileFields = profileFields(profile)
	pj, _ := json.MarshalIndent(profile, "", "  ")
	vm.ProfileJSON = string(pj)
	rows, err := s.store.GlobalNoteRows(ctx, u.ID, true)
	if err != nil {
		return vm, err
	}
	for i := range rows {
		r := noteRow(u.ID, &rows[i], csrf)
		if rows[i].Status == models.StatusActive {
			vm.Notes = append(vm.Notes, r)
		} else {
			vm.Superseded = append(vm.Superseded, r)
		}
	}
	// Pinned first, then the most recently updated, as staff scan them.
	sort.SliceStable(vm.Notes, func(i, j int) bool {
		if vm.Notes[i].Pinned != vm.Notes[j].Pinned {
			return vm.Notes[i].Pinned
		}
		return vm.Notes[i].LastUpdate > vm.Notes[j].LastUpdate
	})
	sessions, err := s.store.ChatSessions(ctx, u.ID, 50)
	if err != nil {
		return vm, err
	}
	for _, cs := range sessions {
		vm.Sessions = append(vm.Sessions, sessionRow(&cs))
		if cs.Status == models.SessionOpen && vm.OpenSessionID == "" {
			vm.OpenSessionID = cs.ID
			srows, err := s.store.SessionNoteRows(ctx, cs.ID)
			if err != nil {
				return vm, err
			}
			for i := range srows {
				vm.SessionNotes = append(vm.SessionNotes, noteRow(u.ID, &srows[i], csrf))
			}
		}
	}
	trips, err := s.store.Trips(ctx, u.ID, 20)
	if err != nil {
		return vm, err
	}
	for _, t := range trips {
		vm.Trips = append(vm.Trips, views.TripRow{Route: t.Route, Dates: t.StartDate + " – " + t.EndDate, Purpose: t.Purpose, Flight: t.Flight, Hotel: t.Hotel})
	}
	if vm.Preview, err = s.preview(ctx, u.ID, ""); err != nil {
		return vm, err
	}
	events, err := s.store.AuditEvents(ctx, models.AuditFilter{UserID: u.ID, Limit: 6})
	if err != nil {
		return vm, err
	}
	if vm.RecentAudit, err = s.auditRows(ctx, events); err != nil {
		return vm, err
	}
	if r, err := s.store.PendingErasureRequest(ctx, u.ID); err == nil {
		vm.PendingErasure, vm.ErasureBy, vm.ErasureRequested = r.ID, r.RequestedBy, fmtTime(r.CreatedAt)
	}
	jobs, err := s.store.ConsolidationJobs(ctx, u.ID, 1000)
	if err != nil {
		return vm, err
	}
	vm.Runs = len(jobs)
	for _, j := range jobs {
		if j.Status == models.JobFailed {
			vm.FailedRuns++
		}
	}
	return vm, nil
}

func sessionRow(cs *models.ChatSession) views.SessionRow {
	return views.SessionRow{ID: cs.ID, Title: cs.Title, Status: cs.Status, Started: fmtTime(cs.CreatedAt),
		LastActivity: fmtTime(cs.LastActivityAt), CloseReason: cs.CloseReason}
}

func (s *Server) consoleCustomer(c echo.Context) error {
	u := subjectOf(c)
	vm, err := s.customerPage(c, u)
	if err != nil {
		return err
	}
	vm.Flash = flashMessage(c.QueryParam("done"))
	return render(c, http.StatusOK, views.CustomerPageView(s.page(c, u.Name, "customers"), vm))
}

// flashMessage turns a post-redirect-get marker into a confirmation.
func flashMessage(done string) string {
	switch done {
	case "profile":
		return "Profile saved. The change is in the audit trail."
	case "note":
		return "Note added. The change is in the audit trail."
	case "erasure":
		return "Erasure request created. Execute it from the erasure queue."
	case "retry":
		return "The consolidation was queued again."
	}
	return ""
}

func (s *Server) consoleSaveProfile(c echo.Context) error {
	u := subjectOf(c)
	raw, reasonIn := c.FormValue("profile"), c.FormValue("reason")
	fail := func(msg string) error {
		vm, err := s.customerPage(c, u)
		if err != nil {
			return err
		}
		vm.ProfileError, vm.ProfileJSON, vm.ProfileReason = msg, raw, reasonIn
		return render(c, http.StatusUnprocessableEntity, views.CustomerPageView(s.page(c, u.Name, "customers"), vm))
	}
	reason, err := requireReason(reasonIn)
	if err != nil {
		return fail(userMessage(err))
	}
	var profile memory.Profile
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&profile); err != nil || profile == nil || dec.More() {
		return fail("The profile must be one JSON object, e.g. {\"home_city\": \"Lisbon\"}.")
	}
	for k := range profile {
		if strings.TrimSpace(k) == "" {
			return fail("Every profile field needs a name: remove the empty key.")
		}
	}
	if memory.CheckProfile(profile) != nil {
		return fail("The profile was not saved: a value reads as an instruction to the assistant, a role marker or a prompt tag. Keep profile values to plain facts.")
	}
	if err := s.store.SetProfile(c.Request().Context(), u.ID, profile, actorOf(currentUser(c)), reason); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/console/customers/"+u.ID+"?done=profile")
}

// inlineErrorStatus is the status of a form fragment sent back with its
// error: 422, except to htmx, which by default does not swap 4xx answers
// into the page.
func inlineErrorStatus(c echo.Context) int {
	if c.Request().Header.Get("HX-Request") == "true" {
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
	reason, err := requireReason(reasonIn)
	if err != nil {
		return fail(userMessage(err))
	}
	_, err = s.notes.Add(c.Request().Context(), models.NewNote{UserID: u.ID, Kind: models.KindGlobal,
		Note: memory.Note{Text: text, Keywords: splitKeywords(kw), Pinned: pinned, Source: memory.SourceStaff}}, actorOf(currentUser(c)), reason)
	if e, _ := toError(err); err != nil && e.Status < 500 {
		return fail(e.Message)
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
	reason, err := requireReason(reasonIn)
	if err != nil {
		return fail("reason-", userMessage(err))
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
	updated, err := s.updateNote(c, n.UserID, n.ID, tp, kws, pp, reason)
	if e, _ := toError(err); err != nil && e.Status < 500 {
		return fail("text-", e.Message)
	}
	if err != nil {
		return err
	}
	notesChanged(c)
	announce(c, "Note saved: “"+updated.Text+"”. The change is in the audit trail.", "#note-"+n.ID)
	return render(c, http.StatusOK, views.NoteItem(noteRow(n.UserID, updated, csrfToken(c))))
}

func (s *Server) consoleDeleteNote(c echo.Context) error {
	ctx := c.Request().Context()
	n, err := s.store.NoteByID(ctx, subjectOf(c).ID, c.Param("note"))
	if err != nil {
		return err
	}
	reason, err := requireReason(c.FormValue("reason"))
	if err != nil {
		row := noteRow(n.UserID, n, csrfToken(c))
		row.Mode, row.Error = "delete", userMessage(err)
		announce(c, "", "#dreason-"+n.ID)
		return render(c, inlineErrorStatus(c), views.NoteItem(row))
	}
	if err := s.notes.Delete(ctx, n.UserID, n.ID, actorOf(currentUser(c)), reason); err != nil {
		return err
	}
	// An empty answer removes the row (hx-swap outerHTML).
	notesChanged(c)
	announce(c, "Note deleted. The deletion is in the audit trail.", "#global-notes-title")
	return c.HTML(http.StatusOK, "")
}

func (s *Server) consoleCreateErasure(c echo.Context) error {
	u := subjectOf(c)
	if _, err := s.store.CreateErasureRequest(c.Request().Context(), u.ID, models.ActorAdmin, ""); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/console/erasure")
}

func (s *Server) consoleExport(c echo.Context) error {
	u := subjectOf(c)
	exp, err := s.store.ExportUserData(c.Request().Context(), u.ID)
	if err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderContentDisposition, fmt.Sprintf(`attachment; filename="concierge-export-%s.json"`, u.ID))
	return c.JSONPretty(http.StatusOK, exp, "  ")
}

// auditRows turns audit events into timeline rows: names for actors and
// customers, field-level changes, and where each change came from.
func (s *Server) auditRows(ctx context.Context, events []models.AuditEvent) ([]views.AuditRow, error) {
	idSet := map[string]bool{}
	for _, e := range events {
		idSet[e.ActorID] = true
		idSet[e.UserID] = true
	}
	ids := make([]string, 0, len(idSet))
	for id := range idSet {
		if id != "" {
			ids = append(ids, id)
		}
	}
	names, err := s.store.UserNames(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]views.AuditRow, len(events))
	for i, e := range events {
		r := views.AuditRow{ID: e.ID, At: fmtTime(e.CreatedAt), Actor: e.ActorKind, ActorName: names[e.ActorID], Action: e.Action,
			NoteID: e.NoteID, Reason: e.Reason, Changes: payloadChanges(e.Before, e.After), CustomerID: e.UserID, CustomerName: names[e.UserID]}
		if !changesField(r.Changes, "text") {
			r.Subject = payloadText(e.After)
			if r.Subject == "" {
				r.Subject = payloadText(e.Before)
			}
		}
		switch {
		case e.ConsolidationID != "":
			r.FromLabel = "consolidation run"
			r.FromHref = "/console/customers/" + e.UserID + "/consolidations#job-" + e.ConsolidationID
		case e.SessionID != "" && e.MessageID != "":
			r.FromLabel = "a message in a chat session"
			r.FromHref = "/console/sessions/" + e.SessionID + "#msg-" + e.MessageID
		case e.SessionID != "":
			r.FromLabel = "chat session"
			r.FromHref = "/console/sessions/" + e.SessionID
		case e.ActorKind == models.ActorSupport || e.ActorKind == models.ActorAdmin:
			r.FromLabel = "the console"
		}
		out[i] = r
	}
	return out, nil
}

func changesField(cs []views.Change, field string) bool {
	for _, c := range cs {
		if c.Field == field {
			return true
		}
	}
	return false
}

// payloadText is the note text an audit payload carries, if any.
func payloadText(payload string) string {
	var p struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal([]byte(payload), &p)
	return p.Text
}

// payloadChanges compares two JSON payloads field by field.
func payloadChanges(before, after string) []views.Change {
	var b, a map[string]any
	_ = json.Unmarshal([]byte(before), &b)
	_ = json.Unmarshal([]byte(after), &a)
	if b == nil && a == nil {
		return nil
	}
	keys := map[string]bool{}
	for k := range b {
		keys[k] = true
	}
	for k := range a {
		keys[k] = true
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		if k == "id" {
			continue
		}
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	// Text first: it is what people look for.
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i] == "text" && sorted[j] != "text" })
	var out []views.Change
	for _, k := range sorted {
		bv, bok := b[k]
		av, aok := a[k]
		bs, as := "", ""
		if bok {
			bs = displayValue(bv)
		}
		if aok {
			as = displayValue(av)
		}
		if bs == as {
			continue
		}
		// A new note: what it says, not every default it was given.
		if _, note := a["text"]; note && b == nil && k != "text" && k != "keywords" && !(k == "pinned" && as == "true") && !(k == "scope" && as == "this_trip") {
			continue
		}
		if b != nil && !bok {
			bs = "—"
		}
		if a != nil && !aok {
			as = "—"
		}
		out = append(out, views.Change{Field: k, Before: bs, After: as})
	}
	return out
}
