package agent

import (
	"context"

	"concierge/memory"
)

// NoteReviewer is the guard's optional model layer, asked about a note
// only after the rules passed it. A nil refusal with an error means the
// review failed and the rules' verdict stands.
type NoteReviewer interface {
	Review(ctx context.Context, text string) (*memory.Refusal, error)
}

var _ NoteReviewer = (*memory.NoteClassifier)(nil)
