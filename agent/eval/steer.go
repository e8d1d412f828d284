package eval

import "embed"

//go:embed holdout_steer/*.yaml
var steerHoldout embed.FS

// SteerHoldout returns the holdout scenarios of talking to memory
// (forgetting, corrections, end dates): phrasings written before the
// built-in model was tuned on the scenarios of 07_steer.yaml.
func SteerHoldout() ([]Scenario, error) { return Load(steerHoldout, "holdout_steer") }

// SteerScore is a run's score on the steering holdout, reported apart
// from the scorecard the rules were tuned against. It carries figures
// only, not which checks failed: whoever tunes the rules should not read
// the holdout's failures.
type SteerScore struct {
	Scenarios    int     `json:"scenarios"`
	Forget       float64 `json:"forget_correct"`
	RecapCorrect float64 `json:"correction_recap_correct"`
	Expiry       float64 `json:"expiry_correct"`
}

// SteerOf is the steering part of a holdout run's scorecard.
func SteerOf(c Scorecard) *SteerScore {
	return &SteerScore{Scenarios: c.Scenarios, Forget: c.Forget.Correct, RecapCorrect: c.Correction.RecapCorrect,
		Expiry: c.Expiry.Correct}
}
