package policy

import "strings"

// git: the global options (-c KEY=VALUE config injection, --exec-path),
// the subcommands whose options write files (diff/log/show --output,
// format-patch -o, archive -o) or run commands (rebase --exec, bisect run,
// submodule foreach, difftool --extcmd, grep -O, filter-branch filters,
// --upload-pack/--receive-pack), config values that git runs (core.pager,
// alias.x=!cmd...), and subcommands git does not know itself (an alias or a
// git-NAME program may run anything).

var (
	gitDiffOpts = newOptTable("n S G O:r L", "output:w output-directory:w author committer grep since until after "+
		"before max-count skip min-parents max-parents pretty? encoding decorate-refs decorate-refs-exclude exclude "+
		"glob diff-filter src-prefix dst-prefix line-prefix word-diff-regex anchored find-object orderfile:r "+
		"ignore-matching-lines", false)
	gitFormatPatchOpts = newOptTable("n S G O:r L o:w v", "output:w output-directory:w subject-prefix "+
		"start-number suffix in-reply-to to cc from add-header signature signature-file:r base interdiff "+
		"range-diff creation-factor src-prefix dst-prefix", false)
	gitGrepOpts = newOptTable("e f:r A B C m O?:p", "open-files-in-pager?:p max-depth threads context "+
		"after-context before-context max-count file:r", false)
	gitRebaseOpts    = newOptTable("x:c s X S? C", "exec:c onto strategy strategy-option gpg-sign? whitespace", false)
	gitCloneOpts     = newOptTable("u:c o b c j", "upload-pack:c origin branch config template:l reference reference-if-able separate-git-dir depth shallow-since shallow-exclude jobs filter server-option bundle-uri", false)
	gitFetchOpts     = newOptTable("j o", "upload-pack:c depth deepen shallow-since shallow-exclude refmap server-option jobs negotiation-tip filter", false)
	gitPushOpts      = newOptTable("o", "receive-pack:c exec:c repo push-option", false)
	gitArchiveOpts   = newOptTable("o:w", "output:w remote exec:c format prefix add-file:r add-virtual-file", false)
	gitDifftoolOpts  = newOptTable("x:c t", "extcmd:c tool", false)
	gitSendEmailOpts = newOptTable("", "smtp-server:p to-cmd:c cc-cmd:c header-cmd:c sendmail-cmd:c", false)
	gitInstawebOpts  = newOptTable("d:c", "httpd:c browser:c", false)
	gitFilterOpts    = newOptTable("", "env-filter:c tree-filter:c index-filter:c parent-filter:c msg-filter:c "+
		"commit-filter:c tag-name-filter:c subdirectory-filter original state-branch", false)
	gitSubTables = map[string]*optTable{
		"diff": gitDiffOpts, "log": gitDiffOpts, "show": gitDiffOpts, "whatchanged": gitDiffOpts,
		"diff-tree": gitDiffOpts, "diff-index": gitDiffOpts, "diff-files": gitDiffOpts, "range-diff": gitDiffOpts,
		"stash": gitDiffOpts, "reflog": gitDiffOpts, "format-patch": gitFormatPatchOpts, "grep": gitGrepOpts,
		"rebase": gitRebaseOpts, "clone": gitCloneOpts, "fetch": gitFetchOpts, "pull": gitFetchOpts,
		"ls-remote": gitFetchOpts, "push": gitPushOpts, "archive": gitArchiveOpts, "difftool": gitDifftoolOpts,
		"send-email": gitSendEmailOpts, "instaweb": gitInstawebOpts, "filter-branch": gitFilterOpts,
	}
)

// gitKnown: git's own commands. Any other name is an alias or a git-NAME
// program: deny rules read its arguments as a command may start anywhere.
var gitKnown = wordSet(`add am annotate apply archive bisect blame branch bundle cat-file check-attr
	check-ignore check-mailmap check-ref-format checkout checkout-index cherry cherry-pick citool clean clone
	column commit commit-graph commit-tree config count-objects credential describe diff diff-files diff-index
	diff-tree difftool fast-export fast-import fetch fetch-pack filter-branch fmt-merge-msg for-each-ref
	for-each-repo format-patch fsck gc get-tar-commit-id grep hash-object help index-pack init instaweb
	interpret-trailers log ls-files ls-remote ls-tree mailinfo mailsplit maintenance merge merge-base merge-file
	merge-tree mergetool mktag mktree multi-pack-index mv name-rev notes pack-objects pack-refs prune
	prune-packed pull push range-diff read-tree rebase reflog remote repack replace request-pull rerere reset
	restore rev-list rev-parse revert rm send-email shortlog show show-branch show-index show-ref
	sparse-checkout stash status stripspace submodule switch symbolic-ref tag unpack-objects update-index
	update-ref var verify-commit verify-pack verify-tag version whatchanged worktree write-tree`)

func (a *analyzer) git(ws []string, c *callCtx, idx int) {
	i := 1
	for i < len(ws) {
		w := ws[i]
		if w != "" && w[0] == dynByte {
			a.unknown(c.src, "a word only known when it runs may be a git option such as -c core.pager=..., which runs a command")
			return
		}
		if w == "--" || !strings.HasPrefix(w, "-") {
			break
		}
		i++
		name, val, hasVal := strings.Cut(w, "=")
		switch name {
		case "-c":
			if i < len(ws) {
				a.gitConfig(ws[i], c, "git -c")
				i++
			}
		case "--config-env":
			if !hasVal && i < len(ws) {
				val = ws[i]
				i++
			}
			key, env, _ := strings.Cut(val, "=")
			if gitConfigKind(strings.ToLower(key), "") != 0 {
				a.unknown(c.src, "git --config-env sets "+key+" from $"+env+", a command the policy cannot read")
			}
		case "--exec-path":
			if hasVal {
				a.unknown(c.src, "git --exec-path makes git run its commands from "+printable(val))
			}
		case "-C", "--git-dir", "--work-tree", "--namespace", "--super-prefix", "--attr-source", "--list-cmds":
			if !hasVal {
				i++
			}
		}
	}
	if i >= len(ws) {
		return
	}
	sub, args := ws[i], ws[i:]
	if hasHole(sub) {
		a.unknown(c.src, "git runs a subcommand only known when it runs (an alias can run anything)")
		return
	}
	via := "git " + sub
	switch sub {
	case "bisect":
		for k := 1; k < len(args); k++ {
			if args[k] == "run" {
				if k+1 < len(args) {
					a.innerVia(args[k+1:], c, "git bisect run")
				}
				break
			}
		}
		return
	case "submodule":
		for k := 1; k < len(args); k++ {
			if args[k] == "foreach" {
				k++
				for k < len(args) && strings.HasPrefix(args[k], "-") {
					k++
				}
				if k < len(args) {
					a.codeVia(joinWords(args[k:]), c, "git submodule foreach")
				}
				break
			}
		}
		return
	case "config":
		a.gitConfigCmd(args, c)
		return
	case "bundle":
		if len(args) > 2 && args[1] == "create" {
			a.write(args[2], c, "git bundle create writes the bundle to the file")
		}
		return
	}
	if t := gitSubTables[sub]; t != nil {
		a.stdOpts(args, c, t, via, func(o optArg, _ int) {
			switch {
			case (sub == "clone") && (o.name == "c" || o.name == "config") && o.hasVal:
				a.gitConfig(o.val, c, "git clone --config")
			case o.name == "" && strings.HasPrefix(o.word, "ext::"):
				a.codeVia(strings.TrimPrefix(o.word, "ext::"), c, "git's ext:: transport")
			}
		})
		return
	}
	if !gitKnown[sub] {
		a.an.entries[idx].scanEnd = len(ws)
		a.argsAsCode(args, c)
	}
}

// gitConfigKind: what git does with a configuration value: runs it
// (vCode), loads what the policy cannot read (vLoad), or neither (0).
func gitConfigKind(key, val string) valKind {
	switch {
	case key == "include.path" || strings.HasPrefix(key, "includeif.") || key == "core.hookspath" ||
		strings.HasPrefix(key, "protocol."):
		return vLoad
	case strings.HasPrefix(key, "alias.") || strings.HasPrefix(key, "pager."):
		return vCode
	}
	last := key[strings.LastIndexByte(key, '.')+1:]
	switch last {
	case "pager", "editor", "sshcommand", "fsmonitor", "askpass", "gitproxy", "external", "command", "textconv",
		"cmd", "driver", "clean", "smudge", "process", "helper", "program", "difffilter", "packobjectshook",
		"uploadpack", "receivepack", "browser", "path", "tocmd", "cccmd", "headercmd", "sendmailcmd", "smtpserver":
		return vCode
	case "update":
		if strings.HasPrefix(val, "!") || val == "" {
			return vCode
		}
	}
	return 0
}

// gitConfig reads one KEY=VALUE given to git -c (or clone --config).
func (a *analyzer) gitConfig(kv string, c *callCtx, via string) {
	key, val, _ := strings.Cut(kv, "=")
	if hasHole(key) {
		a.unknown(c.src, via+" sets a key only known when it runs, which may name a command")
		return
	}
	lk := strings.ToLower(key)
	switch gitConfigKind(lk, val) {
	case vLoad:
		a.unknown(c.src, via+" "+key+" makes git load configuration or hooks the policy cannot read")
	case vCode:
		if strings.HasPrefix(lk, "alias.") && !strings.HasPrefix(val, "!") {
			a.progVia("git "+val, c, via+" "+key)
			return
		}
		a.progVia(strings.TrimPrefix(val, "!"), c, via+" "+key)
	}
}

// gitConfigCmd: `git config [--global] [--file F] KEY VALUE` (or `git
// config set KEY VALUE`). A value git will run is read as code for deny
// rules (it plants a command that later git commands run), and no allow rule
// covers the line; --global and --system write outside the workspace.
func (a *analyzer) gitConfigCmd(args []string, c *callCtx) {
	var ops []string
	get := false
	file := ""
	for k := 1; k < len(args); k++ {
		w := args[k]
		switch {
		case w == "-f" || w == "--file":
			if k+1 < len(args) {
				file = args[k+1]
				k++
			}
		case strings.HasPrefix(w, "--file="):
			file = strings.TrimPrefix(w, "--file=")
		case w == "--global":
			file = "~/.gitconfig"
		case w == "--system":
			file = "/etc/gitconfig"
		case w == "--blob", w == "--type", w == "--default", w == "--comment", w == "--value":
			k++
		case w == "-l" || w == "-e" || strings.HasPrefix(w, "--get") || w == "--list" || w == "--edit" ||
			strings.HasPrefix(w, "--unset") || w == "--remove-section" || w == "--rename-section":
			get = true
		case strings.HasPrefix(w, "-"):
		default:
			ops = append(ops, w)
		}
	}
	if len(ops) > 0 {
		switch ops[0] {
		case "get", "list", "unset", "edit", "remove-section", "rename-section":
			get = true
		case "set":
			ops = ops[1:]
		}
	}
	if get || len(ops) < 2 {
		return
	}
	key, val := ops[0], ops[1]
	if hasHole(key) {
		a.unknown(c.src, "git config sets a key only known when it runs, which may name a command")
		return
	}
	if file != "" {
		a.write(file, c, "git config writes the configuration file")
	}
	kind := gitConfigKind(strings.ToLower(key), val)
	if kind == 0 {
		return
	}
	a.an.blockers = append(a.an.blockers, quote(c.src)+" sets "+key+", which makes later git commands run a command")
	in := &callCtx{st: c.st, src: c.src, depth: c.depth, denyOnly: true, via: c.via}
	if kind == vLoad {
		a.unknown(c.src, "git config "+key+" makes git load configuration or hooks the policy cannot read")
		return
	}
	a.gitConfig(key+"="+val, in, "git config")
}

// ghKnown: gh's own commands; any other is an extension or an alias.
var ghKnown = wordSet(`auth browse gist issue org pr project release repo cache run workflow alias api attestation
	completion config extension ext gpg-key label ruleset search secret ssh-key status variable help version`)

// gh: `gh alias set NAME '!cmd'` (or --shell) and `gh config set
// editor|pager|browser CMD` plant commands later gh commands run; an
// extension or alias (a subcommand gh does not know) and `gh extension
// exec` may run anything.
func (a *analyzer) gh(ws []string, c *callCtx, idx int) {
	if len(ws) < 2 || strings.HasPrefix(ws[1], "-") {
		return
	}
	sub := ws[1]
	if hasHole(sub) {
		a.unknown(c.src, "gh runs a subcommand only known when it runs (an alias or extension can run anything)")
		return
	}
	var ops []string
	shell := false
	for _, w := range ws[2:] {
		switch {
		case w == "--shell" || w == "-s":
			shell = true
		case !strings.HasPrefix(w, "-"):
			ops = append(ops, w)
		}
	}
	in := &callCtx{st: c.st, src: c.src, depth: c.depth, denyOnly: true, via: c.via}
	switch {
	case sub == "alias" && len(ops) >= 3 && ops[0] == "set":
		if exp := ops[2]; shell || strings.HasPrefix(exp, "!") {
			a.an.blockers = append(a.an.blockers, quote(c.src)+" plants a shell alias that later gh commands run")
			a.codeVia(strings.TrimPrefix(exp, "!"), in, "gh alias set")
		}
	case sub == "alias" && len(ops) >= 1 && ops[0] == "import":
		a.an.blockers = append(a.an.blockers, quote(c.src)+" imports aliases, which can run commands")
	case sub == "config" && len(ops) >= 3 && ops[0] == "set" && (ops[1] == "editor" || ops[1] == "pager" || ops[1] == "browser"):
		a.an.blockers = append(a.an.blockers, quote(c.src)+" sets gh's "+ops[1]+", a command later gh commands run")
		a.progVia(ops[2], in, "gh config "+ops[1])
	case (sub == "extension" || sub == "ext") && len(ops) >= 1 && ops[0] == "exec", !ghKnown[sub]:
		a.an.entries[idx].scanEnd = len(ws)
		a.argsAsCode(ws[1:], c)
	}
}
