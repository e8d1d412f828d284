package handlers

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"concierge/memory"
	"concierge/memory/prompt"
	"concierge/models"
	"concierge/views"
	"concierge/views/locale"
)

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
	return render(c, http.StatusOK, views.CustomerSearchPage(s.page(c, "nav.customers", "customers"), vm))
}

// profileFields flattens a profile for display, keys sorted.
func profileFields(ctx context.Context, p memory.Profile) []views.KV {
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]views.KV, 0, len(keys))
	for _, k := range keys {
		l := locale.From(ctx)
		out = append(out, views.KV{Key: views.FieldName(ctx, k), Value: enumWords(l, k, displayValue(l, p[k]))})
	}
	return out
}

// displayValue renders a profile value compactly in l's language: days
// as the language writes them, other scalars as they are, lists and
// objects as short readable text.
func displayValue(l *locale.Localizer, v any) string {
	switch t := v.(type) {
	case string:
		return l.Day(t)
	case nil:
		return "—"
	case []any:
		parts := make([]string, len(t))
		for i, x := range t {
			parts[i] = displayValue(l, x)
		}
		return strings.Join(parts, "; ")
	case map[string]any:
		// Said as the traveler's own page says it (a programme and its
		// status, a visa and its validity, a policy and what it covers);
		// staff also see the identifiers that page leaves out.
		var ids []string
		for _, k := range slices.Sorted(maps.Keys(t)) {
			if memory.IsPrivateField(k) {
				ids = append(ids, strings.ToLower(views.FieldLabelIn(l, k))+": "+displayValue(l, t[k]))
			}
		}
		s := profileObject(l, t)
		if len(ids) > 0 {
			s = strings.TrimSpace(s + " (" + strings.Join(ids, ", ") + ")")
		}
		return s
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
		Budget: in.GlobalBudget, NotesInjected: in.GlobalNotes(), NotesTotal: len(st.Global), At: time.Now().UTC().Format("15:04:05")}
	texts := make(map[string]string, len(st.Global))
	for _, n := range st.Global {
		texts[n.ID] = n.Text
	}
	for _, n := range in.Notes {
		if n.Pinned {
			pv.PinnedInjected++
		}
		if t, ok := texts[n.ID]; ok && n.Section == prompt.SectionGlobal {
			pv.Injected = append(pv.Injected, t)
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

// consolePreview renders the preview's body for the opening message typed
// above it (htmx), or the whole card's body after a note changed.
func (s *Server) consolePreview(c echo.Context) error {
	u := subjectOf(c)
	pv, err := s.preview(c.Request().Context(), u.ID, strings.TrimSpace(c.QueryParam("message")))
	if err != nil {
		return err
	}
	// Typed into the box: say what the new preview holds, without moving
	// the focus from the box.
	if c.Request().Header.Get("HX-Trigger") == "preview-message" {
		announce(c, pv.Outcome(c.Request().Context()), "")
	}
	return render(c, http.StatusOK, views.PreviewBody(pv))
}

// customerPage gathers everything the customer page shows.
func (s *Server) customerPage(c echo.Context, u *models.User) (views.CustomerPage, error) {
	ctx := c.Request().Context()
	l := localizer(c)
	csrf := csrfToken(c)
	vm := views.CustomerPage{Customer: toConsoleUser(u), IsAdmin: currentUser(c).Role == models.RoleAdmin, CSRF: csrf,
		NewNote: views.NoteRow{CustomerID: u.ID, CSRF: csrf}}
	profile, err := s.store.Profile(ctx, u.ID)
	if err != nil {
		return vm, err
	}
	vm.ProfileFields = profileFields(ctx, profile)
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
		vm.Sessions = append(vm.Sessions, sessionRow(l, &cs))
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
	if vm.Trips, err = s.customerTrips(ctx, u.ID, csrf); err != nil {
		return vm, err
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
		vm.PendingErasure, vm.ErasureBy, vm.ErasureRequested = r.ID, r.RequestedBy, fmtTime(l, r.CreatedAt)
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

func (s *Server) consoleCustomer(c echo.Context) error {
	u := subjectOf(c)
	vm, err := s.customerPage(c, u)
	if err != nil {
		return err
	}
	vm.Flash = flashMessage(localizer(c), c.QueryParam("done"))
	return render(c, http.StatusOK, views.CustomerPageView(s.page(c, u.Name, "customers"), vm))
}

func (s *Server) consoleSaveProfile(c echo.Context) error {
	u := subjectOf(c)
	raw, reasonIn := c.FormValue("profile"), c.FormValue("reason")
	l := localizer(c)
	fail := func(msg string) error {
		vm, err := s.customerPage(c, u)
		if err != nil {
			return err
		}
		vm.ProfileError, vm.ProfileJSON, vm.ProfileReason = msg, raw, reasonIn
		return render(c, http.StatusUnprocessableEntity, views.CustomerPageView(s.page(c, u.Name, "customers"), vm))
	}
	reason, err := models.CheckReason(reasonIn)
	if err != nil {
		return fail(userMessage(c, err))
	}
	var profile memory.Profile
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&profile); err != nil || profile == nil || dec.More() {
		return fail(l.T("customer.profile.error.json"))
	}
	for k := range profile {
		if strings.TrimSpace(k) == "" {
			return fail(l.T("customer.profile.error.empty_key"))
		}
	}
	if memory.CheckProfile(profile) != nil {
		return fail(l.T("customer.profile.error.instruction"))
	}
	if err := s.store.SetProfile(c.Request().Context(), u.ID, profile, actorOf(currentUser(c)), reason); err != nil {
		if memory.ErrorCode(err) == memory.EBADPROFILE {
			return fail(userMessage(c, err))
		}
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/console/customers/"+u.ID+"?done=profile")
}

func (s *Server) consoleCreateErasure(c echo.Context) error {
	u := subjectOf(c)
	if _, _, err := s.store.RequestErasure(c.Request().Context(), u.ID, actorOf(currentUser(c)), ""); err != nil {
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
