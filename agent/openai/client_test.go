package openai_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"sync"
	"testing"

	"concierge/agent"
	"concierge/agent/openai"
	"concierge/agent/openai/fakeopenai"
	"concierge/memory"
)

// TestClientReusesConnections makes 500 calls to one host, ten at a time,
// half streamed, half plain, half chat and half consolidation-style JSON
// through a second provider, and counts the TCP connections the fake
// accepted: a pooled client needs about one per concurrent call.
func TestClientReusesConnections(t *testing.T) {
	const calls, parallel = 500, 10
	fake := fakeopenai.New(t)
	chat := openai.New(openai.Config{APIKey: "k", BaseURL: fake.URL(), Model: "chat"})
	consolidation := chat.WithModel("consolidation")
	var wg sync.WaitGroup
	work := make(chan int)
	errs := make(chan error, calls)
	for range parallel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				var err error
				switch i % 4 {
				case 0:
					_, err = chat.Complete(context.Background(), agent.Request{Messages: []memory.Message{{Role: memory.RoleUser, Content: "hi"}}}, nil)
				case 1:
					_, err = chat.Complete(context.Background(), agent.Request{Messages: []memory.Message{{Role: memory.RoleUser, Content: "hi"}}}, func(string) {})
				default:
					_, err = consolidation.CompleteJSON(context.Background(), memory.JSONRequest{Name: "probe", System: "Answer in JSON.", User: "{}"})
				}
				if err != nil {
					errs <- err
				}
			}
		}()
	}
	for i := range calls {
		work <- i
	}
	close(work)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if got := len(fake.Requests()); got != calls {
		t.Fatalf("the fake got %d calls, want %d", got, calls)
	}
	conns := fake.Connections()
	t.Logf("%d calls, %d at a time: %d TCP connections", calls, parallel, conns)
	if conns > 2*parallel {
		t.Errorf("%d connections for %d calls, %d at a time; want at most %d", conns, calls, parallel, 2*parallel)
	}
}

// TestClientUsesHTTP2WhenOffered: over TLS, a server that offers HTTP/2 gets
// it, and concurrent calls share one connection.
func TestClientUsesHTTP2WhenOffered(t *testing.T) {
	fake := fakeopenai.NewTLS(t)
	roots := x509.NewCertPool()
	roots.AddCert(fake.Certificate())
	client := openai.NewHTTPClient(openai.HTTPConfig{TLS: &tls.Config{RootCAs: roots}})
	p := openai.New(openai.Config{APIKey: "k", BaseURL: fake.URL(), Model: "m", HTTPClient: client})
	// The first call opens the connection; calls started together before
	// one exists would each dial (the surplus is closed at once).
	if _, err := p.Complete(context.Background(), agent.Request{Messages: []memory.Message{{Role: memory.RoleUser, Content: "hi"}}}, nil); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := p.Complete(context.Background(), agent.Request{Messages: []memory.Message{{Role: memory.RoleUser, Content: "hi"}}}, func(string) {}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	for _, r := range fake.Requests() {
		if r.Proto != "HTTP/2.0" {
			t.Fatalf("a call came over %s, want HTTP/2.0", r.Proto)
		}
	}
	if got := fake.Connections(); got != 1 {
		t.Errorf("21 HTTP/2 calls opened %d connections, want 1", got)
	}
}
