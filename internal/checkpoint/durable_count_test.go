package checkpoint

// countFsyncs starts counting the fsyncs s makes (files, directories and,
// through atomicfile, each ref: its file and its directory); the returned
// func says how many so far.
func countFsyncs(s *Store) func() int {
	n := 0
	prev := s.sy.hook
	s.sy.hook = func(ev syncEvent) {
		switch ev.Op {
		case opSyncFile, opSyncDir:
			n++
		case opRef:
			n += 2
		case opRefRewrite:
			n++
		}
		if prev != nil {
			prev(ev)
		}
	}
	return func() int { s.sy.hook = prev; return n }
}
