package event

// LayerID names one layer of a model request. The values are the design's
// (docs/design.md, "The context builder"), in request order: tools, L1, L5a,
// L6, L3, L5b, L4, L2.
type LayerID string

const (
	LayerTools        LayerID = "tools" // the tool schemas, sorted by name
	LayerInstructions LayerID = "L1"    // system prompt and AGENTS.md files
	LayerRepoMap      LayerID = "L5a"   // the repository map
	LayerHistory      LayerID = "L6"    // the summary and older rounds
	LayerRecent       LayerID = "L3"    // the last rounds, verbatim
	LayerSnippets     LayerID = "L5b"   // current regions of files in play
	LayerTask         LayerID = "L4"    // task state and plan
	LayerMessage      LayerID = "L2"    // the person's current message
)

// CutReason says why an item of the request is not there verbatim.
type CutReason string

const (
	ReasonSupersededRead CutReason = "superseded_read" // a read of a file edited since
	ReasonMasked         CutReason = "output_masked"   // an old tool output replaced by a stub
	ReasonHeadTail       CutReason = "head_tail_cut"   // a long output cut to its head and tail
	ReasonSummarized     CutReason = "summarized"      // folded into the summary
	ReasonOverBudget     CutReason = "over_budget"     // left out: its layer's share was spent
	ReasonOrphan         CutReason = "orphan"          // a result whose call is gone (after a rewind), or a call given a stub result
	ReasonOutline        CutReason = "outline"         // a large file shown as an outline and regions
)

// ContextItem accounts for one input item of a layer, or a run of
// consecutive items treated alike (Count > 1, FirstSeq..LastSeq).
type ContextItem struct {
	Kind string `json:"kind"` // person, assistant, tool_result, summary, file, plan, map, instructions, tool
	// Ref names the item: a call id, a path, a tool name (empty for a run).
	Ref          string    `json:"ref,omitempty"`
	FirstSeq     int64     `json:"first_seq,omitempty"`
	LastSeq      int64     `json:"last_seq,omitempty"`
	Count        int       `json:"count"`
	TokensBefore int       `json:"tokens_before"`
	Tokens       int       `json:"tokens"`
	Reason       CutReason `json:"reason,omitempty"` // empty: verbatim
}

// ContextLayer is one layer of a request.
type ContextLayer struct {
	Name string  `json:"name"`
	ID   LayerID `json:"id,omitempty"`
	// Budget is the layer's share of the budget (0: reserved at its size).
	Budget int `json:"budget,omitempty"`
	Tokens int `json:"tokens"`
	Items  int `json:"items"`
	// Hash is a short hash of the layer's bytes, to see what changed
	// between requests.
	Hash string `json:"hash,omitempty"`
	// Entries accounts for the layer's input items: every item is in one
	// entry, verbatim ones grouped.
	Entries []ContextItem `json:"entries,omitempty"`
	Note    string        `json:"note,omitempty"`
}

// TokenCounting says where a report's token figures come from.
type TokenCounting string

const (
	CountMeasured  TokenCounting = "measured"  // the model's tokenizer, corrected by the provider's usage
	CountEncoder   TokenCounting = "encoder"   // the model's tokenizer, no provider usage folded in yet
	CountEstimated TokenCounting = "estimated" // about four bytes a token
)

// ContextReport is what a model request was made of.
type ContextReport struct {
	// Budget is what the request may use: Window - Reserve - Margin.
	Budget int `json:"budget"`
	Window int `json:"window,omitempty"`
	// WindowSource: config, provider (its model list), model table, default.
	WindowSource string         `json:"window_source,omitempty"`
	Reserve      int            `json:"reserve,omitempty"` // kept for the answer
	Margin       int            `json:"margin,omitempty"`
	TotalTokens  int            `json:"total_tokens"`
	Layers       []ContextLayer `json:"layers"`
	// Counting says how the figures were counted; Encoding is the
	// tokenizer's, Ratio the provider/encoder correction (0: none yet)
	// from Samples requests.
	Counting TokenCounting `json:"counting,omitempty"`
	Encoding string        `json:"encoding,omitempty"`
	Ratio    float64       `json:"ratio,omitempty"`
	Samples  int           `json:"samples,omitempty"`
	// PrefixHash hashes the stable prefix (tools, L1, L5a); FirstChanged is
	// the first layer, in request order, whose bytes differ from the
	// previous request's ("" for the first request or when none changed).
	PrefixHash   string  `json:"prefix_hash,omitempty"`
	FirstChanged LayerID `json:"first_changed,omitempty"`
	// Compacted is the seq of the compaction event this request is the
	// first after (0: none since the previous request).
	Compacted int64 `json:"compacted,omitempty"`
	// InputItems is the number of items the state held (messages, the
	// summary, files, the plan); every one is in some layer's Entries.
	InputItems int `json:"input_items,omitempty"`
}

// CompactionTrigger says why a compaction happened.
type CompactionTrigger string

const (
	TriggerBudget CompactionTrigger = "budget" // the request would not fit
	TriggerForced CompactionTrigger = "forced" // a person asked (/compact, resume --compact)
)

// SummaryKind says who wrote a compaction's summary.
type SummaryKind string

const (
	SummaryDeterministic SummaryKind = "deterministic"
	SummaryModel         SummaryKind = "model"
)

// CompactionData moves the boundaries of what older rounds look like in
// every later request. Items are named by the seq of the event that
// produced them: messages with seq <= FoldedThrough are represented only
// by Summary (the person's messages inside it verbatim), tool outputs with
// seq <= MaskedThrough are stubs, reads superseded by a later edit with
// seq <= SupersededThrough are stubs, and outputs with seq <= CutThrough
// longer than CutTokens are cut to their head and tail.
type CompactionData struct {
	Step              int               `json:"step"`
	Trigger           CompactionTrigger `json:"trigger"`
	Kind              SummaryKind       `json:"kind"`
	FoldedThrough     int64             `json:"folded_through"`
	MaskedThrough     int64             `json:"masked_through"`
	SupersededThrough int64             `json:"superseded_through"`
	CutThrough        int64             `json:"cut_through,omitempty"`
	CutTokens         int               `json:"cut_tokens,omitempty"`
	Summary           string            `json:"summary"`
	TokensBefore      int               `json:"tokens_before"`
	TokensAfter       int               `json:"tokens_after"`
	// Rejected says why a model summary was not used (the deterministic one
	// was), when one was asked for.
	Rejected string `json:"rejected,omitempty"`
	// Shrunk is set when the last rounds themselves had to be cut.
	Shrunk bool `json:"shrunk,omitempty"`
}

// RefreshReason says why the slow layers were read afresh.
type RefreshReason string

const (
	RefreshStart      RefreshReason = "start"      // the first request of the run (or of a run made before refreshes)
	RefreshCompaction RefreshReason = "compaction" // after a compaction
	RefreshEdits      RefreshReason = "edits"      // after enough edits
)

// ContextRefreshData records the slow layers as they were read: the
// instruction files of L1 (by path; the text is read from disk) and the
// repo map of L5a (its text, so a resumed run sends the same bytes).
type ContextRefreshData struct {
	Step   int           `json:"step"`
	Reason RefreshReason `json:"reason"`
	// Instructions are the AGENTS.md files in L1, in order; InstructionsHash
	// hashes L1 as built.
	Instructions     []string `json:"instructions"`
	InstructionsHash string   `json:"instructions_hash"`
	// InstructionsText is L1 as built (redacted), when it differs from the
	// previous refresh's; empty when the hash is the same.
	InstructionsText string   `json:"instructions_text,omitempty"`
	RepoMap          string   `json:"repo_map"`
	RepoMapFiles     []string `json:"repo_map_files,omitempty"`
	RepoMapTokens    int      `json:"repo_map_tokens"`
	// Edits is how many file edits the run had made at the refresh.
	Edits int `json:"edits"`
	// Error says why the repo map could not be built (the layer is empty).
	Error string `json:"error,omitempty"`
}
