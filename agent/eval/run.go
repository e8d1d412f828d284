package eval

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/crypto/bcrypt"

	"concierge/agent"
	"concierge/memory"
	"concierge/models"
)

// Options configures a run.
type Options struct {
	// Provider answers the turns; Completer, when not nil, consolidates
	// (else the rules engine does).
	Provider  agent.Provider
	Completer memory.Completer
	// Model names the chat model, for the tokenizer and the scorecard.
	Model string
	// Strategy is the injection strategy: "relevance" (recency plus
	// relevance to the latest message, the default) or "recency".
	Strategy string
	// GlobalBudget is the token budget for long-term notes in the
	// instructions; 0 keeps the agent's default.
	GlobalBudget int
	// Dir holds the throwaway databases; empty means a new temporary
	// directory, removed afterwards.
	Dir string
	// Progress, when not nil, gets one line per scenario as it finishes.
	Progress io.Writer
	// Log receives the agent's and worker's logs; nil discards them.
	Log *slog.Logger
}

// Strategies are the injection strategies --compare can set side by side.
var Strategies = []string{StrategyRelevance, StrategyRecency}

// The injection strategies.
const (
	StrategyRelevance = "relevance"
	StrategyRecency   = "recency"
)

// TurnRecord is what one traveler message led to.
type TurnRecord struct {
	Conversation, Turn int // 1-based
	Index              int // 1-based over all of the scenario's turns
	Spec               Turn
	Reply              string
	Saved              []memory.Note
	Forgotten          []memory.Note
	Blocked            []string
	PromptTokens       int
	Err                string
}

// ScenarioRecord is everything one scenario produced.
type ScenarioRecord struct {
	Scenario Scenario
	Turns    []TurnRecord
	// Final is the active long-term memory after the last consolidation.
	Final []memory.Note
	// Inputs are the texts memory could legitimately hold: the seed notes
	// and every session note saved.
	Inputs   []string
	Err      string
	Duration time.Duration
}

// Run plays every scenario on its own database and returns the records in
// order. A scenario that fails to run is recorded with Err and scored as
// failing its checks; Run itself fails only when it cannot start.
func Run(ctx context.Context, scenarios []Scenario, opt Options) ([]ScenarioRecord, error) {
	if opt.Provider == nil {
		return nil, fmt.Errorf("eval: no provider")
	}
	if opt.Log == nil {
		opt.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	dir := opt.Dir
	if dir == "" {
		d, err := os.MkdirTemp("", "concierge-eval-")
		if err != nil {
			return nil, fmt.Errorf("eval: %w", err)
		}
		defer os.RemoveAll(d)
		dir = d
	}
	out := make([]ScenarioRecord, 0, len(scenarios))
	for i, sc := range scenarios {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		start := time.Now()
		rec := runScenario(ctx, sc, filepath.Join(dir, fmt.Sprintf("scenario-%03d.db", i+1)), opt)
		rec.Duration = time.Since(start)
		out = append(out, rec)
		if opt.Progress != nil {
			status := "ok"
			if rec.Err != "" {
				status = "error: " + rec.Err
			}
			fmt.Fprintf(opt.Progress, "eval %3d/%d  %-34s %2d turns  %5.2fs  %s\n", i+1, len(scenarios), sc.Name,
				len(rec.Turns), rec.Duration.Seconds(), status)
		}
	}
	return out, nil
}

// clock is the scenario's simulated time: the current conversation's day,
// advancing a millisecond at every reading so rows keep their order.
type clock struct {
	mu   sync.Mutex
	day  time.Time
	tick time.Duration
}

func (c *clock) set(date string) {
	d, _ := time.Parse(memory.DateLayout, date) // validated on load
	c.mu.Lock()
	c.day, c.tick = d.Add(9*time.Hour), 0
	c.mu.Unlock()
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.tick += time.Millisecond
	return c.day.Add(c.tick)
}

func runScenario(ctx context.Context, sc Scenario, dbPath string, opt Options) (rec ScenarioRecord) {
	rec.Scenario = sc
	defer func() {
		for _, suffix := range []string{"", "-wal", "-shm"} {
			_ = os.Remove(dbPath + suffix)
		}
	}()
	store, err := models.Open(dbPath)
	if err != nil {
		rec.Err = err.Error()
		return rec
	}
	defer store.Close()
	clk := &clock{}
	clk.set(sc.Conversations[0].Date)
	store.Now, store.PasswordCost = clk.now, bcrypt.MinCost
	if err := store.Migrate(ctx); err != nil {
		rec.Err = err.Error()
		return rec
	}
	uid, err := setUp(ctx, store, sc)
	if err != nil {
		rec.Err = err.Error()
		return rec
	}
	for _, n := range sc.Notes {
		rec.Inputs = append(rec.Inputs, n.Text)
	}

	cfg := agent.DefaultConfig(opt.Model)
	if opt.GlobalBudget > 0 {
		cfg.GlobalBudget = opt.GlobalBudget
	}
	cfg.RecencyOnly = opt.Strategy == StrategyRecency
	ag := agent.New(cfg, store, opt.Provider, opt.Log)
	// Turns go through the runner, as the server's do.
	turns := agent.NewRunner(agent.RunnerConfig{}, ag, opt.Log)
	ag.SetClock(clk.now)
	wcfg := agent.DefaultWorkerConfig()
	w := agent.NewWorker(wcfg, store, opt.Completer, opt.Log)
	w.SetClock(clk.now)

	index := 0
	for ci, conv := range sc.Conversations {
		clk.set(conv.Date)
		cs, err := store.CreateChatSession(ctx, uid)
		if err != nil {
			rec.Err = err.Error()
			return rec
		}
		for ti, t := range conv.Turns {
			index++
			tr := TurnRecord{Conversation: ci + 1, Turn: ti + 1, Index: index, Spec: t}
			res, err := turns.Send(ctx, agent.Post{SessionID: cs.ID, Content: t.Say})
			if err != nil {
				tr.Err = err.Error()
			} else {
				tr.Reply, tr.Saved, tr.Forgotten, tr.Blocked, tr.PromptTokens = res.Reply, res.Saved, res.Forgotten, res.Blocked, res.Usage.PromptTokens
				for _, n := range res.Saved {
					rec.Inputs = append(rec.Inputs, n.Text)
				}
			}
			rec.Turns = append(rec.Turns, tr)
		}
		if _, err := store.CloseSession(ctx, cs.ID, "ended"); err != nil {
			rec.Err = err.Error()
			return rec
		}
		for range 5 {
			if !w.RunOnce(ctx) {
				break
			}
		}
	}
	rec.Final, err = store.GlobalNotes(ctx, uid)
	if err != nil {
		rec.Err = err.Error()
	}
	return rec
}

// setUp creates the scenario's traveler with its profile and notes.
func setUp(ctx context.Context, store *models.Store, sc Scenario) (string, error) {
	u, err := store.CreateUser(ctx, "traveler@eval.invalid", "Eval Traveler", models.RoleTraveler, "eval-password-1")
	if err != nil {
		return "", err
	}
	actor := models.Actor{Kind: models.ActorSystem}
	if len(sc.Profile) > 0 {
		if err := store.SetProfile(ctx, u.ID, sc.Profile, actor, "evaluation"); err != nil {
			return "", err
		}
	}
	for _, n := range sc.Notes {
		kw := n.Keywords
		if len(kw) == 0 {
			kw = []string{"travel"}
		}
		note := memory.Note{Text: n.Text, Keywords: kw, LastUpdateDate: n.Date, Pinned: n.Pinned,
			Scope: memory.ScopeDurable, Source: memory.SourceSeed}
		if _, err := store.Notes(memory.Limits{}).Add(ctx, models.NewNote{UserID: u.ID, Kind: models.KindGlobal, Note: note}, actor, "evaluation"); err != nil {
			return "", err
		}
	}
	return u.ID, nil
}
