package agent

import (
	"context"
	"errors"
)

// Explainer is implemented by provider errors that know how to describe
// themselves to a traveler (without any message content).
type Explainer interface {
	Explain() string
}

// Explain says in plain words why a model call failed.
func Explain(err error) string {
	var ex Explainer
	switch {
	case errors.As(err, &ex):
		return ex.Explain()
	case errors.Is(err, context.DeadlineExceeded):
		return "The assistant took too long to answer."
	case errors.Is(err, context.Canceled):
		return "The request was cancelled before the assistant answered."
	}
	return "The assistant could not answer right now."
}
