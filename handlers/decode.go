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
			return localError(http.StatusRequestEntityTooLarge, "too_large", "error.too_large")
		}
		return newError(http.StatusBadRequest, "bad_json", "The request body could not be read.")
	}
	// encoding/json would quietly turn invalid UTF-8 into U+FFFD and
	// accept \u0000: refuse both, like every other input (rejectBadBytes).
	if !utf8.Valid(raw) {
		return errBadBytes("request body")
	}
	if hasNUL(raw) || hasLoneSurrogate(raw) {
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

// hasLoneSurrogate reports whether a JSON document escapes a UTF-16
// surrogate that is not half of a pair ("\ud800" alone): encoding/json
// would store it as U+FFFD, which also splits a word past the guard.
func hasLoneSurrogate(raw []byte) bool {
	for i := 0; i+6 <= len(raw); i++ {
		if raw[i] != '\\' {
			continue
		}
		if raw[i+1] != 'u' {
			i++ // skip the escaped character
			continue
		}
		r, ok := hex4(raw[i+2 : i+6])
		if !ok {
			continue
		}
		switch {
		case r >= 0xD800 && r <= 0xDBFF:
			if i+12 <= len(raw) && raw[i+6] == '\\' && raw[i+7] == 'u' {
				if lo, ok := hex4(raw[i+8 : i+12]); ok && lo >= 0xDC00 && lo <= 0xDFFF {
					i += 11
					continue
				}
			}
			return true
		case r >= 0xDC00 && r <= 0xDFFF:
			return true
		}
		i += 5
	}
	return false
}

func hex4(b []byte) (rune, bool) {
	var r rune
	for _, c := range b {
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(d)
	}
	return r, true
}
