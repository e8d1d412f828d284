package handlers

import (
	"errors"
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"concierge/models"
	"concierge/views"
	"concierge/views/locale"
)

// healthDays is how far back the memory health dashboard looks.
const healthDays = 30

func (s *Server) consoleHealth(c echo.Context) error {
	now := time.Now()
	h, err := s.store.MemoryHealthSince(c.Request().Context(), now, healthDays)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, views.HealthPageView(s.page(c, "nav.health", "health"), healthView(c, h)))
}

func ratio(num, den int64, scale float64) float64 {
	if den == 0 {
		return math.NaN()
	}
	return float64(num) * scale / float64(den)
}

// categoryClasses give each blocked-write category a stable colour.
func categoryClass(i int) string { return "c" + strconv.Itoa(i%8) }

func healthView(c echo.Context, h *models.MemoryHealth) views.HealthPage {
	l := localizer(c)
	w := views.ChartWordsIn(c.Request().Context())
	n := len(h.Days)
	days := make([]string, n)
	writes, superseded, fallbacks, failed, turns, ttp := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	var tTurns, tWrites, tRuns, tSup, tFall, tBlocked, tPers, tTTP int64
	for i, d := range h.Days {
		days[i] = d.Day
		writes[i] = ratio(d.MemoryWrites, d.Turns, 100)
		superseded[i] = ratio(d.Supersessions, d.Runs, 1)
		fallbacks[i] = float64(d.Fallbacks)
		failed[i] = float64(d.FailedJobs)
		turns[i] = float64(d.Turns)
		ttp[i] = ratio(d.TurnsToPersonalize, d.Personalized, 1)
		tTurns += d.Turns
		tWrites += d.MemoryWrites
		tRuns += d.Runs
		tSup += d.Supersessions
		tFall += d.Fallbacks
		tPers += d.Personalized
		tTTP += d.TurnsToPersonalize
		for _, v := range d.Blocked {
			tBlocked += v
		}
	}
	var blocked []views.Series
	for i, cat := range h.Categories {
		vals := make([]float64, n)
		for j, d := range h.Days {
			vals[j] = float64(d.Blocked[cat])
		}
		blocked = append(blocked, views.Series{Name: l.T(views.CategoryNameID(cat)), Class: categoryClass(i), Values: vals})
	}
	labels := make([]string, len(h.NotesPerUser))
	counts := make([]float64, len(h.NotesPerUser))
	for i, b := range h.NotesPerUser {
		labels[i], counts[i] = b.Label, float64(b.Users)
	}
	fmtRatio := func(v float64, digits int) string {
		if math.IsNaN(v) {
			return "—"
		}
		return strings.ReplaceAll(strconv.FormatFloat(v, 'f', digits, 64), ".", l.T("number.decimal"))
	}
	avgNotes := math.NaN()
	if h.Travelers > 0 {
		avgNotes = float64(h.GlobalNotes) / float64(h.Travelers)
	}
	return views.HealthPage{
		Since: days[0], Until: days[n-1],
		Stats: []views.KV{
			{Key: "health.stat.turns", Value: l.Number(int(tTurns))},
			{Key: "health.stat.writes", Value: fmtRatio(ratio(tWrites, tTurns, 100), 1)},
			{Key: "health.stat.blocked", Value: l.Number(int(tBlocked))},
			{Key: "health.stat.supersessions", Value: fmtRatio(ratio(tSup, tRuns, 1), 2)},
			{Key: "health.stat.fallbacks", Value: l.Number(int(tFall))},
			{Key: "health.stat.personalization", Value: fmtRatio(ratio(tTTP, tPers, 1), 1)},
			{Key: "health.stat.notes", Value: fmtRatio(avgNotes, 1)},
		},
		Charts: []views.Chart{
			views.LineChart(w, "writes", l.T("health.writes.title"), l.T("health.writes.help"), days, " "+l.T("health.writes.unit"),
				views.Series{Name: l.T("health.writes.series"), Class: "c0", Values: writes}),
			views.StackedBarChart(w, "blocked", l.T("health.blocked.title"), l.T("health.blocked.help"), days, blocked...),
			views.LineChart(w, "supersede", l.T("health.supersede.title"), l.T("health.supersede.help"), days, " "+l.T("health.supersede.unit"),
				views.Series{Name: l.T("health.supersede.series"), Class: "c2", Values: superseded}),
			views.StackedBarChart(w, "fallbacks", l.T("health.fallbacks.title"), l.T("health.fallbacks.help"), days,
				views.Series{Name: l.T("health.fallbacks.series"), Class: "c3", Values: fallbacks}, views.Series{Name: l.T("health.fallbacks.failed"), Class: "c1", Values: failed}),
			views.LineChart(w, "personalization", l.T("health.personalization.title"), l.T("health.personalization.help"), days, " "+l.T("health.turns.unit"),
				views.Series{Name: l.T("health.turns.unit"), Class: "c4", Values: ttp}),
			views.CategoryBarChart(w, "notes", l.T("health.notes.title"), l.T("health.notes.help"), labels, counts, "c5"),
			views.LineChart(w, "turns", l.T("health.turns.title"), l.T("health.turns.help"), days, " "+l.T("health.turns.unit"),
				views.Series{Name: l.T("health.turns.unit"), Class: "c6", Values: turns}),
		},
	}
}

func receiptView(l *locale.Localizer, r *models.ErasureReceipt, executedBy string) *views.ReceiptView {
	if r == nil {
		return nil
	}
	v := &views.ReceiptView{RequestID: r.RequestID, RequestedBy: r.RequestedBy, ExecutedBy: executedBy,
		RequestedAt: fmtTime(l, r.RequestedAt), CompletedAt: fmtTime(l, r.CompletedAt), Scrub: scrubWords(l, r.Scrub)}
	tables := make([]string, 0, len(r.RowsDeleted))
	for t := range r.RowsDeleted {
		tables = append(tables, t)
	}
	sort.Strings(tables)
	for _, t := range tables {
		v.Rows = append(v.Rows, views.KV{Key: t, Value: l.Number(int(r.RowsDeleted[t]))})
		v.Total += r.RowsDeleted[t]
	}
	return v
}

func (s *Server) erasurePage(c echo.Context) (views.ErasurePage, error) {
	ctx := c.Request().Context()
	l := localizer(c)
	vm := views.ErasurePage{CSRF: csrfToken(c), Highlight: c.QueryParam("receipt")}
	reqs, err := s.store.ErasureRequests(ctx, "", 200)
	if err != nil {
		return vm, err
	}
	var ids []string
	for _, r := range reqs {
		ids = append(ids, r.UserID, r.ExecutedBy)
	}
	names, err := s.store.UserNames(ctx, ids)
	if err != nil {
		return vm, err
	}
	now := s.store.Clock()
	for _, r := range reqs {
		row := views.ErasureRow{ID: r.ID, CustomerID: r.UserID, RequestedBy: r.RequestedBy, Created: fmtTime(l, r.CreatedAt),
			Reason: views.ErasureReasonLabel(r.Reason), Ticket: r.Ticket,
			Due: fmtTime(l, r.DueAt(s.cfg.ErasureDue)), Urgency: r.Urgency(now, s.cfg.ErasureDue)}
		if r.Status == models.ErasurePending {
			if u, err := s.store.UserByID(ctx, r.UserID); err == nil {
				row.CustomerName, row.CustomerEmail = u.Name, u.Email
			}
			vm.Pending = append(vm.Pending, row)
			continue
		}
		rec, err := r.DecodeReceipt()
		if err != nil {
			return vm, err
		}
		row.ExecutedBy = names[r.ExecutedBy]
		if row.ExecutedBy == "" {
			row.ExecutedBy = l.T("erasure.executed_by_gone", "ID", r.ExecutedBy)
		}
		if r.CompletedAt != nil {
			row.Completed = fmtTime(l, *r.CompletedAt)
		}
		row.Receipt = receiptView(l, rec, row.ExecutedBy)
		vm.Done = append(vm.Done, row)
	}
	return vm, nil
}

func (s *Server) consoleErasure(c echo.Context) error {
	vm, err := s.erasurePage(c)
	if err != nil {
		return err
	}
	p := s.page(c, "nav.erasure", "erasure")
	if f := s.takeFormFlash(c); f != nil {
		if id, ok := strings.CutPrefix(f.Form, "erase:"); ok {
			vm.Error, vm.ErrorFor, vm.ErrorAt, vm.Reason, vm.Ticket = f.Message, id, f.Field, f.Values["reason"], f.Values["ticket"]
			p.Focus = "#" + f.Field
		}
	}
	if vm.Highlight != "" {
		p.Say, p.Focus = localizer(c).T("erasure.say.done"), "#receipt-"+vm.Highlight
	}
	return render(c, http.StatusOK, views.ErasurePageView(p, vm))
}

func (s *Server) consoleExecuteErasure(c echo.Context) error {
	ctx := c.Request().Context()
	req, err := s.store.ErasureRequestByID(ctx, c.Param("req"))
	if err != nil {
		return err
	}
	if req.Status != models.ErasurePending {
		return c.Redirect(http.StatusSeeOther, "/console/erasure?receipt="+req.ID)
	}
	reason, ticket := c.FormValue("reason"), c.FormValue("ticket")
	// A refusal goes back to the queue (post/redirect/get), the error under
	// the field it is about and the admin's choices kept.
	fail := func(field, msg string) error {
		return s.refuseForm(c, "/console/erasure", formFlash{Form: "erase:" + req.ID, Field: field + req.ID, Message: msg,
			Values: map[string]string{"reason": reason, "ticket": ticket}})
	}
	why, err := models.NewErasureWhy(reason, ticket)
	if err != nil {
		field := "er-reason-"
		if errors.Is(err, models.ErrBadTicket) {
			field = "er-ticket-"
		}
		return fail(field, userMessage(c, err))
	}
	if strings.TrimSpace(c.FormValue("confirm")) != "ERASE" {
		return fail("er-confirm-", localizer(c).T("erasure.confirm_error"))
	}
	rec, err := s.erase(c, req.UserID, why)
	if e, _ := toError(err); err != nil && e.Status < 500 {
		return fail("er-confirm-", e.In(localizer(c)))
	}
	if err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/console/erasure?receipt="+rec.RequestID)
}

// scrubWords is a receipt's record of how the database files were
// scrubbed, in the reader's language when it is one the store writes.
func scrubWords(l *locale.Localizer, scrub string) string {
	switch {
	case strings.HasPrefix(scrub, "sqlite:"):
		return l.T("erasure.scrub.sqlite")
	case strings.HasPrefix(scrub, "postgresql:"):
		return l.T("erasure.scrub.postgres")
	}
	return scrub
}
