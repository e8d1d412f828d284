package models

import (
	"context"
	"fmt"
	"sort"
	"time"
)

// DayHealth holds one day's memory health counters.
type DayHealth struct {
	Day           string // YYYY-MM-DD (UTC)
	Turns         int64  // traveler messages
	MemoryWrites  int64  // session notes the assistant saved
	Blocked       map[string]int64
	Runs          int64 // consolidation runs (reports)
	Supersessions int64 // notes superseded by a newer, conflicting note
	Fallbacks     int64 // model-engine runs that fell back to the rules engine
	FailedJobs    int64 // consolidation jobs that gave up
	// Personalized is how many travelers got memory into a prompt for the
	// first time that day; TurnsToPersonalize sums their turns without it.
	Personalized       int64
	TurnsToPersonalize int64
}

// NotesBucket is one bar of the notes-per-traveler distribution.
type NotesBucket struct {
	Label string
	Users int64
}

// MemoryHealth is the data behind the memory health dashboard.
type MemoryHealth struct {
	Days         []DayHealth // oldest first, one per day, gaps filled with zeros
	Categories   []string    // blocked-write categories seen in the window
	NotesPerUser []NotesBucket
	Travelers    int64
	GlobalNotes  int64
}

func (s *Store) dayExpr(col string) string {
	if s.postgres {
		return "to_char(" + col + " AT TIME ZONE 'UTC', 'YYYY-MM-DD')"
	}
	return "substr(" + col + ", 1, 10)"
}

type dayCount struct {
	Day string
	Key string
	N   int64
}

func (s *Store) countByDay(ctx context.Context, table, timeCol, keyExpr, where string, since time.Time, args ...any) ([]dayCount, error) {
	if keyExpr == "" {
		keyExpr = "''"
	}
	q := "SELECT " + s.dayExpr(timeCol) + " AS day, " + keyExpr + " AS key, COUNT(*) AS n FROM " + table +
		" WHERE " + timeCol + " >= ?"
	if where != "" {
		q += " AND " + where
	}
	q += " GROUP BY 1, 2"
	var out []dayCount
	if err := s.db.WithContext(ctx).Raw(q, append([]any{since}, args...)...).Scan(&out).Error; err != nil {
		return nil, fmt.Errorf("models: count %s by day: %w", table, err)
	}
	return out, nil
}

// MemoryHealthSince computes daily memory health counters for the days days
// ending with the day of now (UTC), and the current notes-per-traveler
// distribution.
//
// Time to personalization is the number of turns a traveler had whose
// prompt carried no memory at all (no GLOBAL note, no SESSION block) before
// the first turn whose prompt did; it is counted on the day of that first
// personalised turn, for travelers whose first turn was memory-less (seeded
// travelers start personalised and are left out).
func (s *Store) MemoryHealthSince(ctx context.Context, now time.Time, days int) (*MemoryHealth, error) {
	now = now.UTC()
	start := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC).AddDate(0, 0, -(days - 1))
	h := &MemoryHealth{}
	index := map[string]*DayHealth{}
	h.Days = make([]DayHealth, days)
	for i := range h.Days {
		h.Days[i] = DayHealth{Day: start.AddDate(0, 0, i).Format("2006-01-02"), Blocked: map[string]int64{}}
		index[h.Days[i].Day] = &h.Days[i]
	}
	add := func(rows []dayCount, f func(d *DayHealth, r dayCount)) {
		for _, r := range rows {
			if d := index[r.Day]; d != nil {
				f(d, r)
			}
		}
	}
	type query struct {
		table, timeCol, key, where string
		args                       []any
		f                          func(d *DayHealth, r dayCount)
	}
	queries := []query{
		{"messages", "created_at", "", "role = ?", []any{"user"}, func(d *DayHealth, r dayCount) { d.Turns += r.N }},
		{"audit_events", "created_at", "", "action = ? AND actor_kind = ?", []any{"note.create", ActorAssistant}, func(d *DayHealth, r dayCount) { d.MemoryWrites += r.N }},
		{"audit_events", "created_at", "", "action = ?", []any{"note.supersede"}, func(d *DayHealth, r dayCount) { d.Supersessions += r.N }},
		{"blocked_writes", "created_at", "category", "", nil, func(d *DayHealth, r dayCount) { d.Blocked[r.Key] += r.N }},
		{"consolidation_reports", "created_at", "", "", nil, func(d *DayHealth, r dayCount) { d.Runs += r.N }},
		{"consolidation_reports", "created_at", "", "fallback_reason <> ''", nil, func(d *DayHealth, r dayCount) { d.Fallbacks += r.N }},
		{"consolidation_jobs", "created_at", "", "status = ?", []any{JobFailed}, func(d *DayHealth, r dayCount) { d.FailedJobs += r.N }},
	}
	cats := map[string]bool{}
	for _, q := range queries {
		rows, err := s.countByDay(ctx, q.table, q.timeCol, q.key, q.where, start, q.args...)
		if err != nil {
			return nil, err
		}
		add(rows, q.f)
		if q.table == "blocked_writes" {
			for _, r := range rows {
				cats[r.Key] = true
			}
		}
	}
	for c := range cats {
		h.Categories = append(h.Categories, c)
	}
	sort.Strings(h.Categories)
	if err := s.personalization(ctx, start, index); err != nil {
		return nil, err
	}
	if err := s.notesPerUser(ctx, h); err != nil {
		return nil, err
	}
	return h, nil
}

func (s *Store) personalization(ctx context.Context, start time.Time, index map[string]*DayHealth) error {
	var rows []struct {
		UserID    string
		SessionID string
		Turn      int
		CreatedAt time.Time
		Empty     bool
	}
	// Every first-round snapshot of the travelers seen in the window, so a
	// traveler's first turn is known even when it was before the window.
	// memory_injected is what BuildInstructions reported for the prompt.
	err := s.db.WithContext(ctx).Raw(`SELECT user_id, session_id, turn, created_at, NOT memory_injected AS empty
		FROM turn_snapshots WHERE round = 1 AND user_id IN (SELECT user_id FROM turn_snapshots WHERE created_at >= ?)
		ORDER BY user_id, created_at, id`, start).Scan(&rows).Error
	if err != nil {
		return fmt.Errorf("models: personalization: %w", err)
	}
	for i := 0; i < len(rows); {
		j := i
		for j < len(rows) && rows[j].UserID == rows[i].UserID {
			j++
		}
		user := rows[i:j]
		if user[0].Empty {
			for k, r := range user {
				if !r.Empty {
					if d := index[r.CreatedAt.UTC().Format("2006-01-02")]; d != nil {
						d.Personalized++
						d.TurnsToPersonalize += int64(k)
					}
					break
				}
			}
		}
		i = j
	}
	return nil
}

func (s *Store) notesPerUser(ctx context.Context, h *MemoryHealth) error {
	var counts []int64
	err := s.db.WithContext(ctx).Raw(`SELECT COUNT(n.id) FROM users u
		LEFT JOIN notes n ON n.user_id = u.id AND n.kind = ? AND n.status = ?
		WHERE u.role = ? GROUP BY u.id`, KindGlobal, StatusActive, RoleTraveler).Scan(&counts).Error
	if err != nil {
		return fmt.Errorf("models: notes per user: %w", err)
	}
	h.NotesPerUser = []NotesBucket{{Label: "0"}, {Label: "1–2"}, {Label: "3–5"}, {Label: "6–10"}, {Label: "11–50"}, {Label: "51+"}}
	for _, n := range counts {
		h.Travelers++
		h.GlobalNotes += n
		switch {
		case n == 0:
			h.NotesPerUser[0].Users++
		case n <= 2:
			h.NotesPerUser[1].Users++
		case n <= 5:
			h.NotesPerUser[2].Users++
		case n <= 10:
			h.NotesPerUser[3].Users++
		case n <= 50:
			h.NotesPerUser[4].Users++
		default:
			h.NotesPerUser[5].Users++
		}
	}
	return nil
}

// MetricTotals are all-time counters for the Prometheus endpoint, read from
// the database so every instance reports the same numbers. They can go down
// when a user is erased.
type MetricTotals struct {
	Turns         int64
	MemoryWrites  int64
	Supersessions int64
	Blocked       map[string]int64 // by category
	Runs          map[string]int64 // by engine
	Fallbacks     int64
	Jobs          map[string]int64 // by status
	Travelers     int64
	GlobalNotes   int64
}

// Totals reads the all-time counters.
func (s *Store) Totals(ctx context.Context) (*MetricTotals, error) {
	db := s.db.WithContext(ctx)
	t := &MetricTotals{Blocked: map[string]int64{}, Runs: map[string]int64{}, Jobs: map[string]int64{}}
	counts := []struct {
		dst   *int64
		q     string
		args  []any
		label string
	}{
		{&t.Turns, "SELECT COUNT(*) FROM messages WHERE role = ?", []any{"user"}, "turns"},
		{&t.MemoryWrites, "SELECT COUNT(*) FROM audit_events WHERE action = ? AND actor_kind = ?", []any{"note.create", ActorAssistant}, "writes"},
		{&t.Supersessions, "SELECT COUNT(*) FROM audit_events WHERE action = ?", []any{"note.supersede"}, "supersessions"},
		{&t.Fallbacks, "SELECT COUNT(*) FROM consolidation_reports WHERE fallback_reason <> ''", nil, "fallbacks"},
		{&t.Travelers, "SELECT COUNT(*) FROM users WHERE role = ?", []any{RoleTraveler}, "travelers"},
		{&t.GlobalNotes, "SELECT COUNT(*) FROM notes WHERE kind = ? AND status = ?", []any{KindGlobal, StatusActive}, "notes"},
	}
	for _, c := range counts {
		if err := db.Raw(c.q, c.args...).Scan(c.dst).Error; err != nil {
			return nil, fmt.Errorf("models: totals %s: %w", c.label, err)
		}
	}
	groups := []struct {
		dst map[string]int64
		q   string
	}{
		{t.Blocked, "SELECT category AS key, COUNT(*) AS n FROM blocked_writes GROUP BY category"},
		{t.Runs, "SELECT engine AS key, COUNT(*) AS n FROM consolidation_reports GROUP BY engine"},
		{t.Jobs, "SELECT status AS key, COUNT(*) AS n FROM consolidation_jobs GROUP BY status"},
	}
	for _, g := range groups {
		var rows []dayCount
		if err := db.Raw(g.q).Scan(&rows).Error; err != nil {
			return nil, fmt.Errorf("models: totals: %w", err)
		}
		for _, r := range rows {
			g.dst[r.Key] = r.N
		}
	}
	return t, nil
}
