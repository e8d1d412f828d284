// Package memory is the domain core of Concierge's traveler memory: the
// state, its rendering into instructions, the trimmed session, the guard on
// every save_memory_note call and the consolidation of a closed session.
//
// Every session runs the same lifecycle. Inject: BuildInstructions renders
// the profile, the global notes (and, once the history was trimmed by Trim,
// the session notes) plus the precedence policy into the model's
// instructions. Reason: the model answers using that state. Distill: the
// model calls save_memory_note and CheckNote accepts or refuses each call.
// Consolidate: when the session closes ConsolidateRules (or the validated
// ConsolidateWithModel) folds the session notes into the global notes.
//
// The package is pure: no I/O, no clock, no randomness. Dates, ids and the
// model are passed in, so the same input always gives the same output.
package memory
