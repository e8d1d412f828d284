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
	chats := map[string][]planningStep{
		"john@example.com": {
			{say: "Hi, I'm planning a trip to Rome in May.", reject: []string{"starting from", "travelling from"}},
			{say: "Do I need a visa?", want: []string{"Schengen", "31 March 2027", "your passport is valid until 14 August 2031"}, reject: []string{"2027-03-31", "n/a"}},
			{say: "Is my travel insurance enough?", want: []string{"Allianz Travel", "medical"}},
			{say: "What seat should I book?", want: []string{"aisle seats"}, reject: []string{"aisle and you"}},
			{say: "What seat do I like?", want: []string{"aisle"}},
			{say: "Which airport do I fly from?", want: []string{"SFO"}},
			{say: "Show me some hotels.", reject: []string{"beach"}},
			{say: "Compare two hotels in a table.", want: []string{"| Option | Trade-offs |"}},
			{say: "What do you know about me?", want: []string{"- Your passport is valid until 14 August 2031.", "- You fly from SFO.",
				"- You hold Schengen C (multiple entry) valid until 31 March 2027 and US (citizen)."},
				reject: []string{"2031-08-14", "n/a", "passport expiry:", "flie", "CUST-10042", "UA-558"}},
		},
		"priya@example.com": {
			{say: "Hello! I want to go to London in June.", reject: []string{"starting from", "travelling from"}},
			{say: "Do I need a visa?", want: []string{"nationality"}},
			{say: "What are some things to do?", reject: []string{"beach", "boat trip"}},
			{say: "Where should we stay?"},
			{say: "What about food?"},
		},
	}
	question := regexp.MustCompile(`[^.!?\n]*\?`)
	for email, steps := range chats {
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
