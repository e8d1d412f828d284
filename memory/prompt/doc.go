// Package prompt renders a traveler's memory state into a turn's
// instructions: the base instructions and the tools they describe, the
// profile, the GLOBAL notes chosen within their token budget (SelectGlobal)
// and, once the history was trimmed, the SESSION notes, the summary and
// the precedence policy (BuildInstructions). Untrusted text goes in through
// memory.Neutralize. Like memory, it is pure.
package prompt
