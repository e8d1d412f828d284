package agent

import (
	"context"
	"encoding/json"
	"errors"
	"slices"

	"concierge/memory"
	"concierge/memory/prompt"
	"concierge/models"
)

// withForget offers forget_memory_note beside the round's other tools
// whenever there is something to forget: a global note, a note of this
// session or a note of its trip. A round with no tools (the last) stays
// without.
func withForget(tools []memory.Tool, notes ...[]memory.Note) []memory.Tool {
	if len(tools) == 0 || !slices.ContainsFunc(notes, func(l []memory.Note) bool { return len(l) > 0 }) {
		return tools
	}
	return append(slices.Clone(tools), memory.ForgetTool())
}

// forgetResult is what the model is told after a forget_memory_note call.
type forgetResult struct {
	OK        bool   `json:"ok"`
	Handle    string `json:"handle,omitempty"`
	Text      string `json:"text,omitempty"`
	Forgotten bool   `json:"forgotten,omitempty"`
	Error     string `json:"error,omitempty"`
	Message   string `json:"message,omitempty"`
}

func (r forgetResult) String() string {
	b, _ := json.Marshal(r)
	return string(b)
}

// needsConfirmation is the error a pinned note's first forget answers.
const needsConfirmation = "needs_confirmation"

// forgetCall runs one forget_memory_note call: the handle is looked up only
// among the notes this round injected (global and trip notes) and this
// session's notes (so a handle never reaches another traveler's note, nor
// another trip's, nor one the model was not shown), a pinned note needs a
// confirmation given in a later turn than the
// request, and the note is forgotten as the traveler's own act through
// models.Notes, with their message as provenance.
func (a *Agent) forgetCall(ctx context.Context, cs *models.ChatSession, userMsg *models.Message, call memory.ToolCall, injected []prompt.InjectedNote) (string, *memory.Note) {
	args, err := memory.ParseForgetArgs(call.Arguments)
	if err != nil {
		return forgetResult{Error: "bad_arguments", Message: "The arguments were not valid: " + err.Error() +
			`. Send a JSON object {"handle": "n4k2z", "confirm": false}.`}.String(), nil
	}
	notes, err := a.store.TurnNotes(ctx, cs.UserID, cs.ID, cs.TripID)
	if err != nil {
		return forgetResult{Error: "unavailable", Message: "Memory could not be read; tell the traveler to try again."}.String(), nil
	}
	shown := map[string]bool{}
	for _, in := range injected {
		shown[in.ID] = true
	}
	var found []memory.Note
	for _, n := range notes.Session {
		if memory.Handle(n.ID) == args.Handle {
			found = append(found, n)
		}
	}
	for _, n := range slices.Concat(notes.Global, notes.Trip) {
		if shown[n.ID] && memory.Handle(n.ID) == args.Handle {
			found = append(found, n)
		}
	}
	switch len(found) {
	case 0:
		return forgetResult{Error: "not_found", Handle: args.Handle,
			Message: "No note with that handle is in this conversation's memories; it may be forgotten already. Use a handle shown in the memories."}.String(), nil
	case 1:
	default:
		return forgetResult{Error: "ambiguous", Handle: args.Handle,
			Message: "That handle names more than one note; tell the traveler which note cannot be forgotten here and point them to the memory page."}.String(), nil
	}
	n := found[0]
	if n.Pinned {
		asked, err := a.askedToConfirm(ctx, cs.ID, userMsg.Turn, args.Handle)
		if err != nil {
			return forgetResult{Error: "unavailable", Message: "Memory could not be read; tell the traveler to try again."}.String(), nil
		}
		if !args.Confirm || !asked {
			return forgetResult{Error: needsConfirmation, Handle: args.Handle, Text: n.Text,
				Message: "This is a pinned safety note (an allergy, medical or accessibility need). Ask the traveler to confirm they want it forgotten; " +
					"call again with confirm true only after they confirm in their next message."}.String(), nil
		}
	}
	if _, err := a.notes.Forget(ctx, cs.UserID, n.ID, models.Actor{Kind: models.ActorAssistant},
		models.Provenance{SessionID: cs.ID, MessageID: userMsg.ID}); err != nil {
		if errors.Is(err, models.ErrNotForgettable) || errors.Is(err, models.ErrNotFound) {
			return forgetResult{Error: "not_found", Handle: args.Handle, Message: "That note is no longer remembered."}.String(), nil
		}
		a.log.Error("forget note", "session_id", cs.ID, "err", err)
		return forgetResult{Error: "unavailable", Message: "The note could not be forgotten just now; tell the traveler to try again."}.String(), nil
	}
	a.log.Info("note forgotten", "session_id", cs.ID, "note_id", n.ID, "pinned", n.Pinned)
	return forgetResult{OK: true, Forgotten: true, Handle: args.Handle, Text: n.Text,
		Message: "Forgotten: it is no longer remembered. The traveler can undo this from the chat until the conversation ends."}.String(), &n
}

// askedToConfirm reports whether an earlier turn of the session answered
// needs_confirmation for handle: the request the confirmation must follow.
func (a *Agent) askedToConfirm(ctx context.Context, sessionID string, turn int, handle string) (bool, error) {
	msgs, err := a.store.Messages(ctx, sessionID)
	if err != nil {
		return false, err
	}
	for _, m := range msgs {
		if m.Role != string(memory.RoleTool) || m.Turn >= turn {
			continue
		}
		var r forgetResult
		if json.Unmarshal([]byte(m.Content), &r) == nil && r.Error == needsConfirmation && r.Handle == handle {
			return true, nil
		}
	}
	return false, nil
}

// modelView is the history as the model is sent it: a save_memory_note
// result names its note by handle, never by database id (the stored
// result keeps the id, which deletion uses to find the call's copies).
func modelView(msgs []memory.Message) []memory.Message {
	out := msgs
	copied := false
	for i, m := range msgs {
		if m.Role != memory.RoleTool {
			continue
		}
		var r toolResult
		if json.Unmarshal([]byte(m.Content), &r) != nil || !r.OK || r.ID == "" {
			continue
		}
		if !copied {
			out, copied = slices.Clone(msgs), true
		}
		b, _ := json.Marshal(struct {
			OK     bool   `json:"ok"`
			Handle string `json:"handle"`
			Scope  string `json:"scope,omitempty"`
		}{true, memory.Handle(r.ID), r.Scope})
		out[i].Content = string(b)
	}
	return out
}

// userMessageOf is the message of a domain error, for a tool result.
func userMessageOf(err error) string {
	var e *memory.Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "The value was not accepted."
}
