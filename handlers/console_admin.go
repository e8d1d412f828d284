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
)

// healthDays is how far back the memory health dashboard looks.
const healthDays = 30

func (s *Server) consoleHealth(c echo.Context) error {
	now := time.Now()
	h, err := s.store.MemoryHealthSince(c.Request().Context(), now, healthDays)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, views.HealthPageView(s.page(c, "Memory health", "health"), healthView(h)))
}

func ratio(num, den int64, scale float64) float64 {
	if den == 0 {
		return math.NaN()
	}
	return float64(num) * scale / float64(den)
}

// categoryClasses give each blocked-write category a stable colour.
func categoryClass(i int) string { return "c" + strconv.Itoa(i%8) }

func healthView(h *models.MemoryHealth) views.HealthPage {
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
		blocked = append(blocked, views.Series{Name: strings.ReplaceAll(cat, "_", " "), Class: categoryClass(i), Values: vals})
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
		return strconv.FormatFloat(v, 'f', digits, 64)
	}
	avgNotes := math.NaN()
	if h.Travelers > 0 {
		avgNotes = float64(h.GlobalNotes) / float64(h.Travelers)
	}
	return views.HealthPage{
		Since: days[0], Until: days[n-1],
		Stats: []views.KV{
			{Key: "turns in 30 days", Value: strconv.FormatInt(tTurns, 10)},
			{Key: "memory writes per 100 turns", Value: fmtRatio(ratio(tWrites, tTurns, 100), 1)},
			{Key: "blocked writes", Value: strconv.FormatInt(tBlocked, 10)},
			{Key: "supersessions per run", Value: fmtRatio(ratio(tSup, tRuns, 1), 2)},
			{Key: "rules fallbacks", Value: strconv.FormatInt(tFall, 10)},
			{Key: "turns to personalization", Value: fmtRatio(ratio(tTTP, tPers, 1), 1)},
			{Key: "notes per traveler", Value: fmtRatio(avgNotes, 1)},
		},
		Charts: []views.Chart{
			views.LineChart("writes", "Memory writes per 100 turns", "Session notes the assistant saved, per 100 traveler messages.", days, " per 100 turns",
				views.Series{Name: "writes per 100 turns", Class: "c0", Values: writes}),
			views.StackedBarChart("blocked", "Blocked writes by category", "Memory writes the guardrails refused; only the category is ever kept.", days, blocked...),
			views.LineChart("supersede", "Supersede rate", "Notes superseded by a newer, conflicting note, per consolidation run.", days, " per run",
				views.Series{Name: "supersessions per run", Class: "c2", Values: superseded}),
			views.StackedBarChart("fallbacks", "Consolidation fallbacks and failures", "Model-engine runs that fell back to the rules engine, and jobs that gave up.", days,
				views.Series{Name: "fell back to rules", Class: "c3", Values: fallbacks}, views.Series{Name: "failed", Class: "c1", Values: failed}),
			views.LineChart("personalization", "Time to personalization", "Turns a new traveler had without any memory in the prompt before the first turn with one (average, by the day it happened).", days, " turns",
				views.Series{Name: "turns", Class: "c4", Values: ttp}),
			views.CategoryBarChart("notes", "Notes per traveler", "Travelers by number of active global notes, today.", labels, counts, "c5"),
			views.LineChart("turns", "Turns per day", "Traveler messages, for scale.", days, " turns",
				views.Series{Name: "turns", Class: "c6", Values: turns}),
		},
	}
}

func receiptView(r *models.ErasureReceipt, executedBy string) *views.ReceiptView {
	if r == nil {
		return nil
	}
	v := &views.ReceiptView{RequestID: r.RequestID, RequestedBy: r.RequestedBy, ExecutedBy: executedBy,
		RequestedAt: fmtTime(r.RequestedAt), CompletedAt: fmtTime(r.CompletedAt), Scrub: r.Scrub}
	tables := make([]string, 0, len(r.RowsDeleted))
	for t := range r.RowsDeleted {
		tables = append(tables, t)
	}
	sort.Strings(tables)
	for _, t := range tables {
		v.Rows = append(v.Rows, views.KV{Key: t, Value: strconv.FormatInt(r.RowsDeleted[t], 10)})
		v.Total += r.RowsDeleted[t]
	}
	return v
}

func (s *Server) erasurePage(c echo.Context) (views.ErasurePage, error) {
	ctx := c.Request().Context()
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
		row := views.ErasureRow{ID: r.ID, CustomerID: r.UserID, RequestedBy: r.RequestedBy, Created: fmtTime(r.CreatedAt),
			Reason: views.ErasureReasonLabel(r.Reason), Ticket: r.Ticket,
			Due: fmtTime(r.DueAt(s.cfg.ErasureDue)), Urgency: r.Urgency(now, s.cfg.ErasureDue)}
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
			row.ExecutedBy = "an admin (account id " + r.ExecutedBy + ")"
		}
		if r.CompletedAt != nil {
			row.Completed = fmtTime(*r.CompletedAt)
		}
		row.Receipt = receiptView(rec, row.ExecutedBy)
		vm.Done = append(vm.Done, row)
	}
	return vm, nil
}

func (s *Server) consoleErasure(c echo.Context) error {
	vm, err := s.erasurePage(c)
	if err != nil {
		return err
	}
	p := s.page(c, "Erasure", "erasure")
	if f := s.takeFormFlash(c); f != nil {
		if id, ok := strings.CutPrefix(f.Form, "erase:"); ok {
			vm.Error, vm.ErrorFor, vm.ErrorAt, vm.Reason, vm.Ticket = f.Message, id, f.Field, f.Values["reason"], f.Values["ticket"]
			p.Focus = "#" + f.Field
		}
	}
	if vm.Highlight != "" {
		p.Say, p.Focus = "Erasure done: the receipt is below.", "#receipt-"+vm.Highlight
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
		return fail(field, userMessage(err))
	}
	if strings.TrimSpace(c.FormValue("confirm")) != "ERASE" {
		return fail("er-confirm-", "Type ERASE in capitals to confirm: this cannot be undone.")
	}
	rec, err := s.erase(c, req.UserID, why)
	if e, _ := toError(err); err != nil && e.Status < 500 {
		return fail("er-confirm-", e.Message)
	}
	if err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/console/erasure?receipt="+rec.RequestID)
}
