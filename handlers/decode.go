package handlers

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"
)

// decodeJSON reads a JSON request body into v, refusing unknown fields and
// trailing data, and answers 400, 413 or 415 with a clear message.
func decodeJSON(c echo.Context, v any) error {
	ct := c.Request().Header.Get(echo.HeaderContentType)
	if ct != "" && !strings.HasPrefix(ct, echo.MIMEApplicationJSON) {
		return newError(http.StatusUnsupportedMediaType, "unsupported_media_type", "Send the body as application/json.")
	}
	raw, err := io.ReadAll(c.Request().Body)
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return newError(http.StatusRequestEntityTooLarge, "too_large", "The request is too large.")
		}
		return newError(http.StatusBadRequest, "bad_json", "The request body could not be read.")
	}
	// encoding/json would quietly turn invalid UTF-8 into U+FFFD and
	// accept \u0000: refuse both, like every other input (rejectBadBytes).
	if !utf8.Valid(raw) {
		return errBadBytes("request body")
	}
	if hasNUL(raw) {
		return errBadBytes("request body")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		switch {
		case errors.Is(err, io.EOF):
			return newError(http.StatusBadRequest, "bad_json", "The request body is empty; send a JSON object.")
		default:
			return newError(http.StatusBadRequest, "bad_json", "The request body is not valid JSON: "+err.Error())
		}
	}
	if dec.More() {
		return newError(http.StatusBadRequest, "bad_json", "The request body has data after the JSON object.")
	}
	return nil
}

// hasNUL reports whether a JSON document holds a NUL character in any
// string (escaped as \u0000), key or value; malformed JSON is left to the
// decoder's own error.
func hasNUL(raw []byte) bool {
	if !bytes.Contains(raw, []byte(`\u0000`)) && bytes.IndexByte(raw, 0) < 0 {
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	for {
		tok, err := dec.Token()
		if err != nil {
			return bytes.IndexByte(raw, 0) >= 0
		}
		if s, ok := tok.(string); ok && strings.IndexByte(s, 0) >= 0 {
			return true
		}
	}
}
