package handlers

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
)

// decodeJSON reads a JSON request body into v, refusing unknown fields and
// trailing data, and answers 400, 413 or 415 with a clear message.
func decodeJSON(c echo.Context, v any) error {
	ct := c.Request().Header.Get(echo.HeaderContentType)
	if ct != "" && !strings.HasPrefix(ct, echo.MIMEApplicationJSON) {
		return newError(http.StatusUnsupportedMediaType, "unsupported_media_type", "Send the body as application/json.")
	}
	dec := json.NewDecoder(c.Request().Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var tooLarge *http.MaxBytesError
		switch {
		case errors.As(err, &tooLarge):
			return newError(http.StatusRequestEntityTooLarge, "too_large", "The request is too large.")
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
