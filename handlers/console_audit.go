package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sort"
	"strings"

	"github.com/labstack/echo/v4"

	"concierge/memory"
	"concierge/memory/consolidate"
	"concierge/models"
	"concierge/views"
	"concierge/views/locale"
)

// auditActors are the actor kinds the timeline can be filtered by.
var auditActors = []string{models.ActorTraveler, models.ActorAssistant, models.ActorConsolidation, models.ActorSupport, models.ActorAdmin, models.ActorSystem}

// consoleAudit is the audit timeline: global, or one customer's when the
// route has an :id.
func (s *Server) consoleAudit(c echo.Context) error {
	ctx := c.Request().Context()
	vm := views.AuditPage{Actor: c.QueryParam("actor"), Action: c.QueryParam("action"), From: c.QueryParam("from"), To: c.QueryParam("to"), Actors: auditActors}
	title := "console.tab.audit"
	f, err := auditFilter(c)
	if err != nil {
		vm.Error = userMessage(c, err)
		f = models.AuditFilter{ActorKind: vm.Actor, Action: vm.Action}
	}
	if c.Param("id") != "" {
		u := subjectOf(c)
		cu := toConsoleUser(u)
		vm.Customer = &cu
		f.UserID = u.ID
		title = localizer(c).T("title.audit", "Name", u.Name)
	}
	if f.UserID == "" {
		f.SubjectRole = managedRole(currentUser(c)) // support sees travelers' events only
	}
	if vm.Actions, err = s.store.AuditActions(ctx); err != nil {
		return err
	}
	events, err := s.store.AuditEvents(ctx, f)
	if err != nil {
		return err
	}
	if vm.Events, err = s.auditRows(ctx, events); err != nil {
		return err
	}
	active := "audit"
	if vm.Customer != nil {
		active = "customers"
	}
	return render(c, http.StatusOK, views.AuditPageView(s.page(c, title, active), vm))
}

// decisionLabels are the message ids of the consolidation decisions.
var decisionLabels = map[string]string{
	consolidate.ActionPromoted: "runs.decision.promoted", consolidate.ActionMerged: "runs.decision.merged", consolidate.ActionSuperseded: "runs.decision.superseded",
	consolidate.ActionDroppedTrip: "runs.decision.dropped_trip", consolidate.ActionDroppedDuplicate: "runs.decision.duplicate", consolidate.ActionRefused: "runs.decision.refused",
	consolidate.ActionExpired: "runs.decision.expired", consolidate.ActionPruned: "runs.decision.pruned",
}

// runView turns a job and its report into decisions and a diff of the
// resulting global notes: + promoted, ~ refreshed by a merge, − superseded,
// expired or pruned, and unchanged notes.
func runView(l *locale.Localizer, j models.ConsolidationJob, rep *models.ConsolidationReport) (views.RunView, error) {
	v := views.RunView{JobID: j.ID, SessionID: j.SessionID, Status: j.Status, Created: fmtTime(l, j.CreatedAt), Attempts: j.Attempts,
		CanRetry: j.Status == models.JobFailed}
	if j.Status == models.JobFailed || (j.Error != "" && j.Status != models.JobDone) {
		v.Error = j.Error
		if v.Error == "" {
			v.Error = l.T("runs.failed")
		}
	}
	if rep == nil {
		return v, nil
	}
	v.Engine, v.FallbackReason = rep.Engine, rep.FallbackReason
	var r models.ReportJSON
	if err := json.Unmarshal([]byte(rep.Report), &r); err != nil {
		return v, err
	}
	texts := map[string]string{}
	for _, d := range r.Decisions {
		texts[d.Note.ID] = d.Note.Text
	}
	for _, g := range r.GlobalNotes {
		texts[g.ID] = g.Text
	}
	added, refreshed, inResult := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, g := range r.GlobalNotes {
		inResult[g.ID] = true
	}
	for _, d := range r.Decisions {
		label := decisionLabels[d.Action]
		if label == "" {
			label = d.Action
		}
		v.Decisions = append(v.Decisions, views.DecisionView{NoteID: d.Note.ID, NoteText: d.Note.Text, Action: d.Action, Label: label,
			Into: d.Into, IntoText: texts[d.Into], Why: d.Why})
		switch d.Action {
		case consolidate.ActionPromoted:
			added[d.Note.ID] = true
		case consolidate.ActionMerged:
			refreshed[d.Into] = true
		}
	}
	for _, g := range r.GlobalNotes {
		switch {
		case added[g.ID]:
			v.Diff = append(v.Diff, views.DiffLine{Kind: "added", Text: g.Text, Note: "runs.diff.added"})
		case refreshed[g.ID]:
			v.Diff = append(v.Diff, views.DiffLine{Kind: "refreshed", Text: g.Text, Note: "runs.diff.refreshed"})
		default:
			v.Diff = append(v.Diff, views.DiffLine{Kind: "kept", Text: g.Text})
		}
	}
	for _, d := range r.Decisions {
		if inResult[d.Note.ID] {
			continue
		}
		switch d.Action {
		case consolidate.ActionExpired, consolidate.ActionPruned:
			v.Diff = append(v.Diff, views.DiffLine{Kind: "removed", Text: d.Note.Text, Note: decisionLabels[d.Action]})
		case consolidate.ActionSuperseded:
			if d.Note.Scope == memory.ScopeDurable && d.Note.Source != memory.SourceAssistant {
				v.Diff = append(v.Diff, views.DiffLine{Kind: "removed", Text: d.Note.Text, Note: "runs.diff.superseded", Into: texts[d.Into]})
			}
		}
	}
	return v, nil
}

func (s *Server) consoleConsolidations(c echo.Context) error {
	ctx := c.Request().Context()
	u := subjectOf(c)
	jobs, err := s.store.ConsolidationJobs(ctx, u.ID, 100)
	if err != nil {
		return err
	}
	vm := views.ConsolidationsPage{Customer: toConsoleUser(u), CSRF: csrfToken(c), Flash: flashMessage(localizer(c), c.QueryParam("done"))}
	for _, j := range jobs {
		rep, err := s.store.ReportForJob(ctx, j.ID)
		if err != nil && !errors.Is(err, models.ErrNotFound) {
			return err
		}
		if err != nil {
			rep = nil
		}
		rv, err := runView(localizer(c), j, rep)
		if err != nil {
			return err
		}
		vm.Runs = append(vm.Runs, rv)
	}
	return render(c, http.StatusOK, views.ConsolidationsPageView(s.page(c, localizer(c).T("title.consolidations", "Name", u.Name), "customers"), vm))
}

func (s *Server) consoleRetryJob(c echo.Context) error {
	ctx := c.Request().Context()
	job, err := s.store.JobByID(ctx, c.Param("job"))
	if err != nil {
		return err
	}
	if err := s.store.RetryJob(ctx, job.ID); err != nil {
		return err
	}
	s.worker.Notify()
	s.log.Info("consolidation re-run", "request_id", requestID(c), "job_id", job.ID, "by", currentUser(c).ID)
	return c.Redirect(http.StatusSeeOther, "/console/customers/"+job.UserID+"/consolidations?done=retry#job-"+job.ID)
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
	l := locale.From(ctx)
	out := make([]views.AuditRow, len(events))
	for i, e := range events {
		r := views.AuditRow{ID: e.ID, At: fmtTime(l, e.CreatedAt), Actor: e.ActorKind, ActorName: names[e.ActorID], Action: e.Action,
			NoteID: e.NoteID, Reason: auditReason(l, e.ActorKind, e.Reason), Changes: payloadChanges(l, e.Before, e.After), CustomerID: e.UserID, CustomerName: names[e.UserID]}
		if !changesField(r.Changes, "text") {
			r.Subject = payloadText(e.After)
			if r.Subject == "" {
				r.Subject = payloadText(e.Before)
			}
		}
		redactDeleted(&r)
		if e.Action == "trip.attach" || e.Action == "trip.detach" {
			// The event keeps the trip's id as its reason: say the trip.
			if r.Reason, err = s.tripSaid(ctx, l, e.UserID, e.Reason); err != nil {
				return nil, err
			}
		}
		switch {
		case e.ConsolidationID != "":
			r.FromLabel = "audit.from.consolidation"
			r.FromHref = "/console/customers/" + e.UserID + "/consolidations#job-" + e.ConsolidationID
		case e.SessionID != "" && e.MessageID != "":
			r.FromLabel = "audit.from.message"
			r.FromHref = "/console/sessions/" + e.SessionID + "#msg-" + e.MessageID
		case e.SessionID != "":
			r.FromLabel = "audit.from.session"
			r.FromHref = "/console/sessions/" + e.SessionID
		case e.ActorKind == models.ActorSupport || e.ActorKind == models.ActorAdmin:
			r.FromLabel = "audit.from.console"
		}
		out[i] = r
	}
	return out, nil
}

// tripSaid names one of a user's trips for the audit trail, or says it
// was deleted since.
func (s *Server) tripSaid(ctx context.Context, l *locale.Localizer, userID, tripID string) (string, error) {
	tr, err := s.store.TripByID(ctx, userID, tripID)
	if errors.Is(err, models.ErrNotFound) {
		return l.T("audit.trip_gone"), nil
	}
	if err != nil {
		return "", err
	}
	return l.T("audit.trip", "Name", tr.Domain().Title()), nil
}

// systemReasons are the message ids of the reasons Concierge itself
// records (for the traveler's and the assistant's own acts); a reason a
// person typed is shown as they typed it.
var systemReasons = map[string]string{
	"added by the traveler": "reason.added", "all deleted by the traveler": "reason.all_deleted", "asked by the traveler": "reason.asked",
	"changed by the traveler": "reason.changed", "corrected by the traveler": "reason.corrected", "deleted by the traveler": "reason.deleted",
	"edited by the traveler": "reason.edited", "ended by the traveler": "reason.ended", "forgetting undone by the traveler": "reason.forget_undone",
	"requested by the traveler": "reason.requested", "stated by the traveler": "reason.stated", "undone by the traveler": "reason.undone",
	"written by the traveler": "reason.written", "consolidation": "reason.consolidation", "own password change": "reason.own_password",
}

// auditReason is an entry's reason in l's language when Concierge wrote it.
func auditReason(l *locale.Localizer, actorKind, reason string) string {
	if actorKind == models.ActorSupport || actorKind == models.ActorAdmin {
		return reason
	}
	if id, ok := systemReasons[reason]; ok {
		return l.T(id)
	}
	return reason
}

// redactDeleted says in words what deleting a note took out of an entry:
// its text, and a consolidation's reason that could quote it, were
// replaced by models.DeletedText, which is not for reading as a value.
func redactDeleted(r *views.AuditRow) {
	if r.Reason == models.DeletedText {
		r.Reason, r.Redacted = "", true
	}
	if r.Subject == models.DeletedText {
		r.Subject, r.Redacted = "", true
	}
	kept := r.Changes[:0]
	for _, ch := range r.Changes {
		if ch.Before == models.DeletedText {
			ch.Before, r.Redacted = "", true
		}
		if ch.After == models.DeletedText {
			ch.After, r.Redacted = "", true
		}
		if ch.Before != "" || ch.After != "" {
			kept = append(kept, ch)
		}
	}
	r.Changes = kept
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
func payloadChanges(l *locale.Localizer, before, after string) []views.Change {
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
			bs = enumWords(l, k, displayValue(l, bv))
		}
		if aok {
			as = enumWords(l, k, displayValue(l, av))
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

// enumWords says a field's value from a fixed list (a trip's status, a
// note's scope, a pin, a seat) in l's language; any other value as it is.
func enumWords(l *locale.Localizer, field, value string) string {
	id := ""
	switch {
	case value == "true" || value == "false":
		id = "value." + value
	case field == "status":
		id = "trips.status." + value
	case field == "scope":
		id = "value.scope." + value
	case field == "seat_preference":
		id = "profile.seat." + strings.ReplaceAll(value, " ", "_")
	case field == "purpose":
		id = "value.purpose." + value
	}
	if id != "" && l.T(id) != id {
		return l.T(id)
	}
	return value
}
