// Package consolidate folds a closed session's notes into the traveler's
// global notes. ByRules decides every note with deterministic rules
// (rules.go); WithModel asks a model for one decision per note (model.go:
// what the model is shown and how its answer is read) and validates each
// decision on its own before applying it, sending whatever it rejects back
// to the rules (apply.go). Either way the Result holds one Decision per
// session note and the new global list. When two notes say the same thing
// or contradict each other is memory's rule (memory.Conflict,
// memory.Duplicate), shared with the overrides the instructions show. Like
// memory, it is pure: today, ids and the model are passed in.
package consolidate
