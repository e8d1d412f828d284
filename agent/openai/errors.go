package openai

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"regexp"

	sdk "github.com/openai/openai-go/v3"
)

// The kinds of Error.
const (
	KindRateLimited = "rate_limited"
	KindUpstream    = "upstream"
	KindTimeout     = "timeout"
	KindBadRequest  = "bad_request"
	KindAuth        = "auth"
)

// Error is every failure of a model call, after the client's own retries.
// Its text never contains prompt or answer content.
type Error struct {
	// Kind is one of the Kind constants.
	Kind string
	// Status is the model server's HTTP status, or 0 when there was none.
	Status int
	// Message is safe to show to users.
	Message string
	// Retryable says whether the same call may succeed later.
	Retryable bool

	err error
}

// Error returns the kind, status and message.
func (e *Error) Error() string {
	if e.Status != 0 {
		return fmt.Sprintf("openai: %s (HTTP %d): %s", e.Kind, e.Status, e.Message)
	}
	return fmt.Sprintf("openai: %s: %s", e.Kind, e.Message)
}

// ErrorType is the failure's kind, a word without text, for traces.
func (e *Error) ErrorType() string { return e.Kind }

// Unwrap returns the client's error (an *openai.Error from openai-go for
// HTTP failures), for diagnostics.
func (e *Error) Unwrap() error { return e.err }

const (
	msgRateLimited = "The model service is busy (rate limited); try again in a moment."
	msgQuota       = "The model service's quota is exhausted."
	msgUpstream    = "The model service failed to answer; try again."
	msgInvalid     = "The model service sent an answer that could not be read; try again."
	msgTimeout     = "The model service did not answer in time; try again."
	msgAuth        = "The model service refused the configured API key."
	msgBadRequest  = "The model service rejected the request."
)

// safeCode matches the machine codes of API errors (context_length_exceeded,
// model_not_found…), which may be shown; free-text messages may quote input
// and are never copied.
var safeCode = regexp.MustCompile(`^[a-z0-9_.-]{1,64}$`)

// classify maps a failed call to an *Error. ctx is the call's context, raw
// the last HTTP response if any (its status survives bodies openai-go could
// not parse as an error object).
func classify(ctx context.Context, err error, raw *http.Response) error {
	status, code := 0, ""
	var apiErr *sdk.Error
	if errors.As(err, &apiErr) {
		status, code = apiErr.StatusCode, apiErr.Code
	} else if raw != nil && raw.StatusCode >= 400 {
		status = raw.StatusCode
	}
	switch {
	case status == http.StatusTooManyRequests && code == "insufficient_quota":
		return &Error{Kind: KindRateLimited, Status: status, Message: msgQuota, err: err}
	case status == http.StatusTooManyRequests:
		return &Error{Kind: KindRateLimited, Status: status, Message: msgRateLimited, Retryable: true, err: err}
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return &Error{Kind: KindAuth, Status: status, Message: msgAuth, err: err}
	case status == http.StatusRequestTimeout:
		return &Error{Kind: KindTimeout, Status: status, Message: msgTimeout, Retryable: true, err: err}
	case status >= 500:
		return &Error{Kind: KindUpstream, Status: status, Message: msgUpstream, Retryable: true, err: err}
	case status >= 400:
		msg := msgBadRequest
		if safeCode.MatchString(code) {
			msg = fmt.Sprintf("The model service rejected the request (%s).", code)
		}
		return &Error{Kind: KindBadRequest, Status: status, Message: msg, err: err}
	}
	if errors.Is(ctx.Err(), context.Canceled) {
		return fmt.Errorf("openai: %w", ctx.Err()) // the caller gave up; not the model's failure
	}
	var netErr net.Error
	if errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) ||
		errors.As(err, &netErr) && netErr.Timeout() {
		return &Error{Kind: KindTimeout, Message: msgTimeout, Retryable: true, err: err}
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) {
		return &Error{Kind: KindUpstream, Message: msgUpstream, Retryable: true, err: err}
	}
	return &Error{Kind: KindUpstream, Message: msgInvalid, Retryable: true, err: err}
}

// Explain says in plain words, for a traveler, why the call failed.
func (e *Error) Explain() string {
	switch e.Kind {
	case KindRateLimited:
		return "The AI service is busy right now."
	case KindTimeout:
		return "The AI service took too long to answer."
	case KindAuth:
		return "The AI service refused our credentials; an administrator has to fix the configuration."
	case KindBadRequest:
		return "The AI service could not handle this request."
	}
	return "The AI service is not answering right now."
}
