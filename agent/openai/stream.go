package openai

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"strings"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"concierge/agent"
)

// chunk is the part of a streamed Chat Completions chunk this provider
// reads. openai-go's own ChatCompletionChunk keeps every field's raw JSON
// and presence metadata; decoding each word of an answer into it was four
// fifths of a streamed call's CPU (BenchmarkStream). The call, its retries,
// its errors and the event framing stay openai-go's: only the chunks'
// JSON is read into this plainer shape.
type chunk struct {
	ID      string `json:"id"`
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			Content   string `json:"content"`
			Refusal   string `json:"refusal"`
			ToolCalls []struct {
				Index    int    `json:"index"`
				ID       string `json:"id"`
				Type     string `json:"type"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
}

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
// order cannot be part of this answer.
func (s *streamed) add(c *chunk, onDelta func(string)) error {
	if s.chunks > 0 && c.ID != s.id {
		return fmt.Errorf("chunk %d belongs to another completion", s.chunks)
	}
	s.id = c.ID
	s.chunks++
	if c.Usage != nil {
		s.usage = agent.Usage{PromptTokens: c.Usage.PromptTokens, CompletionTokens: c.Usage.CompletionTokens}
	}
	for i := range c.Choices {
		ch := &c.Choices[i]
		if ch.Index != 0 {
			continue // one choice is asked for; others are not the answer
		}
		if ch.Delta.Content != "" {
			s.content.WriteString(ch.Delta.Content)
			onDelta(ch.Delta.Content)
		}
		if ch.Delta.Refusal != "" {
			s.refusal.WriteString(ch.Delta.Refusal)
			onDelta(ch.Delta.Refusal) // shown as the answer, see answer.response
		}
		if ch.FinishReason != "" {
			s.finish = ch.FinishReason
		}
		for _, t := range ch.Delta.ToolCalls {
			if t.Index < 0 || t.Index > len(s.calls) || t.Index >= maxToolCalls {
				return fmt.Errorf("chunk %d has tool call %d after %d calls", s.chunks, t.Index, len(s.calls))
			}
			if t.Index == len(s.calls) {
				s.calls = append(s.calls, streamedCall{})
			}
			call := &s.calls[t.Index]
			call.id = cmp.Or(call.id, t.ID) // ids and types come once, in a call's first chunk
			call.typ = cmp.Or(call.typ, t.Type)
			call.name += t.Function.Name
			call.args.WriteString(t.Function.Arguments)
		}
	}
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
// and returns the gathered answer.
func (p *Provider) stream(ctx context.Context, params sdk.ChatCompletionNewParams, onDelta func(string)) (answer, error) {
	params.StreamOptions.IncludeUsage = sdk.Bool(true)
	var raw *http.Response
	err := p.client.Post(ctx, "chat/completions", params, &raw, option.WithJSONSet("stream", true))
	stream := ssestream.NewStream[chunk](ssestream.NewDecoder(raw), err)
	defer stream.Close()
	var s streamed
	for stream.Next() {
		c := stream.Current()
		if err := s.add(&c, onDelta); err != nil {
			return answer{}, &Error{Kind: KindUpstream, Message: msgInvalid, Retryable: true, err: err}
		}
	}
	if err := stream.Err(); err != nil {
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
