package cmd

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"agent/internal/event"
	"agent/internal/protocol"
	"agent/internal/termtext"
)

func newContextCmd() *cobra.Command {
	var asJSON bool
	var step int
	c := &cobra.Command{
		Use:   "context RUN_ID",
		Short: "Explain one model request (default: the last): the budget, each layer, what was cut and why",
		Long: `Explain what one model request of a run was made of, as journaled in its
model_request event: the budget (the window less the answer's reserve and a
margin, divided by the provider's correction when it counts more than the
tokenizer), how the tokens were counted (the model's tokenizer, corrected by
the usage the provider reported), and the layers in request order: tools, L1
instructions (system prompt and AGENTS.md), L5a repo map, L6 summary and older
rounds, L3 recent rounds, L5b file snippets, L4 task state, L2 your message.

For each layer: its share of the budget, its tokens and items, its note, and
every item that was not sent verbatim with the reason (a superseded read, a
masked tool output, a head/tail cut, folded into the summary, over its budget,
an orphan, an outline) and its tokens before and after. Then the first layer
whose bytes changed since the previous request, the hash of the stable prefix
(tools, L1, L5a), and the compaction this request is the first after.

--json prints the model_request event's payload whole.`,
		Example: `  agent context 20261129T203216-3f9a1c
  agent context 20261129T2032 --step 3 --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			h, err := openHomeRead(cmd)
			if err != nil {
				return err
			}
			defer h.Close()
			req, err := h.Request(ctx, args[0], step)
			if err != nil {
				return appErr(err)
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), req.Request)
			}
			return writeContextReport(cmd.OutOrStdout(), req.RunID, req.Request, req.Compaction)
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the model_request payload as JSON")
	c.Flags().IntVar(&step, "step", 0, "the step (model request) to show; default the last")
	return c
}

// writeContextReport is the text form of a model request's report; comp is
// the compaction it is the first after (nil: none, or not in the journal).
func writeContextReport(w io.Writer, runID string, d *event.ModelRequestData, comp *event.CompactionData) error {
	r := d.Context
	fmt.Fprintf(w, "run %s, step %d: %s of %s tokens", runID, d.Step, thousands(r.TotalTokens), thousands(r.Budget))
	if r.Budget > 0 {
		fmt.Fprintf(w, " (%s of the budget)", percent(r.TotalTokens, r.Budget))
	}
	fmt.Fprintln(w)
	if r.Window > 0 {
		parts := fmt.Sprintf("window %s - answer reserve %s - margin %s", thousands(r.Window), thousands(r.Reserve), thousands(r.Margin))
		if r.Ratio > 1 {
			parts = fmt.Sprintf("(%s) / provider ratio %.2f", parts, r.Ratio)
		}
		fmt.Fprintf(w, "budget %s = %s\n", thousands(r.Budget), parts)
	}
	fmt.Fprintln(w, "counted: "+termtext.Line(protocol.CountingWords(r)))
	if r.Compacted > 0 {
		line := fmt.Sprintf("compacted before this request (seq %d", r.Compacted)
		if comp != nil {
			line += fmt.Sprintf(": %s, %s -> %s tokens", termtext.Field(string(comp.Trigger)), thousands(comp.TokensBefore), thousands(comp.TokensAfter))
		}
		fmt.Fprintln(w, line+")")
	}
	fmt.Fprintln(w)

	rows := [][]string{{"ID", "LAYER", "BUDGET", "TOKENS", "ITEMS", "SHARE"}}
	items, noBudget, budgeted := 0, false, false
	for _, l := range r.Layers {
		b := "-"
		if l.Budget > 0 {
			b, budgeted = thousands(l.Budget), true
		} else {
			noBudget = true
		}
		rows = append(rows, []string{orDash(string(l.ID)), l.Name, b, thousands(l.Tokens), strconv.Itoa(l.Items), percent(l.Tokens, r.Budget)})
		items += l.Items
	}
	rows = append(rows, []string{"", "total", "", thousands(r.TotalTokens), strconv.Itoa(items), percent(r.TotalTokens, r.Budget)})
	writeTable(w, rows, 2)
	if noBudget && budgeted {
		fmt.Fprintln(w, "(budget -: the layer has no share of its own and is sent whole)")
	}

	// the items not sent verbatim, under their layer's name
	var cut [][]string
	for _, l := range r.Layers {
		head := false
		for _, e := range l.Entries {
			if e.Reason == "" {
				continue
			}
			if !head {
				cut = append(cut, []string{"  " + layerLabel(l)})
				head = true
			}
			cut = append(cut, []string{"    " + protocol.CutWords(e.Reason), entryWhat(e), thousands(e.TokensBefore), "->", thousands(e.Tokens) + " tokens"})
		}
	}
	if len(cut) > 0 {
		fmt.Fprintln(w, "\nnot sent verbatim:")
		writeTable(w, cut, 2)
	}

	var notes []string
	for _, l := range r.Layers {
		if l.Note != "" {
			notes = append(notes, "  "+termtext.Line(layerLabel(l)+": "+l.Note))
		}
	}
	if len(notes) > 0 {
		fmt.Fprintln(w, "\nnotes:")
		fmt.Fprintln(w, strings.Join(notes, "\n"))
	}

	fmt.Fprintln(w)
	switch {
	case r.FirstChanged != "":
		name := string(r.FirstChanged)
		for _, l := range r.Layers {
			if l.ID == r.FirstChanged {
				name = layerLabel(l)
			}
		}
		fmt.Fprintln(w, "first layer changed since the previous request: "+termtext.Line(name))
	case d.Step > 1 && r.PrefixHash != "":
		fmt.Fprintln(w, "first layer changed since the previous request: none")
	}
	if r.PrefixHash != "" {
		fmt.Fprintln(w, "prefix hash (tools, L1, L5a): "+termtext.Line(r.PrefixHash))
	}
	return nil
}

// writeTable writes rows in columns two spaces apart: the first left
// columns aligned left, the others (figures) right; a row of one cell is a
// heading, written as it is. Each cell is made visible on its line first
// (a layer's name, an item's ref are the workspace's).
func writeTable(w io.Writer, rows [][]string, left int) {
	for _, r := range rows {
		for i := range r {
			r[i] = termtext.Line(r[i])
		}
	}
	var width []int
	for _, r := range rows {
		if len(r) == 1 {
			continue
		}
		for i, c := range r {
			if i >= len(width) {
				width = append(width, 0)
			}
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	for _, r := range rows {
		if len(r) == 1 {
			fmt.Fprintln(w, r[0]) // a heading: not part of the columns
			continue
		}
		var b strings.Builder
		for i, c := range r {
			if i > 0 {
				b.WriteString("  ")
			}
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(c))
			if i < left {
				b.WriteString(c + pad)
			} else {
				b.WriteString(pad + c)
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}

func layerLabel(l event.ContextLayer) string {
	if l.ID == "" || string(l.ID) == l.Name {
		return l.Name
	}
	return string(l.ID) + " " + l.Name
}

// entryWhat names an entry: its count and kind, its ref, its seq range.
func entryWhat(e event.ContextItem) string {
	s := protocol.ItemWords(e)
	switch {
	case e.FirstSeq > 0 && e.LastSeq > e.FirstSeq:
		s += fmt.Sprintf(" (seq %d-%d)", e.FirstSeq, e.LastSeq)
	case e.FirstSeq > 0:
		s += fmt.Sprintf(" (seq %d)", e.FirstSeq)
	}
	return s
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func percent(n, of int) string {
	if of <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(of))
}

// thousands writes n with thousands separators: 12,646.
func thousands(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
