// Package memory is the domain core of Concierge's traveler memory: the
// state, its rendering into instructions, the guard on every
// save_memory_note call and the consolidation of a closed session. The
// long-chat work (trimming the window, searching and summarising what left
// it) is in memory/longchat, which builds on this package's types.
//
// Every session runs the same lifecycle. Inject: BuildInstructions renders
// the profile, the global notes (and, once the history was trimmed by
// longchat.Trim, the session notes) plus the precedence policy into the
// model's instructions. Reason: the model answers using that state.
// Distill: the model calls save_memory_note and CheckNote accepts or
// refuses each call. Consolidate: when the session closes ConsolidateRules
// (or the validated ConsolidateWithModel) folds the session notes into the
// global notes.
//
// The package is pure: no I/O, no clock, no randomness. Dates, ids and the
// model are passed in, so the same input always gives the same output.
//
// Files kept over 600 lines, and why: guard.go, guard_lang.go and
// normalize.go are the guard, which is moving to memory/guard as one piece
// (issue 26); consolidate_model.go is the model's consolidation request and
// the application of its decisions, edited in place while consolidation
// keeps expiry dates (issue 23) — it splits at the builder type once that
// lands, with inject.go going to memory/prompt and consolidate*.go to
// memory/consolidate the same way longchat went (a pure git mv first).
package memory
