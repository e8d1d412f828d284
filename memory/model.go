package memory

import "context"

// JSONRequest is one structured model call: a system and a user message,
// answered with a single JSON object that matches Schema.
type JSONRequest struct {
	// Name names the schema for the model server ([a-z0-9_-], at most 64).
	Name   string
	System string
	User   string
	// Schema is a JSON Schema in the strict form: every property listed in
	// "required", "additionalProperties": false on every object, optional
	// values expressed as a union with "null".
	Schema map[string]any
	// MaxTokens bounds the answer; 0 leaves it to the server.
	MaxTokens int
}

// Completer is what the structured parts of the memory pipeline
// (consolidation, the guard's classifier) need from a language model: an
// answer constrained to a JSON object. Implementations send the schema in
// strict mode at temperature 0 where the server supports it.
type Completer interface {
	CompleteJSON(ctx context.Context, req JSONRequest) (string, error)
}
