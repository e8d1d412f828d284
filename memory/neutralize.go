package memory

import "concierge/memory/guard"

// Neutralize makes untrusted text (a note, a profile value) safe to place
// inside a block. It reads the text through the guard's normaliser (see
// Normalize), so look-alikes are caught as surely as the real thing:
// invisible format characters go; whitespace runs, newlines included,
// become one space; every angle bracket and every character that folds to
// one (˂ ‹ ⟨ ＜ ᐸ …) becomes a single guillemet, so no tag — </memories>,
// <memory_policy>, <system>, <|im_start|> — survives in any script; runs of
// three or more dashes (a front-matter marker) become one em dash; a role
// prefix such as "system:" or "ѕуѕtеm:" (or a section header, "SESSION:")
// loses its colon; code fences and "###" headings are flattened.
func Neutralize(s string) string {
	if isPlain(s) {
		return s // the common case: an ordinary sentence, nothing to do
	}
	return guard.Neutralize(s)
}

// isPlain reports whether s is printable ASCII with single inner spaces and
// none of the characters Neutralize rewrites.
func isPlain(s string) bool {
	if s == "" || s[0] == ' ' || s[len(s)-1] == ' ' {
		return s == ""
	}
	prevSpace := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c < 0x20 || c >= 0x7F:
			return false
		case c == '<' || c == '>' || c == ':' || c == '`' || c == '#' || c == '|' || c == '[':
			return false
		case c == '-' && i+1 < len(s) && s[i+1] == '-':
			return false
		case c == ' ':
			if prevSpace {
				return false
			}
			prevSpace = true
			continue
		}
		prevSpace = false
	}
	return true
}
