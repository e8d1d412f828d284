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
	holdoutList := fs.String("holdout", strings.Join(eval.HoldoutLanguages, ","), "holdout files to score, comma-separated")
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
	var langs []string
	for _, l := range strings.Split(*holdoutList, ",") {
		if l = strings.TrimSpace(l); !slices.Contains(eval.HoldoutLanguages, l) {
			return fmt.Errorf("unknown holdout %q: want some of %s", l, strings.Join(eval.HoldoutLanguages, ", "))
		}
		langs = append(langs, l)
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
	var progress io.Writer
	if !*quiet {
		progress = stderr
	}
	scores, err := holdouts(ctx, langs, eval.Options{Provider: provider, Model: cfg.ChatModel}, progress)
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
		cards[i].Holdout, cards[i].Languages, cards[i].SteerHoldout = scores[eval.HoldoutHeadline], scores, steer
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

// holdouts scores the model on the holdout files langs names, with a line
// on progress (nil: none) as each starts and ends; the English one is also
// the card's "holdout".
func holdouts(ctx context.Context, langs []string, opt eval.Options, progress io.Writer) (map[string]*eval.HoldoutScore, error) {
	out := map[string]*eval.HoldoutScore{}
	for i, lang := range langs {
		items, err := eval.LoadHoldout(lang)
		if err != nil {
			return nil, err
		}
		if progress != nil {
			fmt.Fprintf(progress, "eval holdout %d/%d  %-5s %d statements\n", i+1, len(langs), lang, len(items))
		}
		s, err := eval.RunHoldout(ctx, items, opt)
		if err != nil {
			return nil, fmt.Errorf("holdout %s: %w", lang, err)
		}
		if progress != nil {
			fmt.Fprintf(progress, "eval holdout %d/%d  %-5s precision %.3f  recall %.3f  scope %.3f  refused saved %d\n",
				i+1, len(langs), lang, s.Precision, s.Recall, s.ScopeAccuracy, s.RefusedSaved)
		}
		out[lang] = &s
	}
	return out, nil
}
