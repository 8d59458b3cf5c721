package diffview

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"agent/internal/tui/approve"
	"agent/internal/tui/drawer"
	"agent/internal/tui/theme"
	"agent/internal/tui/transcript"
)

// The hooks the TUI's components take, filled with a Renderer's methods.
var (
	_ approve.DiffRenderer = (&Renderer{}).Render
	_ drawer.DiffRenderer  = (&Renderer{}).Render
	_ transcript.DiffFunc  = (&Renderer{}).CardDiff
)

// editPreview is what edit_file's preview prints (the approval prompt's
// diff and an awaiting card's).
const editPreview = "internal/greet/greet.go: +1 -1 lines\n@@ -7 +7 @@\n func Greet(name string) string {\n-\treturn \"hello, \" + name\n+\treturn \"hello, \" + strings.TrimSpace(name) + \"!\"\n }\n"

// TestApprovalPromptUsesRender drives the real approval prompt with Render
// as its hook: the person sees the numbered lines, every row in the box.
func TestApprovalPromptUsesRender(t *testing.T) {
	r := NewRenderer(Options{Theme: theme.New(true, false)})
	m := approve.New(approve.Options{Theme: theme.New(true, false), Guard: -1, RenderDiff: r.Render})
	m.SetSize(80, 30)
	m.Push(approve.Request{ID: "a1", Tool: "edit_file", Risk: approve.RiskWrite, Summary: "internal/greet/greet.go", Diff: editPreview})
	v := ansi.Strip(m.View())
	for _, want := range []string{"internal/greet/greet.go  +1 -1", "8   -     return \"hello, \" + name", "  8 +     return \"hello, \" + strings.TrimSpace(name) + \"!\""} {
		if !strings.Contains(v, want) {
			t.Errorf("the prompt does not show %q:\n%s", want, v)
		}
	}
	for i, l := range strings.Split(m.View(), "\n") {
		if w := ansi.StringWidth(l); w > 80 {
			t.Errorf("row %d is %d wide", i, w)
		}
	}
}

// TestCheckpointDrawerUsesRender: the checkpoint drawer's preview drawn by
// Render.
func TestCheckpointDrawerUsesRender(t *testing.T) {
	r := NewRenderer(Options{Theme: theme.New(true, true)})
	d := drawer.NewCheckpoints(drawer.Options{Theme: theme.New(true, true), RenderDiff: r.Render})
	d.SetSize(100, 40)
	d.SetCheckpoints([]drawer.Checkpoint{{ID: "c1", Step: 1, CallID: "k1", Tool: "edit_file", Kind: drawer.KindAfter, Files: []string{"x.txt"}, Added: 1, Removed: 1, Time: time.Unix(0, 0)}})
	d.Update(press("enter"))
	d.SetPreview("c1", "diff --git a/x.txt b/x.txt\nindex 1..2 100644\n--- a/x.txt\n+++ b/x.txt\n@@ -1,2 +1,2 @@\n keep\n-old\n+new\n")
	v := ansi.Strip(d.View())
	for _, want := range []string{"x.txt  +1 -1", "2   - old", "  2 + new"} {
		if !strings.Contains(v, want) {
			t.Errorf("the drawer does not show %q:\n%s", want, v)
		}
	}
}

// TestTranscriptCardUsesCardDiff: an edit card drawn with CardDiff folds
// the rows itself after 12.
func TestTranscriptCardUsesCardDiff(t *testing.T) {
	r := NewRenderer(Options{Theme: theme.New(true, false)})
	patch, _ := genPatch(60)
	c := transcript.NewToolCard(transcript.CardData{Tool: "edit_file", CallID: "k1", Summary: "big/gen.go", Status: transcript.StatusOK, Diff: patch})
	lines := c.Render(transcript.Context{Width: 80, Theme: theme.New(true, false), Diff: r.CardDiff})
	s := ansi.Strip(strings.Join(lines, "\n"))
	if !strings.Contains(s, "big/gen.go  +10 -10") || !strings.Contains(s, "more lines") || len(lines) > 15 {
		t.Fatalf("the card reads (%d lines):\n%s", len(lines), s)
	}
	for i, l := range lines {
		if w := ansi.StringWidth(l); w > 80 {
			t.Errorf("card row %d is %d wide", i, w)
		}
	}
}
