package offline

import (
	"regexp"
	"strings"
	"unicode"
)

// The languages the built-in model reads and answers in. Anything else is
// answered in English, saying which languages it speaks (langOther).
const (
	langEN    = "en"
	langES    = "es"
	langRU    = "ru"
	langOther = "other" // a script the model does not read: nothing is guessed from it
)

// spanishMarks are words that, in a Latin-script message, say Spanish
// rather than English; words both languages use ("me", "a", "no") are in
// neither list.
var spanishMarks = map[string]bool{
	"hola": true, "soy": true, "estoy": true, "quiero": true, "prefiero": true, "para": true, "gracias": true,
	"una": true, "un": true, "los": true, "las": true, "la": true, "el": true, "del": true, "al": true, "que": true,
	"por": true, "con": true, "sin": true, "mi": true, "mis": true, "y": true, "es": true, "en": true, "de": true,
	"necesito": true, "viajo": true, "siempre": true, "nunca": true, "tengo": true, "vivo": true, "gusta": true,
	"gustan": true, "encanta": true, "qué": true, "sabes": true, "sobre": true, "mí": true, "muy": true, "pero": true,
	"esta": true, "este": true, "vez": true, "viaje": true, "odio": true, "como": true, "bebo": true, "uso": true,
	"suelo": true, "ya": true, "más": true, "también": true, "mes": true, "año": true, "vamos": true,
	"somos": true, "nos": true, "le": true, "se": true, "lo": true, "o": true, "dónde": true, "cuándo": true,
}

var englishMarks = map[string]bool{
	"i": true, "i'm": true, "i'd": true, "i've": true, "my": true, "the": true, "and": true, "to": true, "is": true,
	"for": true, "of": true, "in": true, "want": true, "prefer": true, "what": true, "you": true, "please": true,
	"with": true, "on": true, "we": true, "our": true, "it": true, "at": true, "like": true, "this": true, "that": true,
	"do": true, "don't": true, "can": true, "have": true, "am": true, "are": true, "be": true, "hate": true, "need": true,
}

// messageLanguage says which language text is in: ru for Cyrillic, es or
// en for Latin script by the function words it uses and Spanish letters
// (ñ, accented vowels, ¿ ¡), other for a script the model does not read.
// fallback (the account's language, from the instructions) decides a
// message too short to tell.
func messageLanguage(text, fallback string) string {
	var latin, cyrillic, otherScript int
	for _, r := range text {
		switch {
		case !unicode.IsLetter(r):
		case unicode.Is(unicode.Latin, r):
			latin++
		case unicode.Is(unicode.Cyrillic, r):
			cyrillic++
		default:
			otherScript++
		}
	}
	switch {
	case latin+cyrillic+otherScript == 0:
		return orEnglish(fallback)
	case cyrillic >= latin && cyrillic >= otherScript:
		return langRU
	case otherScript > latin:
		return langOther
	}
	if strings.ContainsAny(text, "ñ¿¡Ñ") {
		return langES
	}
	es, en := 0, 0
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' && r != '/' }) { // "w/o" is no Spanish "o"
		switch {
		case spanishMarks[w]:
			es++
		case englishMarks[w]:
			en++
		case strings.ContainsAny(w, "áéíóú"):
			es++ // "mudé", "habitación"; a loanword ("café") is outvoted by English words
		}
	}
	switch {
	case es > en:
		return langES
	case en > es:
		return langEN
	}
	return orEnglish(fallback)
}

func orEnglish(lang string) string {
	if lang == langES || lang == langRU {
		return lang
	}
	return langEN
}

// reAccountLanguage finds the line of the instructions that names the
// account's language (memory/prompt writes it after the date).
var reAccountLanguage = regexp.MustCompile(`The account's language is [A-Za-z]+ \((en|es|ru)\)\.`)

// accountLanguage is the language of the traveler's account as the
// instructions state it, or "" when they do not: the fallback of
// messageLanguage for a message too short to tell.
func accountLanguage(instructions string) string {
	if m := reAccountLanguage.FindStringSubmatch(instructions); m != nil {
		return m[1]
	}
	return ""
}
