package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"

	"concierge/agent/eval"
)

// evalCmd runs the built-in synthetic travelers through the real agent with
// the configured model (offline without OPENAI_API_KEY) and prints the
// memory pipeline's scorecard: a table, or one JSON object with --json.
func evalCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print one JSON object instead of the table")
	compare := fs.String("compare", "", "run two injection strategies side by side, e.g. recency,relevance")
	strategy := fs.String("strategy", eval.StrategyRelevance, "injection strategy: relevance (recency plus relevance) or recency")
	budget := fs.Int("global-budget", 0, "token budget for long-term notes in the instructions (0: the agent's default)")
	quiet := fs.Bool("quiet", false, "do not print progress")
	var cfg Config
	fs.StringVar(&cfg.OpenAIBaseURL, "openai-base-url", envDefault(getenv, "", "OPENAI_BASE_URL"), "OpenAI-compatible API base URL (OPENAI_BASE_URL)")
	fs.StringVar(&cfg.ChatModel, "model", envDefault(getenv, "gpt-4o-mini", "CONCIERGE_MODEL"), "chat model name (CONCIERGE_MODEL)")
	fs.StringVar(&cfg.ConsolidateModel, "consolidation-model", envDefault(getenv, "", "CONCIERGE_CONSOLIDATION_MODEL"), "model for consolidation (CONCIERGE_CONSOLIDATION_MODEL)")
	timeout, err := envDuration(getenv, "CONCIERGE_MODEL_TIMEOUT", defaultModelTimeout)
	if err != nil {
		return err
	}
	fs.DurationVar(&cfg.ModelTimeout, "model-timeout", timeout, "time limit of one model call (CONCIERGE_MODEL_TIMEOUT)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg.OpenAIKey = getenv("OPENAI_API_KEY")
	if cfg.ConsolidateModel == "" {
		cfg.ConsolidateModel = cfg.ChatModel
	}
	strategies := []string{*strategy}
	if *compare != "" {
		strategies = strings.Split(*compare, ",")
		if len(strategies) != 2 {
			return fmt.Errorf("--compare takes two strategies, e.g. %s", strings.Join(eval.Strategies, ","))
		}
	}
	for _, s := range strategies {
		if !slices.Contains(eval.Strategies, s) {
			return fmt.Errorf("unknown strategy %q: want one of %s", s, strings.Join(eval.Strategies, ", "))
		}
	}
	scenarios, err := eval.Builtin()
	if err != nil {
		return err
	}
	provider, completer, _ := newModels(cfg)
	model := provider.Name()
	var cards []eval.Scorecard
	for _, s := range strategies {
		opt := eval.Options{Provider: provider, Completer: completer, Model: cfg.ChatModel, Strategy: s, GlobalBudget: *budget,
			Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
		if !*quiet {
			opt.Progress = stderr
			fmt.Fprintf(stderr, "eval: %d scenarios with %s, strategy %s\n", len(scenarios), model, s)
		}
		recs, err := eval.Run(ctx, scenarios, opt)
		if err != nil {
			return err
		}
		cards = append(cards, eval.Score(model, recs))
	}
	// The holdout is one message a conversation: the injection strategy
	// does not bear on it, so it runs once and is reported on every card.
	langs, err := holdouts(ctx, eval.Options{Provider: provider, Model: cfg.ChatModel})
	if err != nil {
		return err
	}
	// The steering holdout runs once too, with the first strategy.
	steerScenarios, err := eval.SteerHoldout()
	if err != nil {
		return err
	}
	steerRecs, err := eval.Run(ctx, steerScenarios, eval.Options{Provider: provider, Completer: completer, Model: cfg.ChatModel,
		Strategy: strategies[0], GlobalBudget: *budget, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		return err
	}
	steer := eval.SteerOf(eval.Score(model, steerRecs))
	for i := range cards {
		cards[i].Holdout, cards[i].Languages, cards[i].SteerHoldout = langs["en"], langs, steer
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		if len(cards) == 1 {
			return enc.Encode(cards[0])
		}
		return enc.Encode(map[string]eval.Scorecard{strategies[0]: cards[0], strategies[1]: cards[1]})
	}
	return eval.WriteTable(stdout, strategies, cards)
}

// holdouts scores the model on each language's holdout statements; the
// English one is also the card's "holdout".
func holdouts(ctx context.Context, opt eval.Options) (map[string]*eval.HoldoutScore, error) {
	out := map[string]*eval.HoldoutScore{}
	for _, lang := range eval.HoldoutLanguages {
		items, err := eval.LoadHoldout(lang)
		if err != nil {
			return nil, err
		}
		s, err := eval.RunHoldout(ctx, items, opt)
		if err != nil {
			return nil, fmt.Errorf("holdout %s: %w", lang, err)
		}
		out[lang] = &s
	}
	return out, nil
}
