// Package longchat keeps a long conversation within the model's window:
// Trim drops the oldest whole turns (never a tool call without its result),
// PlanSummary and the summary functions write what left the window into a
// short summary when that pays for itself, and the search_conversation tool
// (SearchTool, RankFragments, SearchResult) finds an earlier detail again.
// Like memory, it is pure: counts, dates and the model are passed in.
package longchat
