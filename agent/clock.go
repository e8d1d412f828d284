package agent

import "time"

// SetClock replaces the agent's clock, which dates new notes and anchors
// "today" in the instructions. Call it before the first turn; evaluations
// use it to play conversations months apart.
func (a *Agent) SetClock(now func() time.Time) { a.now = now }

// SetClock replaces the worker's clock, which dates consolidation. Call it
// before Start or RunOnce.
func (w *Worker) SetClock(now func() time.Time) { w.now = now }
