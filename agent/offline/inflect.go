package offline

import (
	"cmp"
	_ "embed"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"concierge/memory"
)

// The clause reader for Spanish and Russian, languages whose verb says its
// person: "prefiero" and "предпочитаю" are the traveler speaking without a
// pronoun. It reads a clause in one pass, like the English reader
// (grammar.go): the subject, the polarity, the cue and its kind (a taste,
// a state, a doing, a want, a change of state), and the scope markers; the
// note is the clause in the third person, in the traveler's words.

var (
	//go:embed lexicon_es.yaml
	lexiconES []byte
	//go:embed lexicon_ru.yaml
	lexiconRU []byte
)

// inflected is one language's lexicon for the reader; see lexicon_es.yaml.
type inflected struct {
	Subjects       []string          `yaml:"subjects"`
	Persons        map[string]string `yaml:"persons"`
	People         []string          `yaml:"people"`
	Others         []string          `yaml:"others"`
	Tastes         map[string]string `yaml:"tastes"`
	States         map[string]string `yaml:"states"`
	Doings         map[string]string `yaml:"doings"`
	Wants          map[string]string `yaml:"wants"`
	Lasting        []string          `yaml:"lasting"`
	Identities     []string          `yaml:"identities"`
	Changes        map[string]string `yaml:"changes"`
	Infinitives    map[string]string `yaml:"infinitives"`
	Irregular      map[string]string `yaml:"irregular"`
	Locative       map[string]string `yaml:"locative"`
	Nominative     map[string]string `yaml:"nominative"`
	HabitAdverbs   []string          `yaml:"habit_adverbs"`
	Negators       []string          `yaml:"negators"`
	TripMarkers    []string          `yaml:"trip_markers"`
	DurableMarkers []string          `yaml:"durable_markers"`
	TripSuffix     string            `yaml:"trip_suffix"`
	HypoOpen       []string          `yaml:"hypothetical_open"`
	Hedges         []string          `yaml:"hedges"`
	QuestionOpen   []string          `yaml:"question_open"`
	Requests       []string          `yaml:"requests"`
	Remember       []string          `yaml:"remember"`
	Past           []string          `yaml:"past"`
	Join           []string          `yaml:"join"`
	Split          []string          `yaml:"split"`
	Subordinators  []string          `yaml:"subordinators"`
	Fillers        []string          `yaml:"fillers"`
	Stopwords      []string          `yaml:"stopwords"`
	Attributes     []string          `yaml:"attributes"`
	TripAttributes []string          `yaml:"trip_attributes"`
	Addressee      []string          `yaml:"addressee"`
	Months         []string          `yaml:"months"`
	ToWords        []string          `yaml:"to_words"`
	FromWords      []string          `yaml:"from_words"`
	NotPlaces      []string          `yaml:"not_places"`
	Numbers        map[string]int    `yaml:"numbers"`
	Party          []string          `yaml:"party"`
	Purposes       map[string]string `yaml:"purposes"`
	Goings         []string          `yaml:"goings"` // going or changing plans: a destination named with one is the trip's new one
	Places         []string          `yaml:"places"`
	ObjectAddr     []string          `yaml:"object_addressee"`

	cues map[string]cue // every cue phrase: its third person and kind
	keys []string       // the cue phrases
	stop map[string]bool
}

// cue is one verb form of the lexicon.
type cue struct {
	third string
	kind  string // taste, state, doing, want, change
}

// inflectedLexicons are the Spanish and Russian lexicons, parsed once: they
// are embedded, and a test loads them on every build.
var inflectedLexicons = sync.OnceValue(func() map[string]*inflected {
	out := map[string]*inflected{}
	for lang, raw := range map[string][]byte{langES: lexiconES, langRU: lexiconRU} {
		lx, err := loadInflected(raw)
		if err != nil {
			panic(fmt.Sprintf("offline lexicon %s: %v", lang, err))
		}
		out[lang] = lx
	}
	return out
})

func loadInflected(raw []byte) (*inflected, error) {
	lx := &inflected{}
	if err := yaml.Unmarshal(raw, lx); err != nil {
		return nil, err
	}
	if len(lx.Tastes) == 0 || len(lx.Subjects) == 0 || lx.TripSuffix == "" {
		return nil, fmt.Errorf("subjects, tastes and trip_suffix are required")
	}
	lx.cues, lx.stop = map[string]cue{}, set(lx.Stopwords)
	for kind, m := range map[string]map[string]string{"taste": lx.Tastes, "state": lx.States, "doing": lx.Doings, "want": lx.Wants, "change": lx.Changes} {
		for k, v := range m {
			lx.cues[k] = cue{third: v, kind: kind}
			lx.keys = append(lx.keys, k)
		}
	}
	slices.Sort(lx.keys) // one order, whatever the map's
	return lx, nil
}

// has reports whether phrase occurs in ws as whole words.
func has(ws []string, phrases []string) bool {
	for i := range ws {
		if matchAt(ws, i, phrases) != "" {
			return true
		}
	}
	return false
}

// words splits a clause into lower-cased words without punctuation, and
// keeps the words as written for the note (a place keeps its capital).
func words(cl string) (low, orig []string) {
	for _, w := range strings.Fields(cl) {
		w = strings.Trim(w, ",.;:!?¿¡\"'«»()—–-")
		if w == "" {
			continue
		}
		orig = append(orig, w)
		low = append(low, strings.ToLower(w))
	}
	return low, orig
}

// inflectedCapture reads one Spanish or Russian message.
func (t *table) inflectedCapture(lang, message string, known map[string]bool, c *capture) {
	lx := inflectedLexicons()[lang]
	seen := map[string]bool{}
	for _, s := range reSentence.FindAllString(message, -1) {
		if strings.Contains(s, "?") || strings.Contains(s, "¿") {
			continue
		}
		var marker memory.Scope
		var pending []memory.SaveNoteArgs
		prev := -1 // the note of the clause before, for a joined clause
		for _, part := range lx.clauses(s) {
			low, orig := words(part.text)
			if m := lx.marker(low); m != "" {
				marker = m
			}
			n, ok := lx.read(low, orig, marker, lx.setApart(part.text))
			if !ok {
				if !part.join {
					prev = -1
				}
				continue
			}
			if (part.join || n.want) && prev >= 0 { // "…, así que prefiero vuelos de día": one thought
				p := &pending[prev]
				p.Text = strings.TrimSuffix(p.Text, ".") + ", " + part.joiner + lowerFirst(n.note.Text)
				kw := slices.Compact(slices.Concat(n.note.Keywords, p.Keywords))
				p.Keywords = kw[:min(3, len(kw))]
				continue
			}
			if n.want && !n.marked {
				prev = -1
				continue
			}
			pending = append(pending, lx.scoped(n.note, marker, n.scope))
			prev = len(pending) - 1
		}
		for _, n := range pending {
			c.add(n, known, seen)
		}
	}
}

// clause is one piece of a sentence; join says it continues the one before
// ("…, so …"), joiner is the word that joins it.
type clause struct {
	text   string
	join   bool
	joiner string
}

// clauses cuts a sentence where a new statement starts: at a splitting
// word or a comma before a cue, and at a joining word.
func (lx *inflected) clauses(s string) []clause {
	ws := strings.Fields(s)
	var out []clause
	cur := clause{}
	var buf []string
	flush := func() {
		if len(buf) > 0 {
			cur.text = strings.Join(buf, " ")
			out = append(out, cur)
		}
		buf, cur = nil, clause{}
	}
	lowAt := func(i int) []string { // the lower-cased words from field i on
		var r []string
		for _, w := range ws[i:] {
			if w = strings.ToLower(strings.Trim(w, ",.;:!?¿¡\"'«»()—–-")); w != "" {
				r = append(r, w)
			}
		}
		return r
	}
	subordinate := false
	for i := 0; i < len(ws); i++ {
		rest := lowAt(i)
		if len(buf) == 0 && len(rest) > 0 && matchAt(rest, 0, lx.Subordinators) != "" {
			subordinate = true
		}
		prevComma := i > 0 && strings.HasSuffix(ws[i-1], ",") || i > 0 && (ws[i-1] == "—" || ws[i-1] == "–")
		if j := matchAt(rest, 0, lx.Join); j != "" && len(buf) > 0 && (prevComma || j != "pues") {
			flush()
			cur = clause{join: true, joiner: j + " "}
			i += len(strings.Fields(j)) - 1
			subordinate = false
			continue
		}
		if sp := matchAt(rest, 0, lx.Split); sp != "" && len(buf) > 0 && lx.cueAhead(rest[len(strings.Fields(sp)):]) {
			flush()
			i += len(strings.Fields(sp)) - 1
			subordinate = false
			continue
		}
		if prevComma && len(buf) > 0 && !subordinate && lx.cueAhead(rest) {
			flush()
			cur = clause{join: true}
		}
		buf = append(buf, ws[i])
	}
	flush()
	return out
}

// cueAhead reports whether a cue opens ws, after a subject and adverbs.
func (lx *inflected) cueAhead(ws []string) bool {
	for i := 0; i < len(ws) && i < 4; i++ {
		if matchAt(ws, i, lx.keys) != "" {
			return true
		}
		if !slices.Contains(lx.Subjects, ws[i]) && matchAt(ws, i, lx.HabitAdverbs) == "" && matchAt(ws, i, lx.Negators) == "" {
			return false
		}
	}
	return false
}

// marker reads a clause's scope marker.
func (lx *inflected) marker(ws []string) memory.Scope {
	switch {
	case has(ws, lx.TripMarkers):
		return memory.ScopeThisTrip
	case has(ws, lx.DurableMarkers):
		return memory.ScopeDurable
	}
	return ""
}

// setApart reports whether a clause's opening trip marker is set apart by
// a comma, a dash or a colon: "para este viaje, habitación con vistas".
func (lx *inflected) setApart(cl string) bool {
	low := strings.ToLower(strings.TrimLeft(cl, " ¡¿\"'«"))
	for _, m := range lx.TripMarkers {
		for _, open := range []string{"", "para ", "en ", "solo ", "sólo ", "только "} {
			if rest, ok := strings.CutPrefix(low, open+m); ok && strings.ContainsAny(strings.TrimSpace(rest)[:min(len(strings.TrimSpace(rest)), 3)], ",—–:-") {
				return true
			}
		}
	}
	return false
}

// inflectedReading is what the reader made of a clause.
type inflectedReading struct {
	note   memory.SaveNoteArgs
	want   bool         // a want: kept only when marked or lasting
	marked bool         // a marker, a habit adverb or a lasting object makes it a note
	scope  memory.Scope // the scope when no marker sets one
}

// read finds a clause's subject, cue, polarity and object and words it as a
// third-person note.
func (lx *inflected) read(low, orig []string, marker memory.Scope, set bool) (inflectedReading, bool) {
	var r inflectedReading
	// fillers and "recuerda que…" open a clause without changing it
	for len(low) > 0 {
		if f := cmp.Or(matchAt(low, 0, lx.Fillers), matchAt(low, 0, lx.Remember)); f != "" {
			if matchAt(low, 0, lx.Remember) != "" {
				marker = cmp.Or(marker, memory.ScopeDurable)
			}
			n := len(strings.Fields(f))
			low, orig = low[n:], orig[n:]
			continue
		}
		break
	}
	if len(low) == 0 || has(low, lx.Addressee) || matchAt(low, 0, lx.HypoOpen) != "" || matchAt(low, 0, lx.QuestionOpen) != "" || slices.Contains(lx.Requests, low[0]) {
		return r, false
	}
	// the main verb of "cuando viajo con la familia prefiero…" is the last cue
	sub := matchAt(low, 0, lx.Subordinators) != ""
	at, key := -1, ""
	for i := 0; i < len(low); i++ {
		if k := matchAt(low, i, lx.keys); k != "" {
			at, key = i, k
			if !sub {
				break
			}
			i += len(strings.Fields(k)) - 1
		}
	}
	before := low[:max(at, 0)]
	if at < 0 {
		return lx.verbless(r, low, orig, marker, set)
	}
	for i := range before { // "mi marido …", "él …": someone else's
		if slices.Contains(lx.Others, before[i]) || i+1 < len(before) && lx.Persons[before[i]] != "" && slices.Contains(lx.People, before[i+1]) && (i == 0 || !isPreposition(before[i-1])) {
			return r, false
		}
	}
	if has(low, lx.Hedges) && !lx.hedgeIsCue(low, at, key) {
		return r, false
	}
	c := lx.cues[key]
	if c.kind != "change" && has(low, lx.Past) {
		return r, false
	}
	obj := orig[at+len(strings.Fields(key)):]
	objLow := low[at+len(strings.Fields(key)):]
	habit := has(before, lx.HabitAdverbs) || has(before, lx.Negators)
	lasting := slices.ContainsFunc(objLow, func(w string) bool {
		return slices.ContainsFunc(lx.Lasting, func(stem string) bool { return strings.HasPrefix(w, stem) })
	}) || has(objLow, lx.Lasting)
	switch c.kind {
	case "change":
		text, ok := lx.change(c.third, obj, objLow)
		if !ok {
			return r, false
		}
		return lx.finish(r, text, objLow)
	case "doing":
		if !habit && !lasting && marker == "" {
			return r, false
		}
	case "want":
		r.want = true
		r.marked = marker != "" || has(before, lx.HabitAdverbs) || lasting && !has(before, lx.Negators)
	}
	if len(objLow) == 0 || slices.Contains(lx.ObjectAddr, objLow[0]) { // "prefiero que reserves…" asks someone to act
		return r, false
	}
	if slices.Contains(lx.TripAttributes, firstOr(objLow)) && marker == "" {
		r.scope = memory.ScopeThisTrip
	}
	out := make([]string, 0, len(orig))
	for i := 0; i < len(low); i++ {
		if i == at {
			if c.third != "" {
				out = append(out, c.third)
			}
			i += len(strings.Fields(key)) - 1
			continue
		}
		if slices.Contains(lx.Subjects, low[i]) {
			continue
		}
		if p, ok := lx.Persons[low[i]]; ok {
			if p != "" {
				out = append(out, p)
			}
			continue
		}
		out = append(out, lx.thirdOf(low[i], orig[i], i < at))
	}
	return lx.finish(r, strings.Join(out, " "), objLow)
}

// thirdOf turns a first-person verb form of a subordinate clause ("cuando
// viajo") into the third person; other words stay as written, lower-cased
// unless they are names.
func (lx *inflected) thirdOf(low, orig string, beforeCue bool) string {
	if c, ok := lx.cues[low]; ok && beforeCue && c.kind != "change" {
		return c.third
	}
	return orig
}

// hedgeIsCue reports whether the only hedge of a clause is part of its cue
// ("я бы хотел…" is a want, not a guess).
func (lx *inflected) hedgeIsCue(low []string, at int, key string) bool {
	for i := range low {
		if h := matchAt(low, i, lx.Hedges); h != "" && (i < at || i >= at+len(strings.Fields(key))) {
			return false
		}
	}
	return true
}

// verbless reads a clause with no cue: "mi presupuesto … es de 400 euros",
// "мой домашний аэропорт — Шереметьево", "я вегетарианец", and a wish for
// this trip said without a verb ("para este viaje, habitación con vistas").
func (lx *inflected) verbless(r inflectedReading, low, orig []string, marker memory.Scope, set bool) (inflectedReading, bool) {
	if len(low) < 2 || has(low, lx.Hedges) || has(low, lx.Past) {
		return r, false
	}
	if slices.Contains(lx.Subjects, low[0]) && slices.ContainsFunc(lx.Identities, func(s string) bool { return strings.HasPrefix(low[1], s) }) {
		return lx.finish(r, strings.Join(orig[1:], " "), low[1:]) // "я вегетарианец"
	}
	start := 0
	if m := matchAt(low, 0, lx.TripMarkers); m != "" {
		start = len(strings.Fields(m))
		if start < len(low) && (set || matchAt(low, start, lx.Negators) != "") && matchAt(low, start, lx.Attributes) == "" {
			return lx.finish(r, strings.Join(orig[start:], " "), low[start:]) // "solo esta vez, nada de hoteles grandes"
		}
	}
	possessive := start == 0 && isKey(lx.Persons, low[0])
	if !possessive && marker != memory.ScopeThisTrip {
		return r, false
	}
	if possessive {
		start = 1
	}
	attr := -1
	for i := start; i < min(len(low), start+3); i++ {
		if slices.Contains(lx.People, low[i]) {
			return r, false
		}
		if matchAt(low, i, lx.Attributes) != "" {
			attr = i
			break
		}
	}
	if attr < 0 {
		return r, false
	}
	if slices.Contains(lx.TripAttributes, low[attr]) && marker == "" && !has(low, lx.DurableMarkers) {
		r.scope = memory.ScopeThisTrip
	}
	out := slices.Clone(orig[start:])
	if possessive && lx.Persons[low[0]] != "" {
		out = slices.Concat([]string{lx.Persons[low[0]]}, out)
	}
	return lx.finish(r, strings.Join(out, " "), low[attr:])
}

// change words a lasting change as the current fact.
func (lx *inflected) change(tmpl string, obj, objLow []string) (string, bool) {
	if len(obj) == 0 && strings.Contains(tmpl, "{") {
		return "", false
	}
	obj, objLow = lx.trimTime(obj, objLow)
	switch {
	case strings.Contains(tmpl, "{loc}"): // a place: its name, its case
		name := obj[:1]
		for _, w := range obj[1:] {
			if r, _ := utf8.DecodeRuneInString(w); unicode.IsUpper(r) {
				name = append(name, w)
			}
		}
		return strings.Replace(tmpl, "{loc}", lx.locative(strings.Join(name, " ")), 1), true
	case strings.Contains(tmpl, "{inf}"):
		if len(obj) == 0 {
			return "", false
		}
		verb := lx.conjugate(objLow[0])
		rest := slices.Concat([]string{verb}, obj[1:])
		return strings.Replace(tmpl, "{inf}", strings.Join(rest, " "), 1), true
	case strings.Contains(tmpl, "{nom}"):
		if len(obj) == 0 {
			return "", false
		}
		return strings.Replace(tmpl, "{nom}", lx.suffixed(objLow[0], lx.Nominative, "")+" "+strings.Join(obj[1:], " "), 1), true
	}
	return strings.Replace(tmpl, "{x}", strings.Join(obj, " "), 1), true
}

// trimTime drops what follows the object of a change: "el mes pasado",
// "в прошлом месяце", a reason.
func (lx *inflected) trimTime(obj, objLow []string) ([]string, []string) {
	for i := range objLow {
		if i > 0 && (matchAt(objLow, i, lx.Past) != "" || slices.Contains([]string{"el", "la", "hace", "en", "este", "esta", "desde", "в", "с", "этом", "прошлом"}, objLow[i]) && !startsUpper(obj[i])) {
			return obj[:i], objLow[:i]
		}
	}
	return obj, objLow
}

func startsUpper(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return unicode.IsUpper(r)
}

// conjugate gives an infinitive's third person: irregular verbs by name,
// the others by their ending.
func (lx *inflected) conjugate(inf string) string {
	if v := lx.Irregular[inf]; v != "" {
		return v
	}
	return lx.suffixed(inf, lx.Infinitives, "")
}

func (lx *inflected) locative(name string) string {
	if strings.Contains(name, " ") || strings.Contains(name, "-") {
		return name // "Санкт-Петербург" and two-word names are left as said
	}
	out := lx.suffixed(name, lx.Locative, "е")
	if last, _ := utf8.DecodeLastRuneInString(name); strings.ContainsRune("аеёиоуыэюяй", last) && out == name {
		return name
	}
	return out
}

// suffixed replaces the longest ending of w found in endings; otherwise
// it appends def to a word ending in a consonant.
func (lx *inflected) suffixed(w string, endings map[string]string, def string) string {
	best := ""
	for e := range endings {
		if strings.HasSuffix(w, e) && len(e) > len(best) {
			best = e
		}
	}
	if best != "" {
		return strings.TrimSuffix(w, best) + endings[best]
	}
	if def != "" {
		if last, _ := utf8.DecodeLastRuneInString(w); !strings.ContainsRune("аеёиоуыэюяйьъ", unicode.ToLower(last)) {
			return w + def
		}
	}
	return w
}

// finish makes the note: the text capitalised with a full stop, and up to
// two keywords from the object, lower-cased single words of the language.
func (lx *inflected) finish(r inflectedReading, text string, obj []string) (inflectedReading, bool) {
	text = strings.Join(strings.Fields(strings.Trim(text, " ,.;:—–-")), " ")
	if utf8.RuneCountInString(text) > 170 || text == "" {
		return r, false
	}
	r.note.Text = upperFirst(text) + "."
	for i := len(obj) - 1; i >= 0 && len(r.note.Keywords) < 2; i-- {
		k := keyword(obj[i])
		if utf8.RuneCountInString(k) > 2 && !lx.stop[k] && !slices.Contains(r.note.Keywords, k) && !strings.ContainsAny(obj[i], "0123456789") {
			r.note.Keywords = append(r.note.Keywords, k)
		}
	}
	return r, len(r.note.Keywords) > 0
}

// scoped gives a note its scope, saying so in a trip note.
func (lx *inflected) scoped(n memory.SaveNoteArgs, marker, def memory.Scope) memory.SaveNoteArgs {
	n.Scope = cmp.Or(marker, def, memory.ScopeDurable)
	if n.Scope == memory.ScopeThisTrip && !has(strings.Fields(strings.ToLower(n.Text)), lx.TripMarkers) {
		n.Text = strings.TrimSuffix(n.Text, ".") + " " + lx.TripSuffix + "."
	}
	return n
}

func isPreposition(w string) bool {
	return slices.Contains([]string{"con", "para", "de", "a", "sin", "с", "со", "для", "без", "и", "y"}, w)
}

func firstOr(ws []string) string {
	if len(ws) == 0 {
		return ""
	}
	return ws[0]
}

func isKey(m map[string]string, k string) bool {
	_, ok := m[k]
	return ok
}

func upperFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}

func lowerFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if len(s) > n {
		if r2, _ := utf8.DecodeRuneInString(s[n:]); unicode.IsUpper(r2) {
			return s // an acronym or a name keeps its capital
		}
	}
	return string(unicode.ToLower(r)) + s[n:]
}

// withoutTripSuffix takes the "on this trip" ending off a trip note, in
// whichever language it was written, for lists already headed as this
// trip's.
func withoutTripSuffix(note string) string {
	body, dot := strings.CutSuffix(note, ".")
	for _, suffix := range tripSuffixes() {
		if rest, ok := strings.CutSuffix(body, " "+suffix); ok {
			if dot {
				return rest + "."
			}
			return rest
		}
	}
	return note
}

// tripSuffixes are the trip-note endings of every language the model reads.
var tripSuffixes = sync.OnceValue(func() []string {
	out := []string{"on this trip"}
	for _, lang := range []string{langES, langRU} {
		out = append(out, inflectedLexicons()[lang].TripSuffix)
	}
	return out
})
