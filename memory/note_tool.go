package memory

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// SaveNoteTool describes save_memory_note: its JSON schema and the guidance
// the model reads on what deserves to be remembered.
func SaveNoteTool() Tool {
	return Tool{
		Name: SaveNoteToolName,
		Description: "Remember one thing the traveler told you, so later trips benefit from it. " +
			"Save only what the traveler said explicitly and what will change how you plan or book: " +
			"preferences (seats, rooms, airlines, neighbourhoods), constraints (diet, allergies, accessibility, budget), " +
			"and stable habits (travels with children, never checks a bag). " +
			"Write one short sentence in the third person, e.g. \"Prefers aisle seats.\". " +
			"Use scope this_trip for anything said about the current trip only (\"this time\", \"on this trip\"), durable otherwise. " +
			"Never save guesses or inferences, small talk, instructions addressed to you, " +
			"secrets (passwords, PINs, codes), or identifiers and personal data: document, card, bank, account, " +
			"loyalty or booking numbers, full dates of birth, street addresses. " +
			"Do not save what is already in the profile or the memories. A refused call explains what to fix.",
		// The schema is in strict form (every property required, no other
		// property allowed, only keywords strict mode accepts: the length
		// limit is stated in words and checked by CheckNote).
		Parameters: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"text": map[string]any{
					"type":        "string",
					"description": fmt.Sprintf("The fact, one or two short sentences of at most %d characters, third person, no personal identifiers.", MaxNoteChars),
				},
				"keywords": map[string]any{
					"type":        "array",
					"minItems":    1,
					"maxItems":    3,
					"items":       map[string]any{"type": "string", "pattern": "^[a-z][a-z0-9-]*$"},
					"description": "1 to 3 lowercase single words naming the topic, e.g. [\"seat\", \"flight\"].",
				},
				"scope": map[string]any{
					"type":        "string",
					"enum":        []string{string(ScopeDurable), string(ScopeThisTrip)},
					"description": "durable for lasting preferences, this_trip for the current trip only.",
				},
				"expires_on": map[string]any{
					"type": []string{"string", "null"},
					"description": "When the traveler says the fact ends (\"until the end of March\", \"for the next six weeks\"): its last day as YYYY-MM-DD, " +
						"worked out from today's date in the instructions, never in the past and at most two years ahead. null when it lasts.",
				},
			},
			"required":             []string{"text", "keywords", "scope", "expires_on"},
			"additionalProperties": false,
		},
	}
}

// ParseSaveNoteArgs decodes the raw arguments of a save_memory_note call
// strictly: exactly the keys text, keywords and scope (and expires_on, a
// string or null, which strict schemas send and older callers leave out),
// the right JSON types, a known scope, and nothing after the object.
func ParseSaveNoteArgs(raw string) (SaveNoteArgs, error) {
	fields, err := DecodeExact([]byte(raw), []string{"text", "keywords", "scope"}, []string{"expires_on"})
	if err != nil {
		return SaveNoteArgs{}, fmt.Errorf("save_memory_note arguments: %w", err)
	}
	var args SaveNoteArgs
	if err := StrictUnmarshal(fields["text"], &args.Text); err != nil {
		return SaveNoteArgs{}, fmt.Errorf("save_memory_note arguments: text must be a string")
	}
	if err := StrictUnmarshal(fields["keywords"], &args.Keywords); err != nil || args.Keywords == nil {
		return SaveNoteArgs{}, fmt.Errorf("save_memory_note arguments: keywords must be an array of strings")
	}
	var scope string
	if err := StrictUnmarshal(fields["scope"], &scope); err != nil {
		return SaveNoteArgs{}, fmt.Errorf("save_memory_note arguments: scope must be a string")
	}
	args.Scope = Scope(scope)
	if args.Scope != ScopeDurable && args.Scope != ScopeThisTrip {
		return SaveNoteArgs{}, fmt.Errorf("save_memory_note arguments: scope must be %q or %q", ScopeDurable, ScopeThisTrip)
	}
	if raw, ok := fields["expires_on"]; ok && string(raw) != "null" {
		if err := StrictUnmarshal(raw, &args.ExpiresOn); err != nil {
			return SaveNoteArgs{}, fmt.Errorf("save_memory_note arguments: expires_on must be a YYYY-MM-DD string or null")
		}
	}
	return args, nil
}

// DecodeExact decodes a JSON object whose keys must be exactly required plus
// any of optional (case-sensitive, no duplicates, no null values for
// required keys, no trailing data) and returns its raw values. The object
// is validated whole and walked once with gjson; every model call's
// arguments pass through here, and encoding/json's token reader cost
// several times as much.
func DecodeExact(raw []byte, required, optional []string) (map[string]json.RawMessage, error) {
	if !gjson.ValidBytes(raw) {
		return nil, errors.New("not JSON, or trailing data after it")
	}
	obj := gjson.ParseBytes(raw)
	if !obj.IsObject() {
		return nil, errors.New("not a JSON object")
	}
	out := make(map[string]json.RawMessage, len(required)+len(optional))
	var bad error
	obj.ForEach(func(k, v gjson.Result) bool {
		key := k.String()
		switch _, dup := out[key]; {
		case !slices.Contains(required, key) && !slices.Contains(optional, key):
			bad = fmt.Errorf("unknown key %q", key)
		case dup:
			bad = fmt.Errorf("duplicate key %q", key)
		default:
			out[key] = json.RawMessage(v.Raw)
		}
		return bad == nil
	})
	if bad != nil {
		return nil, bad
	}
	for _, k := range required {
		v, ok := out[k]
		if !ok {
			return nil, fmt.Errorf("missing key %q", k)
		}
		if string(v) == "null" {
			return nil, fmt.Errorf("key %q is null", k)
		}
	}
	return out, nil
}

// StrictUnmarshal decodes raw into v rejecting unknown fields and nulls
// inside arrays of strings. A string or an array of strings, what tool
// arguments hold, is read with gjson; text that is not valid UTF-8 and
// every other type go through encoding/json, which also says why it
// refused.
func StrictUnmarshal(raw json.RawMessage, v any) error {
	if gjson.ValidBytes(raw) && utf8.Valid(raw) {
		r := gjson.ParseBytes(raw)
		switch v := v.(type) {
		case *string:
			if r.Type == gjson.String {
				*v = r.Str
				return nil
			}
		case *[]string:
			if !r.IsArray() {
				break
			}
			out := []string{}
			for _, it := range r.Array() {
				if it.Type == gjson.Null {
					return errors.New("null item")
				}
				if it.Type != gjson.String {
					return fmt.Errorf("item %s is not a string", it.Raw)
				}
				out = append(out, it.Str)
			}
			*v = out
			return nil
		}
	}
	if bytes.Contains(raw, []byte("null")) {
		if _, isStrings := v.(*[]string); isStrings {
			var items []json.RawMessage
			if err := json.Unmarshal(raw, &items); err != nil {
				return err
			}
			for _, it := range items {
				if string(it) == "null" {
					return errors.New("null item")
				}
			}
		}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}
