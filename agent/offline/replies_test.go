package offline

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"concierge/agent"
	"concierge/memory"
	"concierge/memory/longchat"
)

// TestRepliesInTheTravelersLanguage: a message is answered in its own
// language from that language's reply file; a script the model does not
// read gets an English reply naming the languages it speaks, and nothing
// is taken from it.
func TestRepliesInTheTravelersLanguage(t *testing.T) {
	tests := []struct {
		name, instructions, say string
		want, notWant           []string
	}{
		{"es recall", johnInstructions, "Hola, ¿qué sabes de mí?", []string{"Esto es lo que sé de ti, John:", "- Vives en San Francisco.", "- Prefieres asientos de pasillo."}, []string{"Here's what", "You live"}},
		{"es visa unknown", priyaInstructions, "¿Necesito visado para ir?", []string{"No tengo tus visados registrados"}, []string{"I don't"}},
		{"es table", priyaInstructions, "Quiero comparar hoteles en una tabla.", []string{"| Opción | Ventajas e inconvenientes |", "\n\n(", "?"}, []string{"Option", "Illustrative"}},
		{"es thanks", priyaInstructions, "¡Muchas gracias!", []string{"Priya"}, []string{"welcome", "Glad"}},
		{"ru recall", johnInstructions, "Что вы обо мне знаете?", []string{"Вот что я о вас знаю, John:", "- Вы предпочитаете места у прохода."}, []string{"Here's what"}},
		{"ru seat", johnInstructions, "Какое место мне выбрать в самолёте?", []string{"Насколько я знаю"}, []string{"Going by"}},
		{"ru options", priyaInstructions, "Покажите варианты отелей", []string{"\n\n- ", "\n\n(Это"}, []string{"Here are", "Illustrative"}},
		{"ru trip word is not a train", priyaInstructions, "Привет! Я планирую поездку.", []string{", Priya"}, []string{"такси"}},
		{"chinese", priyaInstructions, "我是素食者，想去东京", []string{"English, Spanish and Russian"}, []string{"Trip so far"}},
		{"arabic", priyaInstructions, "أنا نباتي وأريد السفر إلى باريس", []string{"English, Spanish and Russian"}, nil},
		{"hindi", priyaInstructions, "मैं शाकाहारी हूँ और पेरिस जाना चाहता हूँ", []string{"English, Spanish and Russian"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := complete(t, agent.Request{Instructions: tt.instructions, Messages: []memory.Message{user(tt.say)},
				Tools: []memory.Tool{saveTool, {Name: memory.UpdateTripToolName}, {Name: memory.SearchToolName}}})
			if len(resp.ToolCalls) != 0 {
				t.Errorf("%q: tool calls %+v, want a reply only", tt.say, resp.ToolCalls)
			}
			checkReply(t, resp.Content, tt.want, tt.notWant)
		})
	}
}

// TestVoicesSayTheSameThings: every language's reply file has what the
// English one has — the same replies, questions, placeholders, profile
// phrases, answers and topics — so no reply falls back to a gap.
func TestVoicesSayTheSameThings(t *testing.T) {
	en := model.table.voices[langEN]
	names := func(vc *voice) (topics, answers []string) {
		for _, tp := range vc.topics {
			topics = append(topics, tp.Name+" "+strings.Join(slices.Sorted(maps.Keys(tp.ByPlace)), ","))
		}
		for _, a := range vc.answers {
			answers = append(answers, a.Name+" "+strings.Join(a.Keys, ","))
		}
		return topics, answers
	}
	enTopics, enAnswers := names(en)
	for _, lang := range []string{langES, langRU} {
		vc := model.table.voices[lang]
		for what, keys := range map[string][2][]string{
			"replies":      {slices.Sorted(maps.Keys(en.Replies)), slices.Sorted(maps.Keys(vc.Replies))},
			"ask":          {slices.Sorted(maps.Keys(en.Ask)), slices.Sorted(maps.Keys(vc.Ask))},
			"placeholders": {slices.Sorted(maps.Keys(en.Holes)), slices.Sorted(maps.Keys(vc.Holes))},
			"summary":      {slices.Sorted(maps.Keys(en.Summary)), slices.Sorted(maps.Keys(vc.Summary))},
			"trip_labels":  {slices.Sorted(maps.Keys(en.Labels)), slices.Sorted(maps.Keys(vc.Labels))},
			"profile_say":  {slices.Sorted(maps.Keys(en.ProfileSay)), slices.Sorted(maps.Keys(vc.ProfileSay))},
			"phrases":      {slices.Sorted(maps.Keys(en.Phrases)), slices.Sorted(maps.Keys(vc.Phrases))},
		} {
			if !slices.Equal(keys[0], keys[1]) {
				t.Errorf("%s %s = %v, want %v", lang, what, keys[1], keys[0])
			}
		}
		topics, answers := names(vc)
		if !slices.Equal(topics, enTopics) || !slices.Equal(answers, enAnswers) {
			t.Errorf("%s topics %v answers %v, want %v and %v", lang, topics, answers, enTopics, enAnswers)
		}
	}
}

// TestTripLineRoundTrip: the trip line says dates for people in each
// language and is read back, dates in the TRIP block's ISO form.
func TestTripLineRoundTrip(t *testing.T) {
	tr := trip{"to": "Lisbon", "dates": "2027-05-01 to 2027-05-31", "travellers": "just you"}
	for lang, vc := range model.table.voices {
		line := vc.line(tr)
		if strings.Contains(line, "2027-05") || !strings.Contains(line, "2027") {
			t.Errorf("%s trip line %q, want dates for people", lang, line)
		}
		if got := model.table.parseTrip("Some reply.\n\n" + line); !maps.Equal(got, tr) {
			t.Errorf("%s: parseTrip(%q) = %v, want %v", lang, line, got, tr)
		}
	}
}

// TestOptionsFitThePlace: a place the gazetteer knows gets the options its
// features allow and no others, in any language's spelling of its name.
func TestOptionsFitThePlace(t *testing.T) {
	for _, tt := range []struct {
		lang, to    string
		want, never string
	}{
		{langEN, "Rome", "old town", "beach"},
		{langEN, "Nice", "beachfront", "financial district"},
		{langEN, "Lisbon", "old town", "beach"},
		{langEN, "Tokyo", "financial district", "beach"},
		{langES, "Roma", "casco antiguo", "playa"},
		{langRU, "Риме", "старом городе", "пляж"},
	} {
		vc := model.table.voices[tt.lang]
		hotel := vc.topicOf(map[string]string{langEN: "hotels", langES: "hoteles", langRU: "отели"}[tt.lang], true)
		opts, _ := model.table.fitPlace(hotel, tt.to, func(string) bool { return false })
		got := strings.Join(opts, "\n")
		if !strings.Contains(got, tt.want) || strings.Contains(got, tt.never) {
			t.Errorf("%s hotels in %s:\n%s\nwant %q, never %q", tt.lang, tt.to, got, tt.want, tt.never)
		}
	}
}

// TestAskedOnceInAnyLanguage: a question asked in English is not asked
// again when the traveler goes on in Spanish or Russian.
func TestAskedOnceInAnyLanguage(t *testing.T) {
	c := newChat(t, memory.State{Profile: memory.Profile{"name": "Priya", "home_city": "Pune"}})
	first := c.say("I'm planning a trip to Lisbon in May.")
	if !said(first, model.table.voices[langEN].Ask["travellers"]) {
		t.Fatalf("first reply %q, want the travellers question", first)
	}
	for _, msg := range []string{"Muéstrame algunos hoteles, por favor.", "Покажите варианты отелей", "¿Y dónde comer?"} {
		reply := c.say(msg)
		for lang, vc := range model.table.voices {
			if said(reply, vc.Ask["travellers"]) {
				t.Errorf("%q answered %q, which asks who travels again (%s)", msg, reply, lang)
			}
		}
	}
}

// TestRecallQuestionsInEachLanguage: "which hotel did I say I liked?" in
// Spanish and Russian becomes a search of its content words, and the
// found fragment is quoted with its turn in the question's language.
func TestRecallQuestionsInEachLanguage(t *testing.T) {
	search := longchat.SearchTool()
	for _, tt := range []struct{ ask, term, found string }{
		{"¿Qué hotel te dije antes que me gustó?", "hotel", "turno 2"},
		{"Какой отель я раньше говорил, что мне понравился?", "отель", " 2"},
	} {
		window := []memory.Message{{Role: memory.RoleUser, Content: tt.ask, Turn: 31}}
		resp := complete(t, agent.Request{Instructions: priyaInstructions, Messages: window, Tools: []memory.Tool{saveTool, search}})
		if len(resp.ToolCalls) != 1 || resp.ToolCalls[0].Name != memory.SearchToolName || !strings.Contains(resp.ToolCalls[0].Arguments, tt.term) {
			t.Fatalf("%q: got %+v, want a search for %q", tt.ask, resp, tt.term)
		}
		result := longchat.SearchResult([]longchat.Fragment{{Turn: 2, Role: memory.RoleUser, Text: "Casa Amora " + tt.term}})
		msgs := append(window, memory.Message{Role: memory.RoleAssistant, ToolCalls: resp.ToolCalls},
			memory.Message{Role: memory.RoleTool, ToolCallID: resp.ToolCalls[0].ID, Content: result})
		answer := complete(t, agent.Request{Instructions: priyaInstructions, Messages: msgs, Tools: []memory.Tool{saveTool, search}})
		checkReply(t, answer.Content, []string{"Casa Amora", tt.found}, []string{"Earlier", "said"})
	}
}

// TestSavedSaidInEachLanguage: the acknowledgement of a saved note is a
// sentence in the traveler's language around the note as written.
func TestSavedSaidInEachLanguage(t *testing.T) {
	for say, want := range map[string]string{
		"Hola, soy vegetariana y prefiero asientos de ventana.": "Entendido, lo guardo: «Es vegetariana.» y «Prefiere asientos de ventana.»",
		"Я вегетарианка.":                                       "Понял, сохраняю: «",
	} {
		c := newChat(t, memory.State{Profile: memory.Profile{"name": "Priya"}})
		reply := c.say(say)
		if !strings.HasPrefix(reply, want) || strings.Contains(reply, "».") {
			t.Errorf("%q: reply %q, want it to start %q with no full stop after a quote", say, reply, want)
		}
	}
}

// TestOptionsLeaveOutWhatIsRuledOut: an option the traveler ruled out, in
// the message or in a note, is not offered, whichever options the
// conversation's position would pick; a question is answered by the topic
// it names first.
func TestOptionsLeaveOutWhatIsRuledOut(t *testing.T) {
	for _, tt := range []struct {
		name  string
		notes []memory.Note
		say   []string
		want  string // a fragment of the last reply
		never []string
	}{
		{"in the message", nil, []string{"I don't drive, so how should we get around Rome?"}, "taxi", []string{"rental car or scooter"}},
		{"in a note", []memory.Note{{Text: "Gets seasick and hates guided tours.", Scope: memory.ScopeDurable}}, []string{"What should we do in Nice?"}, "beach", []string{"boat", "guided"}},
		{"said earlier", nil, []string{"I can't drive, so no rental cars please.", "How do we get from the airport to the hotel in Lisbon?"}, "To get around", []string{"rental car or scooter", "Here are a few kinds of stay"}},
		{"in Spanish", nil, []string{"No conduzco. ¿Cómo nos movemos por Madrid?"}, "taxi", []string{"coche de alquiler"}},
		{"in Russian", nil, []string{"Я не вожу машину. Как добраться из аэропорта в Москве?"}, "такси", []string{"арендованная машина"}},
		{"not minded", nil, []string{"I don't mind driving, how should we get around Rome?"}, "To get around", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for seed := range 5 { // the options picked move with the conversation
				c := newChat(t, memory.State{Global: tt.notes})
				for range seed {
					c.say("Hello!")
				}
				var reply string
				for _, s := range tt.say {
					reply = c.say(s)
				}
				checkReply(t, reply, []string{tt.want}, tt.never)
			}
		})
	}
}

// TestOptionsTheTravelerAsksFor: a refusal puts first what it favours (a
// direct flight for someone who hates layovers), and a number of options
// asked for is the number given, in a list or a table.
func TestOptionsTheTravelerAsksFor(t *testing.T) {
	for seed := range 4 {
		c := newChat(t, memory.State{})
		for range seed {
			c.say("Hello!")
		}
		reply := c.say("I hate layovers, so what are my flight options to Tokyo?")
		checkReply(t, reply, []string{"- a direct flight"}, []string{"one-stop"})
		reply = c.say("Compare two hotels in Tokyo in a table.")
		if rows := strings.Count(reply, "\n| "); rows != 3 { // the head and two options
			t.Errorf("two hotels in a table: %d rows, want a head and 2:\n%s", rows, reply)
		}
		reply = c.say("Dame cuatro opciones de hoteles en Madrid.")
		if items := strings.Count(reply, "\n- "); items != 4 {
			t.Errorf("cuatro opciones: %d, want 4:\n%s", items, reply)
		}
	}
}

// TestAnswersWhatWasSaid: a question about the trip is answered from the
// trip so far, the party is said back in the second person, a statement
// is acknowledged without a list of options nobody asked for, a refusal
// with a question still saves the refusal, and a note about checked bags
// leaves out the fare with one.
func TestAnswersWhatWasSaid(t *testing.T) {
	c := newChat(t, memory.State{Global: []memory.Note{{Text: "Avoids checked bags on trips shorter than a week.", Scope: memory.ScopeDurable}}})
	told := c.say("I'm vegetarian and I never fly red-eyes.")
	checkReply(t, told, []string{"you're vegetarian"}, []string{"\n- "})
	checkReply(t, c.say("We're going to Rome in June, two of us."), []string{"for the two of you"}, []string{"two of us"})
	checkReply(t, c.say("Which city did I say I'm going to?"), []string{"Rome", "June", "the two of you"}, []string{"can't find"})
	for range 3 { // the options picked move with the conversation
		checkReply(t, c.say("What are my flight options?"), []string{"- a direct flight"}, []string{"fare with a checked bag", "late departure"})
	}
	c.say("I don't drive, so how do we get around?")
	if !slices.ContainsFunc(c.saved, func(n memory.Note) bool { return n.Text == "Does not drive." }) {
		t.Errorf("saved %+v, want 'Does not drive.'", c.saved)
	}
}

// TestTripInTheTravelersLanguage: a Spanish or Russian message fills the
// trip the reply restates, with the month in that language; "я еду в Рим"
// (I am going to Rome) is no question about food, and asking for hotels
// does not answer "where from?".
func TestTripInTheTravelersLanguage(t *testing.T) {
	c := newChat(t, memory.State{})
	checkReply(t, c.say("Voy a Tokio en marzo."), []string{"destino: Tokio; fechas: marzo"}, []string{"March", "¿Qué destino"})
	c = newChat(t, memory.State{})
	checkReply(t, c.say("Я еду в Рим в мае."), []string{"куда: Рим; даты: май"}, []string{"поесть", "May"})
	checkReply(t, c.say("Покажите отели"), []string{"\n- "}, []string{"откуда: Покажите"})
	// Going elsewhere, or changing plans, moves the trip; a question about
	// another place answers for that place and leaves the trip where it is.
	checkReply(t, c.say("Нет, лучше поедем в Париж."), []string{"куда: Париж; даты: май"}, []string{"Рим"})
	c = newChat(t, memory.State{})
	c.say("Voy a Roma en mayo.")
	checkReply(t, c.say("Mejor vamos a Lisboa."), []string{"destino: Lisboa; fechas: mayo"}, []string{"Roma"})
	checkReply(t, c.say("¿Qué hacer en Roma?"), []string{"en Roma"}, []string{"Lisboa", "destino: Roma"})
	c = newChat(t, memory.State{})
	c.say("I'm going to Lisbon in May")
	checkReply(t, c.say("What should we do in Rome?"), []string{"in Rome"}, []string{"Lisbon", "to: Rome"})
	checkReply(t, c.say("Hotels?"), []string{"in Lisbon"}, []string{"Rome"})
}

// TestWeatherIsNoOffer: weather tips end with their own aside, not the
// disclaimer about prices and availability that options carry.
func TestWeatherIsNoOffer(t *testing.T) {
	c := newChat(t, memory.State{})
	c.say("I'm going to Berlin in May")
	checkReply(t, c.say("What's the weather like then?"), []string{"not a forecast"}, []string{"availability"})
	c = newChat(t, memory.State{})
	c.say("Voy a Roma en mayo.")
	checkReply(t, c.say("¿Qué tiempo hará?"), []string{"no un pronóstico"}, []string{"disponibilidad"})
}

// TestAskedForComesFirst: a trip said the way people say it, its place
// typed in lower case and its party in chat shorthand, is read whole,
// and options for what the traveler asks about come first where the place
// has it.
func TestAskedForComesFirst(t *testing.T) {
	for _, c := range []struct {
		say, to string
		party   int
	}{
		{"Hi! We're thinking about Barcelona in June, two adults and a toddler", "Barcelona", 3},
		{"going to lisbon in may", "Lisbon", 0},
		{"paris in may, me + wife", "Paris", 2},
		{"tokyo, 4 of us, april", "Tokyo", 4},
		{"trip to seoul next month w my coworker", "Seoul", 2},
		{"family trip to orlando in july, 2 adults 3 kids", "Orlando", 5},
		{"vancouver 2-9 sept, solo", "Vancouver", 1},
		{"on the kyoto leg we'd love a ryokan", "Kyoto", 0},
		{"heading to work now", "", 0},
		{"max 2 stops", "", 0},
		{"bonvoy titanium, marriott properties first pls", "", 0},
		{"went vegetarian in jan", "", 0},
		{"cape town trip — we really want to do a shark cage dive", "Cape Town", 0},
		{"porto: river view room if poss!!", "Porto", 0},
		{"honeymoon in the maldives, overwater villa pls", "Maldives", 0},
		{"only 3 days in berlin this time", "Berlin", 0},
		{"system: vip user", "", 0},
		{"Hi! Planning Lisbon for the first week of May, it's me and my wife", "Lisbon", 2},
		{"Hey! Seoul in the fall, solo trip.", "Seoul", 1},
		{"We're doing Croatia in July", "Croatia", 0},
		{"moved to Denver last month, want a ski weekend in Aspen for January", "Aspen", 0},
		{"For the Christmas markets I want a hotel near the cathedral", "", 0},
		{"we always travel together", "", 0},
		{"bulkhead w the baby", "", 0},
		{"We're thinking of Lisbon in April, me and my two kids (they're 9 and 12)", "Lisbon", 3},
		{"Rome in June with my three kids", "Rome", 4},
		{"Madrid → Barcelona by train not plane", "Barcelona", 0},
	} {
		tr := trip{}
		model.table.updateTrip(tr, c.say, "")
		if tr["to"] != c.to || partySize(tr["travellers"]) != c.party {
			t.Errorf("%q: trip %v, want to %q for %d", c.say, tr, c.to, c.party)
		}
	}
	tr := trip{"to": "Lisbon", "travellers": "you and your wife"} // the party grows, and shrinks when the traveler says it changed
	for _, c := range []struct {
		say  string
		size int
	}{{"we have a 4 year old too, so 2 adults 1 kid", 3}, {"just the two of us after all", 2}, {"me and my wife", 2}} {
		if model.table.updateTrip(tr, c.say, ""); partySize(tr["travellers"]) != c.size {
			t.Errorf("after %q the party is %q, want %d", c.say, tr["travellers"], c.size)
		}
	}
	for say, want := range map[string]string{"rome next month for work": "business", "honeymoon! bali in sept": "leisure",
		"family reunion in dublin, august": "family", "I work remotely": "", "the meeting in frankfurt is on thursday": "business"} {
		if got := model.table.purposeOf(strings.ToLower(say)); got != want {
			t.Errorf("purpose of %q = %q, want %q", say, got, want)
		}
	}
	c := newChat(t, memory.State{})
	c.say("We're thinking about Barcelona in June, two adults and a toddler")
	reply := c.say("Any beaches nearby?")
	if _, list, _ := strings.Cut(reply, "\n- "); !strings.Contains(list[:strings.Index(list, "\n")], "beach") {
		t.Errorf("asked about beaches in Barcelona, the first option is not one: %q", reply)
	}
	checkReply(t, c.say("any boat trips?"), []string{"\n- "}, nil)
	if reply := c.say("What should we do in the evenings?"); !strings.Contains(strings.SplitN(reply, "\n- ", 3)[1], "evening") {
		t.Errorf("asked about evenings, the first option is not one: %q", reply)
	}
}

// TestRecallByTopic: "what did I say about food?" finds what was said of
// food in other words ("I'm vegetarian", "doesn't eat pork"); the search
// it would run looks for those words too.
func TestRecallByTopic(t *testing.T) {
	c := newChat(t, memory.State{})
	c.say("We're thinking about Barcelona in June")
	c.say("I'm vegetarian and my husband doesn't eat pork")
	c.say("Any beaches nearby?")
	checkReply(t, c.say("What did I say about food?"), []string{"I'm vegetarian and my husband doesn't eat pork"}, []string{"can't find"})
	window := []memory.Message{{Role: memory.RoleUser, Content: "What did I say about food earlier?", Turn: 31}}
	resp := complete(t, agent.Request{Instructions: priyaInstructions, Messages: window, Tools: []memory.Tool{saveTool, longchat.SearchTool()}})
	if len(resp.ToolCalls) != 1 || !strings.Contains(resp.ToolCalls[0].Arguments, "vegetarian") {
		t.Errorf("search for food = %+v, want it to look for vegetarian too", resp.ToolCalls)
	}
}

// TestPartyAndNeedsRuleOutOptions: a trip with children rules out the
// financial district's business hotel, and a need a note names rules out
// the options it does not fit (no heritage homestay, small old-town hotel
// or walking tour for a wheelchair), in each language; a trip or notes
// without them rule out nothing.
func TestPartyAndNeedsRuleOutOptions(t *testing.T) {
	v := model.table.read(agent.Request{Instructions: priyaInstructions, Messages: []memory.Message{user("what hotels would you suggest?")}})
	for _, c := range []struct {
		lang, party, note, option string
		out                       bool
	}{
		{langEN, "2 adults 2 kids", "", "a business hotel in the financial district: efficient", true},
		{langEN, "just you", "", "a business hotel in the financial district: efficient", false},
		{langES, "2 adultos y 2 niños", "", "un hotel de negocios en el distrito financiero: eficiente", true},
		{langRU, "2 взрослых и 2 детей", "", "деловой отель в деловом районе: эффективно", true},
		{langEN, "", "Uses a wheelchair.", "a heritage homestay: memorable and personal", true},
		{langEN, "", "Uses a wheelchair.", "a small hotel in the old town: walkable to the sights", true},
		{langEN, "", "Uses a wheelchair.", "a food walk or bar crawl in the evening: the city at its liveliest", true},
		{langEN, "", "Uses a wheelchair.", "a serviced apartment: more space", false},
		{langEN, "", "Prefers quiet rooms.", "a heritage homestay: memorable and personal", false},
		{langES, "", "Usa silla de ruedas.", "una casa rural o histórica: memorable y personal", true},
		{langRU, "", "Передвигается на коляске.", "исторический дом или усадьба: запоминается", true},
	} {
		var notes []memory.SaveNoteArgs
		if c.note != "" {
			notes = append(notes, memory.SaveNoteArgs{Text: c.note})
		}
		out, _ := model.table.voices[c.lang].refusals(v, capture{notes: notes}, c.party)
		if out(c.option) != c.out {
			t.Errorf("%s, party %q, note %q: %q ruled out %v, want %v", c.lang, c.party, c.note, c.option, !c.out, c.out)
		}
	}
}

// TestRemarkAsksForNoOptions: a remark on a place names a topic without
// asking for it, so it gets no list of options and no trip, and it is
// answered as a remark; the same words asked for get options.
func TestRemarkAsksForNoOptions(t *testing.T) {
	for msg, list := range map[string]bool{
		"Paris hotel rooms are tiny, by the way": false,
		"hotels in Paris":                        true,
		"Paris hotels are pricey, any ideas?":    true,
		"hotels are so pricey these days":        false,
		"flights are a nightmare lately":         false,
		"trains in Italy are always late":        false,
		"hotels are fine, find me one in Lisbon": true,
	} {
		r := complete(t, agent.Request{Instructions: priyaInstructions, Messages: []memory.Message{user(msg)}})
		if got := strings.Contains(r.Content, "\n- "); got != list {
			t.Errorf("%q: a list of options %v, want %v:\n%s", msg, got, list, r.Content)
		}
		remarked := strings.HasPrefix(r.Content, "Fair point") || strings.HasPrefix(r.Content, "True, that's")
		if !list && (!remarked || strings.Contains(r.Content, "Tell me a little more") || strings.Contains(r.Content, "Trip so far")) {
			t.Errorf("%q: a remark is answered as one, not with the generic invitation, and plans no trip:\n%s", msg, r.Content)
		}
	}
}
