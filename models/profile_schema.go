package models

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"concierge/memory"
)

// ProfileSchemaJSON is the profile's published JSON Schema (draft
// 2020-12), served at GET /api/v1/schema/profile: the fields internal
// systems, the API and staff may write, the identifiers among them marked
// "x-private", and no other key.
//
//go:embed schema/profile.schema.json
var ProfileSchemaJSON []byte

// profileSchema is ProfileSchemaJSON compiled once; a compiled schema is
// immutable and safe for concurrent use.
var profileSchema = sync.OnceValue(func() *jsonschema.Schema {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(ProfileSchemaJSON))
	if err != nil {
		panic(fmt.Sprintf("models: profile schema: %v", err)) // embedded: a test compiles it on every build
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	const url = "https://concierge.example/schema/profile.json"
	if err := c.AddResource(url, doc); err != nil {
		panic(fmt.Sprintf("models: profile schema: %v", err))
	}
	return c.MustCompile(url)
})

// Why the schema refused a profile: ProfileError.Rule, which the pages
// word in the reader's language ("error.profile." + Rule).
const (
	ProfileNotObject  = "not_object"
	ProfileUnknownKey = "unknown_key"
	ProfileRequired   = "required"
	ProfileType       = "type"     // Want: the JSON types allowed
	ProfileEnum       = "enum"     // Want: the values allowed
	ProfileFormat     = "format"   // Want: the format's name (date, email)
	ProfileTooLong    = "too_long" // N: the most characters
	ProfileTooShort   = "too_short"
	ProfileTooMany    = "too_many" // N: the most items
	ProfileInvalid    = "invalid"  // any other rule; Message says which
)

// ProfileError says where and why the schema refused a profile: Path is
// the field's JSON path ("/loyalty_programs/0/status"), Rule and Want or N
// the refused rule for the pages' catalogue, Message the schema's English
// words (the API's message).
type ProfileError struct {
	Path, Rule, Want, Message string
	N                         int
}

func (e *ProfileError) Error() string { return e.Message }

// Unwrap makes a ProfileError the domain refusal memory.EBADPROFILE.
func (e *ProfileError) Unwrap() error {
	return &memory.Error{Code: memory.EBADPROFILE, Field: e.Path, Message: e.Message}
}

// ValidateProfile checks a profile against the published schema. A
// profile it refuses is a ProfileError (an EBADPROFILE refusal) whose
// message names the field path and what is wrong with it.
func ValidateProfile(p memory.Profile) error {
	notObject := &ProfileError{Rule: ProfileNotObject, Message: "The profile is not a JSON object."}
	raw, err := json.Marshal(p)
	if err != nil {
		return notObject
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return notObject
	}
	err = profileSchema().Validate(doc)
	var ve *jsonschema.ValidationError
	if err == nil || !errors.As(err, &ve) {
		return err
	}
	leaf := deepest(ve)
	e := &ProfileError{Path: "/" + strings.Join(leaf.InstanceLocation, "/"), Rule: ProfileInvalid}
	detail := leaf.ErrorKind.LocalizedString(english)
	switch k := leaf.ErrorKind.(type) {
	case *kind.AdditionalProperties:
		e.Path, e.Rule, detail = strings.TrimSuffix(e.Path, "/")+"/"+k.Properties[0], ProfileUnknownKey, "unknown key, not in the profile schema."
	case *kind.Required:
		e.Path, e.Rule, detail = strings.TrimSuffix(e.Path, "/")+"/"+k.Missing[0], ProfileRequired, "required."
	case *kind.Type:
		e.Rule, e.Want = ProfileType, strings.Join(k.Want, ", ")
	case *kind.Enum:
		e.Rule, e.Want = ProfileEnum, joinValues(k.Want)
	case *kind.Format:
		e.Rule, e.Want = ProfileFormat, k.Want
	case *kind.MaxLength:
		e.Rule, e.N = ProfileTooLong, k.Want
	case *kind.MinLength:
		e.Rule, e.N = ProfileTooShort, k.Want
	case *kind.MaxItems:
		e.Rule, e.N = ProfileTooMany, k.Want
	}
	e.Message = "Profile field " + e.Path + ": " + detail
	return e
}

// joinValues lists a rule's allowed values as they are written in JSON.
func joinValues(vs []any) string {
	out := make([]string, len(vs))
	for i, v := range vs {
		b, _ := json.Marshal(v)
		out[i] = string(b)
	}
	return strings.Join(out, ", ")
}

var english = message.NewPrinter(language.English)

// deepest is the first failure at the deepest location of a validation
// error: the one a person fixes.
func deepest(e *jsonschema.ValidationError) *jsonschema.ValidationError {
	best := e
	for _, c := range e.Causes {
		if d := deepest(c); len(d.InstanceLocation) > len(best.InstanceLocation) || len(best.Causes) > 0 && best == e {
			best = d
		}
	}
	return best
}
