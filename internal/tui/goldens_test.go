package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"agent/internal/event"
	"agent/internal/pricing"
	"agent/internal/protocol"
	"agent/internal/tui/theme"
	"agent/internal/tui/transcript"
	"agent/internal/tui/tuitest"
)

// The goldens of the start screen's orientation block, /status and the plan
// prompt: stripped and in colour (truecolor, 256, 16), at 40, 80, 120 and
// 200 columns, on a dark and a light background. Rewrite them with
// go test ./internal/tui/ -run TestGolden -update.

// demoSession is a fixed session: the same on every machine.
func demoSession() protocol.SessionInfo {
	return protocol.SessionInfo{Workspace: "/work/demo", Name: "demo", Git: true, Branch: "main",
		Provider: "openai", Endpoint: "api.openai.com", Model: "gpt-4.1", Approval: string(event.ApprovalAsk),
		Sandbox: "landlock", Journal: "/home/dev/.agent/agent.db"}
}

// demoStatus is /status of demoSession after two model requests.
func demoStatus() statusFacts {
	return statusFacts{Session: demoSession(), Model: "gpt-4.1", Mode: event.ApprovalAutoEdit,
		Tokens: event.TokenCount{Input: 18250, Output: 1310}, Cost: pricing.FormatUSD(0.0470),
		Used: 84120, Window: 1047576, Run: "run_01JDEMO7Q4V9"}
}

// demoPlan is a plan a model wrote under plan mode.
const demoPlan = "1. Read internal/store/journal.go and find where Append and the checkpoint goroutine share j.f.\n" +
	"2. Hold j.mu across the write and the fsync, so events keep their order.\n" +
	"3. Add TestAppendOrder: 50 goroutines append while a checkpoint runs; the journal's seqs are strictly increasing.\n" +
	"4. Run go test -race ./internal/store/ -count 20."

var goldenWidths = []int{40, 80, 120, 200}

// bgName names a background in a golden file's name.
func bgName(dark bool) string {
	if dark {
		return "dark"
	}
	return "light"
}

// infoView is an info block as the transcript draws it at width w.
func infoView(th *theme.Theme, w int, title string, rows []transcript.InfoRow) string {
	return strings.Join(transcript.NewInfo(title, rows).Render(transcript.Context{Width: w, Theme: th}), "\n") + "\n"
}

// planView is the plan prompt (the plan above the picker) at w x h.
func planView(th *theme.Theme, w, h int, plan string) string {
	m := &model{th: th, width: w, pick: pickPlan, plan: plan, picker: planPicker(th)}
	m.picker.SetSize(w, min(h, 20))
	return m.pickerView(h) + "\n"
}

// eachVariant calls view in every variant and compares it with the golden
// file name_W_BG (stripped) and name_W_BG-PALETTE (with colour).
func eachVariant(t *testing.T, name string, view func(th *theme.Theme, w int) string) {
	t.Helper()
	for _, dark := range []bool{true, false} {
		for _, w := range goldenWidths {
			got := view(theme.New(dark, false), w)
			for i, l := range tuitest.Rows(got) {
				if n := ansi.StringWidth(l); n > w {
					t.Errorf("%s at %d: line %d is %d wide: %q", name, w, i, n, l)
				}
			}
			base := fmt.Sprintf("%s_%d_%s", name, w, bgName(dark))
			tuitest.Golden(t, base, ansi.Strip(got))
			for _, p := range tuitest.Palettes {
				got := view(theme.NewFor(dark, false, p), w)
				tuitest.Golden(t, base+"-"+tuitest.PaletteName(p), tuitest.Escaped(tuitest.InPalette(got, p)))
			}
		}
	}
}

func TestGoldenStartScreen(t *testing.T) {
	eachVariant(t, "start", func(th *theme.Theme, w int) string {
		title, rows := orientBlock(demoSession())
		return infoView(th, w, title, rows)
	})
	// outside a git repository, with a sandbox that cannot be enforced:
	// the two warnings
	s := demoSession()
	s.Git, s.Branch, s.Sandbox, s.SandboxNote = false, "", "off", "landlock was asked for but cannot be enforced here"
	eachVariant(t, "start_nogit", func(th *theme.Theme, w int) string {
		title, rows := orientBlock(s)
		return infoView(th, w, title, rows)
	})
}

func TestGoldenStatus(t *testing.T) {
	eachVariant(t, "status", func(th *theme.Theme, w int) string {
		return infoView(th, w, "session", statusRowsOf(demoStatus()))
	})
	// a fresh session outside git: no request, no cost, no run yet
	f := statusFacts{Session: demoSession(), Model: "gpt-4.1", Mode: event.ApprovalAsk}
	f.Session.Git, f.Session.Branch = false, ""
	eachVariant(t, "status_fresh", func(th *theme.Theme, w int) string {
		return infoView(th, w, "session", statusRowsOf(f))
	})
}

func TestGoldenPlanPrompt(t *testing.T) {
	eachVariant(t, "plan", func(th *theme.Theme, w int) string { return planView(th, w, 24, demoPlan) })
	// a plan longer than the room: cut, with the pointer to the transcript
	long := strings.Repeat(demoPlan+"\n", 4)
	tuitest.Golden(t, "plan_long_80_dark", ansi.Strip(planView(theme.New(true, false), 80, 24, long)))
}

// The goldens can fail: a change of the session's facts changes the view.
func TestGoldenViewsFollowTheirInputs(t *testing.T) {
	th := theme.NewFor(true, false, colorprofile.TrueColor)
	a := infoView(th, 80, "session", statusRowsOf(demoStatus()))
	f := demoStatus()
	f.Session.Branch = "feature"
	if b := infoView(th, 80, "session", statusRowsOf(f)); a == b {
		t.Error("/status does not show the branch")
	}
	if planView(th, 80, 24, demoPlan) == planView(th, 80, 24, "1. something else") {
		t.Error("the plan prompt does not show the plan")
	}
}
