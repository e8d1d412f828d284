package offline

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"concierge/memory"
)

// capture is what the engine made of one traveler message.
type capture struct {
	notes       []memory.SaveNoteArgs // candidate notes that passed memory.CheckNote
	known       []memory.SaveNoteArgs // stated again, already remembered
	instruction bool                  // the message is an instruction: nothing is saved
	sensitive   bool                  // the message carries data memory never keeps
	otherPerson bool                  // someone else's preference was stated
}

// capture reads one message and returns the notes a careful model would
// save: explicit first-person statements, each scoped by its own markers.
// known holds the lower-cased texts already remembered.
func (t *table) capture(message string, known map[string]bool) capture {
	var c capture
	if cat, blocked := memory.ScreenText(message); blocked {
		if cat == memory.CategoryInstruction {
			c.instruction = true
			return c
		}
		c.sensitive = true
	}
	seen := map[string]bool{}
	for _, s := range splitSentences(message) {
		t.captureSentence(s, &c, known, seen)
	}
	return c
}

// sentence is one sentence of a message and whether it asked something.
type sentence struct {
	text     string
	question bool
}

func (t *table) captureSentence(s sentence, c *capture, known, seen map[string]bool) {
	norm := t.normalise(s.text)
	clauses := splitAt(norm, t.re["clause_breaks"])
	marker := memory.Scope("") // carried to the later clauses of the sentence
	firstPerson := false
	for i, cl := range clauses {
		cl = t.stripFillers(cl)
		remembered := false
		if loc := t.re["remember"].FindStringIndex(cl); loc != nil && loc[1] > 0 {
			remembered, cl = true, t.stripFillers(cl[loc[1]:])
		}
		if cl == "" {
			continue
		}
		if m := t.markerOf(cl); m != "" {
			marker = m
		}
		if !remembered && (t.re["questions"].MatchString(cl) || (s.question && i == len(clauses)-1)) {
			firstPerson = false
			continue
		}
		switch t.subject(cl) {
		case "first":
			firstPerson = true
		case "other":
			firstPerson = false
			if t.anyRule(cl) {
				c.otherPerson = true
			}
		}
		if !firstPerson || (t.re["past"].MatchString(cl) && !t.re["past_unless"].MatchString(cl)) || t.re["hypothetical"].MatchString(cl) {
			continue
		}
		scope := marker
		if remembered && scope != memory.ScopeThisTrip {
			scope = memory.ScopeDurable
		}
		if scope != memory.ScopeDurable && t.isRequest(cl) {
			continue
		}
		t.applyRules(cl, norm, scope, t.re["want_forms"].MatchString(cl) && scope == "", c, known, seen)
	}
}

// applyRules runs every capture rule over one first-person clause.
func (t *table) applyRules(cl, sentence string, marker memory.Scope, bareWant bool, c *capture, known, seen map[string]bool) {
	used := map[string]bool{}
	for i := range t.rules {
		r := &t.rules[i]
		if r.Group != "" && used[r.Group] {
			continue
		}
		loc := r.re.FindStringSubmatchIndex(cl)
		if loc == nil || (r.context != nil && !r.context.MatchString(sentence)) || (r.unless != nil && r.unless.MatchString(cl)) ||
			(r.negatable && t.negated(cl, loc[0])) || (bareWant && !r.Constraint) {
			continue
		}
		groups := map[string]string{}
		for j, name := range r.re.SubexpNames() {
			if name != "" && loc[2*j] >= 0 {
				groups[name] = cl[loc[2*j]:loc[2*j+1]]
			}
		}
		scope := r.Scope
		if marker != "" {
			scope = marker
		}
		items := []string{""}
		if r.List != "" {
			items = t.listItems(groups[r.List])
		}
		for _, item := range items {
			if r.List != "" {
				groups[r.List] = item
			}
			c.add(t.note(r, groups, scope), known, seen)
		}
		if r.Group != "" {
			used[r.Group] = true
		}
	}
}

// add vets one candidate with memory.CheckNote and keeps it once.
func (c *capture) add(n memory.SaveNoteArgs, known, seen map[string]bool) {
	checked, refusal := memory.CheckNote(n, 0, 0, memory.Limits{})
	key := strings.ToLower(checked.Text)
	if refusal != nil || seen[key] {
		return
	}
	seen[key] = true
	if known[key] {
		c.known = append(c.known, checked)
		return
	}
	c.notes = append(c.notes, checked)
}

var (
	reTemplate = regexp.MustCompile(`\{(\w+)(?::(\w+))?\}`)
	reListSep  = regexp.MustCompile(`\s*(?:,|\band\b|\bor\b|&)\s*`)
)

// note fills a rule's templates.
func (t *table) note(r *rule, groups map[string]string, scope memory.Scope) memory.SaveNoteArgs {
	fill := func(s string) string {
		return reTemplate.ReplaceAllStringFunc(s, func(m string) string {
			sub := reTemplate.FindStringSubmatch(m)
			return transform(groups[sub[1]], sub[2])
		})
	}
	text := r.Note
	if scope == memory.ScopeThisTrip {
		text = r.Trip
		if text == "" {
			text = strings.TrimSuffix(r.Note, ".") + " on this trip."
		}
	}
	n := memory.SaveNoteArgs{Text: fill(text), Scope: scope}
	for _, k := range r.Keywords {
		if k = fill(k); k != "" {
			n.Keywords = append(n.Keywords, k)
		}
	}
	return n
}

// transform applies a template modifier to a captured value.
func transform(v, how string) string {
	v = strings.Trim(v, "«» ")
	v = strings.NewReplacer("«", "", "»", "").Replace(v)
	words := strings.Fields(v)
	switch how {
	case "kw", "last":
		if len(words) == 0 {
			return ""
		}
		w := words[0]
		if how == "last" {
			w = words[len(words)-1]
		}
		return strings.Map(func(r rune) rune {
			if unicode.IsLetter(r) {
				return unicode.ToLower(r)
			}
			return -1
		}, w)
	case "their":
		if len(words) > 0 && (words[0] == "my" || words[0] == "our" || words[0] == "the") {
			words[0] = "their"
		}
	case "title":
		for i, w := range words {
			r, size := utf8.DecodeRuneInString(w)
			words[i] = string(unicode.ToUpper(r)) + w[size:]
		}
	}
	return strings.Join(words, " ")
}

// listItems splits "peanuts, tree nuts and sesame" into its items.
func (t *table) listItems(s string) []string {
	s = t.re["list_stop"].ReplaceAllString(s, "")
	var out []string
	for _, part := range reListSep.Split(s, -1) {
		var kept []string
		for _, w := range strings.Fields(part) {
			if !t.words["list_fillers"][w] {
				kept = append(kept, w)
			}
		}
		if len(kept) == 0 || len(kept) > 3 {
			continue
		}
		item := strings.Join(kept, " ")
		if p, ok := t.file.Plurals[item]; ok {
			item = p
		}
		out = append(out, item)
	}
	return out
}

// markerOf reads the explicit scope marker of a clause, if any.
func (t *table) markerOf(cl string) memory.Scope {
	switch {
	case t.re["trip_markers"].MatchString(cl):
		return memory.ScopeThisTrip
	case t.re["durable_markers"].MatchString(cl):
		return memory.ScopeDurable
	}
	return ""
}

// subject says who a clause is about: "first" (the traveler), "other" or
// "" when it names no one (it then continues the clause before it).
func (t *table) subject(cl string) string {
	if t.re["first_person_idioms"].MatchString(cl) {
		return "first"
	}
	words := strings.Fields(cl)
	for i, w := range words {
		if i > 6 {
			break
		}
		switch {
		case t.words["first_person"][w]:
			return "first"
		case !t.words["third_person"][w]:
			continue
		case (w == "my" || w == "our") && i+1 < len(words) && t.words["self_nouns"][words[i+1]]:
			return "first"
		case w == "my" || w == "our":
			rest := strings.Join(words[i+1:min(len(words), i+5)], " ")
			if strings.Contains(rest+" ", " and i ") || strings.Contains(rest+" ", "and me ") {
				return "first"
			}
		}
		return "other"
	}
	return ""
}

func (t *table) anyRule(cl string) bool {
	for i := range t.rules {
		if t.rules[i].re.MatchString(cl) {
			return true
		}
	}
	return false
}

func (t *table) isRequest(cl string) bool {
	for _, re := range t.requests {
		if re.MatchString(cl) {
			return true
		}
	}
	return false
}

// negated reports whether one of the four words before at negates what
// follows ("not vegan", "window over aisle"); a comma stops it.
func (t *table) negated(cl string, at int) bool {
	before := cl[:at]
	if i := strings.LastIndexAny(before, ",;"); i >= 0 {
		before = before[i+1:]
	}
	words := strings.Fields(before)
	for _, w := range words[max(0, len(words)-4):] {
		if t.words["negators"][strings.Trim(w, ".!-")] {
			return true
		}
	}
	return false
}

func (t *table) stripFillers(cl string) string {
	cl = strings.Trim(cl, " ,;:—–-.!?\"'")
	return strings.TrimSpace(t.re["fillers"].ReplaceAllString(cl, ""))
}

var contractions = strings.NewReplacer(
	"i'm", "i am", "i've", "i have", "i'd", "i would", "i'll", "i will", "can't", "cannot", "won't", "will not",
	"we're", "we are", "we've", "we have", "we'd", "we would", "it's", "it is", "that's", "that is",
	"let's", "let us", "what's", "what is", "they're", "they are", "she's", "she is", "he's", "he is", "n't", " not",
)

// normalise lowercases a sentence, expands contractions, drops
// intensifiers and wraps names (runs of capitalised words past the first
// word) as «Name», casing kept, so no lower-case rule matches inside one.
func (t *table) normalise(s string) string {
	s = strings.NewReplacer("’", "'", "‘", "'", "“", `"`, "”", `"`).Replace(s)
	words := strings.Fields(s)
	out := make([]string, 0, len(words))
	for i := 0; i < len(words); i++ {
		j := i
		for j < len(words) && isNameWord(words[j]) && (j == i || !endsPhrase(words[j-1])) {
			j++
		}
		if j > i && (i > 0 || j-i > 1) && !endsPhrase(prev(words, i)) {
			run := strings.Join(words[i:j], " ")
			core := strings.TrimRight(run, ",.;:!?")
			out = append(out, "«"+core+"»"+run[len(core):])
			i = j - 1
			continue
		}
		w := contractions.Replace(strings.ToLower(words[i]))
		if !t.words["intensifiers"][strings.Trim(w, ",.;:!?")] {
			out = append(out, w)
		}
	}
	return strings.Join(out, " ")
}

func prev(words []string, i int) string {
	if i == 0 {
		return "."
	}
	return words[i-1]
}

// endsPhrase reports a word after which a capital starts a new phrase.
func endsPhrase(w string) bool {
	return strings.HasSuffix(w, ":") || strings.HasSuffix(w, "—") || w == "-"
}

func isNameWord(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	if !unicode.IsUpper(r) {
		return false
	}
	switch strings.Trim(w, ",.;:!?") {
	case "I", "I'm", "I’m", "I'd", "I've", "I'll":
		return false
	}
	return true
}

// splitAt cuts s before every match of re.
func splitAt(s string, re *regexp.Regexp) []string {
	var out []string
	start := 0
	for _, loc := range re.FindAllStringIndex(s, -1) {
		if loc[0] > start {
			out = append(out, s[start:loc[0]])
			start = loc[0]
		}
	}
	return append(out, s[start:])
}

// splitSentences cuts a message into sentences, keeping "3.5", "a.m." and
// "e.g." together.
func splitSentences(msg string) []sentence {
	var out []sentence
	start := 0
	for i := 0; i < len(msg); i++ {
		c := msg[i]
		if c != '.' && c != '!' && c != '?' && c != ';' && c != '\n' {
			continue
		}
		if c == '.' && i+1 < len(msg) && msg[i+1] != ' ' && msg[i+1] != '\n' {
			continue // "3.5", "a.m", "e.g"
		}
		if t := strings.TrimSpace(msg[start:i]); t != "" {
			out = append(out, sentence{text: t, question: c == '?'})
		}
		start = i + 1
	}
	if t := strings.TrimSpace(msg[start:]); t != "" {
		out = append(out, sentence{text: t})
	}
	return out
}
