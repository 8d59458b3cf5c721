// Package policy owns the approval policy: given one tool call, it decides
// allow, deny or ask, and says why (Decision.Reason is written for people).
// It knows the four approval modes, the allow/deny rule syntax, glob
// matching of paths and commands, and a static reading of shell command lines
// (through mvdan.cc/sh/v3/syntax), so that a rule about one command cannot be
// used to run another.
//
// It must not touch anything else: it runs no tool, reads no file, writes no
// journal or audit row, asks no person and keeps no state between calls. It
// is a pure function of the Policy and the Call; internal/agent and
// internal/approval act on its Decision (and record it in the audit log).
//
// # Order of decision
//
//  1. A deny rule that names the call: Deny (source "rule").
//  2. read-only: reads run, everything else is denied. An allow rule cannot
//     lift read-only.
//  3. full-auto: Allow.
//  4. Reads run. auto-edit runs file writes inside the workspace.
//  5. An allow rule that covers the call: Allow (source "rule").
//  6. Otherwise Ask.
//
// # Rules
//
// `TOOL` or `TOOL(GLOB)`; TOOL is a tool name or `*`. For run_command the
// glob is on the command: `*` matches any characters, spaces included; a
// pattern ending in " *" (or Claude Code's ":*") also matches the command
// with no arguments, so `ls *` matches `ls` but not `lsblk`. For the other
// tools it is a path glob: `*` and `?` within a segment, `**` across
// segments, gitignore-like: a pattern without "/" matches that name at any
// depth (`.env` matches `config/.env`), one with "/" is anchored at the
// workspace root, one starting with "/" or "~/" matches absolute or home
// paths, and a pattern that names a directory covers what is inside it.
//
// A deny rule on read_file also guards grep and list_dir (and, through
// PathDenied, whatever walks directories); a deny rule on write_file or
// edit_file guards both. Allow rules name exactly one tool.
//
// # Commands
//
// A command line is parsed, and every simple command it can run is found:
// in lists, pipelines, subshells, blocks, if/while/for/case and function
// bodies, $(...), backticks, <(...) and >(...), here-documents, and again
// inside `sh|bash|zsh|dash|ksh -c STRING` and `eval` (re-parsed up to a depth),
// `watch`, `su -c`, `env -S`, shells reading a here-document or here-string,
// `xargs CMD` (with an unknown argument appended; -I R makes R unknown),
// `find -exec/-execdir/-ok CMD` and `fd -x/-X CMD` ({} unknown), `find
// -delete` (read as `rm {}`), `at`/`batch` reading a here-document,
// `jobs -x CMD`, `busybox`/`toybox APPLET`; `sudo -s`/`-i`, `doas -s`, `su`
// and `runuser USER` without a command run a shell reading standard input,
// read like `bash` reading it.
//
// Wrappers are looked through, their options read from a spec of which take
// a value: env (VAR=val, options), nohup, time, nice, ionice, timeout,
// stdbuf, setsid, command, builtin, exec, flock (FILE CMD, FILE -c CODE),
// strace, ltrace, taskset, chrt, prlimit, setarch ARCH (and linux32,
// linux64, i386, i686, x86_64, uname26), fakeroot, valgrind, ssh-agent,
// dbus-run-session, dbus-launch, xvfb-run, catchsegv, eatmydata, nocache,
// unbuffer, chronic, script -c CODE; and, running the command with other
// rights, sudo, doas, chroot, pkexec, unshare, nsenter, setpriv, runuser
// (-u USER CMD, or -c CODE) and sg GROUP [-c] CODE. A wrapper option whose
// value is a file it writes (time -o, strace -o, script's typescript,
// valgrind --log-file=) is a write; strace -o '|cmd' and dbus-run-session
// --dbus-daemon= run code; fakeroot -l and ltrace -l load a library (unknown).
//
// Builtins and variables that change what a name runs, or that bash or another
// program runs as code, are read as code: `hash -p PATH NAME` (PATH runs with
// any arguments), `trap [--] CODE`, `alias N=CODE`, `mapfile`/`readarray -C
// CODE`, `complete`/`compgen -C CODE` and `compgen -W WORDS` (expanded), `bind
// -x`, a function exported through the environment (`env 'BASH_FUNC_f%%=() {
// ...; }'`, or any value starting with "()"), PS0-PS4 (expanded, $(...) runs),
// PROMPT_COMMAND, and the values other programs run (GIT_SSH_COMMAND, GIT_SSH,
// GIT_PAGER, GIT_EDITOR, GIT_SEQUENCE_EDITOR, GIT_EXTERNAL_DIFF, GIT_ASKPASS,
// GIT_PROXY_COMMAND, SSH_ASKPASS, SUDO_ASKPASS, PAGER, MANPAGER,
// SYSTEMD_PAGER, EDITOR, VISUAL, FCEDIT, BROWSER, LESSOPEN, LESSCLOSE,
// RSYNC_RSH, RSYNC_CONNECT_PROG, CVS_RSH, CC, CXX, BAT_PAGER, DELTA_PAGER,
// GH_EDITOR, GH_PAGER, GH_BROWSER); LESS, MANOPT and TAR_OPTIONS are read as
// options of less, man and tar; GIT_CONFIG_PARAMETERS and GIT_CONFIG_VALUE_n
// as text that may be code; GOFLAGS as go flags. `enable -f` (a shared object)
// and `fc` without -l (the history) run what the policy cannot read: unknown.
//
// The writing and executing forms of read-looking commands are found from
// per-command option knowledge (GNU getopt order and abbreviations; an
// abbreviation that fits several options counts as the one that does the
// most): `git diff/log/show/... --output=F`, `git format-patch -o`, `git
// archive -o`, `git -c KEY=VALUE` and `git clone --config` (core.pager,
// core.editor, core.sshCommand, core.fsmonitor, diff.external, *.textconv,
// *.command, filter.*.clean/smudge, credential.helper, gpg.program, pager.*,
// alias.*=!...: code; include.path, includeIf.*, core.hooksPath, protocol.*:
// unknown), `git --exec-path=`, `git config KEY VALUE` setting such a key
// (code for deny rules, never covered), `git rebase -x`, `bisect run`,
// `submodule foreach`, `difftool -x`, `filter-branch --*-filter`, `grep -O`,
// `--upload-pack`/`--receive-pack`/ `--exec`, `ext::` URLs, and a subcommand
// git does not know (an alias or git-NAME: read as an unknown command, below);
// `sort -o`/`--output` (`--compress-program` runs), `uniq IN OUT`, `xxd IN
// OUT`, `shuf -o`, `iconv -o`, `sdiff -o`, `tree -o`, `tee FILE`, `dd of=`,
// `split`/`csplit` (their pieces); `sed -i`, sed scripts (read as GNU sed
// reads them) with w/W or s///w (write), r/R (read), e CMD (code), e alone or
// s///e (unknown), sed -f (a script file: never covered; a here-document or
// here-string on standard input is read as the script, a pipe is unknown); awk
// programs with system(), `cmd | getline`, `print | cmd`, `|&` (code when the
// command is a string literal, else unknown), `print > FILE`/`>> FILE`
// (write), `getline < FILE` (read), @load, -l (unknown), -f/-i/@include (never
// covered; -f on standard input as sed -f), --sandbox (none of it); `tar`
// extraction (-x, `tar xf`: writes the members), -c/-r/-u with -f (writes the
// archive), --remove-files, --to-command, -I, -F, --rsh-command,
// --rmt-command, --checkpoint-action=exec= (code); `unzip` unless listing;
// `less -o/-O`, `less +!CMD` (code; other +commands but a line or a search:
// unknown); `man -P/--pager/-H`; `vim/vi/nvim/ex/view -c/--cmd/+CMD` (":!CMD"
// is code, other Ex commands but set/syntax/q are unknown; -S/-s/-u load
// scripts; -w/-W write); `curl -o/-O/-D/-c/--trace...`, `wget` (writes unless
// -O -, --use-askpass runs), `rg --pre`, `bat --pager`, `ag --pager`, `rsync
// -e`, `ssh/scp/sftp -o ProxyCommand/LocalCommand/KnownHostsCommand`,
// `scp/sftp -S`, `nc -e/-c`, `socat EXEC:/SYSTEM:` (and CREATE:/OPEN: write),
// `zip -TT`, `openssl -out`, `gpg -o`, `yq -i`, `split --filter`, `diff3/sdiff
// --diff-program`. Options that load code the policy cannot read are unknown:
// `nm --plugin`, `openssl -engine/-provider/-config`, `prettier
// --plugin/--config`, `eslint -c/--plugin/--rulesdir`, `pylint
// --load-plugins/--init-hook`, `mypy --config-file`, `flake8 --config`,
// `golangci-lint -c`, `curl -K`, `ssh -F`, `nvim -l`; `ex` and `vim -e` read
// Ex commands from a here-document. In a command with such options, a word
// known only at run time where an option may stand counts as the one that does
// the most (`sort $X` may be --compress-program; `git diff $X` may be
// --output). `go build/test/vet/run -exec/-toolexec/-vettool PROG` run PROG,
// and so does `go env -w GOFLAGS=... | CC=...` (planted for later go commands:
// never covered); GOFLAGS set before a command is read as go flags. `gh alias
// set N '!CMD'` (or --shell) and `gh config set editor|pager|browser CMD`
// plant code (never covered; deny rules read it); a gh extension or alias is
// read as an unknown command.
//
//   - An allow rule covers a line only if every simple command in it is
//     covered. Words are compared with quotes removed and joined by one
//     space. A part known only at run time ($X, $(...), unquoted globs,
//     brace expansions) must fall under a `*` of the rule: `ls *` covers
//     `ls $DIR`, `git log *` does not cover `git $SUB`. A command whose name
//     is computed at run time, a shell reading its script from a pipe, an
//     arithmetic expression over variables (which bash can make run code),
//     too deep a nesting, or anything above found unknown is never covered.
//     The code an exec form runs (sed's e command, awk's system(), git's
//     core.pager...) is a command like any other: the allow rule for the read
//     form does not cover it; it needs a rule of its own. sudo, doas,
//     chroot, su and the other privileged wrappers need a rule that names
//     them (`sudo apt *`); the other wrappers are transparent (`nohup go
//     test` and `flock lk go test` are covered by `go test *`). The neutral
//     builtins cd, pushd, popd, pwd, true, false, :, set, exit, return, wait,
//     test and [ need no rule of their own next to covered commands.
//   - A line that writes a file is never covered by a command allow rule:
//     a redirection (>, >>, >|, &>, 2>, <>, >&FILE) or any of the writing
//     forms above (find -fprint/-fls, time -o, sort -o, uniq IN OUT, sed -i
//     and w, awk print >, git --output, tar -x, tee FILE, curl -o...);
//     /dev/null, /dev/stdout, /dev/stderr (and "-" for an option) excepted.
//     It asks, in auto-edit too. So does a line that sets PATH, LD_*, GIT_*,
//     BASH_ENV, PS4, LESS... or opens /dev/tcp, a `hash -p`, a `git config`
//     of a key git runs, or a foreign shell (fish, csh, tcsh, nu, elvish,
//     xonsh -c, whose code deny rules read as far as it reads as bash).
//   - A deny rule names a line if any simple command, at any wrapper level,
//     may match it (a run-time part may stand for anything; /bin/rm is also
//     read as rm, RM as rm), or if the whole line's text matches it (so
//     `run_command(curl * | bash)` works; a pattern with shell operators is
//     matched against the whole line only). A command only known at run time
//     is denied by every run_command deny rule: it could be the one denied.
//   - Deny rules fail closed around commands they cannot read. A command
//     not known to leave its arguments unexecuted (anything but a list of
//     commands that only read, print or compare them, or whose exec options
//     are modelled above: echo, cat, grep, ls, man, git, sed, go, gofmt,
//     prettier...) may be an
//     exec wrapper the policy has no spec for: each later word that equals
//     the rule's command name (as written, as a path's last element, in
//     lower case, as the value of --opt=VALUE, or a word only known at run
//     time) is read as where that command starts, so `frobnicate --x rm f`,
//     `frobnicate $X` and `cp /bin/rm x` are denied by `rm *`; and each of
//     its arguments that reads as a shell command line ('rm x', 'a; b',
//     '!rm x'), and a here-document or here-string it reads, is parsed and
//     its commands matched (`ssh host 'rm x'`, `ssh host <<EOF`). The words a
//     wrapper takes before its command get the same reading, and so do the
//     command's own words when it follows an option the wrapper's spec does
//     not know (that option may take the "command" as its value). Past 64 such
//     candidates in one command, the rule denies. So a word known only at
//     run time given to such a command (`./build.sh $T`, `docker run $IMG`,
//     `go test $PKG`, where $PKG may be -toolexec=...) is denied by every
//     command deny rule: the model gets a tool error and can spell it out.
//   - A deny rule on read_file(P) also denies a command any word of which
//     names P (`cat .env`, `less ./.env`, `cat < .env`, `cp .env x`,
//     `--file=.env`, `@.env`, an unquoted glob that may expand to it, or the
//     literal tail of `$DIR/.env`), and a file the forms above read (sed r,
//     awk getline <); a deny rule on write_file/edit_file(P) denies
//     redirections to P, P as an argument of rm, mv, cp, tee, touch, sed
//     -i..., and P written by any of the writing forms above.
//   - A line that does not parse is never covered by an allow rule; it is
//     denied if a deny rule matches its text from some word on, and in
//     full-auto it asks when deny rules exist (they cannot be checked).
//
// Out of reach of a command-name rule (the OS sandbox is the answer): what
// an interpreter runs (python -c, perl -e, node -e, ruby -e, php -r, lua -e,
// expect, sqlite3 .shell...), what a script, Makefile, package script or
// program file runs (bash x.sh, make, npm run, go generate, awk -f, sed -f:
// the last two ask under allow rules, but deny rules cannot read them), the
// repository's own configuration (.git/config core.pager, git hooks), a
// program copied under another name other than by cp, ln, mv or install
// (`cat /bin/rm > x; ./x`), file names beginning with "-" planted in the
// workspace and reached by a glob, and effects rather than names: a deny rule
// on rm does not cover unlink, git rm or rsync --remove-source-files.
package policy
