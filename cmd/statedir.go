package cmd

import (
	"fmt"
	"io"

	"agent/internal/store"
)

// showStateNotice prints the journal's one-time warning about the state
// directory (a directory others can read) on w and records that it was
// shown. A run prints it after its "run: ID" line.
func showStateNotice(st *store.Store, w io.Writer) {
	n := st.Notice()
	if n == "" {
		return
	}
	fmt.Fprintf(w, "warning: %s\n", n)
	if err := st.NoticeShown(); err != nil {
		fmt.Fprintf(w, "warning: %v\n", err)
	}
}
