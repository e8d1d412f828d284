package views

import (
	"bytes"
	"html"
	"net/url"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer"
	gmhtml "github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/util"
)

// chatMarkdown is the one Markdown renderer of the assistant's answers:
// CommonMark with GitHub's tables and strikethrough, a line break kept as
// a line break (the way people read a chat), and safeNodes in front of the
// stock HTML renderer. Raw HTML is never passed through (goldmark's unsafe
// mode stays off, and safeNodes shows it as text).
var chatMarkdown = goldmark.New(
	goldmark.WithExtensions(
		extension.NewTable(extension.WithTableCellAlignMethod(extension.TableCellAlignAttribute)),
		extension.Strikethrough,
	),
	goldmark.WithRendererOptions(
		gmhtml.WithHardWraps(),
		renderer.WithNodeRenderers(util.Prioritized(safeNodes{}, 100)),
	),
)

// ChatMarkdown renders an answer's Markdown as safe HTML with goldmark:
// HTML in the text is shown as text, links are kept only for http and https
// addresses (opened in a new tab with rel="noopener nofollow"), images
// become their description, headings are demoted below the page's own, and
// a table is wrapped so it scrolls sideways on its own on a narrow screen.
func ChatMarkdown(src string) string {
	src = strings.ReplaceAll(src, "\x00", "")
	var b bytes.Buffer
	if err := chatMarkdown.Convert([]byte(src), &b); err != nil {
		// Rendering into a buffer does not fail; if it ever did, the
		// escaped text is still a faithful answer.
		return "<p>" + html.EscapeString(src) + "</p>"
	}
	// Raw HTML never reaches the output, so every <table> here is the
	// renderer's own.
	out := strings.ReplaceAll(b.String(), "<table>", `<div class="table-scroll" tabindex="0"><table>`)
	out = strings.ReplaceAll(out, "</table>", "</table></div>")
	return strings.TrimSpace(out)
}

// safeNodes renders the node kinds that could carry markup or a script
// address: raw HTML as escaped text, links and autolinks checked for their
// scheme, images as text, headings at h3/h4 and tables in a scroll box.
type safeNodes struct{}

// RegisterFuncs implements renderer.NodeRenderer.
func (safeNodes) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindRawHTML, renderRawHTML)
	reg.Register(ast.KindHTMLBlock, renderHTMLBlock)
	reg.Register(ast.KindLink, renderLink)
	reg.Register(ast.KindAutoLink, renderAutoLink)
	reg.Register(ast.KindImage, renderImage)
	reg.Register(ast.KindHeading, renderHeading)
}

// webURL reports whether dest is an absolute http or https address.
func webURL(dest string) bool {
	u, err := url.Parse(strings.TrimSpace(dest))
	if err != nil || u.Host == "" {
		return false
	}
	s := strings.ToLower(u.Scheme)
	return s == "http" || s == "https"
}

func writeEscaped(w util.BufWriter, b []byte) { _, _ = w.WriteString(html.EscapeString(string(b))) }

func renderRawHTML(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if entering {
		segs := n.(*ast.RawHTML).Segments
		for i := 0; i < segs.Len(); i++ {
			s := segs.At(i)
			writeEscaped(w, s.Value(src))
		}
	}
	return ast.WalkSkipChildren, nil
}

func renderHTMLBlock(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	hb := n.(*ast.HTMLBlock)
	var text bytes.Buffer
	lines := hb.Lines()
	for i := 0; i < lines.Len(); i++ {
		s := lines.At(i)
		text.Write(s.Value(src))
	}
	if hb.HasClosure() {
		text.Write(hb.ClosureLine.Value(src))
	}
	_, _ = w.WriteString("<p>")
	_, _ = w.WriteString(strings.ReplaceAll(html.EscapeString(strings.TrimRight(text.String(), "\n")), "\n", "<br>\n"))
	_, _ = w.WriteString("</p>\n")
	return ast.WalkSkipChildren, nil
}

func openLink(w util.BufWriter, dest string) {
	_, _ = w.WriteString(`<a href="`)
	_, _ = w.WriteString(html.EscapeString(dest))
	_, _ = w.WriteString(`" rel="noopener nofollow" target="_blank">`)
}

func renderLink(w util.BufWriter, _ []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	dest := string(n.(*ast.Link).Destination)
	if !webURL(dest) {
		// Keep the words, show the address as text: nothing to click.
		if !entering {
			_, _ = w.WriteString(" (" + html.EscapeString(dest) + ")")
		}
		return ast.WalkContinue, nil
	}
	if entering {
		openLink(w, dest)
	} else {
		_, _ = w.WriteString("</a>")
	}
	return ast.WalkContinue, nil
}

func renderAutoLink(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	al := n.(*ast.AutoLink)
	label := string(al.Label(src))
	if al.AutoLinkType != ast.AutoLinkURL || !webURL(string(al.URL(src))) {
		_, _ = w.WriteString(html.EscapeString(label))
		return ast.WalkSkipChildren, nil
	}
	openLink(w, string(al.URL(src)))
	_, _ = w.WriteString(html.EscapeString(label))
	_, _ = w.WriteString("</a>")
	return ast.WalkSkipChildren, nil
}

// renderImage shows an image as its description: answers never load
// pictures from elsewhere (the CSP would refuse them anyway).
func renderImage(_ util.BufWriter, _ []byte, _ ast.Node, _ bool) (ast.WalkStatus, error) {
	return ast.WalkContinue, nil
}

func renderHeading(w util.BufWriter, _ []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	tag := "h4"
	if n.(*ast.Heading).Level <= 2 {
		tag = "h3"
	}
	if entering {
		_, _ = w.WriteString("<" + tag + ">")
	} else {
		_, _ = w.WriteString("</" + tag + ">\n")
	}
	return ast.WalkContinue, nil
}
