package contextbuild

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode"

	"agent/internal/agent"
	"agent/internal/event"
)

// failure is a call that failed, and whether a later same call passed.
type failure struct {
	id, name, what string // what: the command or the call's arguments
	step           int
	exit           *int
	line           string // the output's last line
	fixedStep      int    // 0: still open
}

// failures lists the failed calls of h with seq <= through, each marked
// fixed when the same call (same command, or same tool and arguments)
// later succeeded, anywhere in the history.
func (h *history) failures(through int64) []failure {
	st := h.st
	var out []failure
	for i, id := range h.order {
		ci := h.callAt(i)
		if ci.result < 0 {
			continue
		}
		meta := st.Meta[ci.result]
		if meta.Seq > through || !failed(meta) {
			continue
		}
		f := failure{id: id, name: ci.name, what: ci.what(), step: ci.step, exit: meta.ExitCode, line: errorLine(st.Messages[ci.result].Content)}
		for k := range h.order {
			c2 := h.callAt(k)
			if c2.result < 0 || st.Meta[c2.result].Seq <= meta.Seq || c2.name != ci.name || c2.what() != f.what {
				continue
			}
			if !failed(st.Meta[c2.result]) {
				f.fixedStep = c2.step
				break
			}
		}
		out = append(out, f)
	}
	return out
}

// errWords say a line reports a failure.
var errWords = []string{"error", "panic", "fail", "exception", "fatal", "refused", "denied", "not found", "undefined", "cannot"}

// errorLine picks the line of a failed call's output that says what went
// wrong: from the end (a log's failure is usually there), the last line
// naming a file and line with an error word, else the last line naming a
// file and line, else the last line with an error word that is more than a
// summary ("FAIL pkg"), else the last line. It looks at the last 400 lines.
func errorLine(out string) string {
	lines := strings.Split(strings.TrimRight(out, "\n "), "\n")
	lines = lines[max(len(lines)-400, 0):]
	pick := func(ok func(string) bool) string {
		for i := len(lines) - 1; i >= 0; i-- {
			if l := strings.TrimSpace(lines[i]); len(l) < 1000 && ok(l) {
				return l
			}
		}
		return ""
	}
	if l := pick(func(l string) bool { return hasFileLine(l) && hasErrWord(l) }); l != "" {
		return l
	}
	if l := pick(hasFileLine); l != "" {
		return l
	}
	if l := pick(func(l string) bool { return hasErrWord(l) && !isBareSummary(l) }); l != "" {
		return l
	}
	return lastLine(out)
}

// hasFileLine reports a "name.ext:LINE" reference in l.
func hasFileLine(l string) bool {
	for i := 0; i < len(l); i++ {
		if l[i] != ':' || i == 0 {
			continue
		}
		j := i + 1
		for j < len(l) && l[j] >= '0' && l[j] <= '9' {
			j++
		}
		if j == i+1 {
			continue
		}
		k := i - 1
		for k >= 0 && l[k] != ' ' && l[k] != '\t' && l[k] != '.' {
			k--
		}
		if k >= 0 && l[k] == '.' && i-k > 1 {
			return true
		}
	}
	return false
}

func hasErrWord(l string) bool {
	low := strings.ToLower(l)
	for _, w := range errWords {
		if strings.Contains(low, w) {
			return true
		}
	}
	return false
}

// isBareSummary: a test runner's last words ("FAIL", "FAIL\tpkg\t0.1s",
// "exit status 1").
func isBareSummary(l string) bool {
	f := strings.Fields(l)
	return len(f) <= 3 && len(f) > 0 && (f[0] == "FAIL" || f[0] == "FAILED" || f[0] == "exit" || f[0] == "ok")
}

func failed(m agent.MessageMeta) bool {
	return m.Status == event.ResultError || (m.Status == event.ResultOK && m.ExitCode != nil && *m.ExitCode != 0)
}

// what names a call for matching and for people: a command, or the tool's
// arguments.
func (ci *callInfo) what() string {
	if ci.command != "" {
		return ci.command
	}
	return ci.args
}

func (f failure) String() string {
	s := fmt.Sprintf("step %d: %s %s", f.step, f.name, quoteData(clip(f.what, 160)))
	if f.exit != nil {
		s += fmt.Sprintf(" exit code %d", *f.exit)
	}
	if f.line != "" {
		s += ": " + quoteData(clip(f.line, 240))
	}
	return s
}

// override is a sentence of a person's message that a later one overrode.
type override struct {
	msg      int    // index of the overridden message
	sentence string // the overridden sentence
	by       int    // index of the overriding message
	with     string // the overriding sentence
}

// overrideMarkers are what a person says when they change an earlier decision.
var overrideMarkers = []string{"instead", "change of plan", "no longer", "actually,", "scratch that", "rather than", "override", "changed my mind", "not anymore", "forget what i said"}

// overrides finds the person's decisions that a later message of theirs
// overrode: a sentence with an override marker that shares at least two
// significant words with a sentence of an earlier message.
func (h *history) overrides() []override {
	st := h.st
	var persons []int
	for i, m := range st.Meta {
		if m.Kind == agent.KindPerson {
			persons = append(persons, i)
		}
	}
	var out []override
	for k, j := range persons {
		for _, s2 := range sentences(st.Messages[j].Content) {
			low := strings.ToLower(s2)
			if !containsAny(low, overrideMarkers) {
				continue
			}
			w2 := significant(s2)
			best, bestScore := override{}, 1
			for _, i := range persons[:k] {
				for _, s1 := range sentences(st.Messages[i].Content) {
					if n := shared(significant(s1), w2); n > bestScore {
						best, bestScore = override{msg: i, sentence: s1, by: j, with: s2}, n
					}
				}
			}
			if bestScore > 1 {
				out = append(out, best)
			}
		}
	}
	return out
}

func containsAny(s string, subs []string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}

// sentences splits text into sentences and lines.
func sentences(s string) []string {
	var out []string
	cur := strings.Builder{}
	flush := func() {
		if t := strings.TrimSpace(cur.String()); t != "" {
			out = append(out, t)
		}
		cur.Reset()
	}
	rs := []rune(s)
	for i, r := range rs {
		if r == '\n' {
			flush()
			continue
		}
		cur.WriteRune(r)
		if (r == '.' || r == '!' || r == '?' || r == '。') && (i+1 == len(rs) || unicode.IsSpace(rs[i+1])) {
			flush()
		}
	}
	flush()
	return out
}

var stopwords = map[string]bool{"that": true, "this": true, "with": true, "from": true, "have": true, "will": true, "your": true,
	"into": true, "them": true, "they": true, "then": true, "than": true, "when": true, "what": true, "which": true, "there": true,
	"their": true, "please": true, "should": true, "would": true, "could": true, "instead": true, "change": true, "plan": true,
	"longer": true, "actually": true, "every": true, "also": true, "only": true, "make": true, "sure": true, "keep": true}

func significant(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' }) {
		if len([]rune(w)) >= 4 && !stopwords[w] {
			out[w] = true
		}
	}
	return out
}

func shared(a, b map[string]bool) int {
	n := 0
	for w := range a {
		if b[w] {
			n++
		}
	}
	return n
}

// planStep is one step of the newest update_plan.
type planStep struct {
	Step   string `json:"step"`
	Status string `json:"status"`
}

func parsePlan(args string) []planStep {
	var a struct {
		Plan []planStep `json:"plan"`
	}
	if json.Unmarshal([]byte(args), &a) != nil {
		return nil
	}
	return a.Plan
}

// fileFacts are the paths the run read, edited and created up to through.
type fileFacts struct {
	read    map[string]int
	edited  map[string][]int // steps
	created map[string]int
}

func (h *history) files(through int64) fileFacts {
	st := h.st
	// one map lookup a call (the path's facts), the facts' maps filled
	// once a path at the end: a long run has hundreds of calls a build
	type pathFacts struct {
		path      string
		read      int
		edited    []int
		created   int
		isCreated bool
	}
	idx := make(map[string]int, len(h.edits)+8)
	var facts []pathFacts
	for i := range h.order {
		ci := h.callAt(i)
		if ci.result < 0 || ci.path == "" {
			continue
		}
		meta := st.Meta[ci.result]
		if meta.Seq > through || meta.Status != event.ResultOK {
			continue
		}
		k, seen := idx[ci.path]
		if !seen {
			k = len(facts)
			idx[ci.path] = k
			facts = append(facts, pathFacts{path: ci.path})
		}
		f := &facts[k]
		switch {
		case ci.name == "read_file":
			f.read++
		case meta.Risk == event.RiskWrite:
			if ci.name == "write_file" && !seen {
				f.created, f.isCreated = ci.step, true
			} else {
				f.edited = append(f.edited, ci.step)
			}
		}
	}
	ff := fileFacts{read: map[string]int{}, edited: map[string][]int{}, created: map[string]int{}}
	for _, f := range facts {
		if f.read > 0 {
			ff.read[f.path] = f.read
		}
		if len(f.edited) > 0 {
			ff.edited[f.path] = f.edited
		}
		if f.isCreated {
			ff.created[f.path] = f.created
		}
	}
	return ff
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
