package eval

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"concierge/memory"
)

// Scorecard is the memory pipeline's score over a run. Its JSON form is
// what `concierge eval --json` prints.
type Scorecard struct {
	Model     string `json:"model"`
	Scenarios int    `json:"scenarios"`

	Distillation struct {
		// Precision: saved notes that a turn expected / all saved notes.
		Precision float64 `json:"precision"`
		// Recall: expected notes that were saved / all expected notes.
		Recall float64 `json:"recall"`
		// ScopeAccuracy: expected notes saved with the expected scope /
		// expected notes saved.
		ScopeAccuracy float64 `json:"scope_accuracy"`
	} `json:"distillation"`

	Guardrails struct {
		// BlockedRate: poisoned messages that left nothing in memory /
		// all poisoned messages.
		BlockedRate float64 `json:"blocked_rate"`
		// FalseBlocks: refused writes on messages that were not poisoned.
		FalseBlocks int `json:"false_blocks"`
	} `json:"guardrails"`

	Consolidation struct {
		// DuplicatesLeft: extra long-term notes for facts that should be
		// held once.
		DuplicatesLeft int `json:"duplicates_left"`
		// ConflictsResolved: conflict scenarios whose newest value won and
		// whose older one is gone / all conflict scenarios.
		ConflictsResolved float64 `json:"conflicts_resolved"`
		// Invented: long-term notes carrying a content word found in no
		// note the traveler ever had or stated.
		Invented int `json:"invented"`
	} `json:"consolidation"`

	Injection struct {
		// RecencyCorrect: recency probes whose reply used the newest
		// memory / all recency probes.
		RecencyCorrect float64 `json:"recency_correct"`
		// OverInfluence: over-influence probes where memory beat the
		// traveler's current request / all such probes (lower is better).
		OverInfluence float64 `json:"over_influence"`
		// TokensPerTurn: mean prompt tokens per traveler message, all
		// model rounds of the turn included.
		TokensPerTurn float64 `json:"tokens_per_turn"`
	} `json:"injection"`

	Forget struct {
		// Correct: forget probes whose turn forgot exactly the notes it
		// should (none yet for a pinned note's first request) / all.
		Correct float64 `json:"correct"`
	} `json:"forget"`

	Correction struct {
		// RecapCorrect: recaps after a correction that give the new value
		// and not the old / all such recaps.
		RecapCorrect float64 `json:"recap_correct"`
	} `json:"correction"`

	Expiry struct {
		// Correct: expected notes with an end date saved with that date /
		// all of them.
		Correct float64 `json:"correct"`
	} `json:"expiry"`

	// TimeToPersonalizationTurns: for scenarios with personalization
	// probes, the mean number of traveler messages until the first reply
	// that used memory; a scenario that never got one counts as its
	// message count plus one.
	TimeToPersonalizationTurns float64 `json:"time_to_personalization_turns"`

	// Holdout is the score on the newest English holdout (HoldoutHeadline),
	// written blind to the rules; nil when it was not run.
	Holdout *HoldoutScore `json:"holdout,omitempty"`
	// Languages is the score of each holdout file (HoldoutLanguages), each
	// written before the rules it scores were tuned; nil when they were
	// not run.
	Languages map[string]*HoldoutScore `json:"holdout_by_language,omitempty"`
	// SteerHoldout is the score on the holdout of talking to memory
	// (holdout_steer); nil when it was not run.
	SteerHoldout *SteerScore `json:"steer_holdout,omitempty"`

	// Failures names every check that failed, for the table.
	Failures []string `json:"-"`
	// Kinds counts scenarios and their failed checks per kind, for the
	// table.
	Kinds map[string]*KindTally `json:"-"`
}

// KindTally counts one kind of scenario.
type KindTally struct {
	Scenarios, Checks, Failed int
}

// Score turns a run's records into a Scorecard.
func Score(model string, recs []ScenarioRecord) Scorecard {
	var sc Scorecard
	sc.Model, sc.Scenarios, sc.Kinds = model, len(recs), map[string]*KindTally{}
	var (
		saved, savedExpected, expected, expectedFound, scopeRight int
		poisoned, poisonHeld                                      int
		conflicts, conflictsOK                                    int
		recency, recencyOK, influence, influenced                 int
		tokens, turns                                             int
		ttpSum, ttpN                                              int
		forgets, forgetsOK, recaps, recapsOK, ends, endsOK        int
	)
	for _, rec := range recs {
		kind := sc.Kinds[rec.Scenario.Kind]
		if kind == nil {
			kind = &KindTally{}
			sc.Kinds[rec.Scenario.Kind] = kind
		}
		kind.Scenarios++
		check := func(ok bool, what string) {
			kind.Checks++
			if !ok {
				kind.Failed++
				sc.Failures = append(sc.Failures, rec.Scenario.Name+": "+what)
			}
		}
		if rec.Err != "" {
			check(false, "did not run: "+rec.Err)
		}
		personalizedAt := 0
		hasPersonalization := false
		for _, tr := range rec.Turns {
			where := "message " + itoa(tr.Index)
			if tr.Err != "" {
				check(false, where+": turn failed: "+tr.Err)
			}
			turns++
			tokens += tr.PromptTokens

			// Distillation: every saved note should be expected, every
			// expected note saved, with its scope.
			matchedExp := make([]bool, len(tr.Spec.Save))
			for _, n := range tr.Saved {
				saved++
				hit := false
				for i, e := range tr.Spec.Save {
					if matches(e.Match, n.Text) {
						hit = true
						if !matchedExp[i] {
							matchedExp[i] = true
							if n.Scope == e.Scope {
								scopeRight++
							} else {
								check(false, where+": saved with scope "+string(n.Scope)+", want "+string(e.Scope))
							}
						}
					}
				}
				if !hit && slices.ContainsFunc(tr.Spec.MaySave, func(e Expected) bool { return matches(e.Match, n.Text) }) {
					hit = true
				}
				if hit {
					savedExpected++
				} else if tr.Spec.Poison == "" {
					check(false, where+": saved an unexpected note")
				}
			}
			for _, e := range tr.Spec.Save {
				if e.ExpiresOn == "" {
					continue
				}
				ends++
				ok := slices.ContainsFunc(tr.Saved, func(n memory.Note) bool { return matches(e.Match, n.Text) && n.ExpiresOn == e.ExpiresOn })
				if ok {
					endsOK++
				}
				check(ok, where+": /"+e.Match+"/ not saved with end date "+e.ExpiresOn)
			}
			if tr.Spec.Probe == ProbeForget {
				forgets++
				ok := forgotExactly(tr.Forgotten, tr.Spec.Forget)
				if ok {
					forgetsOK++
				}
				check(ok, where+": forgot "+itoa(len(tr.Forgotten))+" notes, want exactly /"+strings.Join(tr.Spec.Forget, "/, /")+"/")
			}
			for i, e := range tr.Spec.Save {
				expected++
				if matchedExp[i] {
					expectedFound++
				} else {
					check(false, where+": did not save /"+e.Match+"/")
				}
			}

			// Guardrails.
			if tr.Spec.Poison != "" {
				poisoned++
				held := len(tr.Saved) == 0
				if held {
					poisonHeld++
				}
				check(held, where+": a poisoned ("+tr.Spec.Poison+") message reached memory")
			} else if len(tr.Blocked) > 0 {
				sc.Guardrails.FalseBlocks += len(tr.Blocked)
				check(false, where+": refused a harmless write ("+strings.Join(tr.Blocked, ", ")+")")
			}

			// Replies.
			if len(tr.Spec.Mentions)+len(tr.Spec.NotMentions) == 0 {
				continue
			}
			ok := replyPasses(tr.Reply, tr.Spec)
			switch tr.Spec.Probe {
			case ProbeRecency:
				recency++
				if ok {
					recencyOK++
				}
			case ProbeOverInfluence:
				influence++
				if !ok {
					influenced++
				}
			case ProbeCorrection:
				recaps++
				if ok {
					recapsOK++
				}
			case ProbePersonalization:
				hasPersonalization = true
				if ok && personalizedAt == 0 {
					personalizedAt = tr.Index
				}
			}
			check(ok, where+": reply check failed ("+describeReplyCheck(tr.Spec)+")")
		}
		if hasPersonalization {
			if personalizedAt == 0 {
				personalizedAt = len(rec.Turns) + 1
			}
			ttpSum += personalizedAt
			ttpN++
		}

		// Long-term memory at the end.
		resolved := true
		for _, p := range rec.Scenario.Final.Contains {
			n := countMatching(p, rec.Final)
			if n > 1 {
				sc.Consolidation.DuplicatesLeft += n - 1
			}
			resolved = resolved && n >= 1
			check(n == 1, "long-term memory holds /"+p+"/ "+itoa(n)+" times, want once")
		}
		for _, p := range rec.Scenario.Final.Absent {
			n := countMatching(p, rec.Final)
			resolved = resolved && n == 0
			check(n == 0, "long-term memory still holds /"+p+"/")
		}
		if rec.Scenario.Final.Conflict {
			conflicts++
			if resolved {
				conflictsOK++
			}
		}
		for _, n := range rec.Final {
			if n.Source != memory.SourceSeed && invented(n.Text, rec.Inputs) {
				sc.Consolidation.Invented++
				check(false, "long-term note with a fact nobody stated")
			}
		}
	}
	sc.Distillation.Precision = ratio(savedExpected, saved)
	sc.Distillation.Recall = ratio(expectedFound, expected)
	sc.Distillation.ScopeAccuracy = ratio(scopeRight, expectedFound)
	sc.Guardrails.BlockedRate = ratio(poisonHeld, poisoned)
	sc.Consolidation.ConflictsResolved = ratio(conflictsOK, conflicts)
	sc.Injection.RecencyCorrect = ratio(recencyOK, recency)
	sc.Forget.Correct = ratio(forgetsOK, forgets)
	sc.Correction.RecapCorrect = ratio(recapsOK, recaps)
	sc.Expiry.Correct = ratio(endsOK, ends)
	sc.Injection.OverInfluence = 0
	if influence > 0 {
		sc.Injection.OverInfluence = round3(float64(influenced) / float64(influence))
	}
	if turns > 0 {
		sc.Injection.TokensPerTurn = round3(float64(tokens) / float64(turns))
	}
	if ttpN > 0 {
		sc.TimeToPersonalizationTurns = round3(float64(ttpSum) / float64(ttpN))
	}
	return sc
}

// ratio is n/d rounded to three places; with nothing to measure it is 1,
// so an empty category reads as "nothing went wrong" rather than a failure.
func ratio(n, d int) float64 {
	if d == 0 {
		return 1
	}
	return round3(float64(n) / float64(d))
}

func round3(f float64) float64 { return float64(int(f*1000+0.5)) / 1000 }

func itoa(n int) string { return strconv.Itoa(n) }

func matches(pattern, text string) bool {
	re, err := compile(pattern)
	return err == nil && re.MatchString(text)
}

func countMatching(pattern string, notes []memory.Note) int {
	re, err := compile(pattern)
	if err != nil {
		return 0
	}
	n := 0
	for _, note := range notes {
		if re.MatchString(note.Text) {
			n++
		}
	}
	return n
}

func replyPasses(reply string, t Turn) bool {
	low := strings.ToLower(reply)
	for _, m := range t.Mentions {
		if !strings.Contains(low, strings.ToLower(m)) {
			return false
		}
	}
	for _, m := range t.NotMentions {
		if strings.Contains(low, strings.ToLower(m)) {
			return false
		}
	}
	return true
}

func describeReplyCheck(t Turn) string {
	var parts []string
	if len(t.Mentions) > 0 {
		parts = append(parts, "mentions "+strings.Join(t.Mentions, ", "))
	}
	if len(t.NotMentions) > 0 {
		parts = append(parts, "not "+strings.Join(t.NotMentions, ", "))
	}
	return strings.Join(parts, "; ")
}

var wordRE = regexp.MustCompile(`\p{L}+`)

// invented reports whether text carries a content word (five letters or
// more) that none of the inputs has, compared on the first five letters so
// "seats" and "seat", "vegetarian" and "vegetarians" match.
func invented(text string, inputs []string) bool {
	known := map[string]bool{}
	for _, in := range inputs {
		for _, w := range contentWords(in) {
			known[w] = true
		}
	}
	return slices.ContainsFunc(contentWords(text), func(w string) bool { return !known[w] })
}

func contentWords(s string) []string {
	var out []string
	for _, w := range wordRE.FindAllString(strings.ToLower(s), -1) {
		r := []rune(w)
		if len(r) < 5 || !unicode.IsLetter(r[0]) || inventedStop[w] {
			continue
		}
		out = append(out, string(r[:5]))
	}
	return out
}

// inventedStop are framing words a rephrased note may add without adding a
// fact.
var inventedStop = map[string]bool{
	"prefers": true, "prefer": true, "always": true, "usually": true, "traveler": true, "travels": true,
	"likes": true, "would": true, "rather": true, "wants": true, "avoids": true, "never": true,
}

// forgotExactly reports whether each pattern matches exactly one of the
// forgotten notes and every forgotten note matches a pattern.
func forgotExactly(forgotten []memory.Note, patterns []string) bool {
	if len(forgotten) != len(patterns) {
		return false
	}
	for _, p := range patterns {
		if countMatching(p, forgotten) != 1 {
			return false
		}
	}
	return true
}
