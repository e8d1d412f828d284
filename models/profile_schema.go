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

// ValidateProfile checks a profile against the published schema. A
// profile it refuses is an EBADPROFILE error whose message names the
// field path ("/loyalty_programs/0/status") and what is wrong with it.
func ValidateProfile(p memory.Profile) error {
	raw, err := json.Marshal(p)
	if err != nil {
		return &memory.Error{Code: memory.EBADPROFILE, Message: "The profile is not a JSON object."}
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return &memory.Error{Code: memory.EBADPROFILE, Message: "The profile is not a JSON object."}
	}
	err = profileSchema().Validate(doc)
	var ve *jsonschema.ValidationError
	if err == nil || !errors.As(err, &ve) {
		return err
	}
	leaf := deepest(ve)
	path := "/" + strings.Join(leaf.InstanceLocation, "/")
	switch k := leaf.ErrorKind.(type) {
	case *kind.AdditionalProperties:
		path = strings.TrimSuffix(path, "/") + "/" + k.Properties[0]
		return &memory.Error{Code: memory.EBADPROFILE, Field: path, Message: "Profile field " + path + ": unknown key, not in the profile schema."}
	case *kind.Required:
		path = strings.TrimSuffix(path, "/") + "/" + k.Missing[0]
		return &memory.Error{Code: memory.EBADPROFILE, Field: path, Message: "Profile field " + path + ": required."}
	}
	return &memory.Error{Code: memory.EBADPROFILE, Field: path, Message: "Profile field " + path + ": " + leaf.ErrorKind.LocalizedString(english)}
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
