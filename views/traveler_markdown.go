package views

import (
	"html"
	"regexp"
	"strconv"
	"strings"
)

// ChatMarkdown renders the small Markdown subset the assistant uses —
// paragraphs, line breaks, "#" headings, "-"/"*"/"1." lists, **bold**,
// *italic*, `code` and [links](https://…) — as safe HTML. The text is
// HTML-escaped before any markup is added, so nothing it contains can become
// a tag or an attribute; links are kept only for http and https addresses.
func ChatMarkdown(src string) string {
	src = strings.ReplaceAll(strings.ReplaceAll(src, "\r\n", "\n"), "\r", "\n")
	var b strings.Builder
	var para []string
	listTag := ""
	flushPara := func() {
		if len(para) > 0 {
			b.WriteString("<p>")
			for i, l := range para {
				if i > 0 {
					b.WriteString("<br>")
				}
				b.WriteString(mdInline(l))
			}
			b.WriteString("</p>")
			para = nil
		}
	}
	closeList := func() {
		if listTag != "" {
			b.WriteString("</" + listTag + ">")
			listTag = ""
		}
	}
	for _, line := range strings.Split(src, "\n") {
		trimmed := strings.TrimSpace(line)
		if trimmed == "" {
			flushPara()
			closeList()
			continue
		}
		if tag, item, ok := mdListItem(trimmed); ok {
			flushPara()
			if listTag != tag {
				closeList()
				b.WriteString("<" + tag + ">")
				listTag = tag
			}
			b.WriteString("<li>" + mdInline(item) + "</li>")
			continue
		}
		if level, text, ok := mdHeading(trimmed); ok {
			flushPara()
			closeList()
			tag := "h4"
			if level <= 2 {
				tag = "h3"
			}
			b.WriteString("<" + tag + ">" + mdInline(text) + "</" + tag + ">")
			continue
		}
		closeList()
		para = append(para, trimmed)
	}
	flushPara()
	closeList()
	return b.String()
}

var orderedItem = regexp.MustCompile(`^\d{1,3}[.)]\s+`)

func mdListItem(line string) (tag, item string, ok bool) {
	if strings.HasPrefix(line, "- ") || strings.HasPrefix(line, "* ") || strings.HasPrefix(line, "• ") {
		_, rest, _ := strings.Cut(line, " ")
		return "ul", strings.TrimSpace(rest), true
	}
	if m := orderedItem.FindString(line); m != "" {
		return "ol", strings.TrimSpace(line[len(m):]), true
	}
	return "", "", false
}

func mdHeading(line string) (int, string, bool) {
	level := 0
	for level < len(line) && line[level] == '#' {
		level++
	}
	if level == 0 || level > 6 || level >= len(line) || line[level] != ' ' {
		return 0, "", false
	}
	return level, strings.TrimSpace(line[level:]), true
}

var (
	mdCode   = regexp.MustCompile("`([^`]+)`")
	mdLink   = regexp.MustCompile(`\[([^\]]+)\]\(([^)\s]+)\)`)
	mdBold   = regexp.MustCompile(`\*\*([^*]+)\*\*`)
	mdItalic = regexp.MustCompile(`(^|[^*\w])\*([^*\s][^*]*?)\*`)
)

// mdInline renders inline markup of one escaped line. Code spans are set
// aside first so that their content is shown as written.
func mdInline(line string) string {
	s := html.EscapeString(strings.ReplaceAll(line, "\x00", ""))
	var codes []string
	s = mdCode.ReplaceAllStringFunc(s, func(m string) string {
		codes = append(codes, "<code>"+m[1:len(m)-1]+"</code>")
		return "\x00" + strconv.Itoa(len(codes)-1) + "\x00"
	})
	s = mdLink.ReplaceAllStringFunc(s, func(m string) string {
		parts := mdLink.FindStringSubmatch(m)
		text, href := parts[1], parts[2]
		// href is already escaped; check the scheme on the unescaped form.
		raw := strings.ToLower(html.UnescapeString(href))
		if !strings.HasPrefix(raw, "https://") && !strings.HasPrefix(raw, "http://") {
			return text + " (" + href + ")"
		}
		return `<a href="` + href + `" rel="noopener noreferrer" target="_blank">` + text + "</a>"
	})
	s = mdBold.ReplaceAllString(s, "<strong>$1</strong>")
	s = mdItalic.ReplaceAllString(s, "$1<em>$2</em>")
	for i, c := range codes {
		s = strings.Replace(s, "\x00"+strconv.Itoa(i)+"\x00", c, 1)
	}
	return s
}
