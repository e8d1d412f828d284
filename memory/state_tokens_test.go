package memory

import (
	"sync"
	"testing"
)

func TestNewState(t *testing.T) {
	trips := []Trip{
		{Route: "A", StartDate: "2024-01-01"}, {Route: "B", StartDate: "2025-06-01"},
		{Route: "C", StartDate: "2023-03-01"}, {Route: "D", StartDate: "2025-01-01"},
	}
	global := []Note{{ID: "b", LastUpdateDate: "2024-01-01"}, {ID: "a", LastUpdateDate: "2024-01-01"}, {ID: "p", LastUpdateDate: "2020-01-01", Pinned: true}, {ID: "c", LastUpdateDate: "2025-01-01"}}
	st := NewState(nil, global, nil, trips)
	var routes, ids string
	for _, tr := range st.Trips {
		routes += tr.Route
	}
	for _, n := range st.Global {
		ids += n.ID
	}
	if routes != "BDA" {
		t.Errorf("trips = %s, want BDA", routes)
	}
	if ids != "pcab" {
		t.Errorf("global order = %s, want pcab", ids)
	}
	if global[0].ID != "b" {
		t.Errorf("NewState reordered its input")
	}
}

func TestNewTokenCounter(t *testing.T) {
	tests := []struct {
		model, enc string
	}{
		{"gpt-4o", EncodingO200k}, {"gpt-4o-mini", EncodingO200k}, {"gpt-4.1-nano", EncodingO200k},
		{"gpt-5", EncodingO200k}, {"o3-mini", EncodingO200k}, {"o1", EncodingO200k}, {"openai/gpt-4o", EncodingO200k},
		{"gpt-4", EncodingCl100k}, {"gpt-4-turbo", EncodingCl100k}, {"gpt-3.5-turbo", EncodingCl100k},
		{"llama3.1:8b", EncodingEstimate}, {"", EncodingEstimate}, {"ollama", EncodingEstimate},
	}
	for _, tt := range tests {
		if got := EncodingFor(tt.model); got != tt.enc {
			t.Errorf("EncodingFor(%q) = %s, want %s", tt.model, got, tt.enc)
		}
	}
	text := "Prefers aisle seats on flights over two hours."
	if got := NewTokenCounter("gpt-4o").Count(text); got < 8 || got > 12 {
		t.Errorf("o200k count = %d, want about 10", got)
	}
	if got := NewTokenCounter("gpt-4").Count("hello world"); got != 2 {
		t.Errorf("cl100k count(hello world) = %d, want 2", got)
	}
	if got, want := NewTokenCounter("mistral").Count(text), (len(text)+2)/3; got != want {
		t.Errorf("estimate = %d, want %d", got, want)
	}
	if exact, est := NewTokenCounter("gpt-4o").Count(text), NewTokenCounter("unknown").Count(text); est < exact {
		t.Errorf("estimate %d under-counts the real %d", est, exact)
	}
	if NewTokenCounter("gpt-4o").Count("") != 0 {
		t.Errorf("empty text costs tokens")
	}
}

func TestTokenCounterConcurrent(t *testing.T) {
	c := NewTokenCounter("gpt-4o")
	want := c.Count("Likes hotels with late checkout.")
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Go(func() {
			for j := 0; j < 200; j++ {
				if got := c.Count("Likes hotels with late checkout."); got != want {
					t.Errorf("count = %d, want %d", got, want)
				}
				c.Count(string(rune('a' + j%26)))
			}
		})
	}
	wg.Wait()
}
