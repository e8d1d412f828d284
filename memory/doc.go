// Package memory is the domain core of Concierge's traveler memory: the
// state and its types, the guard on every save_memory_note call and the
// consolidation of a closed session. Two jobs live in packages of their
// own that build on these types: memory/prompt renders the state into a
// turn's instructions, memory/longchat trims a long conversation, searches
// and summarises what left the window. memory/memorytest holds their
// tests' fixtures.
//
// Every session runs the same lifecycle. Inject: prompt.BuildInstructions
// renders the profile, the global notes (and, once the history was trimmed
// by longchat.Trim, the session notes) plus the precedence policy into the
// model's instructions. Reason: the model answers using that state.
// Distill: the model calls save_memory_note and CheckNote accepts or
// refuses each call. Consolidate: when the session closes ConsolidateRules
// (or the validated ConsolidateWithModel) folds the session notes into the
// global notes.
//
// The package is pure: no I/O, no clock, no randomness. Dates, ids and the
// model are passed in, so the same input always gives the same output.
//
// The one file kept over 600 lines, and why: consolidate_model.go is the
// model's consolidation request and the application of its decisions,
// edited in place while consolidation keeps expiry dates (issue 23); it
// splits at the builder type once that lands, and consolidate*.go moves to
// memory/consolidate the way prompt and longchat went (a pure git mv
// first).
package memory
