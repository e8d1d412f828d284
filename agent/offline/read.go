package offline

import (
	"cmp"
	"encoding/json"
	"maps"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"concierge/agent"
	"concierge/memory"
)

// known is one remembered sentence the model was shown: a line of the
// <memories> block or a save_memory_note call of this session.
type known struct {
	text   string
	trip   bool   // scoped to this trip
	handle string // what forget_memory_note names it by ("" when not shown)
}

// call is one tool call of the current turn and the server's answer.
type call struct {
	tc     memory.ToolCall
	result string
}

// view is what one call can see, read once and without rescanning the
// history: the blocks of the instructions, the latest user message, the
// reply before it (which carries the trip so far) and this turn's calls.
type view struct {
	latest      string
	account     string // the account's language as the instructions name it ("" when they do not)
	turn        int    // position of the latest user message
	prevReply   string
	tripReply   string // the latest reply with a trip line, which carries the trip so far
	tripAge     int    // the traveler's messages since that reply, the latest one included
	lastRole    memory.Role
	tools       map[string]bool
	profile     map[string]any // the <user_profile> block, with the fields this conversation overrides set to their new values
	notes       []known
	thisTurn    []call
	priorCalls  int
	front       []memory.Message     // the messages before the latest user message
	trips       tripInfo             // the trip lines of the instructions (trip.go)
	overrides   map[string][2]string // profile fields this conversation overrides: field → new, old
	vc          *voice               // the language of the reply (lang.go; replies_*.yaml)
	unsupported bool                 // the latest message is in a script the model does not read
	remarked    int8                 // whether the latest message only remarks on the world (remarks): 0 unread, 1 no, 2 yes
}

// remarks reports whether the latest message only remarks on the world
// (remarksOnly), read at most once a call. Remarks are read in English, the
// lexicon's language: a message in another is none.
func (t *table) remarks(v *view) bool {
	if v.remarked == 0 {
		v.remarked = 1 + int8(btoi(v.vc.lang == langEN && t.remarksOnly(v.latest)))
	}
	return v.remarked == 2
}

// previousUser is the traveler's message before the latest one ("" for
// none).
func (v *view) previousUser() string {
	for i := len(v.front) - 1; i >= 0; i-- {
		if v.front[i].Role == memory.RoleUser {
			return v.front[i].Content
		}
	}
	return ""
}

// read builds the view of a request. The only pass over every message
// looks at roles and tool calls, never at text; replies are read backwards
// only as far as the latest trip line.
func (t *table) read(req agent.Request) *view {
	v := &view{tools: map[string]bool{}, turn: -1}
	for _, tool := range req.Tools {
		v.tools[tool.Name] = true
	}
	results := map[string]string{}
	var saves []memory.ToolCall
	for i, m := range req.Messages {
		switch {
		case m.Role == memory.RoleUser:
			v.turn, v.latest, v.thisTurn = i, m.Content, nil
		case m.Role == memory.RoleTool:
			results[m.ToolCallID] = m.Content
		}
		for _, tc := range m.ToolCalls {
			v.priorCalls++
			v.thisTurn = append(v.thisTurn, call{tc: tc})
			if tc.Name == memory.SaveNoteToolName {
				saves = append(saves, tc)
			}
		}
		v.lastRole = m.Role
	}
	for i := range v.thisTurn {
		v.thisTurn[i].result = results[v.thisTurn[i].tc.ID]
	}
	if v.turn >= 0 {
		v.front, v.tripAge = req.Messages[:v.turn], 1
		for i := v.turn - 1; i >= 0 && v.tripReply == ""; i-- {
			m := req.Messages[i]
			if m.Role == memory.RoleAssistant && strings.TrimSpace(m.Content) != "" && v.prevReply == "" {
				v.prevReply = m.Content
			}
			if m.Role == memory.RoleAssistant && t.hasTripLine(m.Content) {
				v.tripReply = m.Content
			}
			if m.Role == memory.RoleUser {
				v.tripAge++
			}
		}
	}
	v.account = accountLanguage(req.Instructions)
	lang := messageLanguage(v.latest, v.account)
	v.vc, v.unsupported = cmp.Or(t.voices[lang], t.voices[langEN]), lang == langOther
	v.notes = readMemories(req.Instructions)
	v.trips = readTrips(req.Instructions)
	v.overrides = readOverrides(req.Instructions)
	v.profile = readProfile(req.Instructions)
	if len(v.overrides) > 0 { // what this conversation said wins ("I moved to Berlin": trips start from Berlin)
		v.profile = maps.Clone(v.profile)
		for k, o := range v.overrides {
			if _, ok := v.profile[k]; ok {
				v.profile[k] = o[0]
			}
		}
	}
	for _, tc := range saves {
		res, answered := results[tc.ID]
		args, err := memory.ParseSaveNoteArgs(tc.Arguments)
		if err != nil || (answered && refused(res)) {
			continue
		}
		var saved struct{ Handle, Error string }
		_ = json.Unmarshal([]byte(res), &saved)
		if saved.Error == "deleted" {
			continue // undone or forgotten since
		}
		v.notes = append(v.notes, known{text: args.Text, trip: args.Scope == memory.ScopeThisTrip, handle: saved.Handle})
	}
	return v
}

// knownTexts returns the lower-cased texts of every remembered note.
func (v *view) knownTexts() map[string]bool {
	m := map[string]bool{}
	for _, n := range v.notes {
		m[strings.ToLower(strings.TrimSpace(n.text))] = true
	}
	return m
}

// refused reads a tool result written by the server.
func refused(content string) bool {
	var res struct {
		OK *bool `json:"ok"`
	}
	if json.Unmarshal([]byte(content), &res) == nil && res.OK != nil {
		return !*res.OK
	}
	c := strings.ToLower(content)
	return strings.Contains(c, "refused") || strings.HasPrefix(c, "error") || strings.HasPrefix(c, "not saved")
}

// block returns the text between <tag> and </tag>, or "".
func block(s, tag string) string {
	_, rest, ok := strings.Cut(s, "<"+tag+">")
	if !ok {
		return ""
	}
	body, _, _ := strings.Cut(rest, "</"+tag+">")
	return body
}

// profiles holds recent decodings of profile blocks (see readProfile).
var profiles = memory.NewMemo[string, map[string]any](1024)

// readProfile decodes the YAML front matter of the <user_profile> block.
// The same traveler's profile comes on every call, so decodings are
// remembered by the block's text; callers only read the map.
func readProfile(instructions string) map[string]any {
	body := strings.TrimSpace(block(instructions, "user_profile"))
	body = strings.TrimPrefix(body, "---")
	if i := strings.LastIndex(body, "\n---"); i >= 0 {
		body = body[:i]
	}
	return profiles.Get(body, func() map[string]any {
		var profile map[string]any
		if yaml.Unmarshal([]byte(body), &profile) != nil {
			return nil
		}
		return profile
	})
}

var (
	reSection = regexp.MustCompile(`(?i)^(global|session|overrides)\b[^:]*:?\s*$`)
	reMeta    = regexp.MustCompile(`\s*\[([^\]]*)\]\s*$`)
)

// readMemories reads the GLOBAL and SESSION lists of the <memories> block,
// whatever their headings say after the list name.
func readMemories(instructions string) []known {
	var out []known
	section := ""
	for _, line := range strings.Split(block(instructions, "memories"), "\n") {
		line = strings.TrimSpace(line)
		if m := reSection.FindStringSubmatch(line); m != nil {
			section = strings.ToLower(m[1])
			continue
		}
		text, ok := strings.CutPrefix(line, "- ")
		if !ok || section == "" || section == "overrides" {
			continue
		}
		var n known
		if m := reHandle.FindStringSubmatch(text); m != nil {
			n.handle, text = m[1], text[len(m[0]):]
		}
		if m := reMeta.FindStringSubmatchIndex(text); m != nil {
			meta := text[m[2]:m[3]]
			n.trip = strings.Contains(meta, "this trip") || strings.Contains(meta, "this_trip")
			text = text[:m[0]]
		}
		if text = strings.TrimSpace(text); text == "" || strings.HasPrefix(text, "(") {
			continue
		}
		n.text = text
		out = append(out, n)
	}
	return out
}

func firstName(p map[string]any) string {
	name, _ := p["name"].(string)
	if f := strings.Fields(name); len(f) > 0 {
		return f[0]
	}
	return ""
}
