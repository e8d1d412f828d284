package consolidate

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"concierge/memory"
	"concierge/memory/guard"
)

// Applying the model's answer: each decision is validated against the
// notes as the decisions before it left them, then the rules decide the rest.

// modelSimilarity is how close (token-set similarity) a model-written text
// must be to at least one of the notes it comes from.
const modelSimilarity = 0.5

// maxWhyChars bounds the reason kept from a model decision.
const maxWhyChars = 200

// builder is the new global list under construction.
type builder struct {
	in       *modelInput
	list     []*work          // standing notes: global notes, then promoted session notes
	active   map[string]*work // standing notes by id
	decision map[string]*Decision
	global   []Decision // decisions on global notes, in the order made
	sup      []Supersession
}

// apply validates and applies the model's decisions, then runs the rules
// engine for whatever the model did not validly decide.
func (in *modelInput) apply(decisions map[string][]decoded, orphans int, opt Options) Result {
	b := &builder{in: in, active: map[string]*work{}, decision: map[string]*Decision{}}
	for _, g := range in.global {
		c := *g
		b.list = append(b.list, &c)
		b.active[g.note.ID] = &c
	}
	var rejected []string // reasons, without note text
	one := func(id string) (modelDecision, error) {
		ds := decisions[id]
		switch {
		case len(ds) == 0:
			return modelDecision{}, errors.New("no decision from the model")
		case len(ds) > 1:
			return modelDecision{}, fmt.Errorf("%d decisions for one note", len(ds))
		}
		return ds[0].d, ds[0].err
	}

	// Session notes first, oldest first, so a later statement can replace
	// an earlier one of the same session.
	chrono := slices.Clone(in.session)
	slices.SortStableFunc(chrono, func(a, b *work) int { return cmp.Compare(a.note.LastUpdateDate, b.note.LastUpdateDate) })
	fallbackWhy := map[string]string{}
	var toRules []memory.Note
	for _, s := range chrono {
		d, err := one(s.note.ID)
		if err == nil {
			err = b.applySession(s, d)
		}
		if err != nil {
			fallbackWhy[s.note.ID] = err.Error()
			rejected = append(rejected, err.Error())
			toRules = append(toRules, s.note)
		}
	}
	ignored := orphans
	for _, g := range in.global {
		ds := decisions[g.note.ID]
		if len(ds) == 0 {
			continue
		}
		d, err := one(g.note.ID)
		if err == nil {
			err = b.applyGlobal(g, d)
		}
		if err != nil {
			ignored++
		}
	}
	for id := range decisions {
		if in.byID[id] == nil {
			ignored += len(decisions[id]) // decisions about ids the model made up
		}
	}

	// The rules engine decides the rest against the list the model's
	// decisions built, then expires, pins and prunes the whole list.
	for _, w := range in.rules {
		toRules = append(toRules, w.note)
	}
	slices.SortStableFunc(toRules, func(a, b memory.Note) int { return cmp.Compare(in.order[a.ID], in.order[b.ID]) })
	standing := make([]memory.Note, 0, len(b.list))
	for _, w := range b.list {
		if b.active[w.note.ID] == w {
			standing = append(standing, w.note)
		}
	}
	rr := ByRules(standing, toRules, opt)

	res := Result{Engine: EngineModel, Global: rr.Global, Superseded: append(b.sup, rr.Superseded...)}
	final := map[string]memory.Note{}
	for _, n := range rr.Global {
		final[n.ID] = n
	}
	rulesGlobal := []Decision{}
	for _, d := range rr.Decisions {
		w := in.byID[d.Note.ID]
		switch {
		case w != nil && w.session && b.decision[d.Note.ID] == nil:
			// A note the rules decided alone.
			if why, ok := fallbackWhy[d.Note.ID]; ok {
				d.Why = "model decision rejected (" + why + "); " + d.Why
			}
			b.decision[d.Note.ID] = &d
		case w != nil && w.session:
			// A note the model promoted, which the rules then superseded
			// or pruned: the later decision is the one that holds.
			b.decision[d.Note.ID] = &d
		default:
			rulesGlobal = append(rulesGlobal, d)
		}
	}
	modelDecided := false
	ids := make([]string, 0, len(in.session)+len(in.rules))
	for _, s := range in.session {
		ids = append(ids, s.note.ID)
	}
	for _, s := range in.rules {
		ids = append(ids, s.note.ID)
	}
	slices.SortStableFunc(ids, func(a, b string) int { return cmp.Compare(in.order[a], in.order[b]) })
	for _, id := range ids {
		d := *b.decision[id]
		if n, ok := final[id]; ok && d.Action == ActionPromoted {
			d.Note = n // the note as it now stands, pinned or rephrased
		}
		modelDecided = modelDecided || d.Engine == EngineModel
		res.Decisions = append(res.Decisions, d)
	}
	for _, d := range b.global {
		modelDecided = true
		res.Decisions = append(res.Decisions, d)
	}
	res.Decisions = append(res.Decisions, rulesGlobal...)

	switch {
	case !modelDecided:
		res.Engine = EngineRules
		res.FallbackReason = "every model decision was rejected"
		if len(rejected) > 0 {
			res.FallbackReason += ": " + rejected[0]
		}
	case len(rejected) > 0 || ignored > 0:
		var parts []string
		if len(rejected) > 0 {
			parts = append(parts, fmt.Sprintf("%d of %d session notes went to the rules engine (first: %s)", len(rejected), len(in.session), rejected[0]))
		}
		if ignored > 0 {
			parts = append(parts, fmt.Sprintf("%d invalid decisions on other notes ignored", ignored))
		}
		res.FallbackReason = strings.Join(parts, "; ")
	}
	return res
}

// applySession validates one decision on a session note and, if it holds,
// applies it. It changes nothing when it returns an error.
func (b *builder) applySession(s *work, d modelDecision) error {
	if len(d.Keywords) == 0 {
		d.Keywords = nil // [] from a strict answer means "none given", like null
	}
	why, err := decisionWhy(d.Why)
	if err != nil && d.Action == modelRefuse {
		// Refusing is the safe side: keep the refusal, not its reason.
		why, err = "refused by the model (its reason was not kept)", nil
	}
	if err != nil {
		return err
	}
	n := s.note
	if n.Scope == memory.ScopeThisTrip && d.Action != modelDropTrip && d.Action != modelRefuse {
		return fmt.Errorf("a this_trip note cannot be %s", actionName(d.Action))
	}
	decide := func(action, into string) {
		b.decision[n.ID] = &Decision{Note: n, Action: action, Into: into, Why: why, Engine: EngineModel}
	}
	switch d.Action {
	case modelDropTrip:
		if n.Scope != memory.ScopeThisTrip {
			return errors.New("drop_trip on a note that is not this_trip")
		}
		decide(ActionDroppedTrip, "")
	case modelRefuse:
		decide(ActionRefused, "")
	case modelPromote:
		note, err := b.promoted(s, d, []*work{s})
		if err != nil {
			return err
		}
		b.add(s, note)
		decide(ActionPromoted, "")
	case modelSupersede:
		t, err := b.target(s, d.Into)
		if err != nil {
			return err
		}
		switch {
		case t.note.Pinned:
			return errors.New("supersede a pinned note")
		case n.LastUpdateDate < t.note.LastUpdateDate:
			return errors.New("supersede a more recent note")
		}
		note, err := b.promoted(s, d, []*work{s})
		if err != nil {
			return err
		}
		b.remove(t)
		if t.session {
			// A later note of this session wins over an earlier one.
			prev := b.decision[t.note.ID]
			prev.Action, prev.Into = ActionSuperseded, n.ID
			prev.Why += "; superseded by a later note of this session"
		} else {
			b.global = append(b.global, Decision{Note: t.note, Action: ActionSuperseded, Into: n.ID, Why: why, Engine: EngineModel})
		}
		b.sup = append(b.sup, Supersession{NoteID: t.note.ID, ByID: n.ID})
		b.add(s, note)
		decide(ActionPromoted, "")
	case modelMerge, modelDropDuplicate:
		t, err := b.target(s, d.Into)
		if err != nil {
			return err
		}
		if d.Action == modelDropDuplicate && !t.session {
			return errors.New("drop_duplicate into a note that is not from this session")
		}
		text, keywords := t.note.Text, t.note.Keywords
		if d.Action == modelMerge && rewrites(t.note, d) {
			if t.note.Pinned {
				return errors.New("merge rewrites a pinned note")
			}
			if d.Text != "" {
				text = d.Text
			}
			if d.Keywords != nil {
				keywords = d.Keywords
			}
			args, err := checkModelText(text, keywords, []*work{t, s})
			if err != nil {
				return err
			}
			text, keywords = args.Text, args.Keywords
		}
		if text != t.note.Text {
			t.note.Source = memory.SourceConsolidation
			t.f = memory.FeaturesOf(text)
		}
		t.note.Text, t.note.Keywords = text, keywords
		t.note.LastUpdateDate = max(t.note.LastUpdateDate, n.LastUpdateDate)
		t.note.ExpiresOn = memory.LaterExpiry(t.note.ExpiresOn, n.ExpiresOn)
		if d.Action == modelMerge {
			decide(ActionMerged, t.note.ID)
		} else {
			decide(ActionDroppedDuplicate, t.note.ID)
		}
	case "":
		return errors.New("no action")
	default:
		return fmt.Errorf("%s is not an action for a session note", actionName(d.Action))
	}
	return nil
}

// applyGlobal validates one decision on a related global note and, if it
// holds, applies it.
func (b *builder) applyGlobal(g *work, d modelDecision) error {
	why, err := decisionWhy(d.Why)
	if err != nil {
		return err
	}
	cur := b.active[g.note.ID]
	switch {
	case d.Action == modelKeep:
		return nil
	case !b.in.shown[g.note.ID] || g.note.Pinned:
		return errors.New("a decision on a note the model may not change")
	case cur == nil:
		return errors.New("the note is no longer kept")
	}
	t, err := b.target(cur, d.Into)
	if err != nil {
		return err
	}
	switch d.Action {
	case modelMerge:
		b.remove(cur)
		t.note.LastUpdateDate = max(t.note.LastUpdateDate, cur.note.LastUpdateDate)
		t.note.ExpiresOn = memory.LaterExpiry(t.note.ExpiresOn, cur.note.ExpiresOn)
		b.global = append(b.global, Decision{Note: g.note, Action: ActionMerged, Into: t.note.ID, Why: why, Engine: EngineModel})
		// A merged global note is retired like a superseded one: kept in
		// its history, no longer injected.
		b.sup = append(b.sup, Supersession{NoteID: g.note.ID, ByID: t.note.ID})
	case modelSupersede:
		switch {
		case t.session:
			return errors.New("a global note cannot supersede a session note")
		case t.note.Pinned:
			return errors.New("supersede a pinned note")
		case cur.note.LastUpdateDate < t.note.LastUpdateDate:
			return errors.New("supersede a more recent note")
		}
		b.remove(t)
		b.global = append(b.global, Decision{Note: t.note, Action: ActionSuperseded, Into: g.note.ID, Why: why, Engine: EngineModel})
		b.sup = append(b.sup, Supersession{NoteID: t.note.ID, ByID: g.note.ID})
	default:
		return fmt.Errorf("%s is not an action for a global note", actionName(d.Action))
	}
	return nil
}

// rewrites reports whether a merge decision changes the text or the
// keywords of the note it merges into.
func rewrites(t memory.Note, d modelDecision) bool {
	if d.Text != "" && memory.CollapseSpace(d.Text) != t.Text {
		return true
	}
	if d.Keywords == nil {
		return false
	}
	kw := make([]string, len(d.Keywords))
	for i, k := range d.Keywords {
		kw[i] = strings.ToLower(strings.TrimSpace(k))
	}
	return !slices.Equal(kw, t.Keywords)
}

// target resolves the "into" of a decision about n: a note still kept,
// shown to the model, other than n and related to it.
func (b *builder) target(n *work, into string) (*work, error) {
	if into == "" {
		return nil, errors.New("into is missing")
	}
	t := b.active[into]
	switch {
	case t == nil && b.in.byID[into] == nil:
		return nil, errors.New("into names an unknown note")
	case t == nil:
		return nil, errors.New("into names a note that is no longer kept")
	case into == n.note.ID:
		return nil, errors.New("into names the note itself")
	case !t.session && !b.in.shown[into]:
		return nil, errors.New("into names a note the model was not shown")
	case relation(n, t) == 0:
		return nil, errors.New("into names an unrelated note")
	}
	return t, nil
}

// promoted builds the global note a promote or supersede decision makes of
// session note s: the model's text (or s's own) checked like every written
// note and traced to sources.
func (b *builder) promoted(s *work, d modelDecision, sources []*work) (memory.Note, error) {
	text, keywords := d.Text, d.Keywords
	if text == "" {
		text = s.note.Text
	}
	if keywords == nil {
		keywords = s.note.Keywords
	}
	args, err := checkModelText(text, keywords, sources)
	if err != nil {
		return memory.Note{}, err
	}
	n := s.note
	// The end date stays: a fact that ends keeps ending when it is promoted.
	n.Text, n.Keywords, n.Scope, n.Source = args.Text, args.Keywords, memory.ScopeDurable, memory.SourceConsolidation
	n.Pinned = n.Pinned || memory.NeedsPin(memory.FeaturesOf(n.Text), n.Keywords)
	return n, nil
}

// add makes a session note stand in the new list.
func (b *builder) add(s *work, n memory.Note) {
	w := &work{note: n, session: true, order: s.order, f: memory.FeaturesOf(n.Text)}
	b.list = append(b.list, w)
	b.active[n.ID] = w
}

func (b *builder) remove(w *work) { delete(b.active, w.note.ID) }

// checkModelText applies the checks every written note passes (CheckNote:
// sensitive data, instructions, length, sentences, keywords) and the
// no-invention rule: the text must be close to one of its sources and every
// content word of it must come from them, with the same polarity.
func checkModelText(text string, keywords []string, sources []*work) (memory.SaveNoteArgs, error) {
	args, refusal := memory.CheckNote(memory.SaveNoteArgs{Text: text, Keywords: keywords, Scope: memory.ScopeDurable}, 0, 0, memory.Limits{})
	if refusal != nil {
		return memory.SaveNoteArgs{}, fmt.Errorf("text or keywords refused (%s)", refusal.Category)
	}
	out := memory.FeaturesOf(args.Text)
	union := map[string]bool{}
	anyNegative, allNegative := false, true
	best := 0.0
	for _, src := range sources {
		if memory.CollapseSpace(src.note.Text) == args.Text {
			return args, nil
		}
		best = max(best, memory.Jaccard(out.Content, src.f.Content))
		for _, w := range src.f.Content {
			union[w] = true
		}
		anyNegative = anyNegative || src.f.Negative
		allNegative = allNegative && src.f.Negative
	}
	if best < modelSimilarity {
		return memory.SaveNoteArgs{}, errors.New("text is not close to the notes it comes from (invented?)")
	}
	for _, w := range out.Content {
		if !union[w] {
			return memory.SaveNoteArgs{}, errors.New("text adds a word the notes it comes from do not have (invented?)")
		}
	}
	if out.Negative && !anyNegative || !out.Negative && allNegative {
		return memory.SaveNoteArgs{}, errors.New("text flips the polarity of the notes it comes from")
	}
	return args, nil
}

// decisionWhy checks and trims the reason of a model decision: it is kept
// in the report, so it must be there and carry nothing ScreenText blocks.
func decisionWhy(why string) (string, error) {
	why = memory.CollapseSpace(why)
	if why == "" {
		return "", errors.New("no reason given")
	}
	if cat, blocked := guard.ScreenText(why); blocked {
		return "", fmt.Errorf("reason blocked (%s)", cat)
	}
	if utf8.RuneCountInString(why) > maxWhyChars {
		why = string([]rune(why)[:maxWhyChars-1]) + "…"
	}
	return why, nil
}

// actionName quotes an action for an error message, bounded so a made-up
// action cannot carry text into the report.
func actionName(a string) string {
	if slices.Contains([]string{modelPromote, modelMerge, modelSupersede, modelDropTrip, modelDropDuplicate, modelRefuse, modelKeep}, a) {
		return a
	}
	return "an unknown action"
}
