package handlers

import (
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"concierge/models"
	"concierge/views"
	"concierge/views/locale"
)

// The review queue (SPEC §2.6): the API for a helpdesk and the console's
// page. Access is access.go's: staff only, and support works the items of
// travelers only (reviewParam resolves an item's traveler).

// reviewKindLabels are the message ids of the kinds' names.
var reviewKindLabels = map[string]string{
	models.ReviewSafetyPin:     "review.kind.safety_pin",
	models.ReviewProfileUpdate: "review.kind.profile_update",
	models.ReviewRefusedWrite:  "review.kind.refused_write",
	models.ReviewFallback:      "review.kind.fallback",
}

// reviewActionLabels are the message ids of the actions' names.
var reviewActionLabels = map[string]string{
	"confirm": "review.action.confirm", "edit": "review.action.edit", "unpin": "review.action.unpin",
	"apply": "review.action.apply", "dismiss": "review.action.dismiss",
	"add": "review.action.add", "accept": "review.action.accept", "correct": "review.action.correct",
}

// apiReviewItem is how the API shows an item.
type apiReviewItem struct {
	ID           string     `json:"id"`
	Kind         string     `json:"kind"`
	UserID       string     `json:"user_id"`
	SessionID    string     `json:"session_id,omitempty"`
	Turn         int        `json:"turn,omitempty"`
	NoteID       string     `json:"note_id,omitempty"`
	Category     string     `json:"category,omitempty"`
	Field        string     `json:"field,omitempty"`
	Current      string     `json:"current,omitempty"`
	Proposed     string     `json:"proposed,omitempty"`
	CreatedAt    time.Time  `json:"created_at"`
	ClaimedBy    string     `json:"claimed_by,omitempty"`
	ClaimedUntil *time.Time `json:"claimed_until,omitempty"`
	Status       string     `json:"status"`
	Action       string     `json:"action,omitempty"`
	Reason       string     `json:"reason,omitempty"`
	ResolvedBy   string     `json:"resolved_by,omitempty"`
	ResolvedAt   *time.Time `json:"resolved_at,omitempty"`
}

func toAPIReview(it *models.ReviewItem, now time.Time) apiReviewItem {
	out := apiReviewItem{ID: it.ID, Kind: it.Kind, UserID: it.UserID, SessionID: it.SessionID, Turn: it.Turn, NoteID: it.NoteID,
		Category: it.Category, Field: it.Field, Current: it.CurrentValue, Proposed: it.ProposedValue, CreatedAt: it.CreatedAt,
		Status: it.Status, Action: it.Action, Reason: it.Reason, ResolvedBy: it.ResolvedBy, ResolvedAt: it.ResolvedAt}
	if by := it.ClaimedAt(now); by != "" {
		out.ClaimedBy, out.ClaimedUntil = by, it.ClaimedUntil
	}
	return out
}

// reviewFilter reads the queue's filter from the query, within what the
// caller manages.
func (s *Server) reviewFilter(c echo.Context) (models.ReviewFilter, error) {
	f := models.ReviewFilter{Kind: c.QueryParam("kind"), UserID: c.QueryParam("user"), Status: c.QueryParam("status"),
		Customer: c.QueryParam("customer"), Role: managedRole(currentUser(c))}
	if f.Kind != "" && reviewKindLabels[f.Kind] == "" {
		return f, newError(http.StatusBadRequest, "invalid", "kind is one of "+strings.Join(models.ReviewKinds, ", ")+".")
	}
	switch f.Status {
	case "":
		f.Status = models.ReviewOpen
	case models.ReviewOpen, models.ReviewResolved:
	case "all":
		f.Status = ""
	default:
		return f, newError(http.StatusBadRequest, "invalid", "status is open, resolved or all.")
	}
	if age := c.QueryParam("age"); age != "" {
		d, err := time.ParseDuration(age)
		if err != nil || d < 0 {
			return f, newError(http.StatusBadRequest, "invalid", "age is a duration such as 24h.")
		}
		f.Before = s.store.Clock().Add(-d)
	}
	return f, nil
}

func (s *Server) apiReview(c echo.Context) error {
	f, err := s.reviewFilter(c)
	if err != nil {
		return err
	}
	rows, err := s.store.ReviewItems(c.Request().Context(), f)
	if err != nil {
		return err
	}
	now := s.store.Clock()
	out := make([]apiReviewItem, len(rows))
	for i := range rows {
		out[i] = toAPIReview(&rows[i].ReviewItem, now)
	}
	return c.JSON(http.StatusOK, map[string]any{"items": out})
}

func (s *Server) apiClaimReview(c echo.Context) error {
	it, err := s.store.Claim(c.Request().Context(), c.Param("item"), actorOf(currentUser(c)), models.ReviewClaimFor)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, toAPIReview(it, s.store.Clock()))
}

func (s *Server) apiResolveReview(c echo.Context) error {
	var req struct {
		Action   string   `json:"action"`
		Reason   string   `json:"reason"`
		Text     string   `json:"text"`
		Keywords []string `json:"keywords"`
		Note     string   `json:"note"`
	}
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	it, err := s.resolveReview(c, models.Resolution{Action: req.Action, Reason: req.Reason, Text: req.Text, Keywords: req.Keywords, NoteID: req.Note})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, toAPIReview(it, s.store.Clock()))
}

// resolveReview resolves the route's item as the caller and logs it (ids
// only).
func (s *Server) resolveReview(c echo.Context, res models.Resolution) (*models.ReviewItem, error) {
	u := currentUser(c)
	it, err := s.notes.Resolve(c.Request().Context(), c.Param("item"), res, actorOf(u))
	if err != nil {
		return nil, err
	}
	s.log.Info("review item resolved", "request_id", requestID(c), "item", it.ID, "kind", it.Kind, "action", it.Action, "staff", u.ID)
	return it, nil
}

// reviewPage builds the queue page's view model.
func (s *Server) reviewPage(c echo.Context) (views.ReviewPage, error) {
	ctx := c.Request().Context()
	vm := views.ReviewPage{CSRF: csrfToken(c), Filter: views.ReviewFilter{Kind: c.QueryParam("kind"), Age: c.QueryParam("age"),
		Customer: c.QueryParam("customer"), Status: c.QueryParam("status")}}
	f, err := s.reviewFilter(c)
	if err != nil {
		return vm, err
	}
	f.Limit = reviewPageSize
	rows, err := s.store.ReviewItems(ctx, f)
	if err != nil {
		return vm, err
	}
	counts, err := s.store.ReviewCounts(ctx, models.ReviewFilter{Status: f.Status, Role: f.Role, UserID: f.UserID, Customer: f.Customer, Before: f.Before})
	if err != nil {
		return vm, err
	}
	for _, k := range models.ReviewKinds {
		vm.Kinds = append(vm.Kinds, views.ReviewKindCount{Kind: k, Label: reviewKindLabels[k], Count: counts[k]})
		if f.Kind == "" || f.Kind == k {
			vm.Open += counts[k]
		}
	}
	items, err := s.reviewViews(c, rows)
	if err != nil {
		return vm, err
	}
	vm.Items = items
	return vm, nil
}

// reviewPageSize is how many items the page shows at once, oldest first.
const reviewPageSize = 100

// reviewViews builds the items' views with their details and the names of
// who holds or resolved them.
func (s *Server) reviewViews(c echo.Context, rows []models.ReviewRow) ([]views.ReviewItemView, error) {
	ctx := c.Request().Context()
	d, err := s.store.ReviewDetailsOf(ctx, rows)
	if err != nil {
		return nil, err
	}
	var staff []string
	for _, r := range rows {
		staff = append(staff, r.ClaimedBy, r.ResolvedBy)
	}
	names, err := s.store.UserNames(ctx, staff)
	if err != nil {
		return nil, err
	}
	me, now := currentUser(c).ID, s.store.Clock()
	out := make([]views.ReviewItemView, len(rows))
	for i := range rows {
		out[i] = reviewView(localizer(c), &rows[i], d, names, me, now)
	}
	return out, nil
}

func reviewView(l *locale.Localizer, r *models.ReviewRow, d models.ReviewDetails, names map[string]string, me string, now time.Time) views.ReviewItemView {
	v := views.ReviewItemView{ID: r.ID, Kind: r.Kind, KindLabel: reviewKindLabels[r.Kind], CustomerID: r.UserID, CustomerName: r.UserName,
		SessionID: r.SessionID, Turn: r.Turn, Created: fmtTime(l, r.CreatedAt), Age: ageOf(l, now.Sub(r.CreatedAt)),
		Open: r.Status == models.ReviewOpen, Action: reviewActionLabels[r.Action], Reason: r.Reason, Resolver: names[r.ResolvedBy]}
	if r.ResolvedAt != nil {
		v.Resolved = fmtTime(l, *r.ResolvedAt)
	}
	if by := r.ClaimedAt(now); by != "" {
		v.ClaimedBy, v.ClaimedUntil, v.ClaimedByMe = names[by], fmtTime(l, *r.ClaimedUntil), by == me
	}
	switch r.Kind {
	case models.ReviewRefusedWrite:
		// The category only: the traveler's own words are in the transcript.
		v.Detail = l.T("review.detail.refused", "Notice", l.T(views.BlockedNoticeID(r.Category)))
	case models.ReviewFallback:
		v.Detail = l.T("review.detail.fallback", "Why", d.Fallbacks[r.ConsolidationID])
		v.ReportHref = "/console/customers/" + r.UserID + "/consolidations"
	default:
		if n, ok := d.Notes[r.NoteID]; ok {
			v.Detail = "“" + n.Text + "”"
		} else {
			v.Detail = l.T("review.detail.gone")
		}
	}
	if r.Kind == models.ReviewProfileUpdate {
		v.Field, v.Current, v.Proposed = r.Field, r.CurrentValue, r.ProposedValue
	}
	for _, a := range models.ReviewActions[r.Kind] {
		v.Actions = append(v.Actions, views.ReviewActionView{Value: a, Label: reviewActionLabels[a]})
		v.NeedsText = v.NeedsText || a == "edit" || a == "add" || a == "correct"
		v.NeedsNote = v.NeedsNote || a == "correct"
	}
	return v
}

// ageOf words how long an item has waited, in l's language.
func ageOf(l *locale.Localizer, d time.Duration) string {
	switch {
	case d < time.Hour:
		return l.N("review.age.minutes", int(d.Minutes()))
	case d < 48*time.Hour:
		return l.N("review.age.hours", int(d.Hours()))
	}
	return l.N("review.age.days", int(d.Hours()/24))
}

func (s *Server) consoleReview(c echo.Context) error {
	vm, err := s.reviewPage(c)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, views.ReviewPageView(s.page(c, "review.title", "review"), vm))
}

// consoleReviewItem answers a claim or resolution from the page: the item
// swapped in place, with what happened said and the focus on the result
// (htmx), or back to the queue at the item (a plain form).
func (s *Server) consoleReviewItem(c echo.Context, done string, failed error) error {
	if _, internal := toError(failed); failed != nil && internal {
		return failed
	}
	ctx := c.Request().Context()
	rows, err := s.store.ReviewItems(ctx, models.ReviewFilter{Role: managedRole(currentUser(c)), ItemID: c.Param("item")})
	if err != nil {
		return err
	}
	if len(rows) == 0 {
		return errNotFound
	}
	items, err := s.reviewViews(c, rows)
	if err != nil {
		return err
	}
	v := items[0]
	status, focus, say := http.StatusOK, "#item-done-"+v.ID, done
	v.Done = done
	if failed != nil {
		e, _ := toError(failed)
		msg := e.In(localizer(c))
		v.Done, v.Error, status, focus, say = "", msg, e.Status, "#item-error-"+v.ID, msg
	}
	if c.Request().Header.Get("HX-Request") != "true" {
		if failed != nil {
			return failed
		}
		return c.Redirect(http.StatusSeeOther, "/console/review#item-"+v.ID)
	}
	announce(c, say, focus)
	return render(c, status, views.ReviewItemCard(csrfToken(c), v))
}

func (s *Server) consoleClaimReview(c echo.Context) error {
	_, err := s.store.Claim(c.Request().Context(), c.Param("item"), actorOf(currentUser(c)), models.ReviewClaimFor)
	return s.consoleReviewItem(c, localizer(c).T("review.say.claimed"), err)
}

func (s *Server) consoleResolveReview(c echo.Context) error {
	it, err := s.resolveReview(c, models.Resolution{Action: c.FormValue("action"), Reason: c.FormValue("reason"),
		Text: c.FormValue("text"), NoteID: c.FormValue("note")})
	done := ""
	if err == nil {
		l := localizer(c)
		done = l.T("review.say.resolved", "Action", l.T(reviewActionLabels[it.Action]))
	}
	return s.consoleReviewItem(c, done, err)
}
