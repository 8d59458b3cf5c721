package tui

import "time"

// warmDelay is how long after the first window size the session starts
// filling its caches (the repo map's cold parse, the tokenizer's
// vocabulary: tens of milliseconds of CPU). Started at once, that work ran
// beside the first frame on a two-core machine and delayed it; a person
// takes longer than this to type a first prompt, and a prompt sent sooner
// loads what it needs itself (docs/benchmarks.md, "Issue 21: the first
// frame").
const warmDelay = 250 * time.Millisecond
