package memory

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"concierge/memory/guard"
)

// IsPrivateField reports whether a profile key holds an identifier that is
// kept out of prompts and out of what travelers are shown: keys named id,
// ids or number and keys ending in _id, _ids or _number (customer_id,
// loyalty_ids, passport_number, …), ignoring case and surrounding space, at
// any depth of the profile. It is the one rule for private keys; tools
// still get the full profile.
func IsPrivateField(key string) bool {
	// The key is read as the guard reads text (format characters removed,
	// look-alikes folded), so "passport_number" with a zero-width space or
	// a Cyrillic "а" is still private.
	k := strings.TrimSpace(guard.Normalize(key))
	switch k {
	case "id", "ids", "number":
		return true
	}
	return strings.HasSuffix(k, "_id") || strings.HasSuffix(k, "_ids") || strings.HasSuffix(k, "_number")
}

// Profiles remembers recent profile renderings. The same traveler's
// profile is rendered on every model round, and neutralising each string
// costs far more than a lookup: renderings are remembered by an exact text
// of the profile and trips (see profileKey), never by a hash, so two
// different profiles never share one. Create one per process (NewProfiles)
// and pass it in (prompt.InjectOptions.Profiles); it is safe for
// concurrent use.
type Profiles struct{ memo *Memo[string, string] }

// NewProfiles returns an empty rendering cache.
func NewProfiles() *Profiles { return &Profiles{memo: NewMemo[string, string](1024)} }

// YAML is renderProfileYAML(st), remembered; a nil *Profiles renders every time.
func (p *Profiles) YAML(st State) string {
	if p == nil {
		return renderProfileYAML(st)
	}
	var key strings.Builder
	profileKey(&key, map[string]any(st.Profile))
	fmt.Fprintf(&key, "\x00%#v", st.Trips)
	return p.memo.Get(key.String(), func() string { return renderProfileYAML(st) })
}

// profileKey writes v exactly: mappings in key order and lists item by
// item, every other value with its Go type and Go-syntax text, so that a
// string and a json.Number, or two strings with different bytes, never
// write the same key.
func profileKey(b *strings.Builder, v any) {
	switch t := v.(type) {
	case map[string]any:
		keys := slices.Sorted(maps.Keys(t))
		b.WriteByte('{')
		for _, k := range keys {
			b.WriteString(strconv.Quote(k))
			b.WriteByte(':')
			profileKey(b, t[k])
			b.WriteByte(',')
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for _, x := range t {
			profileKey(b, x)
			b.WriteByte(',')
		}
		b.WriteByte(']')
	default:
		fmt.Fprintf(b, "%T(%#v)", v, v)
	}
}

// renderProfileYAML renders the profile, plus the recent trips under
// recent_trips, as the YAML inside the front matter: private keys dropped
// at any depth and every string (keys included) neutralised before the
// library marshals it, keys sorted, two-space indentation. An empty profile
// renders as nothing.
func renderProfileYAML(st State) string {
	root := make(map[string]any, len(st.Profile)+1)
	for k, v := range st.Profile {
		root[k] = v
	}
	if len(st.Trips) > 0 {
		trips := make([]any, 0, len(st.Trips))
		for _, t := range st.Trips {
			trip := map[string]any{}
			for k, v := range map[string]string{"route": t.Route, "destination": t.Destination, "start_date": t.StartDate, "end_date": t.EndDate,
				"purpose": t.Purpose, "flight": t.Flight, "hotel": t.Hotel} {
				if v != "" {
					trip[k] = v
				}
			}
			trips = append(trips, trip)
		}
		root["recent_trips"] = trips
	}
	doc := promptMap(root)
	if len(doc) == 0 {
		return ""
	}
	var b strings.Builder
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	// The document holds only maps, lists, strings, numbers, booleans and
	// nulls, which always marshal; an error would be a bug in promptValue.
	if err := enc.Encode(doc); err != nil {
		return ""
	}
	_ = enc.Close()
	return b.String()
}

// promptMap is promptValue for one mapping: private keys dropped, keys
// neutralised. Keys are visited in sorted order so that two keys that
// neutralise alike always keep the same value.
func promptMap(m map[string]any) map[string]any {
	keys := make([]string, 0, len(m))
	for k := range m {
		if !IsPrivateField(k) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	out := make(map[string]any, len(keys))
	for _, k := range keys {
		nk := Neutralize(k)
		if _, dup := out[nk]; !dup {
			out[nk] = promptValue(m[k])
		}
	}
	return out
}

// promptValue returns v as it may appear in the prompt: maps through
// promptMap, strings neutralised, JSON numbers as numbers, and any other
// Go shape (a []string or map[string]string built in code) converted to
// the same plain types.
func promptValue(v any) any {
	switch t := v.(type) {
	case nil, bool, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, float32, float64:
		return t
	case string:
		return Neutralize(t)
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i
		}
		if f, err := t.Float64(); err == nil {
			return f
		}
		return Neutralize(t.String())
	case map[string]any:
		return promptMap(t)
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = promptValue(x)
		}
		return out
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			return nil
		}
		return promptValue(rv.Elem().Interface())
	case reflect.Map:
		if rv.Type().Key().Kind() != reflect.String {
			break
		}
		m := make(map[string]any, rv.Len())
		for it := rv.MapRange(); it.Next(); {
			m[it.Key().String()] = it.Value().Interface()
		}
		return promptMap(m)
	case reflect.Slice, reflect.Array:
		if rv.Type().Elem().Kind() == reflect.Uint8 {
			break
		}
		out := make([]any, rv.Len())
		for i := range out {
			out[i] = promptValue(rv.Index(i).Interface())
		}
		return out
	case reflect.String:
		return Neutralize(rv.String())
	case reflect.Bool:
		return rv.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return rv.Uint()
	case reflect.Float32, reflect.Float64:
		return rv.Float()
	}
	return Neutralize(fmt.Sprint(v))
}
