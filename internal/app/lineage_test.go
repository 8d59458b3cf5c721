package app

import (
	"context"
	"strings"
	"testing"

	"agent/internal/event"
	"agent/internal/store"
)

// startRun journals a run's start with its lineage.
func startRun(t *testing.T, st *store.Store, id string, d *event.RunStartedData) {
	t.Helper()
	ctx := context.Background()
	if err := st.CreateRun(ctx, store.Run{ID: id, Workspace: "/ws", Model: "m", Approval: "ask", Prompt: id}); err != nil {
		t.Fatal(err)
	}
	d.Workspace = "/ws"
	e := event.New(id, d)
	if err := st.Append(ctx, &e); err != nil {
		t.Fatal(err)
	}
}

// RunTree lists forks and a subagent's children under their parent, oldest
// child first, grandchildren under children; a run whose parent is gone is
// a root that still names it.
func TestRunTreeLineage(t *testing.T) {
	st := openTestStore(t)
	startRun(t, st, "20260101T000001-aaaaaa", &event.RunStartedData{})
	startRun(t, st, "20260101T000002-bbbbbb", &event.RunStartedData{ParentRun: "20260101T000001-aaaaaa", ParentCall: "call_0_0"})
	startRun(t, st, "20260101T000003-cccccc", &event.RunStartedData{ParentRun: "20260101T000001-aaaaaa", ParentCheckpoint: "abcdef0123"})
	startRun(t, st, "20260101T000004-dddddd", &event.RunStartedData{ParentRun: "20260101T000003-cccccc", ParentCheckpoint: "0123abcdef"})
	startRun(t, st, "20260101T000005-eeeeee", &event.RunStartedData{ParentRun: "20250101T000000-gone00", ParentCheckpoint: "feed"})
	startRun(t, st, "20260101T000006-ffffff", &event.RunStartedData{})
	if _, err := st.DB().Exec(`UPDATE runs SET started = substr(id, 1, 4) || '-01-01T00:00:0' || substr(id, 15, 1) || 'Z'`); err != nil {
		t.Fatal(err)
	}
	h := &Home{st: st}
	nodes, err := h.RunTree(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range nodes {
		got = append(got, strings.Repeat(".", n.Depth)+n.ID[16:]+"<"+n.ParentRun+n.ParentCall+n.ParentCheckpoint+">"+strings.Join(n.Children, ","))
	}
	want := []string{
		"ffffff<>",
		"eeeeee<20250101T000000-gone00feed>",
		"aaaaaa<>20260101T000002-bbbbbb,20260101T000003-cccccc",
		".bbbbbb<20260101T000001-aaaaaacall_0_0>",
		".cccccc<20260101T000001-aaaaaaabcdef0123>20260101T000004-dddddd",
		"..dddddd<20260101T000003-cccccc0123abcdef>",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("tree:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
