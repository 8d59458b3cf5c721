package policy

import "strings"

// wrapSpec describes how a wrapper's options are laid out: which options
// take a value and what that value is, how many operands come before the
// command, and whether the wrapper runs the command with other rights.
type wrapSpec struct {
	argOpts    string   // short options that take a value ("n" for nice -n 5)
	longArg    []string // long options that take a separate value
	lead       int      // operands before the options (setarch ARCH [options] CMD)
	positional int      // operands before the command (timeout DURATION)
	assigns    bool     // NAME=VALUE words before the command (env, sudo)
	noCmdOpts  string   // short options after which nothing runs (command -v)
	noCmdLong  []string // long options after which nothing runs (setarch --list)
	writeOpts  string   // short options whose value is a file written (time -o)
	writeLong  []string
	progOpts   string   // short options whose value is a program it runs
	progLong   []string // (dbus-run-session --dbus-daemon=BINARY)
	loadOpts   string   // short options whose value is a library it loads (fakeroot -l)
	loadLong   []string
	splitOpts  string   // short options whose value is a command line (env -S)
	codeAfter  bool     // flock FILE -c CODE: -c/--command right after the operands
	shellOpts  string   // short options that, with no command, run a shell reading standard input (sudo -s)
	privileged bool     // runs the command with other rights: an allow rule must name the wrapper
	flags      string   // short options known to take no value
	longFlags  []string // long options known to take no separate value
}

// wrappers run the command their operands name. Deny rules see each level;
// allow rules see the inner command (and the wrapper too when it is
// privileged).
var wrappers = map[string]*wrapSpec{
	"env": {argOpts: "uCSa", longArg: []string{"--unset", "--chdir", "--split-string", "--argv0"},
		assigns: true, splitOpts: "S", flags: "i0v", longFlags: []string{"--ignore-environment", "--null", "--debug",
			"--default-signal", "--ignore-signal", "--block-signal", "--list-signal-handling"}},
	"nohup": {},
	"time": {argOpts: "fo", longArg: []string{"--format", "--output"}, writeOpts: "o", writeLong: []string{"--output"},
		flags: "apqvV", longFlags: []string{"--portability", "--append", "--verbose", "--quiet"}},
	"nice":   {argOpts: "n", longArg: []string{"--adjustment"}},
	"ionice": {argOpts: "cnpPu", longArg: []string{"--class", "--classdata", "--pid", "--pgid", "--uid"}, flags: "t"},
	"timeout": {argOpts: "sk", longArg: []string{"--signal", "--kill-after"}, positional: 1, flags: "v",
		longFlags: []string{"--foreground", "--preserve-status", "--verbose"}},
	"stdbuf":  {argOpts: "ioe", longArg: []string{"--input", "--output", "--error"}},
	"setsid":  {flags: "cfw", longFlags: []string{"--ctty", "--fork", "--wait"}},
	"command": {noCmdOpts: "vV", flags: "p"},
	"builtin": {},
	"exec":    {argOpts: "a", flags: "cl"},
	"sudo": {argOpts: "ugCDhprtUTc", longArg: []string{"--user", "--group", "--chdir", "--host", "--prompt",
		"--role", "--type", "--other-user", "--close-from", "--command-timeout", "--login-class", "--chroot"},
		assigns: true, noCmdOpts: "lveVK", shellOpts: "si", privileged: true, flags: "AbEHiknPSsBN",
		longFlags: []string{"--askpass", "--background", "--preserve-env", "--set-home", "--login", "--reset-timestamp",
			"--non-interactive", "--preserve-groups", "--stdin", "--shell", "--bell", "--no-update"}},
	"doas":   {argOpts: "uC", noCmdOpts: "L", shellOpts: "s", privileged: true, flags: "ns"},
	"chroot": {longArg: []string{"--userspec", "--groups"}, positional: 1, privileged: true, longFlags: []string{"--skip-chdir"}},
	"pkexec": {longArg: []string{"--user"}, privileged: true, longFlags: []string{"--disable-internal-agent", "--keep-cwd"}},
	// util-linux and friends
	"flock": {argOpts: "wE", longArg: []string{"--wait", "--timeout", "--conflict-exit-code"}, positional: 1, codeAfter: true,
		flags: "sxenuoF", longFlags: []string{"--shared", "--exclusive", "--nonblock", "--nb", "--no-fork", "--unlock",
			"--close", "--verbose"}},
	"strace": {argOpts: "abeEIoOpPsSuUX", longArg: []string{"--output", "--trace", "--trace-path", "--attach", "--user",
		"--env", "--signal", "--status", "--string-limit", "--columns", "--summary-sort-by", "--summary-columns",
		"--const-print-style", "--detach-on", "--syscall-limit", "--kill-on", "--inject", "--fault", "--raw",
		"--read", "--write", "--verbose", "--abbrev", "--trace-fds", "--argv0", "--quiet"},
		writeOpts: "o", writeLong: []string{"--output"}, flags: "cCdDfFhiknNqrtTvVwxyYzZA",
		longFlags: []string{"--follow-forks", "--output-separately", "--summary-only", "--summary", "--summary-wall-clock",
			"--daemonize", "--seccomp-bpf", "--kill-on-exit", "--no-abbrev", "--stack-traces", "--instruction-pointer",
			"--syscall-number", "--timestamps", "--relative-timestamps", "--syscall-times", "--decode-fds",
			"--decode-pids", "--silent"}},
	"ltrace": {argOpts: "aADeFlnopsuwx", longArg: []string{"--output", "--library", "--indent", "--align"},
		writeOpts: "o", writeLong: []string{"--output"}, loadOpts: "l", loadLong: []string{"--library"}, flags: "bcCfhiLrStTV"},
	"unshare": {argOpts: "SGRwl", longArg: []string{"--propagation", "--setgroups", "--setuid", "--setgid", "--root",
		"--wd", "--map-user", "--map-group", "--map-users", "--map-groups", "--load-interp", "--monotonic", "--boottime"},
		privileged: true, flags: "muinpUCTrcf", longFlags: []string{"--mount", "--uts", "--ipc", "--net", "--pid", "--user",
			"--cgroup", "--time", "--fork", "--map-root-user", "--map-current-user", "--mount-proc", "--kill-child",
			"--keep-caps", "--map-auto"}},
	"nsenter": {argOpts: "tSG", longArg: []string{"--target", "--setuid", "--setgid", "--user-parent-ns"}, privileged: true,
		flags: "muinpUCTrwaFZe", longFlags: []string{"--all", "--mount", "--uts", "--ipc", "--net", "--pid", "--user",
			"--cgroup", "--time", "--root", "--wd", "--no-fork", "--preserve-credentials", "--follow-context", "--env"}},
	"taskset": {positional: 1, noCmdOpts: "p", noCmdLong: []string{"--pid"}, flags: "ac",
		longFlags: []string{"--all-tasks", "--cpu-list"}},
	"chrt": {argOpts: "TPD", longArg: []string{"--sched-runtime", "--sched-period", "--sched-deadline"},
		positional: 1, noCmdOpts: "pm", noCmdLong: []string{"--pid", "--max"}, flags: "abdfiorRev",
		longFlags: []string{"--all-tasks", "--batch", "--deadline", "--fifo", "--idle", "--other", "--rr",
			"--reset-on-fork", "--verbose"}},
	"prlimit": {argOpts: "op", longArg: []string{"--output", "--pid"}, noCmdOpts: "p", noCmdLong: []string{"--pid"},
		flags: "cdefilmnqrstuvxy", longFlags: []string{"--noheadings", "--raw", "--verbose", "--core", "--data", "--nice",
			"--fsize", "--sigpending", "--memlock", "--rss", "--nofile", "--msgqueue", "--rtprio", "--stack", "--cpu",
			"--nproc", "--as", "--locks", "--rttime"}},
	"setpriv": {longArg: []string{"--ambient-caps", "--bounding-set", "--inh-caps", "--groups", "--ruid", "--euid",
		"--rgid", "--egid", "--reuid", "--regid", "--securebits", "--pdeathsig", "--selinux-label", "--apparmor-profile",
		"--landlock-access", "--landlock-rule", "--seccomp-filter"}, noCmdOpts: "d", noCmdLong: []string{"--dump"},
		privileged: true, longFlags: []string{"--init-groups", "--keep-groups", "--clear-groups", "--reset-env",
			"--no-new-privs", "--nnp"}},
	"setarch": {lead: 1, noCmdLong: []string{"--list"}, flags: "vRFZLXBIST3", longFlags: []string{"--verbose",
		"--addr-no-randomize", "--fdpic-funcptrs", "--mmap-page-zero", "--addr-compat-layout", "--read-implies-exec",
		"--32bit", "--short-inode", "--whole-seconds", "--sticky-timeouts", "--3gb", "--4gb", "--uname-2.6"}},
	"linux32": {},
	"linux64": {},
	"i386":    {},
	"i686":    {},
	"x86_64":  {},
	"uname26": {},
	"fakeroot": {argOpts: "lisb", longArg: []string{"--lib", "--faked", "--fd-base"}, writeOpts: "s",
		loadOpts: "l", loadLong: []string{"--lib", "--faked"}, flags: "uhv", longFlags: []string{"--unknown-is-real"}},
	"valgrind":  {writeLong: []string{"--log-file", "--xml-file"}, progLong: []string{"--db-command"}, flags: "qvd"},
	"ssh-agent": {argOpts: "aEOPt", noCmdOpts: "k", flags: "csdD"},
	"dbus-run-session": {longArg: []string{"--config-file", "--dbus-daemon"},
		progLong: []string{"--dbus-daemon"}},
	"dbus-launch": {longArg: []string{"--autolaunch", "--config-file"}},
	"xvfb-run":    {argOpts: "efnpsw", writeOpts: "e", flags: "al", longFlags: []string{"--auto-servernum", "--listen-tcp"}},
	"catchsegv":   {},
	"eatmydata":   {},
	"nocache":     {},
	"unbuffer":    {flags: "p"},
	"chronic":     {flags: "ev"},
}

// wrapper reads `WRAPPER [options] [operands] CMD ARGS`.
func (a *analyzer) wrapper(ws []string, spec *wrapSpec, c *callCtx) {
	name := baseName(ws[0])
	hidden := func() {
		a.unknown(c.src, "a value only known when it runs decides which command "+name+" starts")
	}
	i, shell := 1, false
	for n := 0; n < spec.lead && i < len(ws) && !strings.HasPrefix(ws[i], "-"); n++ {
		if hasHole(ws[i]) {
			hidden()
			return
		}
		i++
	}
	value := func(opt, val string, write, prog, load bool) {
		switch {
		case write && (strings.HasPrefix(val, "|") || strings.HasPrefix(val, "!")):
			a.codeVia(val[1:], c, name+" "+opt+" (a pipe to a command)")
		case write:
			a.write(val, c, name+" "+opt+" writes to the file")
		case prog:
			a.codeVia(val, c, name+" "+opt)
		case load:
			a.unknown(c.src, name+" "+opt+" loads "+printable(val)+", which can run anything")
		}
	}
	for i < len(ws) {
		w := ws[i]
		if hasHole(w) {
			hidden()
			return
		}
		if w == "--" {
			i++
			break
		}
		if strings.HasPrefix(w, "--") {
			opt, val, hasVal := strings.Cut(w, "=")
			if contains(spec.noCmdLong, opt) {
				a.plain(ws, c)
				return
			}
			i++
			if !hasVal && contains(spec.longArg, opt) && i < len(ws) {
				val, hasVal = ws[i], true
				if hasHole(val) {
					hidden()
					return
				}
				i++
			}
			if opt == "--split-string" && spec.splitOpts != "" {
				a.level(ws, c, len(ws))
				a.code(val+" "+joinWords(ws[i:]), c)
				return
			}
			if hasVal {
				value(opt, val, contains(spec.writeLong, opt), contains(spec.progLong, opt), contains(spec.loadLong, opt))
			}
			continue
		}
		if len(w) > 1 && w[0] == '-' {
			i++
			for k := 1; k < len(w); k++ {
				o := w[k]
				if strings.IndexByte(spec.noCmdOpts, o) >= 0 {
					a.plain(ws, c)
					return
				}
				shell = shell || strings.IndexByte(spec.shellOpts, o) >= 0
				if strings.IndexByte(spec.argOpts, o) < 0 {
					continue
				}
				val := w[k+1:]
				if val == "" && i < len(ws) {
					val = ws[i]
					if hasHole(val) {
						hidden()
						return
					}
					i++
				}
				if strings.IndexByte(spec.splitOpts, o) >= 0 {
					a.level(ws, c, len(ws))
					a.code(val+" "+joinWords(ws[i:]), c)
					return
				}
				has := func(set string) bool { return strings.IndexByte(set, o) >= 0 }
				value("-"+string(o), val, has(spec.writeOpts), has(spec.progOpts), has(spec.loadOpts))
				break
			}
			continue
		}
		if spec.assigns && strings.IndexByte(w, '=') > 0 {
			vname, val, _ := strings.Cut(w, "=")
			if dangerousVar(vname) {
				a.an.blockers = append(a.an.blockers, "it sets "+vname+", which changes what the command runs")
			}
			a.assignment(vname, val, c)
			i++
			continue
		}
		break
	}
	for n := 0; n < spec.positional && i < len(ws); n++ {
		if hasHole(ws[i]) {
			hidden()
			return
		}
		i++
	}
	if spec.codeAfter && i < len(ws) && (ws[i] == "-c" || ws[i] == "--command") {
		a.level(ws, c, i)
		if i+1 < len(ws) {
			a.codeVia(ws[i+1], c, name+" "+ws[i])
		}
		return
	}
	if i >= len(ws) {
		a.plain(ws, c)
		if shell { // sudo -s, sudo -i: a shell reading standard input
			a.stdinScript(ws, &callCtx{st: c.st, src: c.src, depth: c.depth + 1, denyOnly: true, via: c.via})
		}
		return
	}
	if spec.privileged {
		all := joinWords(ws)
		a.an.entries = append(a.an.entries, entry{src: c.src, text: all, alt: altCands(ws, all),
			needAllow: !c.denyOnly, words: ws, scanEnd: spec.scanEnd(ws, i), via: c.via})
		a.inner(ws[i:], c, true)
		return
	}
	a.level(ws, c, spec.scanEnd(ws, i))
	a.inner(ws[i:], c, false)
}

// scanEnd: deny rules read a wrapper's words before its command as where a
// command may start; when the command follows an option the spec does not
// know, that option may take a value, so the "command" may be that value
// and the real command come later: they read the command's words too.
func (spec *wrapSpec) scanEnd(ws []string, cmdAt int) int {
	if cmdAt < 2 || cmdAt >= len(ws) || !leavesArgs[baseName(ws[cmdAt])] {
		return cmdAt
	}
	prev := ws[cmdAt-1]
	switch {
	case prev == "--" || len(prev) < 2 || prev[0] != '-':
		return cmdAt
	case strings.HasPrefix(prev, "--"):
		name, _, hasVal := strings.Cut(prev, "=")
		if hasVal || contains(spec.longFlags, name) || contains(spec.noCmdLong, name) {
			return cmdAt
		}
		return len(ws)
	}
	for k := 1; k < len(prev); k++ {
		switch o := prev[k]; {
		case strings.IndexByte(spec.argOpts, o) >= 0:
			return cmdAt // its value is the rest of the word
		case strings.IndexByte(spec.flags, o) < 0:
			return len(ws)
		}
	}
	return cmdAt
}

// special handles commands that run code in a layout of their own, and the
// builtins that change what a name runs (builtins.go). It reports whether it
// handled the command.
func (a *analyzer) special(ws []string, base string, c *callCtx) bool {
	switch base {
	case "script":
		a.script(ws, c)
	case "sg":
		a.sg(ws, c)
	case "runuser":
		a.runuser(ws, c)
	case "busybox", "toybox":
		if len(ws) < 2 || strings.HasPrefix(ws[1], "-") {
			a.plain(ws, c)
			return true
		}
		a.level(ws, c, 1)
		a.inner(ws[1:], c, false)
	case "jobs":
		for i := 1; i < len(ws); i++ {
			if ws[i] == "-x" {
				a.level(ws, c, i+1)
				if i+1 < len(ws) {
					a.innerVia(ws[i+1:], c, "jobs -x")
				}
				return true
			}
		}
		a.plain(ws, c)
	case "at", "batch":
		for _, w := range ws[1:] {
			if strings.HasPrefix(w, "-") && strings.ContainsAny(w, "flrdcq") {
				a.plain(ws, c)
				return true
			}
		}
		a.level(ws, c, len(ws))
		a.stdinScript(ws, c)
	default:
		return a.builtin(ws, base, c)
	}
	return true
}

var scriptOpts = newOptTable("B:w c:c E I:w O:w T:w m o t?:w",
	"log-io:w command:c echo log-in:w log-out:w log-timing:w logging-format output-limit timing?:w", false)

// script [options] [FILE]: runs -c CODE (or a shell reading standard
// input) and writes a typescript to FILE.
func (a *analyzer) script(ws []string, c *callCtx) {
	a.level(ws, c, len(ws))
	file, code := "typescript", false
	a.scanOpts(ws, scriptOpts, func(o optArg) {
		switch {
		case o.hole:
			a.unknown(c.src, "a value only known when it runs may be a script option such as -c, which runs a command")
		case o.name == "":
			file = o.word
		case o.def.kind == vCode:
			code = true
			a.codeVia(o.val, c, "script -c")
		case o.def.kind == vWrite:
			a.write(o.val, c, "script --"+o.longName()+" writes a log to the file")
		}
	})
	if !code {
		a.stdinScript(ws, c)
	}
	a.write(file, c, "script writes a typescript of the session to the file")
}

// sg GROUP [-c] COMMAND: COMMAND is a shell command line, run with another
// group's rights.
func (a *analyzer) sg(ws []string, c *callCtx) {
	i := 1
	if i < len(ws) && ws[i] == "-" {
		i++
	}
	i++ // the group
	if i < len(ws) && ws[i] == "-c" {
		i++
	}
	all := joinWords(ws)
	a.an.entries = append(a.an.entries, entry{src: c.src, text: all, alt: altCands(ws, all),
		needAllow: !c.denyOnly, words: ws, scanEnd: i, via: c.via})
	if i < len(ws) {
		a.codeVia(joinWords(ws[i:]), &callCtx{st: c.st, src: c.src, depth: c.depth, denyOnly: true, via: c.via}, "sg")
	}
}

var runuserOpts = newOptTable("c:c g G s:c u w", "command:c session-command:c group supp-group shell:c user whitelist-environment", false)

// runuser -u USER [--] CMD ARGS, or su-like runuser [-] USER [-c CODE]:
// privileged, so an allow rule must name runuser.
func (a *analyzer) runuser(ws []string, c *callCtx) {
	all := joinWords(ws)
	e := entry{src: c.src, text: all, alt: altCands(ws, all), needAllow: !c.denyOnly, words: ws, via: c.via}
	in := &callCtx{st: c.st, src: c.src, depth: c.depth, denyOnly: true, via: c.via}
	user, code := false, false
	var ops []string
	afterDash := -1
	a.scanOpts(ws, runuserOpts, func(o optArg) {
		switch {
		case o.hole:
			a.unknown(c.src, "a value only known when it runs decides what runuser runs")
		case o.name == "":
			if afterDash < 0 && o.afterDashes {
				afterDash = len(ops)
			}
			ops = append(ops, o.word)
		case o.name == "u" || o.name == "user":
			user = true
		case o.def.kind == vCode && (o.name == "s" || o.name == "shell"):
			a.innerVia([]string{o.val, string(rune(dynByte))}, in, "runuser --shell")
		case o.def.kind == vCode:
			code = true
			a.codeVia(o.val, in, "runuser -c")
		}
	})
	switch {
	case user && !code && len(ops) > 0:
		e.scanEnd = 1
		a.an.entries = append(a.an.entries, e)
		a.inner(ops, in, true)
	case code:
		e.scanEnd = len(ws)
		a.an.entries = append(a.an.entries, e)
	default: // su-like: the user, then arguments for a shell reading standard input
		e.scanEnd = len(ws)
		a.an.entries = append(a.an.entries, e)
		a.stdinScript(ws, in)
	}
}
