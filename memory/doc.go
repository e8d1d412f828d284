// Package memory is the domain core of Concierge's traveler memory: the
// state and its types, the checks on every note written (CheckNote, the
// tool schema, the guard's optional model layer) and when two notes say
// the same thing or contradict each other (Features, Conflict, Duplicate).
// The jobs that build on these types live in packages of their own:
// memory/guard holds the guard's rules, memory/prompt renders the state
// into a turn's instructions, memory/consolidate folds a closed session
// into the global notes, memory/longchat trims a long conversation,
// searches and summarises what left the window. memory/memorytest holds
// their tests' fixtures.
//
// Every session runs the same lifecycle. Inject: prompt.BuildInstructions
// renders the profile, the global notes (and, once the history was trimmed
// by longchat.Trim, the session notes) plus the precedence policy into the
// model's instructions. Reason: the model answers using that state.
// Distill: the model calls save_memory_note and CheckNote accepts or
// refuses each call. Consolidate: when the session closes
// consolidate.ByRules (or the validated consolidate.WithModel) folds the
// session notes into the global notes.
//
// The package is pure: no I/O, no clock, no randomness. Dates, ids and the
// model are passed in, so the same input always gives the same output.
package memory
