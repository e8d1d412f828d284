package openai

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"net/http"
	"strings"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/tidwall/gjson"

	"concierge/agent"
)

// maxToolCalls bounds the tool calls one streamed answer may carry, so a
// server sending a huge index cannot make the provider allocate for it.
const maxToolCalls = 128

// streamed gathers a streamed answer's first choice, chunk by chunk.
type streamed struct {
	id               string
	chunks           int
	content, refusal strings.Builder
	finish           string
	usage            agent.Usage
	calls            []streamedCall
}

type streamedCall struct {
	id, typ, name string
	args          strings.Builder
}

// add takes one chunk, passing its text to onDelta. A chunk of another
// completion (its id changes midway) or with a tool call index out of
// order cannot be part of this answer. The chunk is read with gjson, which
// finds these few fields by path without building the rest: openai-go's
// ChatCompletionChunk keeps every field's raw JSON and presence metadata,
// and decoding each word of an answer into it was four fifths of a
// streamed call's CPU (BenchmarkStream); a struct of the same fields
// through encoding/json still cost a third more than this.
func (s *streamed) add(c gjson.Result, onDelta func(string)) error {
	var id string
	var choices, usage gjson.Result
	c.ForEach(func(k, v gjson.Result) bool { // one pass over the chunk's keys
		switch k.Str {
		case "id":
			id = v.String()
		case "choices":
			choices = v
		case "usage":
			usage = v
		}
		return true
	})
	if s.chunks > 0 && id != s.id {
		return fmt.Errorf("chunk %d belongs to another completion", s.chunks)
	}
	s.id = id
	s.chunks++
	if usage.IsObject() {
		s.usage = agent.Usage{PromptTokens: int(usage.Get("prompt_tokens").Int()), CompletionTokens: int(usage.Get("completion_tokens").Int())}
	}
	var err error
	choices.ForEach(func(_, ch gjson.Result) bool {
		var index int64
		var delta gjson.Result
		ch.ForEach(func(k, v gjson.Result) bool {
			switch k.Str {
			case "index":
				index = v.Int()
			case "delta":
				delta = v
			case "finish_reason":
				if f := v.String(); f != "" && index == 0 {
					s.finish = f
				}
			}
			return true
		})
		if index != 0 {
			return true // one choice is asked for; others are not the answer
		}
		delta.ForEach(func(k, v gjson.Result) bool {
			switch k.Str {
			case "content", "refusal": // a refusal is shown as the answer, see answer.response
				if text := v.String(); text != "" {
					if k.Str == "content" {
						s.content.WriteString(text)
					} else {
						s.refusal.WriteString(text)
					}
					onDelta(text)
				}
			case "tool_calls":
				v.ForEach(func(_, t gjson.Result) bool {
					err = s.addCall(t)
					return err == nil
				})
			}
			return err == nil
		})
		return err == nil
	})
	return err
}

// addCall takes one tool call piece of a chunk.
func (s *streamed) addCall(t gjson.Result) error {
	i := int(t.Get("index").Int())
	if i < 0 || i > len(s.calls) || i >= maxToolCalls {
		return fmt.Errorf("chunk %d has tool call %d after %d calls", s.chunks, i, len(s.calls))
	}
	if i == len(s.calls) {
		s.calls = append(s.calls, streamedCall{})
	}
	call := &s.calls[i]
	call.id = cmp.Or(call.id, t.Get("id").String()) // ids and types come once, in a call's first chunk
	call.typ = cmp.Or(call.typ, t.Get("type").String())
	f := t.Get("function")
	call.name += f.Get("name").String()
	call.args.WriteString(f.Get("arguments").String())
	return nil
}

// answer returns what was gathered.
func (s *streamed) answer() answer {
	a := answer{content: s.content.String(), refusal: s.refusal.String(), finish: s.finish, usage: s.usage}
	for i := range s.calls {
		c := &s.calls[i]
		a.calls = append(a.calls, call{id: c.id, typ: c.typ, name: c.name, args: c.args.String()})
	}
	return a
}

// stream makes a streaming call, passing content to onDelta as it arrives,
// and returns the gathered answer. openai-go makes the call (retries,
// errors) and splits the events; each event's data is read here.
func (p *Provider) stream(ctx context.Context, params sdk.ChatCompletionNewParams, onDelta func(string)) (answer, error) {
	params.StreamOptions.IncludeUsage = sdk.Bool(true)
	var raw *http.Response
	if err := p.client.Post(ctx, "chat/completions", params, &raw, option.WithJSONSet("stream", true)); err != nil {
		if raw != nil && raw.Body != nil {
			raw.Body.Close()
		}
		return answer{}, classify(ctx, err, raw)
	}
	events := ssestream.NewDecoder(raw)
	if events == nil {
		return answer{}, &Error{Kind: KindUpstream, Message: msgInvalid, Retryable: true}
	}
	defer events.Close()
	invalid := func(err error) (answer, error) {
		return answer{}, &Error{Kind: KindUpstream, Message: msgInvalid, Retryable: true, err: err}
	}
	var s streamed
	for events.Next() {
		data := events.Event().Data
		if bytes.HasPrefix(data, []byte("[DONE]")) {
			break
		}
		if !gjson.ValidBytes(data) {
			return invalid(fmt.Errorf("chunk %d is not JSON", s.chunks))
		}
		c := gjson.ParseBytes(data)
		if c.Get("error").Exists() {
			// The server failed midway; its message may quote input, so
			// only the fact is kept.
			return answer{}, &Error{Kind: KindUpstream, Message: msgUpstream, Retryable: true,
				err: fmt.Errorf("error event after %d chunks", s.chunks)}
		}
		if err := s.add(c, onDelta); err != nil {
			return invalid(err)
		}
	}
	if err := events.Err(); err != nil {
		return answer{}, classify(ctx, err, raw)
	}
	if err := ctx.Err(); err != nil {
		return answer{}, classify(ctx, err, raw)
	}
	// A stream cut short ends like a finished one; only the missing
	// finish_reason tells them apart.
	if s.chunks == 0 || s.finish == "" {
		return answer{}, &Error{Kind: KindUpstream, Message: "The model service's answer was cut off.", Retryable: true}
	}
	return s.answer(), nil
}
