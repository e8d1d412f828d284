package fakeopenai

import (
	"fmt"
	"slices"
	"strings"
)

// notPermitted are the JSON Schema keywords the real API refuses in a
// strict schema.
var notPermitted = []string{
	"minLength", "maxLength", "patternProperties", "propertyNames", "minProperties", "maxProperties",
	"unevaluatedProperties", "unevaluatedItems", "contains", "minContains", "maxContains", "uniqueItems",
	"allOf", "not", "if", "then", "else", "dependentRequired", "dependentSchemas",
}

// strictSchemaProblem checks a schema sent with strict: true the way the
// real API does before it accepts it, and returns what is wrong, or "":
// every object lists all its properties in "required" and sets
// "additionalProperties": false, and no keyword outside the strict subset
// is used.
func strictSchemaProblem(schema any) string {
	return strictProblemAt(schema, nil)
}

func strictProblemAt(node any, path []string) string {
	m, ok := node.(map[string]any)
	if !ok {
		return ""
	}
	context := "context=('" + strings.Join(path, "', '") + "')"
	for _, k := range notPermitted {
		if _, has := m[k]; has {
			return fmt.Sprintf("In %s, '%s' is not permitted.", context, k)
		}
	}
	if isType(m, "object") {
		if ap, has := m["additionalProperties"]; !has || ap != false {
			return fmt.Sprintf("In %s, 'additionalProperties' is required to be supplied and to be false.", context)
		}
		props, _ := m["properties"].(map[string]any)
		var required []string
		if rs, ok := m["required"].([]any); ok {
			for _, r := range rs {
				s, _ := r.(string)
				required = append(required, s)
			}
		}
		keys := make([]string, 0, len(props))
		for k := range props {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if !slices.Contains(required, k) {
				return fmt.Sprintf("In %s, 'required' is required to be supplied and to be an array including every key in properties. Missing '%s'.", context, k)
			}
			if p := strictProblemAt(props[k], append(slices.Clone(path), "properties", k)); p != "" {
				return p
			}
		}
	}
	if p := strictProblemAt(m["items"], append(slices.Clone(path), "items")); p != "" {
		return p
	}
	for _, key := range []string{"anyOf", "$defs", "definitions"} {
		switch sub := m[key].(type) {
		case []any:
			for i, s := range sub {
				if p := strictProblemAt(s, append(slices.Clone(path), key, fmt.Sprint(i))); p != "" {
					return p
				}
			}
		case map[string]any:
			for name, s := range sub {
				if p := strictProblemAt(s, append(slices.Clone(path), key, name)); p != "" {
					return p
				}
			}
		}
	}
	return ""
}

// isType reports whether a schema node's "type" is t or a union holding t.
func isType(m map[string]any, t string) bool {
	switch v := m["type"].(type) {
	case string:
		return v == t
	case []any:
		return slices.Contains(v, any(t))
	}
	return false
}
