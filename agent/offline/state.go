package offline

import (
	"encoding/json"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"concierge/agent"
	"concierge/memory"
)

// conversation is what one call can see: the request, read once.
type conversation struct {
	req            agent.Request
	lastRole       memory.Role
	offersSaveTool bool
	latestUser     string // the latest user message, as written
	userMsgs       []int  // indexes of user messages in req.Messages
	finding        Finding
	priorCalls     int
	state          knownState
}

// knownNote is one remembered sentence the model was shown, either in the
// <memories> block or as a save_memory_note call earlier in this session.
type knownNote struct {
	text   string
	trip   bool // scoped to this trip
	global bool
	date   string
	pinned bool
	order  int // position of appearance; later is more recent within a list
}

// knownState is everything the instructions and the transcript say about the
// traveler. It is rebuilt on every call: the model has no hidden memory.
type knownState struct {
	profile []profileField
	global  []knownNote
	session []knownNote
}

// profileField is one top-level key of the YAML front matter.
type profileField struct {
	key    string
	scalar string
	items  []string            // a list of scalars
	maps   []map[string]string // a list of maps (loyalty_programs)
	keys   [][]string          // the key order of each map in maps
}

func (s knownState) all() []knownNote {
	return append(append([]knownNote{}, s.global...), s.session...)
}

func (s knownState) field(key string) string {
	for _, f := range s.profile {
		if f.key == key {
			return f.scalar
		}
	}
	return ""
}

func readConversation(req agent.Request) *conversation {
	c := &conversation{req: req}
	for _, t := range req.Tools {
		if t.Name == memory.SaveNoteToolName {
			c.offersSaveTool = true
		}
	}
	if n := len(req.Messages); n > 0 {
		c.lastRole = req.Messages[n-1].Role
	}
	for i, m := range req.Messages {
		if m.Role == memory.RoleUser {
			c.userMsgs = append(c.userMsgs, i)
			c.latestUser = m.Content
		}
		c.priorCalls += len(m.ToolCalls)
	}
	inBooking := false
	if n := len(c.userMsgs); n > 1 {
		inBooking = askedBookingQuestion(lastAssistantText(req.Messages[c.userMsgs[n-2]:c.userMsgs[n-1]]))
	}
	c.finding = analyse(c.latestUser, inBooking)
	c.state.profile = parseProfile(req.Instructions)
	c.state.global, c.state.session = parseMemories(req.Instructions)
	c.state.session = mergeNotes(c.state.session, sessionCalls(req.Messages))
	return c
}

// block returns the text between <tag> and </tag>, or "".
func block(s, tag string) string {
	open := "<" + tag + ">"
	i := strings.Index(s, open)
	if i < 0 {
		return ""
	}
	rest := s[i+len(open):]
	if j := strings.Index(rest, "</"+tag+">"); j >= 0 {
		return rest[:j]
	}
	return rest
}

var reMeta = regexp.MustCompile(`\s*\[([^\]]*)\]\s*$`)

// parseMemories reads the GLOBAL and SESSION lists of the <memories> block.
func parseMemories(instructions string) (global, session []knownNote) {
	section := ""
	order := 0
	for _, line := range strings.Split(block(instructions, "memories"), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case strings.EqualFold(line, "GLOBAL:"):
			section = "global"
			continue
		case strings.EqualFold(line, "SESSION:"):
			section = "session"
			continue
		case !strings.HasPrefix(line, "- ") || section == "":
			continue
		}
		text := strings.TrimSpace(strings.TrimPrefix(line, "- "))
		n := knownNote{global: section == "global", order: order}
		order++
		if m := reMeta.FindStringSubmatchIndex(text); m != nil {
			for _, part := range strings.Split(text[m[2]:m[3]], ";") {
				part = strings.TrimSpace(part)
				switch {
				case strings.HasPrefix(part, "updated "):
					n.date = strings.TrimPrefix(part, "updated ")
				case part == "pinned":
					n.pinned = true
				case part == "this trip" || part == "this_trip":
					n.trip = true
				}
			}
			text = strings.TrimSpace(text[:m[0]])
		}
		if text == "" || strings.EqualFold(text, "(none yet)") || strings.EqualFold(text, "(none)") {
			continue
		}
		n.text = text
		if n.global {
			global = append(global, n)
		} else {
			session = append(session, n)
		}
	}
	return global, session
}

// sessionCalls returns the notes this session saved through earlier
// save_memory_note calls that the server did not refuse.
func sessionCalls(msgs []memory.Message) []knownNote {
	var out []knownNote
	for i, m := range msgs {
		for _, tc := range m.ToolCalls {
			if tc.Name != memory.SaveNoteToolName {
				continue
			}
			var args memory.SaveNoteArgs
			if json.Unmarshal([]byte(tc.Arguments), &args) != nil || strings.TrimSpace(args.Text) == "" {
				continue
			}
			if result, ok := toolResult(msgs[i+1:], tc.ID); ok && refused(result) {
				continue
			}
			out = append(out, knownNote{text: strings.TrimSpace(args.Text), trip: args.Scope == memory.ScopeThisTrip})
		}
	}
	return out
}

func toolResult(after []memory.Message, id string) (string, bool) {
	for _, m := range after {
		if m.Role == memory.RoleTool && m.ToolCallID == id {
			return m.Content, true
		}
	}
	return "", false
}

// refused reads a tool result written by the server.
func refused(content string) bool {
	c := strings.TrimSpace(content)
	if strings.HasPrefix(c, `{"ok":true`) {
		return false
	}
	return strings.HasPrefix(c, `{"ok":false`) || strings.Contains(strings.ToLower(c), "refused") ||
		strings.HasPrefix(strings.ToLower(c), "error")
}

// mergeNotes appends b to a, skipping texts a already holds; later notes
// get later orders so that "most recent wins" can be read off the order.
func mergeNotes(a, b []knownNote) []knownNote {
	seen := map[string]bool{}
	for _, n := range a {
		seen[strings.ToLower(n.text)] = true
	}
	order := len(a)
	for _, n := range b {
		if seen[strings.ToLower(n.text)] {
			continue
		}
		seen[strings.ToLower(n.text)] = true
		n.order = order
		order++
		a = append(a, n)
	}
	return a
}

// newestFirst sorts notes so that the most recent comes first: by date, then
// by position.
func newestFirst(notes []knownNote) []knownNote {
	out := append([]knownNote{}, notes...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].date != out[j].date {
			return out[i].date > out[j].date
		}
		return out[i].order > out[j].order
	})
	return out
}

// parseProfile reads the YAML front matter of the <user_profile> block. It
// understands the subset the memory core writes: scalars, lists of scalars,
// lists of flat maps, and nested maps (which it skips).
func parseProfile(instructions string) []profileField {
	lines := strings.Split(block(instructions, "user_profile"), "\n")
	start, end := -1, -1
	for i, l := range lines {
		if strings.TrimSpace(l) == "---" {
			if start < 0 {
				start = i
			} else {
				end = i
				break
			}
		}
	}
	if start < 0 || end < 0 {
		return nil
	}
	var fields []profileField
	var cur *profileField
	for _, raw := range lines[start+1 : end] {
		if strings.TrimSpace(raw) == "" || strings.HasPrefix(strings.TrimSpace(raw), "#") {
			continue
		}
		indented := raw[0] == ' ' || raw[0] == '\t'
		line := strings.TrimSpace(raw)
		if !indented {
			key, val, ok := strings.Cut(line, ":")
			if !ok {
				continue
			}
			fields = append(fields, profileField{key: strings.TrimSpace(key)})
			cur = &fields[len(fields)-1]
			val = strings.TrimSpace(val)
			if strings.HasPrefix(val, "[") && strings.HasSuffix(val, "]") {
				for _, it := range strings.Split(strings.Trim(val, "[]"), ",") {
					if it = unquote(strings.TrimSpace(it)); it != "" {
						cur.items = append(cur.items, it)
					}
				}
			} else {
				cur.scalar = unquote(val)
			}
			continue
		}
		if cur == nil {
			continue
		}
		if item, ok := strings.CutPrefix(line, "- "); ok || line == "-" {
			if k, v, isMap := strings.Cut(item, ": "); isMap && !strings.HasPrefix(item, `"`) {
				cur.maps = append(cur.maps, map[string]string{strings.TrimSpace(k): unquote(strings.TrimSpace(v))})
				cur.keys = append(cur.keys, []string{strings.TrimSpace(k)})
			} else if strings.HasSuffix(item, ":") {
				cur.maps = append(cur.maps, map[string]string{})
				cur.keys = append(cur.keys, nil)
			} else {
				cur.items = append(cur.items, unquote(item))
			}
			continue
		}
		if k, v, ok := strings.Cut(line, ":"); ok && len(cur.maps) > 0 {
			last := len(cur.maps) - 1
			k = strings.TrimSpace(k)
			cur.maps[last][k] = unquote(strings.TrimSpace(v))
			cur.keys[last] = append(cur.keys[last], k)
		}
	}
	return fields
}

func unquote(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		if u, err := strconv.Unquote(s); err == nil {
			return u
		}
		return s[1 : len(s)-1]
	}
	if len(s) >= 2 && s[0] == '\'' && s[len(s)-1] == '\'' {
		return strings.ReplaceAll(s[1:len(s)-1], "''", "'")
	}
	if s == "{}" || s == "[]" || s == "null" || s == "~" {
		return ""
	}
	return s
}
