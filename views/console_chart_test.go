package views

import (
	"math"
	"testing"
)

func TestGridlineLabels(t *testing.T) {
	tests := []struct {
		name string
		max  float64
		want []string
	}{
		{"quarters", 1, []string{"0", "0.25", "0.5", "0.75", "1"}},
		{"halves", 2, []string{"0", "0.5", "1", "1.5", "2"}},
		{"tenths", 0.4, []string{"0", "0.1", "0.2", "0.3", "0.4"}},
		{"tens", 37, []string{"0", "10", "20", "30", "40"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := LineChart(EnglishChartWords(), "x", "X", "", []string{"2026-11-01", "2026-11-02"}, "", Series{Name: "s", Values: []float64{0, tt.max}})
			var got []string
			for _, tk := range c.YTicks {
				got = append(got, tk.Label)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("labels %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("labels %v, want %v", got, tt.want)
					break
				}
			}
		})
	}
}

func TestLineChartOneDayIsNotALoneDot(t *testing.T) {
	days := []string{"2026-11-28", "2026-11-29", "2026-11-30"}
	nan := math.NaN()
	c := LineChart(EnglishChartWords(), "w", "Writes", "", days, " per 100 turns", Series{Name: "writes", Class: "c0", Values: []float64{nan, nan, 7.5}})
	if len(c.Bars) != 1 || !c.Bars[0].ShowLabel || c.Bars[0].Label != "7.5" || c.Bars[0].H <= 0 {
		t.Fatalf("one day of data: bars %+v, want one labelled bar", c.Bars)
	}
	for _, l := range c.Lines {
		if len(l.Dots) != 0 {
			t.Errorf("one day of data still draws dots: %+v", l.Dots)
		}
	}
	if c.Headline != "Only Nov 30 has data so far: 7.5 per 100 turns." {
		t.Errorf("headline %q", c.Headline)
	}
	// Two days apart: each point stands alone, labelled, with no line.
	c = LineChart(EnglishChartWords(), "w", "Writes", "", days, "", Series{Name: "writes", Values: []float64{3, nan, 4}})
	if len(c.Lines) != 1 || len(c.Lines[0].Dots) != 2 || !c.Lines[0].Dots[0].Isolated || c.Lines[0].Dots[1].Label != "4" {
		t.Errorf("isolated days: %+v", c.Lines)
	}
	// Neighbouring days make a line.
	c = LineChart(EnglishChartWords(), "w", "Writes", "", days, "", Series{Name: "writes", Values: []float64{3, 5, nan}})
	if c.Lines[0].Points == "" || c.Lines[0].Dots[0].Isolated {
		t.Errorf("neighbouring days: %+v", c.Lines[0])
	}
}

func TestWording(t *testing.T) {
	for _, tt := range []struct{ got, want string }{
		{FieldLabel("seat_preference"), "Seat preference"},
		{FieldLabel("customer_id"), "Customer ID"},
		{FieldLabel("home_airport"), "Home airport"},
		{FieldLabel("name"), "Name"},
	} {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}
