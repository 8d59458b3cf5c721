package drawer

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"agent/internal/tui/theme"
	"agent/internal/tui/tuitest"
)

func at(h, m, s int) time.Time { return time.Date(2026, 11, 29, h, m, s, 0, time.UTC) }

// sampleCheckpoints is a run's list, newest first: a rollback's undo point,
// then two edits, before and after each.
func sampleCheckpoints() []Checkpoint {
	return []Checkpoint{
		{ID: "9f2c4e1a7b3d5f60718293a4b5c6d7e8f9012345", Step: 6, Kind: KindRollback,
			Files: []string{"internal/greet/greet.go", "README.md"}, Added: 14, Removed: 3, Time: at(15, 41, 9)},
		{ID: "4b1e2d3c4f5a6b7c8d9e0f1a2b3c4d5e6f708192", Step: 5, CallID: "call_7", Tool: "edit_file", Kind: KindAfter,
			Files: []string{"README.md"}, Added: 2, Removed: 1, Time: at(15, 40, 51)},
		{ID: "0a1b2c3d4e5f60718293a4b5c6d7e8f901234567", Step: 5, CallID: "call_7", Tool: "edit_file", Kind: KindBefore,
			Time: at(15, 40, 50)},
		{ID: "7e8f9012345a6b7c8d9e0f1a2b3c4d5e6f708192", Step: 3, CallID: "call_4", Tool: "write_file", Kind: KindAfter,
			Files: []string{"internal/greet/greet.go", "internal/greet/greet_test.go", "go.mod", "docs/greeting.md"},
			Added: 12, Removed: 2, Time: at(15, 38, 2)},
	}
}

const previewDiff = `--- a/README.md
+++ b/README.md
@@ -1,3 +1,4 @@
 # greet
-Says hello.
+Says Hello!
+Trims the name first.
`

func openCheckpoints(th *theme.Theme, w, h int, list []Checkpoint) *CheckpointDrawer {
	d := NewCheckpoints(Options{Theme: th})
	d.SetSize(w, h)
	d.SetCheckpoints(list)
	return d
}

func TestCheckpointsGolden(t *testing.T) {
	for _, dark := range []bool{true, false} {
		mode := map[bool]string{true: "dark", false: "light"}[dark]
		for _, w := range []int{40, 80, 120, 200} {
			d := openCheckpoints(theme.New(dark, false), w, 30, sampleCheckpoints())
			tuitest.Golden(t, fmt.Sprintf("checkpoints_%d_%s", w, mode), ansi.Strip(d.View()))
		}
	}
	d := openCheckpoints(nil, 80, 30, sampleCheckpoints())
	d.Update(tuitest.Key("down"))
	d.Update(tuitest.Key("enter"))
	d.SetPreview(sampleCheckpoints()[1].ID, previewDiff)
	tuitest.Golden(t, "checkpoints_preview_80", ansi.Strip(d.View()))
	d.Update(tuitest.Key("b"))
	tuitest.Golden(t, "checkpoints_confirm_80", ansi.Strip(d.View()))
	tuitest.Golden(t, "checkpoints_empty_80", ansi.Strip(openCheckpoints(nil, 80, 30, nil).View()))
}

func TestUndoRollbackIsListed(t *testing.T) {
	v := ansi.Strip(openCheckpoints(nil, 80, 0, sampleCheckpoints()).View())
	if !strings.Contains(v, "› step 6 · ↶ undo rollback") {
		t.Fatalf("the pre-rollback checkpoint is not listed as undo rollback:\n%s", v)
	}
	for _, want := range []string{"step 5 · after edit_file · call_7", "+2 −1", "15:40:51", "1 file: README.md",
		"step 5 · before edit_file", "no files changed", "4 files: internal/greet/greet.go"} {
		if !strings.Contains(v, want) {
			t.Errorf("missing %q:\n%s", want, v)
		}
	}
}

func TestRollbackConfirmFlow(t *testing.T) {
	cps := sampleCheckpoints()
	cases := []struct {
		key  string
		want RollbackMsg
		text string
	}{
		{"c", RollbackMsg{ID: cps[1].ID, Code: true}, "roll back the files to step 5 (after edit_file)?"},
		{"v", RollbackMsg{ID: cps[1].ID, Conversation: true}, "roll back the conversation to step 5"},
		{"b", RollbackMsg{ID: cps[1].ID, Code: true, Conversation: true}, "roll back the files and the conversation to step 5"},
	}
	for _, tc := range cases {
		d := openCheckpoints(nil, 120, 30, cps)
		d.Update(tuitest.Key("down"))
		if _, cmd := d.Update(tuitest.Key(tc.key)); cmd != nil {
			t.Fatalf("%s emitted before the confirmation: %v", tc.key, tuitest.Msgs(cmd))
		}
		if v := ansi.Strip(d.View()); !d.Confirming() || !strings.Contains(v, tc.text) || !strings.Contains(v, "y to confirm, any other key cancels") {
			t.Fatalf("%s: no confirmation %q:\n%s", tc.key, tc.text, v)
		}
		_, cmd := d.Update(tuitest.Key("y"))
		if got := tuitest.Msgs(cmd); len(got) != 1 || got[0] != tc.want {
			t.Fatalf("%s y: %v, want %+v", tc.key, got, tc.want)
		}
		if d.Confirming() {
			t.Fatalf("%s: still confirming after y", tc.key)
		}
	}
}

func TestRollbackCancelled(t *testing.T) {
	for _, k := range []string{"n", "esc", "c", "enter", "down"} {
		d := openCheckpoints(nil, 80, 30, sampleCheckpoints())
		d.Update(tuitest.Key("c"))
		_, cmd := d.Update(tuitest.Key(k))
		if cmd != nil || d.Confirming() {
			t.Fatalf("%q after c: %v, confirming %v; want it cancelled and nothing sent", k, tuitest.Msgs(cmd), d.Confirming())
		}
		if c, _ := d.Selected(); c.ID != sampleCheckpoints()[0].ID {
			t.Fatalf("%q cancelling also moved the selection", k)
		}
	}
}

// Rolling back to the pre-rollback checkpoint undoes the rollback.
func TestUndoRollback(t *testing.T) {
	d := openCheckpoints(nil, 80, 30, sampleCheckpoints())
	d.Update(tuitest.Key("c"))
	if v := ansi.Strip(d.View()); !strings.Contains(v, "undo the rollback (the files)?") {
		t.Fatalf("no undo confirmation:\n%s", v)
	}
	_, cmd := d.Update(tuitest.Key("y"))
	if got := tuitest.Msgs(cmd); len(got) != 1 || got[0] != (RollbackMsg{ID: sampleCheckpoints()[0].ID, Code: true}) {
		t.Fatalf("undo: %v", got)
	}
}

func TestPreviewFlow(t *testing.T) {
	cps := sampleCheckpoints()
	d := openCheckpoints(nil, 80, 30, cps)
	d.Update(tuitest.Key("down"))
	_, cmd := d.Update(tuitest.Key("p"))
	if got := tuitest.Msgs(cmd); len(got) != 1 || got[0] != (PreviewMsg{ID: cps[1].ID}) {
		t.Fatalf("p: %v, want a PreviewMsg for the selection", got)
	}
	if v := ansi.Strip(d.View()); !strings.Contains(v, "loading the diff") {
		t.Fatalf("no loading state:\n%s", v)
	}
	d.SetPreview(cps[3].ID, "+stale") // an answer for another checkpoint is ignored
	if strings.Contains(ansi.Strip(d.View()), "stale") {
		t.Fatal("a preview of another checkpoint was shown")
	}
	d.SetPreview(cps[1].ID, previewDiff)
	if v := ansi.Strip(d.View()); !strings.Contains(v, "+Trims the name first.") || !strings.Contains(v, "rolling back to step 5 · after edit_file changes") {
		t.Fatalf("the preview is not shown:\n%s", v)
	}
	// Moving with a preview open previews the new selection.
	_, cmd = d.Update(tuitest.Key("down"))
	if got := tuitest.Msgs(cmd); len(got) != 1 || got[0] != (PreviewMsg{ID: cps[2].ID}) {
		t.Fatalf("down with a preview open: %v", got)
	}
	d.SetPreview(cps[2].ID, "")
	if v := ansi.Strip(d.View()); !strings.Contains(v, "no changes between this checkpoint and now") {
		t.Fatalf("an empty diff is not explained:\n%s", v)
	}
	// p again hides it; enter shows it.
	if _, cmd := d.Update(tuitest.Key("p")); cmd != nil || strings.Contains(ansi.Strip(d.View()), "rolling back to step") {
		t.Fatal("p did not hide the preview")
	}
	if _, cmd := d.Update(tuitest.Key("enter")); len(tuitest.Msgs(cmd)) != 1 {
		t.Fatal("enter did not preview")
	}
	// A rollback to the previewed checkpoint closes its (now stale) preview.
	d.SetPreview(cps[2].ID, previewDiff)
	d.Update(tuitest.Key("c"))
	d.Update(tuitest.Key("y"))
	if strings.Contains(ansi.Strip(d.View()), "rolling back to step") {
		t.Fatal("the preview stayed open after the rollback")
	}
}

func TestPreviewScrollsWithTheHintPinned(t *testing.T) {
	var b strings.Builder
	b.WriteString("--- a/big.txt\n+++ b/big.txt\n@@ -1,1000 +1,1000 @@\n")
	for i := 1; i <= 1000; i++ {
		fmt.Fprintf(&b, "-old %d\n+new %d\n", i, i)
	}
	d := openCheckpoints(nil, 80, 30, sampleCheckpoints())
	d.Update(tuitest.Key("enter"))
	d.SetPreview(sampleCheckpoints()[0].ID, b.String())
	first := tuitest.Rows(d.View())
	if len(first) != 30 {
		t.Fatalf("%d rows, want 30", len(first))
	}
	last := first[len(first)-2]
	for range 5 {
		d.Update(tuitest.Key("pgdown"))
	}
	v := tuitest.Rows(d.View())
	if len(v) != 30 || v[len(v)-2] != last || !strings.Contains(strings.Join(v, "\n"), "of 2003") {
		t.Fatalf("the hint moved or no scroll position:\n%s", strings.Join(v, "\n"))
	}
	if strings.Contains(strings.Join(v, "\n"), "--- a/big.txt") {
		t.Fatal("pgdown did not scroll the preview")
	}
	d.Update(tea.MouseWheelMsg{Button: tea.MouseWheelDown})
}

func TestSelectionFollowsAndSurvivesRefresh(t *testing.T) {
	var list []Checkpoint
	for i := range 30 {
		list = append(list, Checkpoint{ID: fmt.Sprintf("id%02d", i), Step: 30 - i, Tool: "edit_file", CallID: fmt.Sprintf("call_%d", i), Kind: KindAfter, Files: []string{"a.go"}})
	}
	d := openCheckpoints(nil, 80, 16, list)
	for range 20 {
		d.Update(tuitest.Key("down"))
	}
	v := ansi.Strip(d.View())
	if !strings.Contains(v, "› step 10 ·") || len(tuitest.Rows(d.View())) != 16 {
		t.Fatalf("the selection is not shown in 16 rows:\n%s", v)
	}
	// A newer checkpoint arrives at the top: the selection stays on id20.
	d.SetCheckpoints(append([]Checkpoint{{ID: "new", Step: 31, Kind: KindAfter}}, list...))
	if c, _ := d.Selected(); c.ID != "id20" {
		t.Fatalf("selection moved to %s", c.ID)
	}
	d.Update(tuitest.Key("home"))
	if c, _ := d.Selected(); c.ID != "new" {
		t.Fatalf("home selected %s", c.ID)
	}
}

func TestCheckpointsEscCloses(t *testing.T) {
	d := openCheckpoints(nil, 80, 30, nil)
	if v := ansi.Strip(d.View()); !strings.Contains(v, "no checkpoints yet") {
		t.Fatalf("no empty state:\n%s", v)
	}
	for _, k := range []string{"c", "enter", "down"} { // nothing to act on
		if _, cmd := d.Update(tuitest.Key(k)); cmd != nil || d.Confirming() {
			t.Fatalf("%q acted on an empty list", k)
		}
	}
	_, cmd := d.Update(tuitest.Key("esc"))
	if got := tuitest.Msgs(cmd); len(got) != 1 || got[0] != (CloseMsg{Which: CheckpointDrawerID}) {
		t.Fatalf("esc: %v", got)
	}
}

func TestCheckpointsFitWidth(t *testing.T) {
	list := sampleCheckpoints()
	list[3].Files = append(list[3].Files, strings.Repeat("very/long/path/", 20)+"file.go")
	for _, w := range []int{20, 40, 63, 80, 120, 200} {
		d := openCheckpoints(nil, w, 30, list)
		d.Update(tuitest.Key("enter"))
		d.SetPreview(list[0].ID, previewDiff+"+"+strings.Repeat("wide ", 60)+"\n")
		for i, l := range tuitest.Rows(d.View()) {
			if got := ansi.StringWidth(l); got != w {
				t.Errorf("width %d: row %d is %d wide: %q", w, i, got, l)
			}
		}
	}
}

func TestCheckpointsRenderDiffAndNoColor(t *testing.T) {
	var calls int
	d := NewCheckpoints(Options{Theme: theme.New(true, true), RenderDiff: func(diff string, w, h int) string {
		calls++
		return "VIEW " + strings.Split(diff, "\n")[0]
	}})
	d.SetSize(80, 30)
	d.SetCheckpoints(sampleCheckpoints())
	d.Update(tuitest.Key("enter"))
	d.SetPreview(sampleCheckpoints()[0].ID, previewDiff)
	v := d.View()
	d.View()
	if !strings.Contains(ansi.Strip(v), "VIEW --- a/README.md") || calls != 1 {
		t.Fatalf("the diff renderer was not used once (%d calls):\n%s", calls, ansi.Strip(v))
	}
	if bad := tuitest.ColourEscapes(v); len(bad) > 0 {
		t.Fatalf("colour escapes with NO_COLOR: %v", bad)
	}
	if !strings.Contains(v, "\x1b[7m") {
		t.Fatal("without colour the selection is not shown in reverse")
	}
	plain := openCheckpoints(theme.New(true, true), 80, 30, sampleCheckpoints())
	plain.Update(tuitest.Key("enter"))
	plain.SetPreview(sampleCheckpoints()[0].ID, previewDiff)
	if bad := tuitest.ColourEscapes(plain.View()); len(bad) > 0 {
		t.Fatalf("colour escapes in the plain diff with NO_COLOR: %v", bad)
	}
}
