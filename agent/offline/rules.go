package offline

import (
	"regexp"
	"strings"
)

// A rule recognises one family of preferences in a normalised clause.
type rule func(cl string) []fact

// rules is every family the extractor knows, in the order notes are emitted.
var rules = []rule{
	allergyFacts, dietFacts, accessibilityFacts, seatFacts, cabinFacts,
	loyaltyFacts, airlineFacts, layoverFacts, timeOfDayFacts, baggageFacts,
	hotelStyleFacts, amenityFacts, neighbourhoodFacts, budgetFacts,
	companionFacts, carFacts, miscFacts,
}

func ruleFacts(cl string) []fact {
	var out []fact
	for _, r := range rules {
		out = append(out, r(cl)...)
	}
	return out
}

var negators = wordSet(`not no never without avoid avoids avoiding hate hates dislike dislikes skip over than nor none neither`)

// negatedAt reports whether the words just before position idx negate or
// disprefer what follows ("no red-eyes", "window over aisle", "rather than").
func negatedAt(s string, idx int) bool {
	prefix := s[:idx]
	// A negation does not reach past a comma: "not vegan, just vegetarian".
	if i := strings.LastIndexAny(prefix, ",;:"); i >= 0 {
		prefix = prefix[i+1:]
	}
	words := strings.Fields(prefix)
	if len(words) > 5 {
		words = words[len(words)-5:]
	}
	for _, w := range words {
		if negators[strings.Trim(w, ",.:;!-")] {
			return true
		}
	}
	tail := strings.Join(words, " ")
	return strings.Contains(tail, "cannot stand") || strings.Contains(tail, "instead of") ||
		strings.Contains(tail, "not a fan") || strings.Contains(tail, "rather not")
}

var reIndifferent = regexp.MustCompile(`\b(?:(?:do|does) not (?:mind|care|really mind|really care)|no (?:real |particular |strong )?preference|either (?:is|one is|way|works|are|will do)|(?:both|any|all) (?:are |is )?(?:fine|ok|okay|good)|whatever|not (?:fussy|picky|bothered)|(?:does|do) not matter|(?:is|are) fine either way|anything (?:is|works)|open to (?:anything|either|both))\b`)

func indifferent(s string) bool { return reIndifferent.MatchString(s) }

func one(kind, text string, kw ...string) []fact {
	return []fact{{kind: kind, text: text, keywords: kw}}
}

// --- diet and allergies ---

var (
	reAllergicTo   = regexp.MustCompile(`\b(?:allergic|anaphylactic) to ([a-z ,&'\-]+)`)
	reNounAllergy  = regexp.MustCompile(`\b([a-z]+(?: [a-z]+)?) (?:allergy|allergies|intolerance)\b`)
	reNoAllergy    = regexp.MustCompile(`\b(?:no (?:known |food )?allergies|not allergic|allergic to (?:nothing|anything)|no allergy)\b`)
	reSevere       = regexp.MustCompile(`\b(?:severe|severely|anaphylactic|epipen|epi-pen|life-threatening|deathly|seriously|serious)\b`)
	reListSep      = regexp.MustCompile(`\s*(?:,|\band\b|\bor\b|&|/)\s*`)
	allergenFiller = wordSet(`a an the all any most very really severe severely mild bad serious seriously food my some kind of kinds types certain also too slightly quite extremely deathly life-threatening`)
	allergenStop   = regexp.MustCompile(`\b(?:so|which|that|because|since|please|when|if|as|who|even|just|though|while|for)\b.*$`)
	allergenPlural = map[string]string{"peanut": "peanuts", "nut": "nuts", "tree nut": "tree nuts", "egg": "eggs", "cat": "cats", "dog": "dogs", "almond": "almonds", "cashew": "cashews", "walnut": "walnuts", "strawberry": "strawberries", "bee": "bee stings", "wasp": "wasp stings", "mushroom": "mushrooms", "tomato": "tomatoes", "kiwi": "kiwis", "pecan": "pecans", "hazelnut": "hazelnuts"}
	notAllergen    = wordSet(`food seasonal my the a an known no any severe nut-free life some pollen-free`)
)

func allergyFacts(cl string) []fact {
	if reNoAllergy.MatchString(cl) {
		return nil
	}
	var allergens []string
	if m := reAllergicTo.FindStringSubmatchIndex(cl); m != nil && !negatedAt(cl, m[0]) {
		list := allergenStop.ReplaceAllString(cl[m[2]:m[3]], "")
		for _, part := range reListSep.Split(list, -1) {
			allergens = append(allergens, cleanAllergen(part))
		}
	} else if m := reNounAllergy.FindStringSubmatchIndex(cl); m != nil && !negatedAt(cl, m[0]) && !strings.Contains(cl[m[0]:m[1]], "lactose") && !strings.Contains(cl[m[0]:m[1]], "gluten") {
		for _, part := range reListSep.Split(cl[m[2]:m[3]], -1) {
			allergens = append(allergens, cleanAllergen(part))
		}
	}
	severe := reSevere.MatchString(cl)
	var out []fact
	for _, a := range allergens {
		if a == "" || notAllergen[a] {
			continue
		}
		if p, ok := allergenPlural[a]; ok {
			a = p
		}
		text := "Is allergic to " + a + "."
		if severe {
			text = "Is severely allergic to " + a + "."
		}
		out = append(out, fact{kind: "allergy-" + a, text: text, tripText: text, keywords: []string{"allergy", strings.ReplaceAll(a, " ", "")}})
	}
	return out
}

func cleanAllergen(part string) string {
	var kept []string
	for _, w := range strings.Fields(part) {
		if !allergenFiller[w] {
			kept = append(kept, w)
		}
	}
	if len(kept) > 3 {
		kept = kept[:3]
	}
	return strings.Join(kept, " ")
}

var (
	reVegetarian = regexp.MustCompile(`\b(?:vegetarian|veggie)\b`)
	reVegan      = regexp.MustCompile(`\bvegan\b`)
	rePescatar   = regexp.MustCompile(`\bpesc[ae]tarian\b`)
	reHalal      = regexp.MustCompile(`\bhalal\b`)
	reKosher     = regexp.MustCompile(`\bkosher\b`)
	reGluten     = regexp.MustCompile(`\bgluten[- ]free\b|\bc(?:o)?eliac\b|\bgluten intoleran|\bcannot (?:eat|have|do) gluten\b|\bno gluten\b`)
	reCeliac     = regexp.MustCompile(`\bc(?:o)?eliac\b`)
	reLactose    = regexp.MustCompile(`\blactose[- ]intoleran|\blactose\b`)
	reDairy      = regexp.MustCompile(`\bdairy[- ]free\b|\b(?:no|cannot (?:eat|have|do)|do not (?:eat|have|do)|avoid) dairy\b`)
	reNoFood     = regexp.MustCompile(`\b(?:do not|does not|never|cannot|will not|no|avoid|stay away from|keep away from) (?:eat |eating |have |having |drink |drinking |touch )?(pork|beef|red meat|meat|seafood|fish|shellfish|alcohol|spicy food|raw fish|eggs)\b`)
	reNoDrink    = regexp.MustCompile(`\b(?:do not|never) drink\b(?: alcohol)?|\bteetotal(?:er|ler)?\b|\bsober\b`)
	reDiabetic   = regexp.MustCompile(`\bdiabetic\b|\bdiabetes\b`)
	reLowCarb    = regexp.MustCompile(`\bketo\b|\blow[- ]carb\b`)
)

// stated reports whether re matches cl outside a negation.
func stated(re *regexp.Regexp, cl string) bool {
	for _, m := range re.FindAllStringIndex(cl, -1) {
		if !negatedAt(cl, m[0]) {
			return true
		}
	}
	return false
}

// reDietTaste is liking a kind of food, which is not a dietary need.
var reDietTaste = regexp.MustCompile(`\b(?:like|likes|love|loves|enjoy|enjoys|try|trying)\b(?: \w+)? (?:vegetarian|vegan|halal|kosher|gluten-free) (?:food|dishes|options|restaurants|cuisine|places|meals)\b`)

func dietFacts(cl string) []fact {
	if reDietTaste.MatchString(cl) {
		return nil
	}
	var out []fact
	add := func(kind, text, trip string, kw ...string) {
		out = append(out, fact{kind: kind, text: text, tripText: trip, keywords: kw})
	}
	switch {
	case stated(reVegan, cl):
		add("diet-vegan", "Is vegan.", "Wants vegan meals on this trip.", "diet", "vegan")
	case stated(reVegetarian, cl):
		add("diet-vegetarian", "Is vegetarian.", "Wants vegetarian meals on this trip.", "diet", "vegetarian")
	case stated(rePescatar, cl):
		add("diet-pescatarian", "Is pescatarian.", "Wants pescatarian meals on this trip.", "diet", "pescatarian")
	}
	if stated(reHalal, cl) {
		add("diet-halal", "Eats only halal food.", "Wants halal meals on this trip.", "diet", "halal")
	}
	if stated(reKosher, cl) {
		add("diet-kosher", "Keeps kosher.", "Wants kosher meals on this trip.", "diet", "kosher")
	}
	if reGluten.MatchString(cl) {
		text := "Needs gluten-free food."
		if reCeliac.MatchString(cl) {
			text = "Has coeliac disease and needs gluten-free food."
		}
		add("diet-gluten", text, "Needs gluten-free meals on this trip.", "diet", "gluten")
	}
	if reLactose.MatchString(cl) && !negatedAt(cl, reLactose.FindStringIndex(cl)[0]) {
		add("diet-lactose", "Is lactose intolerant.", "Is lactose intolerant.", "diet", "lactose")
	} else if reDairy.MatchString(cl) {
		add("diet-dairy", "Avoids dairy.", "Wants dairy-free meals on this trip.", "diet", "dairy")
	}
	if m := reNoFood.FindStringSubmatch(cl); m != nil && !reAllergicTo.MatchString(cl) {
		item := m[1]
		if item == "alcohol" {
			add("diet-alcohol", "Does not drink alcohol.", "", "diet", "alcohol")
		} else if item == "meat" && len(out) == 0 {
			add("diet-meat", "Does not eat meat.", "Wants meat-free meals on this trip.", "diet", "meat")
		} else if item != "meat" {
			add("diet-"+item, "Does not eat "+item+".", "Wants meals without "+item+" on this trip.", "diet", strings.ReplaceAll(item, " ", ""))
		}
	} else if reNoDrink.MatchString(cl) {
		add("diet-alcohol", "Does not drink alcohol.", "", "diet", "alcohol")
	}
	if reDiabetic.MatchString(cl) && !strings.Contains(cl, "not diabetic") {
		add("diet-diabetic", "Is diabetic.", "Is diabetic.", "diet", "diabetic")
	}
	if reLowCarb.MatchString(cl) {
		add("diet-lowcarb", "Follows a low-carb diet.", "", "diet", "lowcarb")
	}
	return out
}

// --- accessibility ---

var accessRules = []struct {
	re       *regexp.Regexp
	kind     string
	text     string
	keywords []string
}{
	{regexp.MustCompile(`\bwheelchair\b`), "access-wheelchair", "Needs wheelchair assistance.", []string{"accessibility", "wheelchair"}},
	{regexp.MustCompile(`\bstep[- ]free\b|\bno (?:stairs|steps)\b|\bcannot (?:do|climb|manage|use) (?:the )?(?:stairs|steps)\b|\b(?:elevator|lift) access\b|\baccessible (?:room|bathroom|rooms)\b|\broll[- ]in shower\b|\bgrab bars\b`), "access-stepfree", "Needs step-free access.", []string{"accessibility", "stepfree"}},
	{regexp.MustCompile(`\b(?:limited|reduced|restricted) mobility\b|\bmobility (?:issues|problems|aid|scooter|impairment)\b|\bwalk(?:s)? with a (?:cane|stick|walker)\b|\bon crutches\b|\bcannot walk (?:far|long)\b`), "access-mobility", "Has limited mobility.", []string{"accessibility", "mobility"}},
	{regexp.MustCompile(`\b(?:deaf|hard of hearing|hearing[- ]impaired|hearing aids?)\b`), "access-hearing", "Has a hearing impairment.", []string{"accessibility", "hearing"}},
	{regexp.MustCompile(`\b(?:blind|visually impaired|low vision|partially sighted)\b`), "access-vision", "Has a visual impairment.", []string{"accessibility", "vision"}},
	{regexp.MustCompile(`\b(?:service|guide|assistance) (?:dog|animal)\b`), "access-servicedog", "Travels with a service dog.", []string{"accessibility", "servicedog"}},
	{regexp.MustCompile(`\b(?:special|airport|meet and) assist(?:ance)?\b`), "access-assist", "Needs special assistance at airports.", []string{"accessibility", "assistance"}},
}

func accessibilityFacts(cl string) []fact {
	var out []fact
	for _, r := range accessRules {
		if m := r.re.FindStringIndex(cl); m != nil && !negatedAt(cl, m[0]) {
			out = append(out, fact{kind: r.kind, text: r.text, keywords: r.keywords})
		} else if m != nil && r.kind == "access-stepfree" {
			out = append(out, fact{kind: r.kind, text: r.text, keywords: r.keywords})
		}
	}
	return out
}

// --- seats ---

var (
	reSeatWord    = regexp.MustCompile(`\b(aisle|window|middle)(?: seats?| side)?\b`)
	reSeatContext = regexp.MustCompile(`\b(?:seat|seats|sit|sitting|flight|flights|fly|flying|plane|row|sleep|nap|rest|legroom|cabin|aisle)\b`)
	reExitRow     = regexp.MustCompile(`\bexit rows?\b`)
	reLegroom     = regexp.MustCompile(`\b(?:extra|more) legroom\b|\blegroom\b`)
	reBulkhead    = regexp.MustCompile(`\bbulkhead\b`)
	reFrontPlane  = regexp.MustCompile(`\b(?:front of the (?:plane|cabin|aircraft)|near the front)\b`)
	reSitTogether = regexp.MustCompile(`\b(?:sit together|seats together|seated together|sit next to each other)\b`)
)

func seatFacts(cl string) []fact {
	if indifferent(cl) && (strings.Contains(cl, "aisle") || strings.Contains(cl, "window") || strings.Contains(cl, "seat")) {
		return nil
	}
	var out []fact
	pos := map[string]bool{}
	neg := map[string]bool{}
	for _, m := range reSeatWord.FindAllStringSubmatchIndex(cl, -1) {
		w := cl[m[2]:m[3]]
		if w == "window" && !reSeatContext.MatchString(cl) && len(strings.Fields(cl)) > 6 {
			continue
		}
		if negatedAt(cl, m[0]) {
			neg[w] = true
		} else {
			pos[w] = true
		}
	}
	switch {
	case pos["aisle"] && pos["window"]:
		// "aisle or window, just not middle": no single preference.
	case pos["aisle"]:
		out = append(out, fact{kind: "seat-aisle", text: "Prefers aisle seats.", tripText: "Wants an aisle seat on this trip.", keywords: []string{"seat", "aisle"}})
	case pos["window"]:
		out = append(out, fact{kind: "seat-window", text: "Prefers window seats.", tripText: "Wants a window seat on this trip.", keywords: []string{"seat", "window"}})
	case neg["window"] && !neg["aisle"]:
		out = append(out, fact{kind: "seat-nowindow", text: "Avoids window seats.", keywords: []string{"seat", "window"}})
	case neg["aisle"] && !neg["window"]:
		out = append(out, fact{kind: "seat-noaisle", text: "Avoids aisle seats.", keywords: []string{"seat", "aisle"}})
	}
	if neg["middle"] {
		out = append(out, fact{kind: "seat-nomiddle", text: "Avoids middle seats.", tripText: "Wants to avoid a middle seat on this trip.", keywords: []string{"seat", "middle"}})
	}
	if m := reExitRow.FindStringIndex(cl); m != nil && !negatedAt(cl, m[0]) {
		out = append(out, fact{kind: "seat-exit", text: "Prefers exit row seats.", tripText: "Wants an exit row seat on this trip.", keywords: []string{"seat", "exit"}})
	} else if m := reLegroom.FindStringIndex(cl); m != nil && !negatedAt(cl, m[0]) {
		out = append(out, fact{kind: "seat-legroom", text: "Wants seats with extra legroom.", keywords: []string{"seat", "legroom"}})
	}
	if m := reBulkhead.FindStringIndex(cl); m != nil && !negatedAt(cl, m[0]) {
		out = append(out, fact{kind: "seat-bulkhead", text: "Prefers bulkhead seats.", keywords: []string{"seat", "bulkhead"}})
	}
	if reFrontPlane.MatchString(cl) {
		out = append(out, fact{kind: "seat-front", text: "Prefers seats near the front of the plane.", keywords: []string{"seat", "front"}})
	}
	if reSitTogether.MatchString(cl) {
		out = append(out, fact{kind: "seat-together", text: "Wants to sit together with their travel companions.", keywords: []string{"seat", "together"}})
	}
	return out
}

// --- cabins ---

var (
	reBusiness  = regexp.MustCompile(`\bbusiness (?:class|cabin|seats?)\b|\b(?:fly|flying|flies|in|book|prefer) business\b(?: class)?|\blie[- ]?flat\b|\bflat[- ]?beds?\b`)
	reFirst     = regexp.MustCompile(`\bfirst class\b|\b(?:fly|flying) first\b`)
	rePremium   = regexp.MustCompile(`\bpremium economy\b|\bpremium cabin\b`)
	reEconomy   = regexp.MustCompile(`\b(?:economy|coach)\b`)
	reEconomyOK = regexp.MustCompile(`\b(?:economy|coach) (?:is|works|will do)(?: fine| ok| okay| good| perfectly fine| enough)?\b|\b(?:fine|ok|okay|happy) (?:with|in|flying) (?:economy|coach)\b`)
	reLongHaul  = regexp.MustCompile(`\blong[- ]?haul\b|\blong flights\b|\bovernight\b|\bintercontinental\b`)
	reCabinNeg  = regexp.MustCompile(`\b(?:cannot afford|too expensive|not worth|waste of money|overpriced)\b`)
)

func cabinFacts(cl string) []fact {
	if reCabinNeg.MatchString(cl) {
		return nil
	}
	suffix := ""
	if reLongHaul.MatchString(cl) {
		suffix = " on long-haul flights"
	}
	switch {
	case reFirst.MatchString(cl) && !negatedAt(cl, reFirst.FindStringIndex(cl)[0]):
		return []fact{{kind: "cabin", text: "Prefers first class" + suffix + ".", keywords: []string{"cabin", "first"}}}
	case reBusiness.MatchString(cl) && !negatedAt(cl, reBusiness.FindStringIndex(cl)[0]):
		return []fact{{kind: "cabin", text: "Prefers business class" + suffix + ".", keywords: []string{"cabin", "business"}}}
	case rePremium.MatchString(cl) && !negatedAt(cl, rePremium.FindStringIndex(cl)[0]):
		return []fact{{kind: "cabin", text: "Prefers premium economy" + suffix + ".", keywords: []string{"cabin", "premium"}}}
	case reEconomyOK.MatchString(cl):
		return []fact{{kind: "cabin", text: "Is happy flying economy.", tripText: "Is fine with economy on this trip.", keywords: []string{"cabin", "economy"}}}
	case reEconomy.MatchString(cl) && !negatedAt(cl, reEconomy.FindStringIndex(cl)[0]) && reFlyVerb.MatchString(cl):
		return []fact{{kind: "cabin", text: "Flies economy" + suffix + ".", tripText: "Wants economy on this trip.", keywords: []string{"cabin", "economy"}}}
	}
	return nil
}

var reFlyVerb = regexp.MustCompile(`\b(?:fly|flies|flying|prefer|book|stick|always|only|usually|go|class|seat)\b`)

// --- airlines and loyalty ---

const airlineNames = `united(?: airlines)?|delta(?: air lines)?|american airlines|southwest|jetblue|alaska(?: airlines)?|lufthansa|british airways|air france|klm|emirates|qatar(?: airways)?|singapore airlines|singapore|turkish(?: airlines)?|ana|all nippon|japan airlines|jal|cathay(?: pacific)?|qantas|air canada|ryanair|easyjet|indigo|air india|vistara|etihad|virgin atlantic|virgin|iberia|swiss|frontier|spirit(?: airlines)?|wizz ?air|finnair|sas|aer lingus|aeromexico|latam|avianca|copa|hawaiian(?: airlines)?|westjet|norwegian|tap|klm royal dutch`

var airlineDisplay = map[string]string{
	"united": "United", "delta": "Delta", "american": "American Airlines", "southwest": "Southwest", "jetblue": "JetBlue",
	"alaska": "Alaska Airlines", "lufthansa": "Lufthansa", "british airways": "British Airways", "air france": "Air France",
	"klm": "KLM", "emirates": "Emirates", "qatar": "Qatar Airways", "singapore": "Singapore Airlines", "turkish": "Turkish Airlines",
	"ana": "ANA", "all nippon": "ANA", "japan airlines": "Japan Airlines", "jal": "JAL", "cathay": "Cathay Pacific", "qantas": "Qantas",
	"air canada": "Air Canada", "ryanair": "Ryanair", "easyjet": "easyJet", "indigo": "IndiGo", "air india": "Air India",
	"vistara": "Vistara", "etihad": "Etihad", "virgin atlantic": "Virgin Atlantic", "virgin": "Virgin", "iberia": "Iberia",
	"swiss": "SWISS", "frontier": "Frontier", "spirit": "Spirit", "wizz air": "Wizz Air", "wizzair": "Wizz Air", "finnair": "Finnair",
	"sas": "SAS", "aer lingus": "Aer Lingus", "aeromexico": "Aeromexico", "latam": "LATAM", "avianca": "Avianca", "copa": "Copa",
	"hawaiian": "Hawaiian Airlines", "westjet": "WestJet", "norwegian": "Norwegian", "tap": "TAP",
}

var (
	reAirlinePos  = regexp.MustCompile(`\b(?:fly|flying|flies|fly with|flying with|prefer|prefer flying|go with|stick with|stick to|loyal to|book|use|choose|pick|love|like)\s+(?:only\s+|mostly\s+|always\s+|exclusively\s+)?(?:on\s+|with\s+)?(` + airlineNames + `|american)\b`)
	reAirlineIs   = regexp.MustCompile(`\b(` + airlineNames + `) (?:is|are) my (?:preferred|favou?rite|go-to|usual|airline of choice|first choice)|\bmy (?:preferred|favou?rite|go-to|usual) airline is (` + airlineNames + `|american)\b`)
	reAirlineFan  = regexp.MustCompile(`\b(?:loyal|regular|frequent|devoted|happy|faithful) (` + airlineNames + `) (?:flyer|flier|customer|passenger|fan)\b`)
	reAirlineOnly = regexp.MustCompile(`\b(` + airlineNames + `) (?:only|whenever possible|if possible|wherever possible|all the way)\b`)
	reAirlineNeg  = regexp.MustCompile(`\b(?:avoid|avoids|never fly|never fly with|hate|hate flying|do not fly|do not fly with|will not fly|refuse to fly|no more|not)\s+(?:with\s+|on\s+)?(` + airlineNames + `|american)\b`)
)

func airlineKey(name string) string {
	if _, ok := airlineDisplay[name]; ok {
		return name
	}
	if _, ok := programDisplay[name]; ok {
		return name
	}
	name = strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(name, " airlines"), " airways"), " air lines")
	name = strings.TrimSuffix(name, " pacific")
	if name == "american" || name == "klm royal dutch" {
		if name == "klm royal dutch" {
			return "klm"
		}
		return "american"
	}
	return name
}

func airlineFacts(cl string) []fact {
	if m := reAirlineNeg.FindStringSubmatch(cl); m != nil {
		k := airlineKey(m[1])
		return []fact{{kind: "airline-" + k, text: "Avoids flying " + display(k) + ".", keywords: []string{"airline", slug(k)}}}
	}
	var name string
	for _, re := range []*regexp.Regexp{reAirlineIs, reAirlinePos, reAirlineFan, reAirlineOnly} {
		if m := re.FindStringSubmatch(cl); m != nil {
			for _, g := range m[1:] {
				if g != "" {
					name = g
					break
				}
			}
			break
		}
	}
	if name == "" || reLoyaltyTier.MatchString(cl) {
		return nil
	}
	k := airlineKey(name)
	return []fact{{kind: "airline-" + k, text: "Prefers flying " + display(k) + ".", tripText: "Wants to fly " + display(k) + " on this trip.", keywords: []string{"airline", slug(k)}}}
}

func display(k string) string {
	if d, ok := airlineDisplay[k]; ok {
		return d
	}
	if d, ok := programDisplay[k]; ok {
		return d
	}
	return titleWords(k)
}

func slug(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, s)
}

func titleWords(s string) string {
	ws := strings.Fields(s)
	for i, w := range ws {
		switch {
		case len(w) <= 3 && (strings.ContainsAny(w, "0123456789") || w == "mvp" || w == "vip"):
			ws[i] = strings.ToUpper(w)
		default:
			ws[i] = strings.ToUpper(w[:1]) + w[1:]
		}
	}
	return strings.Join(ws, " ")
}

const programNames = airlineNames + `|american|marriott(?: bonvoy)?|bonvoy|hilton(?: honors)?|hyatt|world of hyatt|ihg|accor|all accor|star alliance|oneworld|skyteam|mileageplus|skymiles|aadvantage|flying blue|miles and more|avios|executive club|krisflyer|asia miles|velocity|aeroplan|rapid rewards|true blue|mileage plan|wyndham|radisson|four seasons|shangri-la`

const tierNames = `gold|silver|platinum|diamond|titanium|ambassador|globalist|explorist|discoverist|1k|premier(?: silver| gold| platinum| 1k)?|executive platinum|platinum pro|medallion|diamond medallion|platinum medallion|gold medallion|silver medallion|elite|sapphire|emerald|ruby|senator|frequent traveller|hon circle|million miler|a-list(?: preferred)?|mvp(?: gold)?(?: 75k| 100k)?|lifetime (?:gold|platinum|titanium)|pps|solitaire|black|red|blue|bronze|jade|concierge key`

var (
	reLoyaltyTier  = regexp.MustCompile(`\b(` + programNames + `) (` + tierNames + `)\b(?: status| member| elite| tier| card)?`)
	reLoyaltyTier2 = regexp.MustCompile(`\b(` + tierNames + `) (?:status |member |elite |tier |card )?(?:with|on|at|in|for) (` + programNames + `)\b`)
	reLoyaltyMemb  = regexp.MustCompile(`\b(?:member of|enrolled in|signed up (?:for|to)|collect|earn) (` + programNames + `)\b`)
	reStatusWord   = regexp.MustCompile(`\b(?:i am|i have|we have|have|hold|got|status|tier|level|member|elite)\b`)
)

var programDisplay = map[string]string{
	"marriott": "Marriott", "marriott bonvoy": "Marriott Bonvoy", "bonvoy": "Marriott Bonvoy", "hilton": "Hilton", "hilton honors": "Hilton Honors",
	"hyatt": "Hyatt", "world of hyatt": "World of Hyatt", "ihg": "IHG", "accor": "Accor", "all accor": "ALL Accor", "star alliance": "Star Alliance",
	"oneworld": "oneworld", "skyteam": "SkyTeam", "mileageplus": "MileagePlus", "skymiles": "SkyMiles", "aadvantage": "AAdvantage",
	"flying blue": "Flying Blue", "miles and more": "Miles & More", "avios": "Avios", "executive club": "Executive Club", "krisflyer": "KrisFlyer",
	"asia miles": "Asia Miles", "velocity": "Velocity", "aeroplan": "Aeroplan", "rapid rewards": "Rapid Rewards", "true blue": "TrueBlue",
	"mileage plan": "Mileage Plan", "wyndham": "Wyndham", "radisson": "Radisson", "four seasons": "Four Seasons", "shangri-la": "Shangri-La",
}

func loyaltyFacts(cl string) []fact {
	var prog, tier string
	if m := reLoyaltyTier.FindStringSubmatch(cl); m != nil && reStatusWord.MatchString(cl) {
		prog, tier = m[1], m[2]
	} else if m := reLoyaltyTier2.FindStringSubmatch(cl); m != nil {
		tier, prog = m[1], m[2]
	}
	if prog != "" {
		k := airlineKey(prog)
		text := "Has " + display(k) + " " + titleWords(tier) + " status."
		return []fact{{kind: "loyalty-" + k, text: text, tripText: text, keywords: []string{"loyalty", slug(k)}}}
	}
	if m := reLoyaltyMemb.FindStringSubmatch(cl); m != nil {
		k := airlineKey(m[1])
		text := "Is a " + display(k) + " member."
		if strings.Contains(cl, "collect") || strings.Contains(cl, "earn") {
			text = "Collects " + display(k) + " points."
		}
		return []fact{{kind: "loyalty-" + k, text: text, tripText: text, keywords: []string{"loyalty", slug(k)}}}
	}
	return nil
}

// --- layovers, red-eyes, time of day ---

var (
	reRedEye       = regexp.MustCompile(`\bred[- ]?eyes?\b|\bovernight flights?\b`)
	reRedEyeOK     = regexp.MustCompile(`\b(?:red[- ]?eyes?|overnight flights?) (?:are|is) (?:fine|ok|okay|great)|\b(?:like|love|prefer|happy with|fine with|do not mind) (?:the |a )?(?:red[- ]?eyes?|overnight flights?)`)
	reLayoverLong  = regexp.MustCompile(`\b(?:no|avoid|hate|not|without) (?:layovers?|connections?|stopovers?) (?:over|longer than|more than|above|exceeding|of more than|beyond) (\d+|one|two|three|four|five|six)(?: and a half)? ?(?:hours?|hrs?|h)\b|\b(?:layovers?|connections?|stopovers?) (?:under|shorter than|less than|below|of at most|no longer than|within) (\d+|one|two|three|four|five|six) ?(?:hours?|hrs?|h)\b`)
	reLongLayovers = regexp.MustCompile(`\b(?:no|avoid|hate|not|dislike|without) (?:very )?long (?:layovers?|connections?|stopovers?)\b|\blong (?:layovers?|connections?) (?:are|is) (?:a )?(?:no|terrible|awful|the worst|a dealbreaker)`)
	reMaxStops     = regexp.MustCompile(`\b(?:not|no|never)\b[^,]{0,20}\bmore than (one|1|two|2) (?:layover|stop|connection|stopover)s?\b|\b(?:max(?:imum)?(?: of)?|at most|no more than|only|up to|one|not more than) (one|1|two|2|a single) (?:layover|stop|connection|stopover)s?\b|\b(one|1|two|2) (?:layover|stop|connection)s? (?:max(?:imum)?|at most|tops)\b`)
	reDirect       = regexp.MustCompile(`\b(?:direct|nonstop|non-stop) (?:flights?|only|if possible|whenever possible|where possible|routes?|please)\b|\bno (?:layovers|connections|stops|stopovers)\b|\b(?:hate|avoid|dislike|do not like|do not do|cannot stand) (?:layovers|connections|stopovers|changing planes)\b|\bonly (?:fly )?(?:direct|nonstop)\b|\bfly direct\b|\bprefer (?:direct|nonstop)\b`)
	reTightConn    = regexp.MustCompile(`\b(?:tight|short|rushed) (?:connections?|layovers?)\b`)
	reLeaveIn      = regexp.MustCompile(`\bflights? (?:that |which )?(?:leave|leaves|depart|departs|go|goes) (?:in the |at )?(morning|afternoon|evening|night)\b`)
	reTimeOfDay    = regexp.MustCompile(`\b(early morning|morning|early|afternoon|midday|evening|late night|late|daytime|night) (?:flights?|departures?)\b`)
	reNotMorning   = regexp.MustCompile(`\bnot a morning person\b|\bhate (?:getting up|waking up) early\b`)
	reBeforeTime   = regexp.MustCompile(`\b(?:no|not|never|avoid|nothing) (?:flights? |departures? |leaving |departing )?(?:before|earlier than) (\d{1,2}(?::\d\d)? ?(?:am|pm)?|noon|dawn|sunrise)`)
	reArriveBy     = regexp.MustCompile(`\b(?:land|arrive|arriving|landing|get in)\w* (before|by|after|in the) (\d{1,2}(?::\d\d)? ?(?:am|pm)|noon|midnight|dark|nightfall|evening|afternoon|morning|lunch|dinner)`)
)

var reTimePref = regexp.MustCompile(`\b(?:prefer|prefers|like|likes|love|want|would like|only|always|usually|rather|best|go for|pick|choose)\b`)

var numWords = map[string]string{"1": "one", "2": "two", "3": "three", "4": "four", "5": "five", "6": "six", "a single": "one"}

func layoverFacts(cl string) []fact {
	var out []fact
	if m := reRedEye.FindStringIndex(cl); m != nil {
		if reRedEyeOK.MatchString(cl) {
			out = append(out, fact{kind: "redeye", text: "Is happy to take red-eye flights.", keywords: []string{"flight", "redeye"}})
		} else if negatedAt(cl, m[0]) || strings.Contains(cl, "cannot") || strings.Contains(cl, "do not") {
			out = append(out, fact{kind: "redeye", text: "Avoids red-eye flights.", keywords: []string{"flight", "redeye"}})
		}
	}
	if m := reLayoverLong.FindStringSubmatch(cl); m != nil {
		n := m[1] + m[2]
		if w, ok := numWords[n]; ok {
			n = w
		}
		unit := " hours"
		if n == "one" {
			unit = " hour"
		}
		out = append(out, fact{kind: "layover-long", text: "Avoids layovers longer than " + n + unit + ".", keywords: []string{"layover", "duration"}})
	} else if reLongLayovers.MatchString(cl) {
		out = append(out, fact{kind: "layover-long", text: "Avoids long layovers.", keywords: []string{"layover", "duration"}})
	} else if m := reMaxStops.FindStringSubmatch(cl); m != nil && !strings.Contains(cl, "at least") {
		n := strings.Join(m[1:], "")
		if w, ok := numWords[n]; ok {
			n = w
		}
		text := "Accepts at most one layover."
		if n == "two" {
			text = "Accepts at most two layovers."
		}
		out = append(out, fact{kind: "layover-max", text: text, keywords: []string{"layover", "stops"}})
	} else if reDirect.MatchString(cl) {
		out = append(out, fact{kind: "layover-direct", text: "Prefers direct flights.", keywords: []string{"flight", "direct"}})
	}
	if m := reTightConn.FindStringIndex(cl); m != nil && (negatedAt(cl, m[0]) || strings.Contains(cl, "stress")) {
		out = append(out, fact{kind: "layover-tight", text: "Avoids tight connections.", keywords: []string{"layover", "connection"}})
	}
	return out
}

func timeOfDayFacts(cl string) []fact {
	if m := reBeforeTime.FindStringSubmatch(cl); m != nil {
		t := strings.ReplaceAll(m[1], " ", "")
		return []fact{{kind: "time-before", text: "Avoids flights before " + t + ".", keywords: []string{"flight", "time"}}}
	}
	if reNotMorning.MatchString(cl) {
		return []fact{{kind: "time", text: "Avoids early morning flights.", keywords: []string{"flight", "morning"}}}
	}
	if m := reLeaveIn.FindStringSubmatch(cl); m != nil && reTimePref.MatchString(cl) && !strings.Contains(cl, "not") {
		return []fact{{kind: "time", text: "Prefers " + m[1] + " flights.", keywords: []string{"flight", m[1]}}}
	}
	if m := reTimeOfDay.FindStringSubmatchIndex(cl); m != nil {
		when := cl[m[2]:m[3]]
		if when == "early" {
			when = "early morning"
		}
		kw := strings.Fields(when)[len(strings.Fields(when))-1]
		if when == "late" || when == "late night" {
			kw = "night"
		}
		if negatedAt(cl, m[0]) {
			return []fact{{kind: "time", text: "Avoids " + when + " flights.", keywords: []string{"flight", kw}}}
		}
		// "early flight tomorrow" is a circumstance, not a preference.
		if reTimePref.MatchString(cl) {
			return []fact{{kind: "time", text: "Prefers " + when + " flights.", keywords: []string{"flight", kw}}}
		}
	}
	if m := reArriveBy.FindStringSubmatch(cl); m != nil {
		return []fact{{kind: "time-arrive", text: "Likes to arrive " + m[1] + " " + strings.ReplaceAll(m[2], " ", "") + ".", keywords: []string{"flight", "arrival"}}}
	}
	return nil
}

// --- baggage ---

var (
	reCarryOn   = regexp.MustCompile(`\bcarry[- ]?on(?:s)?(?: only| bags?| luggage| suitcase)?\b|\bhand luggage\b|\bcabin (?:bag|baggage|luggage)\b|\btravel light\b|\b(?:never|do not|rarely) check (?:a |my |any |in )?(?:bags?|luggage|suitcases?)\b|\bno checked (?:bags?|luggage|baggage)\b|\bwithout (?:a )?checked (?:bags?|luggage)\b|\bonly (?:a )?backpack\b|\bbackpack only\b`)
	reChecked   = regexp.MustCompile(`\b(?:always|usually|normally|need to|will|have to|i) check (?:a |one |two |my |in )?(?:bags?|luggage|suitcases?)\b|\b(?:need|want|bring|have) (?:a |one |two |2 )?checked (?:bags?|luggage|baggage)\b`)
	reShortTrip = regexp.MustCompile(`\b(?:on|for) (short trips|weekend trips|trips (?:under|shorter than|of less than|of under) [a-z0-9 ]+?|business trips)(?:$|[,.]| and| but)`)
)

func baggageFacts(cl string) []fact {
	if m := reCarryOn.FindStringIndex(cl); m != nil && !strings.Contains(cl, "carry-on is fine") {
		cond := ""
		if c := reShortTrip.FindStringSubmatch(cl); c != nil {
			cond = " on " + strings.TrimSpace(c[1])
		}
		if strings.Contains(cl[max(0, m[0]-12):m[0]], "not ") && !strings.Contains(cl[m[0]:m[1]], "check") {
			return nil
		}
		return []fact{{kind: "bag", text: "Travels with carry-on only" + cond + ".", tripText: "Is travelling carry-on only on this trip.", keywords: []string{"baggage", "carryon"}}}
	}
	if m := reChecked.FindStringIndex(cl); m != nil && !negatedAt(cl, m[0]) {
		return []fact{{kind: "bag", text: "Usually checks a bag.", tripText: "Needs a checked bag on this trip.", keywords: []string{"baggage", "checked"}}}
	}
	return nil
}

// --- hotels ---

var (
	reBoutique    = regexp.MustCompile(`\bboutique\b`)
	reChain       = regexp.MustCompile(`\b(?:big |large |international |generic |corporate )?(?:chain hotels?|hotel chains?|chains)\b`)
	reRental      = regexp.MustCompile(`\b(?:airbnbs?|apartment rentals?|vacation rentals?|holiday rentals?|holiday lets?|serviced apartments?|apartments?)\b`)
	reHostel      = regexp.MustCompile(`\bhostels?\b`)
	reLuxury      = regexp.MustCompile(`\b(?:luxury|five[- ]star|5[- ]star|upscale) (?:hotels?|resorts?|places|stays?)\b`)
	reBnB         = regexp.MustCompile(`\b(?:bed and breakfasts?|b&bs?|guesthouses?|guest houses?)\b`)
	reAllIncl     = regexp.MustCompile(`\ball[- ]inclusive\b`)
	reIndependent = regexp.MustCompile(`\b(?:independent|family[- ]run|small) (?:hotels?|places|inns?)\b`)
)

func hotelStyleFacts(cl string) []fact {
	if indifferent(cl) {
		return nil
	}
	var out []fact
	boutique := reBoutique.FindStringIndex(cl)
	chain := reChain.FindStringIndex(cl)
	switch {
	case boutique != nil && !negatedAt(cl, boutique[0]) && chain != nil && negatedAt(cl, chain[0]):
		out = append(out, fact{kind: "hotel-style", text: "Prefers boutique hotels over big chains.", keywords: []string{"hotel", "boutique"}})
	case boutique != nil && !negatedAt(cl, boutique[0]):
		out = append(out, fact{kind: "hotel-style", text: "Prefers boutique hotels.", keywords: []string{"hotel", "boutique"}})
	case chain != nil && negatedAt(cl, chain[0]):
		out = append(out, fact{kind: "hotel-chain", text: "Avoids big chain hotels.", keywords: []string{"hotel", "chain"}})
	case chain != nil && !strings.Contains(cl, "supply chain"):
		out = append(out, fact{kind: "hotel-chain", text: "Prefers chain hotels.", tripText: "Wants a chain hotel on this trip.", keywords: []string{"hotel", "chain"}})
	}
	if m := reRental.FindStringIndex(cl); m != nil && (reStayVerb.MatchString(cl) || negatedAt(cl, m[0])) {
		if negatedAt(cl, m[0]) {
			out = append(out, fact{kind: "lodging-rental", text: "Avoids apartment rentals.", keywords: []string{"lodging", "apartment"}})
		} else {
			out = append(out, fact{kind: "lodging-rental", text: "Prefers apartment rentals.", tripText: "Wants an apartment rental on this trip.", keywords: []string{"lodging", "apartment"}})
		}
	}
	if m := reHostel.FindStringIndex(cl); m != nil {
		if negatedAt(cl, m[0]) {
			out = append(out, fact{kind: "lodging-hostel", text: "Avoids hostels.", keywords: []string{"lodging", "hostel"}})
		} else if reStayVerb.MatchString(cl) {
			out = append(out, fact{kind: "lodging-hostel", text: "Likes staying in hostels.", keywords: []string{"lodging", "hostel"}})
		}
	}
	if m := reLuxury.FindStringIndex(cl); m != nil && !negatedAt(cl, m[0]) {
		out = append(out, fact{kind: "hotel-luxury", text: "Prefers luxury hotels.", keywords: []string{"hotel", "luxury"}})
	}
	if m := reBnB.FindStringIndex(cl); m != nil && !negatedAt(cl, m[0]) {
		out = append(out, fact{kind: "lodging-bnb", text: "Likes bed and breakfasts.", keywords: []string{"lodging", "bnb"}})
	}
	if m := reAllIncl.FindStringIndex(cl); m != nil && !negatedAt(cl, m[0]) {
		out = append(out, fact{kind: "hotel-allinclusive", text: "Prefers all-inclusive resorts.", keywords: []string{"hotel", "allinclusive"}})
	}
	if m := reIndependent.FindStringIndex(cl); m != nil && !negatedAt(cl, m[0]) && boutique == nil {
		out = append(out, fact{kind: "hotel-independent", text: "Prefers small independent hotels.", keywords: []string{"hotel", "independent"}})
	}
	return out
}

var reStayVerb = regexp.MustCompile(`\b(?:stay|stays|staying|prefer|like|love|book|rent|always|usually|only|want|need|choose|go for|pick|be)\b`)

var amenityRules = []struct {
	re       *regexp.Regexp
	kind     string
	text     string
	trip     string
	keywords []string
}{
	{regexp.MustCompile(`\b(?:gym|fitness (?:center|centre|room)|workout room)\b`), "amen-gym", "Wants hotels with a gym.", "Wants a hotel with a gym on this trip.", []string{"hotel", "gym"}},
	{regexp.MustCompile(`\b(?:swimming )?pool\b`), "amen-pool", "Wants hotels with a pool.", "Wants a hotel with a pool on this trip.", []string{"hotel", "pool"}},
	{regexp.MustCompile(`\bspa\b`), "amen-spa", "Likes hotels with a spa.", "Wants a hotel with a spa on this trip.", []string{"hotel", "spa"}},
	{regexp.MustCompile(`\bquiet (?:room|rooms|floor|side)\b|\baway from (?:the )?(?:elevators?|lifts?|street|noise|ice machine|bar)\b|\blight sleeper\b|\bquiet\b.*\broom\b`), "amen-quiet", "Prefers quiet hotel rooms.", "Wants a quiet room on this trip.", []string{"hotel", "quiet"}},
	{regexp.MustCompile(`\b(?:high|higher|upper|top) floors?\b`), "amen-high", "Prefers high floors.", "Wants a high floor on this trip.", []string{"hotel", "floor", "high"}},
	{regexp.MustCompile(`\b(?:low|lower|ground) floors?\b|\bground[- ]floor\b`), "amen-low", "Prefers low floors.", "Wants a low floor on this trip.", []string{"hotel", "floor", "low"}},
	{regexp.MustCompile(`\bking(?:[- ]size| sized|-sized)? beds?\b`), "amen-king", "Prefers a king bed.", "Wants a king bed on this trip.", []string{"hotel", "bed", "king"}},
	{regexp.MustCompile(`\btwin beds?\b|\btwo beds\b|\bseparate beds\b`), "amen-twin", "Prefers twin beds.", "Wants twin beds on this trip.", []string{"hotel", "bed", "twin"}},
	{regexp.MustCompile(`\bbreakfast (?:included|inclusive)\b|\binclud\w* breakfast\b|\bwith breakfast\b|\bfree breakfast\b`), "amen-breakfast", "Wants breakfast included.", "Wants breakfast included on this trip.", []string{"hotel", "breakfast"}},
	{regexp.MustCompile(`\b(?:good|fast|reliable|free|strong|decent) (?:wifi|wi-fi|internet)\b|\bneed (?:wifi|wi-fi|internet)\b`), "amen-wifi", "Needs reliable wifi.", "Needs reliable wifi on this trip.", []string{"hotel", "wifi"}},
	{regexp.MustCompile(`\bkitchen(?:ette)?\b`), "amen-kitchen", "Wants accommodation with a kitchen.", "Wants a place with a kitchen on this trip.", []string{"lodging", "kitchen"}},
	{regexp.MustCompile(`\bnon[- ]?smoking\b`), "amen-nonsmoking", "Wants non-smoking rooms.", "Wants a non-smoking room on this trip.", []string{"hotel", "nonsmoking"}},
	{regexp.MustCompile(`\b(?:free |on-?site |hotel )?parking\b`), "amen-parking", "Needs parking at the hotel.", "Needs hotel parking on this trip.", []string{"hotel", "parking"}},
	{regexp.MustCompile(`\bpet[- ]friendly\b`), "amen-pets", "Needs pet-friendly places.", "Needs pet-friendly places on this trip.", []string{"lodging", "pets"}},
	{regexp.MustCompile(`\b(?:room with a view|sea view|ocean view|city view|views?)\b`), "amen-view", "Likes rooms with a view.", "Wants a room with a view on this trip.", []string{"hotel", "view"}},
	{regexp.MustCompile(`\blate check-?out\b`), "amen-checkout", "Likes late checkout.", "Wants late checkout on this trip.", []string{"hotel", "checkout"}},
	{regexp.MustCompile(`\bbalcony\b`), "amen-balcony", "Likes rooms with a balcony.", "Wants a room with a balcony on this trip.", []string{"hotel", "balcony"}},
	{regexp.MustCompile(`\b(?:bath ?tub|bath)\b`), "amen-bath", "Likes rooms with a bathtub.", "Wants a room with a bathtub on this trip.", []string{"hotel", "bathtub"}},
}

var reAmenityNeed = regexp.MustCompile(`\b(?:need|needs|want|wants|prefer|prefers|like|likes|love|must|always|require|insist|has to|have to|with|important|essential|please|ask for|request|only|a must|non-negotiable|light sleeper)\b`)

func amenityFacts(cl string) []fact {
	if !reAmenityNeed.MatchString(cl) && len(strings.Fields(cl)) > 4 {
		return nil
	}
	var out []fact
	for _, r := range amenityRules {
		m := r.re.FindStringIndex(cl)
		if m == nil || negatedAt(cl, m[0]) && r.kind != "amen-nonsmoking" {
			continue
		}
		if r.kind == "amen-pool" && strings.Contains(cl, "car pool") {
			continue
		}
		if r.kind == "amen-view" && !strings.Contains(cl, "room") && !strings.Contains(cl, "sea") && !strings.Contains(cl, "ocean") && !strings.Contains(cl, "hotel") {
			continue
		}
		if r.kind == "amen-bath" && !strings.Contains(cl, "tub") && !strings.Contains(cl, "room") {
			continue
		}
		text := r.text
		if r.kind == "amen-quiet" && strings.Contains(cl, "light sleeper") {
			text = "Is a light sleeper and prefers quiet hotel rooms."
		}
		out = append(out, fact{kind: r.kind, text: text, tripText: r.trip, keywords: r.keywords})
	}
	return out
}

var (
	reCentral  = regexp.MustCompile(`\b(?:central|centrally|city cent(?:er|re)|downtown|in the cent(?:er|re)|heart of (?:the )?(?:city|town))\b`)
	reWalkable = regexp.MustCompile(`\b(?:walkable|walking distance|walk everywhere|on foot|walk to)\b`)
	reBeach    = regexp.MustCompile(`\b(?:near|close to|by|on|next to) the (?:beach|sea|ocean|water)\b|\bbeach(?:front|side)\b|\bbeach access\b|\boceanfront\b|\bseafront\b`)
	reOldTown  = regexp.MustCompile(`\bold (?:town|city|quarter)\b|\bhistoric (?:centre|center|district|quarter)\b`)
	reQuietNbh = regexp.MustCompile(`\bquiet (?:area|areas|neighbou?rhoods?|streets?|part of town|locations?|districts?|residential)\b`)
	reTransit  = regexp.MustCompile(`\b(?:near|close to|next to|by|walking distance (?:to|from)) (?:the |a )?(?:metro|subway|underground|train station|station|public transport|public transit|transit|tube|u-bahn)\b`)
	reAirport  = regexp.MustCompile(`\b(?:near|close to|next to|by) the airport\b|\bairport hotels?\b`)
	reNightlif = regexp.MustCompile(`\b(?:away from|not near|far from) (?:the )?(?:nightlife|party|bars|clubs|tourist)`)
)

func neighbourhoodFacts(cl string) []fact {
	var out []fact
	c := reCentral.FindStringIndex(cl)
	w := reWalkable.FindStringIndex(cl)
	central := c != nil && !negatedAt(cl, c[0]) && !strings.Contains(cl, "central air")
	walk := w != nil && !negatedAt(cl, w[0])
	switch {
	case central && walk:
		out = append(out, fact{kind: "nbh-central", text: "Prefers central, walkable neighbourhoods.", tripText: "Wants to stay somewhere central and walkable on this trip.", keywords: []string{"neighbourhood", "central", "walkable"}})
	case central && reStayVerb.MatchString(cl) || central && len(strings.Fields(cl)) <= 5:
		out = append(out, fact{kind: "nbh-central", text: "Prefers staying in central neighbourhoods.", tripText: "Wants to stay somewhere central on this trip.", keywords: []string{"neighbourhood", "central"}})
	case walk && (reStayVerb.MatchString(cl) || strings.Contains(cl, "neighbo") || strings.Contains(cl, "area")):
		out = append(out, fact{kind: "nbh-walkable", text: "Prefers walkable neighbourhoods.", tripText: "Wants a walkable area on this trip.", keywords: []string{"neighbourhood", "walkable"}})
	}
	if m := reBeach.FindStringIndex(cl); m != nil && !negatedAt(cl, m[0]) {
		out = append(out, fact{kind: "nbh-beach", text: "Prefers to stay near the beach.", tripText: "Wants to stay near the beach on this trip.", keywords: []string{"neighbourhood", "beach"}})
	}
	if m := reOldTown.FindStringIndex(cl); m != nil && !negatedAt(cl, m[0]) && reStayVerb.MatchString(cl) {
		out = append(out, fact{kind: "nbh-oldtown", text: "Likes staying in the old town.", tripText: "Wants to stay in the old town on this trip.", keywords: []string{"neighbourhood", "oldtown"}})
	}
	if reQuietNbh.MatchString(cl) || reNightlif.MatchString(cl) {
		out = append(out, fact{kind: "nbh-quiet", text: "Prefers quiet neighbourhoods.", tripText: "Wants a quiet area on this trip.", keywords: []string{"neighbourhood", "quiet"}})
	}
	if m := reTransit.FindStringIndex(cl); m != nil && !negatedAt(cl, m[0]) {
		out = append(out, fact{kind: "nbh-transit", text: "Prefers staying near public transport.", tripText: "Wants to stay near public transport on this trip.", keywords: []string{"neighbourhood", "transit"}})
	}
	if m := reAirport.FindStringIndex(cl); m != nil && !negatedAt(cl, m[0]) && reStayVerb.MatchString(cl) {
		out = append(out, fact{kind: "nbh-airport", text: "Prefers hotels near the airport.", tripText: "Wants a hotel near the airport on this trip.", keywords: []string{"hotel", "airport"}})
	}
	return out
}

// --- budgets ---

const amountRe = `((?:\$|€|£|₹|¥|usd ?|eur ?|gbp ?|inr ?|rs\.? ?|aud ?|cad ?|chf ?)\d[\d,]*(?:\.\d+)? ?k?|\d[\d,]*(?:\.\d+)? ?k? ?(?:dollars|bucks|usd|euros?|eur|pounds|gbp|quid|rupees|inr|rs|yen|jpy|baht|pesos|francs|chf|aud|cad|dirhams|aed|lira|won|ringgit|rand|zloty|crowns|kronor|kroner))`

var (
	reAmount     = regexp.MustCompile(amountRe)
	reNightly    = regexp.MustCompile(`\b(?:a|per|each|every|/) ?night\b|\bnightly\b|/night\b|\bper room\b`)
	reFlightBudg = regexp.MustCompile(`\b(?:flights?|tickets?|airfare|fares?|round[- ]?trip|return tickets?|plane)\b`)
	reTotalBudg  = regexp.MustCompile(`\b(?:total|whole trip|entire trip|overall|all in|all-in|in total|for everything|trip budget)\b`)
	reUnderWord  = regexp.MustCompile(`\b(?:under|below|less than|no more than|not more than|max(?:imum)?|at most|up to|within|cap(?:ped)? at|not over|no higher than)\b`)
	reAroundWord = regexp.MustCompile(`\b(?:around|about|roughly|approximately)\b`)
	reBudgetWord = regexp.MustCompile(`\bbudget\b|\bspend\b|\bafford\b|\bpay\b|\bcost\b|\bunder\b|\bmax\b`)
	reCheap      = regexp.MustCompile(`\bon a (?:tight |strict |limited |shoestring )?budget\b|\bbudget[- ]conscious\b|\bas cheap as possible\b|\bcheapest (?:option|flights?|hotels?|possible)\b|\bbudget traveller\b|\bbudget traveler\b|\bsave money\b|\bprice[- ]sensitive\b|\bcheap (?:flights|hotels|options)\b`)
	reComfort    = regexp.MustCompile(`\bmoney is no object\b|\bprice is not (?:an issue|a concern|important)\b|\b(?:price|cost) does not matter\b|\bdo not care (?:about|what) (?:the )?(?:price|cost|it costs)\b|\bhappy to (?:pay|spend) (?:more|extra)\b|\bcomfort over price\b|\bcomfort (?:matters|is) more\b`)
)

func budgetFacts(cl string) []fact {
	if reComfort.MatchString(cl) {
		return one("budget-comfort", "Prioritises comfort over price.", "budget", "comfort")
	}
	m := reAmount.FindStringIndex(cl)
	if m == nil {
		if reCheap.MatchString(cl) {
			return []fact{{kind: "budget", text: "Is budget-conscious.", tripText: "Is on a tight budget on this trip.", keywords: []string{"budget"}}}
		}
		return nil
	}
	if !reBudgetWord.MatchString(cl) && !reNightly.MatchString(cl) {
		return nil
	}
	amount := strings.TrimSpace(cl[m[0]:m[1]])
	amount = strings.ToUpper(amount[:1]) + amount[1:]
	if amount[0] >= 'A' && amount[0] <= 'Z' {
		amount = strings.ToUpper(strings.TrimSpace(strings.TrimRight(amount, "0123456789,.k "))) + " " + strings.TrimLeft(amount, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz. ")
		amount = strings.Replace(amount, "RS ", "Rs ", 1)
	}
	qual := "about "
	switch {
	case reUnderWord.MatchString(cl):
		qual = "under "
	case reAroundWord.MatchString(cl):
		qual = "about "
	case strings.Contains(cl, "budget"):
		qual = ""
	}
	switch {
	case reNightly.MatchString(cl):
		text := "Has a hotel budget of " + qual + amount + " a night."
		if qual == "under " {
			text = "Wants hotels under " + amount + " a night."
		}
		return []fact{{kind: "budget-hotel", text: text, tripText: strings.TrimSuffix(text, ".") + " on this trip.", keywords: []string{"budget", "hotel"}}}
	case reFlightBudg.MatchString(cl):
		text := "Has a flight budget of " + qual + amount + "."
		if qual == "under " {
			text = "Wants flights under " + amount + "."
		}
		return []fact{{kind: "budget-flight", text: text, tripText: strings.TrimSuffix(text, ".") + " on this trip.", keywords: []string{"budget", "flight"}}}
	case reTotalBudg.MatchString(cl) || strings.Contains(cl, "budget"):
		text := "Has a total trip budget of " + qual + amount + "."
		return []fact{{kind: "budget-trip", text: text, tripText: "Has a budget of " + qual + amount + " for this trip.", keywords: []string{"budget", "trip"}}}
	}
	return nil
}

// --- companions ---

var (
	reTravelWith = regexp.MustCompile(`\b(?:(?:travel|travels|travelling|traveling|go|going|come|coming|fly|flying|vacation|holiday|trip|trips)(?: usually| always| mostly| often)? with|bringing|taking|bring) (?:my |our |the )?((?:two |three |four |2 |3 |4 |young |little |small |elderly |teenage )?(?:kids|children|family|wife|husband|partner|spouse|son|daughter|baby|toddler|infant|dog|cat|pets?|parents|mother|mom|mum|father|dad|girlfriend|boyfriend|fianc[eé]e?|colleagues|team|grandchildren|teenagers|sons|daughters))\b`)
	reSolo       = regexp.MustCompile(`\b(?:travel|travels|travelling|traveling|go|fly)(?: usually| always| mostly)? (?:alone|solo|by myself|on my own)\b|\bsolo travell?er\b`)
	reFamilyOf   = regexp.MustCompile(`\bwe are a family of (\w+)\b`)
)

func companionFacts(cl string) []fact {
	if m := reTravelWith.FindStringSubmatchIndex(cl); m != nil && !negatedAt(cl, m[0]) {
		who := cl[m[2]:m[3]]
		kw := strings.Fields(who)[len(strings.Fields(who))-1]
		return []fact{{kind: "companions", text: "Usually travels with their " + who + ".", tripText: "Is travelling with their " + who + " on this trip.", keywords: []string{"companions", kw}}}
	}
	if reSolo.MatchString(cl) {
		return []fact{{kind: "companions", text: "Usually travels solo.", tripText: "Is travelling solo on this trip.", keywords: []string{"companions", "solo"}}}
	}
	if m := reFamilyOf.FindStringSubmatch(cl); m != nil {
		return []fact{{kind: "companions", text: "Travels as a family of " + m[1] + ".", tripText: "Is travelling as a family of " + m[1] + " on this trip.", keywords: []string{"companions", "family"}}}
	}
	return nil
}

// --- cars and the rest ---

var (
	reAutomatic = regexp.MustCompile(`\bautomatics?(?: cars?| transmission| rentals?)?\b|\bcannot drive (?:a )?(?:manual|stick)\b`)
	reManual    = regexp.MustCompile(`\b(?:manual|stick[- ]shift|stick) (?:cars?|transmission)?\b`)
	reSUV       = regexp.MustCompile(`\bsuvs?\b`)
	reEV        = regexp.MustCompile(`\b(?:electric|ev|hybrid) (?:cars?|rentals?|vehicles?)\b|\bevs\b`)
	reNoDrive   = regexp.MustCompile(`\bdo not drive\b|\bcannot drive\b$|\bno driv(?:ing|er's) licen[cs]e\b|\bdo not have a driv(?:ing|er's) licen[cs]e\b`)
	reCarCtx    = regexp.MustCompile(`\b(?:car|cars|rental|rent|drive|driving|transmission|vehicle)\b`)
	reCompare   = regexp.MustCompile(`\b(?:compare|comparing|see|seeing|lay out|show)\b.*\bside[- ]by[- ]side\b`)
	reNervous   = regexp.MustCompile(`\b(?:nervous|anxious|scared|afraid) (?:flyer|flier|of flying|about flying)\b|\bfear of flying\b`)
	reMotion    = regexp.MustCompile(`\b(?:motion|travel|car|air|sea)[- ]?sick(?:ness)?\b`)
	reInsurance = regexp.MustCompile(`\b(?:always|usually) (?:want|get|buy|take|need)s? (?:travel )?insurance\b`)
)

func carFacts(cl string) []fact {
	if reNoDrive.MatchString(cl) {
		return one("car", "Does not drive.", "car", "driving")
	}
	if !reCarCtx.MatchString(cl) {
		return nil
	}
	if m := reAutomatic.FindStringIndex(cl); m != nil && !negatedAt(cl, m[0]) {
		return []fact{{kind: "car", text: "Prefers automatic rental cars.", tripText: "Wants an automatic rental car on this trip.", keywords: []string{"car", "automatic"}}}
	}
	if m := reManual.FindStringIndex(cl); m != nil && !negatedAt(cl, m[0]) {
		return []fact{{kind: "car", text: "Prefers manual rental cars.", keywords: []string{"car", "manual"}}}
	}
	if m := reSUV.FindStringIndex(cl); m != nil && !negatedAt(cl, m[0]) {
		return []fact{{kind: "car", text: "Prefers SUVs for car rentals.", tripText: "Wants an SUV rental on this trip.", keywords: []string{"car", "suv"}}}
	}
	if m := reEV.FindStringIndex(cl); m != nil && !negatedAt(cl, m[0]) {
		return []fact{{kind: "car", text: "Prefers electric rental cars.", tripText: "Wants an electric rental car on this trip.", keywords: []string{"car", "electric"}}}
	}
	return nil
}

func miscFacts(cl string) []fact {
	var out []fact
	if reCompare.MatchString(cl) {
		out = append(out, fact{kind: "compare", text: "Likes to compare options side by side.", keywords: []string{"options", "compare"}})
	}
	if reNervous.MatchString(cl) {
		out = append(out, fact{kind: "nervous", text: "Is a nervous flyer.", keywords: []string{"flight", "nervous"}})
	}
	if m := reMotion.FindStringIndex(cl); m != nil && !negatedAt(cl, m[0]) && !strings.Contains(cl, "sick of") {
		out = append(out, fact{kind: "motion", text: "Gets motion sick.", keywords: []string{"health", "motion"}})
	}
	if reInsurance.MatchString(cl) {
		out = append(out, fact{kind: "insurance", text: "Always wants travel insurance.", keywords: []string{"insurance"}})
	}
	return out
}
