package memory

import (
	"fmt"
	"regexp"
)

// ForgetToolName is the tool that forgets a note at the traveler's request.
const ForgetToolName = "forget_memory_note"

// ForgetArgs are the arguments of a forget_memory_note call.
type ForgetArgs struct {
	Handle  string `json:"handle"`
	Confirm bool   `json:"confirm"`
}

var handleRe = regexp.MustCompile(`^n[0-9a-z]{4}$`)

// ForgetTool describes forget_memory_note: a strict schema naming a note by
// the handle the memories show.
func ForgetTool() Tool {
	return Tool{
		Name: ForgetToolName,
		Description: "Forget one remembered note because the traveler asked you to (\"forget that…\", \"don't remember…\", \"that's no longer true\"). " +
			"Name the note by the handle shown in brackets before it in the memories, e.g. n4k2z, or the handle a save_memory_note result gave. " +
			"Call it once per note, only for notes the traveler asked about. " +
			"A pinned note (allergy, medical or accessibility need) answers needs_confirmation: ask the traveler to confirm, and only after they say yes in their next message call again with confirm true. " +
			"When the traveler corrects a fact instead (\"actually I prefer…\"), save the new fact with save_memory_note; it replaces the old one.",
		Parameters: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"handle": map[string]any{
					"type":        "string",
					"pattern":     "^n[0-9a-z]{4}$",
					"description": "The note's handle, e.g. n4k2z.",
				},
				"confirm": map[string]any{
					"type":        "boolean",
					"description": "true only when the traveler confirmed, in a later message, forgetting a pinned note you asked about; false otherwise.",
				},
			},
			"required":             []string{"handle", "confirm"},
			"additionalProperties": false,
		},
	}
}

// ParseForgetArgs decodes a forget_memory_note call strictly.
func ParseForgetArgs(raw string) (ForgetArgs, error) {
	fields, err := DecodeExact([]byte(raw), []string{"handle"}, []string{"confirm"})
	if err != nil {
		return ForgetArgs{}, fmt.Errorf("forget_memory_note arguments: %w", err)
	}
	var args ForgetArgs
	if err := StrictUnmarshal(fields["handle"], &args.Handle); err != nil || !handleRe.MatchString(args.Handle) {
		return ForgetArgs{}, fmt.Errorf("forget_memory_note arguments: handle must be a note handle such as n4k2z")
	}
	if raw, ok := fields["confirm"]; ok && string(raw) != "null" {
		if err := StrictUnmarshal(raw, &args.Confirm); err != nil {
			return ForgetArgs{}, fmt.Errorf("forget_memory_note arguments: confirm must be true or false")
		}
	}
	return args, nil
}
