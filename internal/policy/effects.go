package policy

import "strings"

// What read-looking commands write or run: the options and forms that make
// a command a write (sort -o, uniq IN OUT, tee, curl -o...) or an exec (sort
// --compress-program, man -P, less +!cmd, ssh -o ProxyCommand...). A write is
// never covered by a command allow rule (like a redirection); code an exec
// form runs is read as code, so deny rules see it and allow rules must cover
// it; what cannot be read (a script file, a library) is unknown.
//
// sed, awk, git and tar have files of their own.

// optTables: commands whose options are all the policy needs to know.
var optTables = map[string]*optTable{
	"sort": newOptTable("o:w k t S T", "output:w key field-separator buffer-size temporary-directory "+
		"compress-program:p files0-from:r random-source:r parallel batch-size sort", false),
	"shuf":  newOptTable("o:w n i", "output:w head-count input-range random-source:r", false),
	"iconv": newOptTable("f t o:w", "from-code to-code output:w", false),
	"sdiff": newOptTable("o:w w I", "output:w width ignore-matching-lines diff-program:p tabsize", false),
	"diff3": newOptTable("L", "label diff-program:p", false),
	"tree":  newOptTable("o:w L P I H T", "charset filelimit timefmt sort fromfile:r", false),
	"curl": newOptTable("A b c:w C d D:w e E F H K:l m o:w P Q r t T:r u U w x X y Y z",
		"output:w dump-header:w cookie-jar:w trace:w trace-ascii:w libcurl:w stderr:w etag-save:w hsts:w "+
			"alt-svc:w config:l engine:l output-dir:w upload-file:r netrc-file:r user-agent cookie data data-raw "+
			"data-binary:r data-urlencode data-ascii form form-string header referer request url user proxy "+
			"proxy-user max-time connect-timeout range continue-at cert key cacert capath ciphers interface "+
			"resolve connect-to retry retry-delay retry-max-time write-out limit-rate max-filesize speed-limit "+
			"speed-time time-cond quote unix-socket abstract-unix-socket", false),
	"man": newOptTable("P:c C:l H?:p M m e L p R r S s E",
		"pager:c config-file:l html?:p manpath systems extension locale preprocessor encoding sections", false),
	"rg": newOptTable("A B C e f:r g j m M t T E r d", "pre:p hostname-bin:p regexp file:r glob iglob type "+
		"type-not max-count max-columns after-context before-context context threads encoding replace sort sortr "+
		"type-add color colors path-separator max-depth max-filesize dfa-size-limit regex-size-limit engine "+
		"context-separator field-context-separator field-match-separator hyperlink-format pre-glob ignore-file:r", false),
	"bat": newOptTable("l m r H", "pager:c language map-syntax line-range highlight-line style theme tabs wrap "+
		"terminal-width color italic-text decorations paging file-name diff-context", false),
	"rsync": newOptTable("e:c f B M T", "rsh:c filter exclude include exclude-from:r include-from:r files-from:r "+
		"password-file:r log-file:w write-batch:w only-write-batch:w read-batch:r temp-dir backup-dir suffix chmod "+
		"chown usermap groupmap timeout contimeout port sockopts out-format log-file-format modify-window "+
		"compare-dest copy-dest link-dest max-size min-size max-delete block-size checksum-choice compress-choice "+
		"compress-level skip-compress partial-dir rsync-path remote-option outbuf iconv bwlimit stop-after stop-at "+
		"info debug protocol address early-input:r", false),
	"split":         newOptTable("a b C l n t", "suffix-length bytes line-bytes lines number separator filter:c additional-suffix", false),
	"csplit":        newOptTable("b f n", "suffix-format prefix digits", false),
	"ag":            newOptTable("A B C G m p", "pager:c after before context file-search-regex max-count path-to-ignore:r depth", false),
	"nm":            newOptTable("", "plugin:l target format radix size-sort", false),
	"prettier":      newOptTable("", "config:l plugin:l ignore-path:r", false),
	"eslint":        newOptTable("c:l f o:w", "config:l plugin:l rulesdir:l resolve-plugins-relative-to:l output-file:w format ext", false),
	"pylint":        newOptTable("", "load-plugins:l init-hook:l rcfile:l output:w", false),
	"mypy":          newOptTable("", "config-file:l python-executable:p", false),
	"flake8":        newOptTable("", "config:l append-config:l output-file:w", false),
	"golangci-lint": newOptTable("c:l", "config:l", false),
	"gpg":           gpgOpts,
	"gpg2":          gpgOpts,
	"nc":            ncOpts,
	"netcat":        ncOpts,
	"ncat":          newOptTable("e:p c:c o:w x i p s w q", "exec:p sh-exec:c lua-exec:l output:w hex-dump:w source proxy proxy-type", false),
	"ssh":           newOptTable("B b c D E:w e F:l I:l i J L l m O o p Q R S W w", "", true),
	"scp":           newOptTable("c D F:l i J l o P S:p X", "", true),
	"sftp":          newOptTable("B b c D:p F:l i J l o P R S:p s", "", true),
	"uniq":          newOptTable("f s w", "skip-fields skip-chars check-chars", false),
	"wget":          newOptTable("O:w o:w a:w P:w e i:r t T w Q U B", "output-document:w output-file:w append-output:w directory-prefix:w execute input-file:r use-askpass:p tries timeout wait quota user-agent base config:l", false),
	"less":          newOptTable("b h j k:l p P t T x y z # D o:w O:w", "log-file:w LOG-FILE:w lesskey-file:l tag", false),
	"unzip":         newOptTable("d:w x", "", false),
}

var (
	gpgOpts = newOptTable("o:w r u f", "output:w photo-viewer:c exec-path:l recipient local-user homedir default-key "+
		"trust-model keyserver keyserver-options", false)
	ncOpts = newOptTable("e:p c:c o:w i p s w x X q I O T V",
		"exec:p sh-exec:c lua-exec:l output:w hex-dump:w source proxy proxy-type", false)
)

// effects finds the writing and executing forms of a command already
// recorded as entry idx.
func (a *analyzer) effects(base string, ws []string, c *callCtx, idx int) {
	switch base {
	case "sed", "gsed":
		a.sed(ws, c)
	case "awk", "gawk", "mawk", "nawk":
		a.awk(ws, c, base)
	case "git":
		a.git(ws, c, idx)
	case "gh":
		a.gh(ws, c, idx)
	case "tar", "gtar", "bsdtar":
		a.tar(ws, c)
	case "go":
		a.goCmd(ws, c)
	case "unzip":
		a.unzip(ws, c)
	case "uniq":
		a.stdOpts(ws, c, optTables["uniq"], "uniq", func(o optArg, n int) {
			switch {
			case o.name == "" && hasHole(o.word):
				a.an.blockers = append(a.an.blockers, quote(c.src)+": a word only known when it runs may be "+
					"uniq's second operand, a file it writes")
			case o.name == "" && n == 1:
				a.write(o.word, c, "uniq writes its output to its second operand")
			}
		})
	case "xxd":
		a.xxd(ws, c)
	case "split", "csplit":
		prefix := map[string]string{"split": "x", "csplit": "xx"}[base]
		a.stdOpts(ws, c, optTables[base], base, func(o optArg, n int) {
			switch {
			case base == "split" && o.name == "" && n == 1, base == "csplit" && (o.name == "f" || o.name == "prefix"):
				prefix = o.word + o.val
			}
		})
		a.write(prefix+string(rune(dynByte)), c, base+" writes its pieces to files named "+printable(prefix)+"…")
	case "tee":
		for _, w := range ws[1:] {
			if !strings.HasPrefix(w, "-") || w == "-" {
				a.write(w, c, "tee writes its input to the file")
			}
		}
	case "dd":
		for _, w := range ws[1:] {
			if v, ok := strings.CutPrefix(w, "of="); ok {
				a.write(v, c, "dd of= writes to the file")
			}
		}
	case "curl":
		a.stdOpts(ws, c, optTables["curl"], "curl", func(o optArg, _ int) {
			if o.name == "O" || o.name == "remote-name" || o.name == "remote-name-all" || o.name == "J" {
				a.write(string(rune(dynByte)), c, "curl "+o.flag()+" saves the download to a file named after the URL")
			}
		})
	case "wget":
		a.wget(ws, c)
	case "less":
		a.less(ws, c)
	case "vi", "vim", "nvim", "view", "ex", "vimdiff", "gvim", "rvim", "rview", "nview":
		a.vim(ws, c, base)
	case "zip":
		for i := 1; i+1 < len(ws); i++ {
			if ws[i] == "-TT" || ws[i] == "--unzip-command" {
				a.progVia(ws[i+1], c, "zip "+ws[i])
			} else if v, ok := strings.CutPrefix(ws[i], "--unzip-command="); ok {
				a.progVia(v, c, "zip --unzip-command")
			}
		}
	case "ssh", "scp", "sftp":
		a.stdOpts(ws, c, optTables[base], base, func(o optArg, _ int) {
			if o.name == "o" && o.hasVal {
				a.sshOption(o.val, c, base)
			}
		})
	case "socat":
		for _, w := range ws[1:] {
			kind, rest, _ := strings.Cut(w, ":")
			switch strings.ToUpper(kind) {
			case "EXEC", "SYSTEM":
				code, _, _ := strings.Cut(rest, ",")
				a.codeVia(code, c, "socat "+strings.ToUpper(kind)+":")
			case "CREATE", "OPEN", "GOPEN":
				file, _, _ := strings.Cut(rest, ",")
				a.write(file, c, "socat "+strings.ToUpper(kind)+": writes to the file")
			}
		}
	case "openssl":
		for i := 1; i+1 < len(ws); i++ {
			switch ws[i] {
			case "-out", "-keyout", "-signature":
				a.write(ws[i+1], c, "openssl "+ws[i]+" writes to the file")
			case "-engine", "-provider", "-provider-path", "-config":
				a.unknown(c.src, "openssl "+ws[i]+" loads "+printable(ws[i+1])+", which can run anything")
			}
		}
	case "yq":
		inplace := false
		for _, w := range ws[1:] {
			inplace = inplace || w == "-i" || w == "--inplace" || strings.HasPrefix(w, "--inplace=")
		}
		if inplace {
			for _, w := range ws[1:] {
				if !strings.HasPrefix(w, "-") {
					a.write(w, c, "yq -i rewrites its input files")
				}
			}
		}
	default:
		if t := optTables[base]; t != nil {
			a.stdOpts(ws, c, t, base, nil)
		}
	}
}

// xxd [options] [INFILE [OUTFILE]]: the second operand is written. Its
// options take a separate value (-c 16, -len 16).
func (a *analyzer) xxd(ws []string, c *callCtx) {
	n := 0
	for i := 1; i < len(ws); i++ {
		w := ws[i]
		switch {
		case hasHole(w) && (w[0] == dynByte || n == 1):
			a.an.blockers = append(a.an.blockers, quote(c.src)+": a word only known when it runs may be xxd's "+
				"second operand, a file it writes")
		case len(w) > 1 && w[0] == '-':
			if strings.IndexByte("cglosnCR", w[1]) >= 0 && (len(w) == 2 || w[2] >= 'a' && w[2] <= 'z') {
				i++ // -c 16, -cols 16
			}
		default:
			if n == 1 {
				a.write(w, c, "xxd writes its output to its second operand")
			}
			n++
		}
	}
}

// wget saves what it downloads to a file unless -O - (or --spider).
func (a *analyzer) wget(ws []string, c *callCtx) {
	saved, spider := false, false
	a.stdOpts(ws, c, optTables["wget"], "wget", func(o optArg, _ int) {
		switch o.name {
		case "O", "output-document":
			saved = true
		case "spider":
			spider = true
		case "e", "execute": // a wgetrc command: key = value
			k, v, _ := strings.Cut(o.val, "=")
			k = strings.ToLower(strings.TrimSpace(strings.ReplaceAll(k, "_", "")))
			v = strings.TrimSpace(v)
			switch {
			case strings.Contains(k, "askpass"):
				a.progVia(v, c, "wget -e "+k)
			case k == "outputdocument" || k == "logfile" || k == "dirprefix":
				a.write(v, c, "wget -e "+k+" writes to the file")
			}
		}
	})
	if !saved && !spider {
		a.write(string(rune(dynByte)), c, "wget saves what it downloads to a file")
	}
}

// sshOption: ssh -o KEY=VALUE (or "KEY VALUE"); ProxyCommand,
// LocalCommand and KnownHostsCommand run a command here.
func (a *analyzer) sshOption(kv string, c *callCtx, tool string) {
	k, v, ok := strings.Cut(kv, "=")
	if !ok {
		k, v, _ = strings.Cut(kv, " ")
	}
	switch strings.ToLower(strings.TrimSpace(k)) {
	case "proxycommand", "localcommand", "knownhostscommand":
		a.codeVia(strings.TrimSpace(v), c, tool+" -o "+strings.TrimSpace(k))
	case "include":
		a.unknown(c.src, tool+" -o Include loads a configuration file, which can run commands")
	}
}

// less: -o/-O write a log; +CMD runs less commands at start: `+!cmd` runs
// a shell command; anything but a line number or a search is unknown.
func (a *analyzer) less(ws []string, c *callCtx) {
	a.stdOpts(ws, c, optTables["less"], "less", func(o optArg, _ int) {
		if o.name != "" || !strings.HasPrefix(o.word, "+") || o.afterDashes {
			return
		}
		cmd := strings.TrimLeft(o.word, "+")
		switch {
		case strings.HasPrefix(cmd, "!"):
			a.codeVia(cmd[1:], c, "less +!")
		case cmd == "" || strings.Trim(cmd, "0123456789gGFp%") == "":
		case (cmd[0] == '/' || cmd[0] == '?') && !strings.ContainsAny(cmd, "\n\r"):
		default:
			a.unknown(c.src, "less "+printable(o.word)+" runs less commands at start, which can run a shell command")
		}
	})
}

// vim and friends: -c CMD, --cmd CMD and +CMD run Ex commands (":!cmd" a
// shell command); -S, -s, -u load scripts; -w, -W write a script out.
func (a *analyzer) vim(ws []string, c *callCtx, base string) {
	defer func() { // Ex commands from a here-document (ex, vim -e/-es)
		if text, ok := stdinText(c); ok {
			for _, line := range strings.Split(text, "\n") {
				a.vimExCmd(line, "reading standard input", c, base)
			}
		}
	}()
	exCmd := func(cmd, opt string) { a.vimExCmd(cmd, opt, c, base) }
	exMode := base == "ex"
	for i := 1; i < len(ws); i++ {
		w := ws[i]
		if w == "-e" || w == "-E" || w == "-es" || w == "-Es" {
			exMode = true
		}
		next := ""
		if i+1 < len(ws) {
			next = ws[i+1]
		}
		switch {
		case w == "--":
			return
		case w == "-c" || w == "--cmd":
			exCmd(next, w)
			i++
		case strings.HasPrefix(w, "+") && !strings.HasPrefix(w, "+/") && !strings.HasPrefix(w, "+?"):
			exCmd(w[1:], "+")
		case w == "-l" && base == "nvim":
			a.unknown(c.src, "nvim -l runs a Lua script")
			return
		case w == "-s" && exMode: // silent, in Ex mode
		case w == "-S" || w == "-s" || w == "-u" || w == "-U":
			if next != "NONE" && next != "NORC" {
				a.unknown(c.src, base+" "+w+" loads "+printable(next)+", which can run commands")
			}
			i++
		case w == "-w" || w == "-W" || w == "--startuptime":
			a.write(next, c, base+" "+w+" writes to the file")
			i++
		case strings.HasPrefix(w, "-V") && len(w) > 2:
			if k := strings.IndexFunc(w[2:], func(r rune) bool { return r < '0' || r > '9' }); k >= 0 {
				a.write(w[2+k:], c, base+" -V writes its log to the file")
			}
		case strings.HasPrefix(w, "--remote"):
			a.unknown(c.src, base+" "+w+" sends commands to another editor")
		case hasHole(w) && w[0] == dynByte:
			a.unknown(c.src, "a word only known when it runs may be an option of "+base+" that runs an Ex command (-c)")
		}
	}
}

// goRunsFlags: go build/test/vet/run flags whose value is a program go runs.
var goRunsFlags = map[string]bool{"exec": true, "toolexec": true, "vettool": true}

// goValueFlags: go flags that take a value (-run X, -o file).
var goValueFlags = wordSet(`run bench count timeout o p tags ldflags gcflags asmflags gccgoflags mod modfile overlay
	pkgdir coverpkg coverprofile cpuprofile memprofile blockprofile mutexprofile trace outputdir parallel cpu
	benchtime shuffle skip fuzz fuzztime fuzzminimizetime list covermode C installsuffix buildmode compiler pgo
	memprofilerate blockprofilerate mutexprofilefraction test.run test.count test.timeout`)

// goEnvPrograms: go env variables that name programs the go command runs.
var goEnvPrograms = map[string]bool{"CC": true, "CXX": true, "FC": true, "AR": true, "PKG_CONFIG": true}

// goCmd: go's flags (-flag=value or -flag value, one or two dashes) -exec,
// -toolexec and -vettool run a program; `go env -w` of GOFLAGS or of a
// program (CC...) plants one that later go commands run. What `go run`,
// `go generate` and `go tool` run is the repository's own code.
func (a *analyzer) goCmd(ws []string, c *callCtx) {
	if len(ws) > 2 && ws[1] == "env" {
		for _, w := range ws[2:] {
			k, v, ok := strings.Cut(w, "=")
			switch {
			case !ok:
			case k == "GOFLAGS":
				a.an.blockers = append(a.an.blockers, quote(c.src)+" sets GOFLAGS for later go commands")
				a.goCmd(append([]string{"go", "build"}, strings.Fields(v)...), &callCtx{src: c.src, depth: c.depth, denyOnly: true, via: c.via})
			case goEnvPrograms[k]:
				a.an.blockers = append(a.an.blockers, quote(c.src)+" sets "+k+", a program later go commands run")
				a.progVia(v, &callCtx{src: c.src, depth: c.depth, denyOnly: true, via: c.via}, "go env "+k)
			}
		}
		return
	}
	for i := 1; i < len(ws); i++ {
		w := ws[i]
		if w == "--" {
			return
		}
		if w != "" && w[0] == dynByte {
			a.unknown(c.src, "a word only known when it runs may be a go flag such as -toolexec, which runs a program")
			return
		}
		if !strings.HasPrefix(w, "-") {
			continue
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(w, "-"), "=")
		if !goRunsFlags[name] {
			if goValueFlags[name] && !hasVal {
				i++
			}
			continue
		}
		if !hasVal && i+1 < len(ws) {
			val = ws[i+1]
			i++
		}
		a.progVia(val, c, "go -"+name)
	}
}

// vimExCmd reads one Ex command: ":!cmd" runs a shell command; a line
// number, set, syntax, q and echo do nothing else; anything else is unknown.
func (a *analyzer) vimExCmd(cmd, opt string, c *callCtx, base string) {
	cmd = strings.TrimLeft(cmd, ": \t")
	word := cmd
	if k := strings.IndexAny(word, " \t|"); k >= 0 {
		word = word[:k]
	}
	switch {
	case strings.HasPrefix(cmd, "!"):
		a.codeVia(cmd[1:], c, base+" "+opt+" (an Ex shell command)")
	case cmd == "" || strings.Trim(cmd, "0123456789$") == "":
	case !strings.ContainsAny(cmd, "!|") && (word == "set" || word == "se" || word == "syntax" || word == "sy" ||
		word == "q" || word == "qa" || word == "q!" || word == "qa!" || word == "noh" || word == "echo"):
	default:
		a.unknown(c.src, base+" "+opt+" "+quote(printable(cmd))+" runs an Ex command, which can write files and run commands")
	}
}
