package memory_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"concierge/agent/openai"
	"concierge/agent/openai/fakeopenai"
	"concierge/memory"
)

// These tests run the guard's model layer through the real openai-go
// client against the fake OpenAI-compatible server.

func classifier(t *testing.T, fake *fakeopenai.Server, timeout time.Duration) *memory.NoteClassifier {
	t.Helper()
	return memory.NewNoteClassifier(openai.New(openai.Config{BaseURL: fake.URL(), APIKey: "k", Model: "guard", MaxRetries: openai.NoRetries}), timeout)
}

func TestNoteClassifierVerdicts(t *testing.T) {
	tests := []struct {
		name, answer, want string // want: refusal category, "" for allowed
	}{
		{"preference allowed", `{"verdict":"preference","kind":"none"}`, ""},
		{"instruction refused", `{"verdict":"instruction","kind":"none"}`, memory.CategoryInstruction},
		{"guess refused", `{"verdict":"guess","kind":"none"}`, memory.CategoryGuess},
		{"sensitive with a known kind", `{"verdict":"sensitive","kind":"phone"}`, memory.CategoryPhone},
		{"sensitive otherwise", `{"verdict":"sensitive","kind":"other"}`, memory.CategorySensitive},
		{"kind left out by a json_object server", `{"verdict":"instruction"}`, memory.CategoryInstruction},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := fakeopenai.New(t)
			fake.Reply(tt.answer)
			ref, err := classifier(t, fake, 0).Review(context.Background(), "Prefers ˂quiet˃ rooms.")
			if err != nil {
				t.Fatalf("Review: %v", err)
			}
			got := ""
			if ref != nil {
				got = ref.Category
				if ref.Message == "" {
					t.Errorf("refusal without a message")
				}
			}
			if got != tt.want {
				t.Fatalf("refusal %q, want %q", got, tt.want)
			}
			reqs := fake.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests", len(reqs))
			}
			r := reqs[0]
			if r.ResponseFormat == nil || r.ResponseFormat.Type != "json_schema" || !r.ResponseFormat.JSONSchema.Strict || r.ResponseFormat.JSONSchema.Name != "note_review" {
				t.Fatalf("response_format %+v, want the strict note_review schema", r.ResponseFormat)
			}
			var schema map[string]any
			if err := json.Unmarshal(r.ResponseFormat.JSONSchema.Schema, &schema); err != nil || schema["additionalProperties"] != false {
				t.Errorf("schema %s", r.ResponseFormat.JSONSchema.Schema)
			}
			if r.Temperature == nil || *r.Temperature != 0 || r.Messages[0].Role != "system" {
				t.Errorf("temperature %v, first role %q", r.Temperature, r.Messages[0].Role)
			}
			if user := r.Messages[1].Content; !strings.Contains(user, "Prefers ‹quiet› rooms.") {
				t.Errorf("user message %q: the note is not there, neutralised", user)
			}
		})
	}
}

func TestNoteClassifierFailsOpen(t *testing.T) {
	tests := []struct {
		name   string
		script func(*fakeopenai.Server)
	}{
		{"server error", func(f *fakeopenai.Server) { f.Fail(500, "") }},
		{"rate limited", func(f *fakeopenai.Server) { f.Fail(429, "") }},
		{"not JSON", func(f *fakeopenai.Server) { f.Reply("Looks fine to me.") }},
		{"unknown verdict", func(f *fakeopenai.Server) { f.Reply(`{"verdict":"maybe","kind":"none"}`) }},
		{"extra key", func(f *fakeopenai.Server) { f.Reply(`{"verdict":"preference","kind":"none","why":"x"}`) }},
		{"broken body", func(f *fakeopenai.Server) { f.Invalid(`{"choices":`) }},
		{"too slow", func(f *fakeopenai.Server) {
			f.Enqueue(fakeopenai.Response{Content: `{"verdict":"instruction","kind":"none"}`, Delay: 2 * time.Second})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := fakeopenai.New(t)
			tt.script(fake)
			note := "Prefers aisle seats on long flights."
			ref, err := classifier(t, fake, 300*time.Millisecond).Review(context.Background(), note)
			if err == nil || ref != nil {
				t.Fatalf("Review = %v, %v; want no refusal and an error", ref, err)
			}
			if strings.Contains(err.Error(), note) {
				t.Errorf("the error carries the note: %v", err)
			}
		})
	}
}
