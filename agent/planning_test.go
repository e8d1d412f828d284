package agent_test

import (
	"regexp"
	"strings"
	"testing"

	"concierge/agent"
	"concierge/agent/offline"
	"concierge/memory"
	"concierge/models/dbtest"
)

// planningStep is one traveler message of a scripted planning chat and
// what its reply must and must not say.
type planningStep struct {
	say          string
	want, reject []string
}

// TestPlanningChats replays a planning chat per demo traveler with the
// offline model through the real agent: each direct question is answered
// from the profile or the notes, nothing the profile holds is asked for,
// no question is asked twice, options fit the place, a table comes when
// asked, and a list is followed by a blank line.
func TestPlanningChats(t *testing.T) {
	// neverAsk are questions about what the traveler's profile already says.
	johnNeverAsk := []string{"travelling from", "starting from", "which seat", "what seat", "which airport", "visa", "insurance", "откуда", "из какого города"}
	chats := []struct {
		email    string
		neverAsk []string
		steps    []planningStep
	}{
		{"john@example.com", johnNeverAsk, []planningStep{
			{say: "Hi, I'm planning a trip to Rome in May.", want: []string{"Rome"}},
			{say: "Do I need a visa?", want: []string{"Schengen", "31 March 2027", "your passport is valid until 14 August 2031"}, reject: []string{"2027-03-31", "n/a"}},
			{say: "Is my travel insurance enough?", want: []string{"Allianz Travel", "medical"}},
			{say: "What seat should I book?", want: []string{"aisle seats"}, reject: []string{"aisle and you"}},
			{say: "What seat do I like?", want: []string{"aisle"}},
			{say: "Which airport do I fly from?", want: []string{"SFO"}},
			{say: "What's my loyalty status?", want: []string{"United MileagePlus", "Gold"}, reject: []string{"UA-"}},
			{say: "Find me a flight.", want: []string{"from San Francisco to Rome"}},
			{say: "Show me some hotels.", want: []string{"old town"}, reject: []string{"beach"}},
			{say: "Which area should we stay in?", reject: []string{"beach"}},
			{say: "Compare two hotels in a table.", want: []string{"| Option | Trade-offs |"}},
			{say: "What do you know about me?", want: []string{"- Your passport is valid until 14 August 2031.", "- You fly from SFO.",
				"- You hold Schengen C (multiple entry) valid until 31 March 2027 and US citizenship."},
				reject: []string{"2031-08-14", "n/a", "passport expiry:", "flie", "CUST-10042", "UA-558"}},
			{say: "Where should we eat?", reject: []string{"beach"}},
		}},
		{"john@example.com", johnNeverAsk, []planningStep{
			{say: "Здравствуйте! Нужна ли мне виза?", want: []string{"Schengen", "31 марта 2027"}, reject: []string{"2027-03-31"}},
			{say: "Какая у меня страховка?", want: []string{"Allianz Travel"}},
			{say: "Какое место мне выбрать?", want: []string{"Насколько я знаю"}},
			{say: "Что вы обо мне знаете?", want: []string{"Вот что я о вас знаю", "- Ваш паспорт действителен до 14 августа 2031."}},
		}},
		{"priya@example.com", []string{"travelling from", "starting from"}, []planningStep{
			{say: "Hello! I want to go to London from Pune in June.", want: []string{"London"}},
			{say: "Do I need a visa?", want: []string{"nationality"}},
			{say: "Is my travel insurance enough?", want: []string{"what plan"}},
			{say: "What are some things to do?", reject: []string{"beach", "boat trip"}},
			{say: "Where should we stay?"},
			{say: "Show me hotels in a table.", want: []string{"| Option | Trade-offs |"}},
			{say: "What about food?"},
			{say: "¿Qué sabes de mí?", want: []string{"Priya"}, reject: []string{"Here's what", "I only know"}},
		}},
	}
	question := regexp.MustCompile(`[^.!?\n]*\?`)
	for _, chat := range chats {
		email, steps := chat.email, chat.steps
		t.Run(email, func(t *testing.T) {
			s := dbtest.SQLite(t)
			if _, err := s.SeedDemo(ctx, "demo"); err != nil {
				t.Fatal(err)
			}
			u, err := s.UserByEmail(ctx, email)
			if err != nil {
				t.Fatal(err)
			}
			cs, err := s.CreateChatSession(ctx, u.ID)
			if err != nil {
				t.Fatal(err)
			}
			a := agent.New(agent.DefaultConfig("gpt-4o-mini"), s, offline.New(memory.NewTokenCounter("gpt-4o-mini")), quietLog())
			asked := map[string]int{}
			for i, st := range steps {
				res, err := a.Turn(ctx, cs.ID, st.say, nil)
				if err != nil {
					t.Fatalf("%q: %v", st.say, err)
				}
				for _, w := range st.want {
					if !strings.Contains(res.Reply, w) {
						t.Errorf("%q answered %q, want %q", st.say, res.Reply, w)
					}
				}
				for _, w := range st.reject {
					if strings.Contains(strings.ToLower(res.Reply), strings.ToLower(w)) {
						t.Errorf("%q answered %q, which says %q", st.say, res.Reply, w)
					}
				}
				if strings.Contains(res.Reply, "\n- ") && regexp.MustCompile(`\n- [^\n]*\n[^-\n|]`).MatchString(res.Reply) {
					t.Errorf("%q: a list runs into the next paragraph: %q", st.say, res.Reply)
				}
				for _, q := range question.FindAllString(res.Reply, -1) {
					for _, known := range chat.neverAsk {
						if strings.Contains(strings.ToLower(q), known) {
							t.Errorf("%q: asks %q, which the profile answers", st.say, q)
						}
					}
					if q = strings.TrimSpace(q); asked[q] > 0 {
						t.Errorf("turn %d asks %q again (first asked at turn %d)", i+1, q, asked[q])
					} else {
						asked[q] = i + 1
					}
				}
			}
		})
	}
}
