package agent_test

import (
	"fmt"
	"sync"
	"testing"

	"concierge/agent"
	"concierge/agent/offline"
	"concierge/memory"
	"concierge/models/dbtest"
)

// TestOfflineModelSharedByConcurrentTurns: one built-in model serves every
// conversation of a server at once, as it does in production. Travelers
// talking at the same time, in three languages, each get their answers;
// under the race detector (as CI runs this package) any state the model
// shares between turns without a lock fails the test. The model's own
// corpus tests are single-threaded.
func TestOfflineModelSharedByConcurrentTurns(t *testing.T) {
	s := dbtest.SQLite(t)
	if _, err := s.SeedDemo(ctx, "demo"); err != nil {
		t.Fatal(err)
	}
	a := agent.New(agent.DefaultConfig("gpt-4o-mini"), s, offline.New(memory.NewTokenCounter("gpt-4o-mini")), quietLog())
	chats := [][]string{
		{"Hi, I'm planning a trip to Lisbon in May with my wife.", "I'm vegetarian and I never fly red-eyes.", "Show me some hotels.", "Do I need a visa?"},
		{"My sister usually comes along, and hotels are so pricey these days.", "Budget is 150 euros a night for this trip.", "Which hotel did I say I liked?", "What do you know about me?"},
		{"Hola, quiero ir a Madrid en junio.", "Soy alérgico a los cacahuetes.", "¿Qué sabes de mí?"},
		{"Здравствуйте! Летим в Рим в мае.", "Я не ем мясо.", "Покажите отели."},
	}
	var wg sync.WaitGroup
	errs := make(chan error, 2*len(chats)*4)
	for round := range 2 {
		for i, chat := range chats {
			email := []string{"john@example.com", "priya@example.com"}[(i+round)%2]
			wg.Go(func() {
				u, err := s.UserByEmail(ctx, email)
				if err != nil {
					errs <- err
					return
				}
				cs, err := s.CreateChatSession(ctx, u.ID)
				if err != nil {
					errs <- err
					return
				}
				for _, say := range chat {
					res, err := a.Turn(ctx, cs.ID, say, nil)
					if err != nil {
						errs <- fmt.Errorf("%q: %w", say, err)
						return
					}
					if res.Reply == "" {
						errs <- fmt.Errorf("%q: an empty reply", say)
					}
				}
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
