package offline

import (
	"os"
	"slices"
	"strings"
	"testing"

	"concierge/agent/eval"
	"concierge/memory"
)

// TestIssueStatements: the six statements issue 25 quotes are saved with
// their meaning — the negation, the amount with its currency, the new city.
func TestIssueStatements(t *testing.T) {
	tests := []struct{ say, want string }{
		{"I usually travel with just a carry-on.", "Usually travels with just a carry-on."},
		{"My budget for hotels is usually around 200 dollars a night.", "Budget for hotels is usually around 200 dollars a night."},
		{"I never want to fly with budget airlines.", "Never wants to fly with budget airlines."},
		{"I've stopped drinking, so skip the wine pairings.", "Has stopped drinking."},
		{"I moved to Seattle last month.", "Lives in Seattle."},
		{"These days I'd rather sit by the window.", "Prefers window seats."},
	}
	for _, tt := range tests {
		t.Run(tt.say, func(t *testing.T) {
			got := model.table.capture(tt.say, nil).notes
			if len(got) != 1 || got[0].Text != tt.want || got[0].Scope != memory.ScopeDurable {
				t.Errorf("capture(%q) = %s, want one durable note %q", tt.say, describeNotes(got), tt.want)
			}
		})
	}
}

// TestUntilIsNotTripDates: "until", "through" and "for the next" end a
// note; they never become the trip's dates.
func TestUntilIsNotTripDates(t *testing.T) {
	for _, say := range []string{
		"I'm avoiding alcohol until the end of March.",
		"I'm on crutches through April, so I need step-free access.",
		"For the next two weeks I can't fly long-haul.",
	} {
		tr := trip{}
		model.table.updateTrip(tr, say, "")
		if tr["dates"] != "" {
			t.Errorf("updateTrip(%q) took dates %q", say, tr["dates"])
		}
		for _, n := range model.table.capture(say, nil).notes {
			if strings.Contains(strings.ToLower(n.Text), "until") || strings.Contains(strings.ToLower(n.Text), "through") {
				t.Errorf("capture(%q) kept the end date in the note %q", say, n.Text)
			}
		}
	}
}

// TestBudgetNounIsNoLevel: "budget" names a spending level in "a budget
// hotel", not in "budget is tight", where the trip's budget stays unknown.
func TestBudgetNounIsNoLevel(t *testing.T) {
	for say, want := range map[string]string{"budget is tight this time": "", "budget of 2k for Paris": "", "budget hotel in lisbon please": "budget", "never budget airlines": "",
		"my usual hotel budget is 120 euros a night": "", "I usually spend 100 euros a night, but this time 200 euros a night": "200 euros a night",
		"Trip budget: 5k all in": "5k all in", "budget: $3000 for the lot": "$3000", "hotel budget 150 a night": "150 a night", "we land at 11 at night": ""} {
		tr := trip{}
		if model.table.updateTrip(tr, say, ""); tr["budget"] != want {
			t.Errorf("updateTrip(%q) took budget %q, want %q", say, tr["budget"], want)
		}
	}
}

// TestCompanionsComeAlong: a companion told as coming along is the
// traveler's party; what a companion does on their own is not kept.
func TestCompanionsComeAlong(t *testing.T) {
	checkNoteTexts(t, []saying{
		{"My sister usually comes along", "Travels with their sister."},
		{"my husband always comes with me", "Travels with their husband."},
		{"the kids always come with me, so family rooms or connecting rooms pls", "Travels with their kids."},
		{"My elderly mother comes with me on most trips; she can't manage long walks, bless her", "Travels with their elderly mother."},
		{"My mum never travels without her own pillow", ""},
		{"the dog comes everywhere with me 🐶 pet friendly places only", "Always travels with their dog pet friendly places only."},
		{"my husband travels a lot for work", ""},
		{"My mother-in-law is coming with us to Vienna in December and she's diabetic.", ""},
		{"My service dog comes everywhere with me.", "Travels with a service dog."},
	})
}

// TestPastDatesAreNoTripDates: the month of a move or of a past trip is
// when it happened, and the place of a past trip or a change is no trip's;
// the trip's dates and destination are the first the message gives of what
// is ahead. A plan told in the past tense is ahead.
func TestPastDatesAreNoTripDates(t *testing.T) {
	for say, want := range map[string][2]string{
		"I moved to Berlin in June, so BER is my airport now.":  {"", ""},
		"we just moved to Oslo in March":                        {"", ""},
		"We went to Rome last year in May, now Paris in June":   {"Paris", "in June"},
		"Lisbon in June with my wife":                           {"Lisbon", "in June"},
		"I switched to Delta in April, flying to Boston in May": {"Boston", "in May"},
		"we were thinking of Lisbon in October":                 {"Lisbon", "in October"},
	} {
		tr := trip{}
		if model.table.updateTrip(tr, say, ""); tr["to"] != want[0] || tr["dates"] != want[1] {
			t.Errorf("updateTrip(%q) took to %q dates %q, want %q and %q", say, tr["to"], tr["dates"], want[0], want[1])
		}
	}
}

// TestTuning scores the capture engine on the statements it is tuned
// against (labelled/tuning_*.jsonl), one set at a time; the holdouts are
// scored in agent/eval. tuning_en_3 was written blind to the rules and
// committed before any rule was tuned on it, and so was tuning_en_4 (first
// sight: precision 0.90, recall 0.52, scope 0.99; tuned on in round 5, lines
// 1–150 only). In round 6 both were tuned on lines not divisible by 4 only;
// the lines divisible by 4 were kept unseen. Their floors are the figures
// they have reached, not the contract's. Since the learned reader
// (learned.go) the English sets are also what its gate is trained on: the
// figures here are training figures, and TestGateHeldOut scores it on
// statements it did not learn from. With it, en_3 went from precision 0.963
// and recall 0.884 to 0.959 and 0.952, en_4 from 0.953 and 0.877 to 0.934
// and 0.928.
func TestTuning(t *testing.T) {
	for _, set := range []struct {
		name, lang                 string
		precision, recall, scoping float64
	}{
		{"en", langEN, 0.95, 0.90, 0.95},
		{"es", langES, 0.95, 0.90, 0.95},
		{"ru", langRU, 0.95, 0.90, 0.95},
		{"en_3", langEN, 0.93, 0.93, 1.00},
		{"en_4", langEN, 0.93, 0.92, 1.00},
	} {
		t.Run(set.name, func(t *testing.T) {
			raw, err := os.ReadFile("labelled/tuning_" + set.name + ".jsonl")
			if err != nil {
				t.Fatal(err)
			}
			items, err := eval.ParseHoldout(raw)
			if err != nil {
				t.Fatal(err)
			}
			saved := make([][]eval.SavedNote, len(items))
			for i, it := range items {
				for _, n := range model.table.captureIn(it.Text, set.lang, nil).notes {
					checkNoteShape(t, it.Text, n)
					saved[i] = append(saved[i], eval.SavedNote{Text: n.Text, Keywords: n.Keywords, Scope: n.Scope})
				}
			}
			s := eval.ScoreHoldout(items, saved)
			for _, m := range append(s.Misses, s.FalseSaves...) {
				t.Log(m)
			}
			t.Logf("tuning %s: %d statements, precision %.3f, recall %.3f, scope %.3f, refused saved %d",
				set.name, s.Statements, s.Precision, s.Recall, s.ScopeAccuracy, s.RefusedSaved)
			if s.RefusedSaved > 0 {
				t.Errorf("%d refused statements left a note", s.RefusedSaved)
			}
			if s.Precision < set.precision || s.Recall < set.recall || s.ScopeAccuracy < set.scoping {
				t.Errorf("tuning precision %.3f recall %.3f scope %.3f, want ≥ %.2f, %.2f, %.2f",
					s.Precision, s.Recall, s.ScopeAccuracy, set.precision, set.recall, set.scoping)
			}
		})
	}
}

// TestSecondPerson: a note said back to the traveler is grammatical second
// person, negation and conditions kept.
func TestSecondPerson(t *testing.T) {
	for note, want := range map[string]string{
		"Always flies economy.":                                                 "you always fly economy",
		"Never buys travel insurance.":                                          "you never buy travel insurance",
		"No flights before 8am.":                                                "no flights before 8am",
		"Travels with a small dog, needs pet-friendly hotels.":                  "you travel with a small dog and need pet-friendly hotels",
		"Never wants to fly with budget airlines.":                              "you never want to fly with budget airlines",
		"Does not drink alcohol.":                                               "you don't drink alcohol",
		"Budget for hotels is usually around 200 dollars a night.":              "your budget for hotels is usually around 200 dollars a night",
		"Is vegetarian.":                                                        "you're vegetarian",
		"Are big foodies.":                                                      "you're big foodies",
		"Allergic to peanuts.":                                                  "you're allergic to peanuts",
		"Has stopped drinking.":                                                 "you have stopped drinking",
		"Lives in Seattle.":                                                     "you live in Seattle",
		"Prefers trains for trips under four hours.":                            "you prefer trains for trips under four hours",
		"Prefers rooms away from their lift.":                                   "you prefer rooms away from your lift",
		"Cannot drive, no rental cars.":                                         "you cannot drive, no rental cars",
		"Won't take red-eye flights.":                                           "you won't take red-eye flights",
		"Gets seasick and hates guided tours.":                                  "you get seasick and hate guided tours",
		"Prefers trains and rarely flies.":                                      "you prefer trains and rarely fly",
		"Their back cannot take economy that long.":                             "your back cannot take economy that long",
		"Kids are 4 and 7, always needs a cot.":                                 "kids are 4 and 7, always needs a cot",
		"If it is over 6 hours, wants premium economy.":                         "if it is over 6 hours, you want premium economy",
		"When they fly long haul, needs an aisle seat.":                         "when you fly long haul, you need an aisle seat",
		"Hates rooms facing the street, wakes at every passing bus.":            "you hate rooms facing the street and wake at every passing bus",
		"Avoids a hotel without a gym, trains every morning wherever they are.": "you avoid a hotel without a gym and train every morning wherever you are",
		"Loves markets, cafés and bookshops.":                                   "you love markets, cafés and bookshops",
	} {
		if got := model.table.lex.second(note); got != want {
			t.Errorf("second(%q) = %q, want %q", note, got, want)
		}
	}
}

// TestProfileSaid: the self-summary says the profile in words, with dates
// for people and no raw values, private ids or "n/a".
func TestProfileSaid(t *testing.T) {
	p := map[string]any{"name": "John Doe", "customer_id": "CUST-1", "home_airport": "SFO", "passport_expiry": "2031-08-14",
		"visas":            []any{map[string]any{"type": "Schengen C", "valid_until": "2027-03-31"}, map[string]any{"type": "US (citizen)", "valid_until": "n/a"}},
		"loyalty_programs": []any{map[string]any{"program": "United MileagePlus", "status": "Gold", "member_id": "UA-1"}}}
	got := strings.Join(model.table.profileSay(&view{vc: model.table.voices[langEN]}, p), "; ")
	want := "customer id: CUST-1"
	if strings.Contains(got, want) || strings.Contains(got, "2031-08-14") || strings.Contains(got, "n/a") || strings.Contains(got, "UA-1") {
		t.Errorf("profileSay = %q: raw values or ids", got)
	}
	for _, part := range []string{"you fly from SFO", "your passport is valid until 14 August 2031", "you hold Schengen C valid until 31 March 2027 and US citizenship",
		"your loyalty programmes are United MileagePlus Gold status"} {
		if !strings.Contains(got, part) {
			t.Errorf("profileSay = %q, want it to say %q", got, part)
		}
	}
}

// TestSpecialCategoriesAreNotKept: beliefs, politics, union membership and
// orientation are nothing a trip needs; a clause that states one leaves no
// note and the reply says why, while a need it brings is its own clause
// and is kept.
func TestSpecialCategoriesAreNotKept(t *testing.T) {
	for _, say := range []string{
		"I'm a member of the teachers' union.",
		"We are Catholic.",
		"I always vote Labour, for what it's worth.",
		"I'm bisexual, by the way.",
		"We are both members of the Green Party.",
		"We're a same-sex couple.",
		"I'm a Christian and I go to church on Sundays",
		"i was diagnosed with multiple sclerosis last year so fatigue is a big thing", // what the detail leads to, beyond a diet, still tells it
	} {
		t.Run(say, func(t *testing.T) {
			c := model.table.capture(say, nil)
			if len(c.notes) != 0 || !c.private {
				t.Errorf("capture(%q) = %s private=%v, want nothing kept and private set", say, describeNotes(c.notes), c.private)
			}
		})
	}
	// The diet a faith brings is kept without the faith, in one clause or two.
	for _, say := range []string{"I'm Muslim, so I only eat halal food.", "I'm Muslim so halal food and no alcohol in the minibar please", "We're a Muslim family, halal for me and the kids, always"} {
		c := model.table.capture(say, nil)
		if !c.private || !slices.ContainsFunc(c.notes, func(n memory.SaveNoteArgs) bool { return strings.Contains(strings.ToLower(n.Text), "halal") }) ||
			slices.ContainsFunc(c.notes, func(n memory.SaveNoteArgs) bool { return strings.Contains(strings.ToLower(n.Text), "muslim") }) {
			t.Errorf("%q: the halal need is kept, the faith is not: %s private=%v", say, describeNotes(c.notes), c.private)
		}
	}
	c := model.table.capture("I'm Jewish and keep kosher", nil)
	if !c.private || describeNotes(c.notes) != "Keeps kosher. (durable diet,kosher)" {
		t.Errorf("the kosher need is kept, the faith is not: %s private=%v", describeNotes(c.notes), c.private)
	}
	for _, say := range []string{"I'm a lifelong vegetarian.", "I'm a registered nurse, so I work nights."} { // an adjective a faith or a party takes says nothing private of itself
		if c := model.table.capture(say, nil); c.private || len(c.notes) == 0 {
			t.Errorf("capture(%q) = %s private=%v, want a note and nothing private", say, describeNotes(c.notes), c.private)
		}
	}
	reply := newChat(t, memory.State{}).say("I'm a union member, in case that matters.")
	if !strings.Contains(reply, "only keep what helps plan your trips") {
		t.Errorf("reply %q does not say why nothing was noted", reply)
	}
}

// TestSubject: "my" and "our" are the traveler's unless a person word of
// the lexicon follows them, which makes the clause someone else's fact.
func TestSubject(t *testing.T) {
	// A capitalised first word the lexicon does not know, before a verb in
	// the third person, is a person; before "is" it may be anything.
	checkNoteTexts(t, []saying{
		{"Sarah doesn't eat pork", ""},
		{"Rahul hates flying", ""},
		{"Home is Toronto", "Is based in Toronto."},
		{"Noise is a big deal for me", "Cares about noise."},
	})
	for cl, want := range map[string]string{
		"my budget is 200 dollars a night":     "first",
		"birdwatching is my big hobby":         "first",
		"our usual seats are in the front row": "first",
		"my wife is vegan":                     "other",
		"my colleague's flight is at six":      "other",
		"our kids' school ends in june":        "other",
		"my eldest son hates museums":          "other",
		"my wife and i like quiet hotels":      "first",
		"she hates flying":                     "other",
		"quiet hotels are a must":              "",
		"«Sarah» does not eat pork":            "other",
		"«Hilton» is my go-to":                 "first",
	} {
		if got := model.table.subject(cl); got != want {
			t.Errorf("subject(%q) = %q, want %q", cl, got, want)
		}
	}
}

// TestStandardsTopicsPurposes: a standard said without a verb, an amount
// or habit after a fronted topic, and a trip told by its purpose rather
// than its party are read, in phrasings none of the tuning sets has.
func TestStandardsTopicsPurposes(t *testing.T) {
	tests := []struct {
		say, want string
		scope     memory.Scope
	}{
		{"Two hours max for layovers.", "Wants at most two hours for layovers.", memory.ScopeDurable},
		{"Three stars minimum.", "Wants at least three stars.", memory.ScopeDurable},
		{"For taxis I won't pay over 40 euros.", "Will not pay over 40 euros for taxis.", memory.ScopeDurable},
		{"For work trips I always book a refundable fare.", "Always books a refundable fare for work trips.", memory.ScopeDurable},
		{"Bunk beds are a hard no for me.", "Avoids bunk beds.", memory.ScopeDurable},
		{"Lisbon in May for a conference, and I need a hotel near the venue.", "Needs a hotel near the venue on this trip.", memory.ScopeThisTrip},
	}
	for _, tt := range tests {
		got := model.table.capture(tt.say, nil).notes
		if len(got) != 1 || got[0].Text != tt.want || got[0].Scope != tt.scope {
			t.Errorf("capture(%q) = %s, want one %s note %q", tt.say, describeNotes(got), tt.scope, tt.want)
		}
	}
	for _, say := range []string{"For dinner I want sushi.", "For my wife I need a wheelchair.", "Lisbon in May, and I need a hotel near the venue."} {
		if got := model.table.capture(say, nil).notes; len(got) > 0 {
			t.Errorf("capture(%q) = %s, want nothing", say, describeNotes(got))
		}
	}
}

// TestAsidesQuestionsAndOrders: an aside in a list is not an item, a
// question behind a condition, indifference and a past event are not notes
// (a move is), a note does not end on "and", and an order
// not to book something, said for good, is an aversion (said for this
// booking it is not).
func TestAsidesQuestionsAndOrders(t *testing.T) {
	checkNoteTexts(t, []saying{
		{"i'm allergic to shellfish, like properly allergic, epipen and all", "Is allergic to shellfish."},
		{"I'm allergic to peanuts, seriously allergic", "Is allergic to peanuts."},
		{"allergic to nuts, eggs and all dairy", "Is allergic to nuts. | Is allergic to eggs. | Is allergic to dairy."},
		{"if it rains tomorrow can we do something indoors", ""},
		{"I'm fine with either", ""},
		{"pls don't put me in a middle seat ever", "Avoids middle seats."},
		{"don't ever book me on a red-eye", "Avoids red-eye."},
		{"never put us near the lift", "Avoids being put near the lift."},
		{"Please don't book me on overnight flights.", ""},
		{"don't get me wrong, I love Paris", ""},
		{"If the flight is over 6 hours, I always book premium economy", "Always books premium economy if the flight is over 6 hours."},
		{"we once lost a suitcase in Lisbon because the transfer was too short", ""},
		{"I don't mind whether it's a hostel or a guesthouse", ""},
		{"I'm a light sleeper and that's how it is", "Is a light sleeper."},
		{"We moved to Austin last year", "Lives in Austin."},
		{"heads up we moved to singapore in january", "Lives in Singapore."},
		{"we moved to new york last year", "Lives in New York."},
		{"we just moved from denver to raleigh", "Lives in Raleigh."},
		{"i'm moving to berlin in april for work", "Is moving to Berlin."},
		{"we moved to the suburbs", "Moved to the suburbs."}, // no place to live in: the move is kept in the traveler's words
		{"I don't want to stay in hostels ever again", "Does not want to stay in hostels ever again."},
		{"I'd love to go to Rome again", ""},
		{"I can't swim, what beaches are good?", "Cannot swim."},
	})
}

// TestJoinNotes: a joined note lower-cases the second note's first letter
// by rune, and leaves a code in capitals.
func TestJoinNotes(t *testing.T) {
	for _, c := range []struct{ a, b, joins, want string }{
		{"Lives in Berlin.", "BER is their airport now.", "", "Lives in Berlin, BER is their airport now."},
		{"Is a light sleeper.", "Quiet rooms matter.", "so", "Is a light sleeper, so quiet rooms matter."},
		{"Is vegan.", "Über rides are fine.", "", "Is vegan, über rides are fine."},
	} {
		got, ok := joinNotes(memory.SaveNoteArgs{Text: c.a, Keywords: []string{"first"}, Scope: memory.ScopeDurable}, memory.SaveNoteArgs{Text: c.b, Keywords: []string{"second"}, Scope: memory.ScopeDurable}, c.joins)
		if !ok || got.Text != c.want {
			t.Errorf("joinNotes(%q, %q, %q) = %q %v, want %q", c.a, c.b, c.joins, got.Text, ok, c.want)
		}
	}
}
