package fakeopenai_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"concierge/agent/openai/fakeopenai"
)

// post sends a raw chat completions body and returns the status and body.
func post(t *testing.T, url, body string) (int, string) {
	t.Helper()
	res, err := http.Post(url+"/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, string(b)
}

func TestStreamShape(t *testing.T) {
	fake := fakeopenai.New(t)
	fake.ToolCall("save_memory_note", `{"text":"Prefers aisle seats","scope":"durable"}`)
	status, body := post(t, fake.URL(), `{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}]}`)
	if status != http.StatusOK {
		t.Fatalf("status = %d: %s", status, body)
	}

	var events []string
	sc := bufio.NewScanner(strings.NewReader(body))
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			events = append(events, data)
		}
	}
	if events[len(events)-1] != "[DONE]" {
		t.Fatalf("last event = %q, want [DONE]", events[len(events)-1])
	}
	var args strings.Builder
	argChunks, usage, finish := 0, 0, ""
	for _, e := range events[:len(events)-1] {
		var c struct {
			Choices []struct {
				Delta struct {
					ToolCalls []struct {
						ID       string `json:"id"`
						Function struct {
							Arguments string `json:"arguments"`
						} `json:"function"`
					} `json:"tool_calls"`
				} `json:"delta"`
				FinishReason *string `json:"finish_reason"`
			} `json:"choices"`
			Usage *fakeopenai.Usage `json:"usage"`
		}
		if err := json.Unmarshal([]byte(e), &c); err != nil {
			t.Fatalf("event %q: %v", e, err)
		}
		if c.Usage != nil {
			usage++
		}
		for _, ch := range c.Choices {
			if ch.FinishReason != nil {
				finish = *ch.FinishReason
			}
			for _, tc := range ch.Delta.ToolCalls {
				if tc.Function.Arguments != "" {
					argChunks++
					args.WriteString(tc.Function.Arguments)
				}
			}
		}
	}
	if argChunks < 2 {
		t.Errorf("arguments came in %d chunks, want several", argChunks)
	}
	if got := args.String(); got != `{"text":"Prefers aisle seats","scope":"durable"}` {
		t.Errorf("arguments = %q", got)
	}
	if usage != 1 || finish != "tool_calls" {
		t.Errorf("usage chunks = %d, finish = %q; want 1 and tool_calls", usage, finish)
	}
}

func TestValidation(t *testing.T) {
	tests := []struct {
		name string
		body string
		want int
	}{
		{"fine", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, 200},
		{"content parts", `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]}`, 200},
		{"no model", `{"messages":[{"role":"user","content":"hi"}]}`, 400},
		{"tool without call", `{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"tool","tool_call_id":"x","content":"r"}]}`, 400},
		{"call without result", `{"model":"m","messages":[{"role":"assistant","tool_calls":[{"id":"x","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"user","content":"hi"}]}`, 400},
		{"stream_options without stream", `{"model":"m","stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}]}`, 400},
		{"tool_choice without tools", `{"model":"m","tool_choice":"auto","messages":[{"role":"user","content":"hi"}]}`, 400},
		{"json_object without json", `{"model":"m","response_format":{"type":"json_object"},"messages":[{"role":"user","content":"hi"}]}`, 400},
		{"not json", `{"model":`, 400},
		{"strict tool", `{"model":"m","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f","strict":true,"parameters":{"type":"object","additionalProperties":false,"required":["a"],"properties":{"a":{"type":["array","null"],"items":{"type":"string"}}}}}}]}`, 200},
		{"strict tool with an optional property", `{"model":"m","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f","strict":true,"parameters":{"type":"object","additionalProperties":false,"required":[],"properties":{"a":{"type":"string"}}}}}]}`, 400},
		{"strict tool with maxLength", `{"model":"m","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f","strict":true,"parameters":{"type":"object","additionalProperties":false,"required":["a"],"properties":{"a":{"type":"string","maxLength":9}}}}}]}`, 400},
		{"loose tool with maxLength", `{"model":"m","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f","strict":false,"parameters":{"type":"object","properties":{"a":{"type":"string","maxLength":9}}}}}]}`, 200},
		{"strict schema with an open nested object", `{"model":"m","messages":[{"role":"user","content":"hi"}],"response_format":{"type":"json_schema","json_schema":{"name":"x","strict":true,"schema":{"type":"object","additionalProperties":false,"required":["d"],"properties":{"d":{"type":"array","items":{"type":"object","required":[],"properties":{}}}}}}}}`, 400},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fake := fakeopenai.New(t)
			if got, body := post(t, fake.URL(), tc.body); got != tc.want {
				t.Errorf("status = %d, want %d (%s)", got, tc.want, body)
			}
			if n := len(fake.Requests()); n != 1 {
				t.Errorf("recorded %d requests, want 1 even when refused", n)
			}
		})
	}
}

func TestWrongPath(t *testing.T) {
	fake := fakeopenai.New(t)
	res, err := http.Post(strings.TrimSuffix(fake.URL(), "/v1")+"/chat/completions", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusNotFound {
		t.Errorf("status = %d, want 404 without the /v1 prefix", res.StatusCode)
	}
}

func TestQueueAndDelay(t *testing.T) {
	fake := fakeopenai.New(t)
	fake.Delay(100 * time.Millisecond)
	fake.Reply("first")
	fake.Reply("second")
	const req = `{"model":"m","messages":[{"role":"user","content":"hi"}]}`

	start := time.Now()
	_, first := post(t, fake.URL(), req)
	if d := time.Since(start); d < 100*time.Millisecond {
		t.Errorf("first answer after %v, want the 100ms delay", d)
	}
	if fake.Pending() != 1 {
		t.Errorf("pending = %d, want 1", fake.Pending())
	}
	start = time.Now()
	_, second := post(t, fake.URL(), req)
	if d := time.Since(start); d >= 100*time.Millisecond {
		t.Errorf("second answer after %v, want no delay", d)
	}
	_, third := post(t, fake.URL(), req)
	for i, c := range []struct{ body, want string }{{first, "first"}, {second, "second"}, {third, "ok"}} {
		if !strings.Contains(c.body, `"content":"`+c.want+`"`) {
			t.Errorf("answer %d = %s, want content %q", i, c.body, c.want)
		}
	}
}
