package views

import (
	"context"
	"math"
	"strconv"
	"strings"

	"concierge/views/locale"
)

// Chart geometry: every chart is drawn in a 560×220 SVG viewBox that
// scales with its container; coordinates are computed here so the template
// only draws (inline styles would break the content security policy).
const (
	chartW      = 560
	chartH      = 220
	chartLeft   = 56 // room for "0.75" at a phone's larger label size
	chartRight  = 12
	chartTop    = 14
	chartBottom = 30
)

// Tick is one axis label at a position in chart units.
type Tick struct {
	Pos    float64
	Label  string
	Anchor string // SVG text-anchor for x labels
	Minor  bool   // every other day label, left out on a phone where labels are larger
}

// Line is one series drawn as a polyline with dots.
type Line struct {
	Name, Class string
	Points      string
	Dots        []Dot
}

// Dot is one data point of a line, with its tooltip. An isolated dot (no
// neighbouring day has data, so no line reaches it) is drawn larger with its
// value written beside it.
type Dot struct {
	X, Y     float64
	Title    string
	Isolated bool
	Label    string
}

// Bar is one rectangle of a bar chart, with its tooltip.
type Bar struct {
	X, Y, W, H  float64
	Class       string
	Title       string
	Label       string // value shown above categorical bars
	LabelX      float64
	LabelY      float64
	ShowLabel   bool
	CategoryIdx int
}

// LegendItem names a series and its colour class.
type LegendItem struct {
	Name, Class string
}

// Chart is an inline SVG chart ready to draw.
type Chart struct {
	ID, Title, Help, Headline string
	W, H                      int
	Left, Right, Top, Bottom  float64
	YTicks, XTicks            []Tick
	Lines                     []Line
	Bars                      []Bar
	Legend                    []LegendItem
	Empty                     bool
}

// Series is one named row of values for a chart; NaN means "no data".
type Series struct {
	Name, Class string
	Values      []float64
}

// niceMax rounds v up to 1, 2 or 5 times a power of ten.
func niceMax(v float64) float64 {
	if v <= 0 || math.IsNaN(v) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if v <= m*p {
			return m * p
		}
	}
	return 10 * p
}

func fmtNum(v float64) string {
	if v == math.Trunc(v) {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	if v >= 10 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

// fmtTick writes a gridline value with the digits it has (0.25, 0.5, 2.5,
// 10): a step of 0.25 must not be labelled 0.2 and 0.8.
func fmtTick(v float64) string {
	return strconv.FormatFloat(math.Round(v*1e6)/1e6, 'f', -1, 64)
}

func newChart(id, title, help string) Chart {
	return Chart{ID: id, Title: title, Help: help, W: chartW, H: chartH,
		Left: chartLeft, Right: chartW - chartRight, Top: chartTop, Bottom: chartH - chartBottom}
}

// niceStep is a round tick step (1, 2, 2.5 or 5 times a power of ten) so
// that four steps cover v; counts never get fractional steps.
func niceStep(v float64, integer bool) float64 {
	raw := niceMax(v) / 4
	if v > 0 {
		raw = v / 4
	}
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	step := 10 * p
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if raw <= m*p+1e-9 {
			step = m * p
			break
		}
	}
	if integer && step < 1 {
		step = 1
	}
	if integer && step != math.Trunc(step) {
		step = math.Ceil(step)
	}
	return step
}

func (c *Chart) yAxis(maxV float64) func(float64) float64 {
	return c.yAxisInt(maxV, false)
}

func (c *Chart) yAxisInt(maxV float64, integer bool) func(float64) float64 {
	step := niceStep(maxV, integer)
	top := step * 4
	for i := 0; i <= 4; i++ {
		c.YTicks = append(c.YTicks, Tick{Pos: c.Bottom - (c.Bottom-c.Top)*float64(i)/4, Label: fmtTick(step * float64(i))})
	}
	return func(v float64) float64 { return c.Bottom - (c.Bottom-c.Top)*v/top }
}

// ChartWords are how a chart writes its days, its values and the headline
// of a chart with one day of data, in one language.
type ChartWords struct {
	Day  func(day string) string // YYYY-MM-DD, short: "Jan 2", "2 ene"
	Num  func(v float64) string
	Only func(day, values string) string
}

// EnglishChartWords are ChartWords in English, as written before the
// console spoke other languages.
func EnglishChartWords() ChartWords {
	return ChartWords{Day: dayLabel, Num: fmtNum, Only: func(day, values string) string {
		return "Only " + day + " has data so far: " + values + "."
	}}
}

// ChartWordsIn are ChartWords in the request's language.
func ChartWordsIn(ctx context.Context) ChartWords {
	l := locale.From(ctx)
	return ChartWords{
		Day: l.DayMonth,
		Num: func(v float64) string { return strings.ReplaceAll(fmtNum(v), ".", l.T("number.decimal")) },
		Only: func(day, values string) string {
			return l.T("health.only_day", "Day", day, "Values", values)
		},
	}
}

// dayLabel shortens YYYY-MM-DD to "Jan 2".
func dayLabel(day string) string {
	months := []string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}
	if len(day) != 10 {
		return day
	}
	m, _ := strconv.Atoi(day[5:7])
	d, _ := strconv.Atoi(day[8:10])
	if m < 1 || m > 12 {
		return day
	}
	return months[m-1] + " " + strconv.Itoa(d)
}

func (c *Chart) xDays(w ChartWords, days []string, x func(i int) float64) {
	step := max(1, len(days)/6)
	for n, i := 0, len(days)-1; i >= 0; n, i = n+1, i-step {
		anchor := "middle"
		if x(i) > c.Right-20 {
			anchor = "end"
		}
		c.XTicks = append(c.XTicks, Tick{Pos: x(i), Label: w.Day(days[i]), Anchor: anchor, Minor: n%2 == 1})
	}
}

// LineChart draws daily series as lines. A chart with data on one day only
// has no line to draw: it shows that day as labelled bars instead of lone
// dots, and says so in its headline.
func LineChart(w ChartWords, id, title, help string, days []string, unit string, series ...Series) Chart {
	c := newChart(id, title, help)
	maxV := 0.0
	any := false
	withData := map[int]bool{}
	for _, s := range series {
		for i, v := range s.Values {
			if !math.IsNaN(v) {
				any = true
				withData[i] = true
				maxV = math.Max(maxV, v)
			}
		}
	}
	c.Empty = !any
	if len(withData) == 1 {
		return oneDayChart(w, c, days, unit, maxV, series)
	}
	y := c.yAxis(maxV)
	n := max(len(days)-1, 1)
	x := func(i int) float64 { return c.Left + (c.Right-c.Left)*float64(i)/float64(n) }
	c.xDays(w, days, x)
	for _, s := range series {
		l := Line{Name: s.Name, Class: s.Class}
		var pts []string
		has := func(i int) bool { return i >= 0 && i < len(s.Values) && !math.IsNaN(s.Values[i]) }
		for i, v := range s.Values {
			if math.IsNaN(v) {
				continue
			}
			px, py := round1(x(i)), round1(y(v))
			pts = append(pts, fmtCoord(px)+","+fmtCoord(py))
			d := Dot{X: px, Y: py, Title: w.Day(days[i]) + ": " + w.Num(v) + unit}
			if !has(i-1) && !has(i+1) {
				d.Isolated, d.Label = true, w.Num(v)
			}
			l.Dots = append(l.Dots, d)
		}
		if len(pts) > 1 {
			l.Points = strings.Join(pts, " ")
		}
		c.Lines = append(c.Lines, l)
		c.Legend = append(c.Legend, LegendItem{Name: s.Name, Class: s.Class})
	}
	return c
}

// oneDayChart draws the one day that has data as a bar per series, each
// with its value, on the same time axis.
func oneDayChart(wd ChartWords, c Chart, days []string, unit string, maxV float64, series []Series) Chart {
	y := c.yAxis(maxV)
	slot := (c.Right - c.Left) / float64(max(len(days), 1))
	x := func(i int) float64 { return c.Left + slot*float64(i) + slot/2 }
	c.xDays(wd, days, x)
	w := math.Max(slot*0.7, 14) / float64(len(series))
	var parts []string
	for k, s := range series {
		for i, v := range s.Values {
			if math.IsNaN(v) {
				continue
			}
			left := math.Min(x(i)-w*float64(len(series))/2+w*float64(k), c.Right-w*float64(len(series)-k))
			top := y(v)
			c.Bars = append(c.Bars, Bar{X: round1(left), Y: round1(top), W: round1(w), H: round1(c.Bottom - top), Class: s.Class,
				Title: wd.Day(days[i]) + " · " + s.Name + ": " + wd.Num(v) + unit, Label: wd.Num(v),
				LabelX: round1(left + w/2), LabelY: round1(top - 4), ShowLabel: true})
			parts = append(parts, wd.Num(v)+unit)
			c.Headline = wd.Only(wd.Day(days[i]), strings.Join(parts, ", "))
		}
		c.Legend = append(c.Legend, LegendItem{Name: s.Name, Class: s.Class})
	}
	return c
}

// StackedBarChart draws daily series stacked as bars.
func StackedBarChart(w ChartWords, id, title, help string, days []string, series ...Series) Chart {
	c := newChart(id, title, help)
	totals := make([]float64, len(days))
	for _, s := range series {
		for i, v := range s.Values {
			if !math.IsNaN(v) {
				totals[i] += v
			}
		}
	}
	maxV := 0.0
	for _, t := range totals {
		maxV = math.Max(maxV, t)
	}
	c.Empty = maxV == 0
	y := c.yAxisInt(maxV, true)
	slot := (c.Right - c.Left) / float64(max(len(days), 1))
	x := func(i int) float64 { return c.Left + slot*float64(i) + slot/2 }
	c.xDays(w, days, x)
	base := make([]float64, len(days))
	for _, s := range series {
		for i, v := range s.Values {
			if math.IsNaN(v) || v == 0 {
				continue
			}
			top := y(base[i] + v)
			bottom := y(base[i])
			c.Bars = append(c.Bars, Bar{X: round1(x(i) - slot*0.35), Y: round1(top), W: round1(slot * 0.7), H: round1(bottom - top),
				Class: s.Class, Title: w.Day(days[i]) + " · " + s.Name + ": " + w.Num(v)})
			base[i] += v
		}
		c.Legend = append(c.Legend, LegendItem{Name: s.Name, Class: s.Class})
	}
	return c
}

// CategoryBarChart draws one bar per category with its value above it.
func CategoryBarChart(w ChartWords, id, title, help string, labels []string, values []float64, class string) Chart {
	c := newChart(id, title, help)
	maxV := 0.0
	for _, v := range values {
		maxV = math.Max(maxV, v)
	}
	c.Empty = maxV == 0
	y := c.yAxisInt(maxV, true)
	slot := (c.Right - c.Left) / float64(max(len(labels), 1))
	for i, v := range values {
		cx := c.Left + slot*float64(i) + slot/2
		top := y(v)
		c.Bars = append(c.Bars, Bar{X: round1(cx - slot*0.3), Y: round1(top), W: round1(slot * 0.6), H: round1(c.Bottom - top),
			Class: class, Title: labels[i] + ": " + w.Num(v), Label: w.Num(v), LabelX: round1(cx), LabelY: round1(top - 4), ShowLabel: true})
		c.XTicks = append(c.XTicks, Tick{Pos: round1(cx), Label: labels[i], Anchor: "middle"})
	}
	return c
}

func round1(v float64) float64 { return math.Round(v*10) / 10 }

func fmtCoord(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// F formats a chart coordinate for an SVG attribute.
func F(v float64) string { return fmtCoord(v) }

// HealthPage is the memory health dashboard.
type HealthPage struct {
	Since, Until string
	Stats        []KV
	Charts       []Chart
}
