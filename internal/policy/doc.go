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
// `trap` and `alias` bodies, `watch`, `su -c`, `env -S`, shells reading a
// here-document or here-string, `xargs CMD` (with an unknown argument
// appended), `find -exec/-execdir/-ok CMD` ({} unknown) and `find -delete`
// (read as `rm {}`). Wrappers are looked through: env (VAR=val, options),
// nohup, time, nice, ionice, timeout, stdbuf, setsid, command, builtin,
// exec, sudo, doas, chroot.
//
//   - An allow rule covers a line only if every simple command in it is
//     covered. Words are compared with quotes removed and joined by one
//     space. A part known only at run time ($X, $(...), unquoted globs,
//     brace expansions) must fall under a `*` of the rule: `ls *` covers
//     `ls $DIR`, `git log *` does not cover `git $SUB`. A command whose name
//     is computed at run time, a shell reading its script from a pipe, an
//     arithmetic expression over variables (which bash can make run code),
//     or too deep a nesting is never covered. sudo/doas/chroot/su need a
//     rule that names them (`sudo apt *`); the other wrappers are
//     transparent (`nohup go test` is covered by `go test *`). The neutral
//     builtins cd, pushd, popd, pwd, true, false, :, set, exit, return, wait,
//     test and [ need no rule of their own next to covered commands.
//   - A line that redirects output to a file (>, >>, >|, &>, 2>, <>, >&FILE,
//     find -fprint, time -o) is never covered by a command allow rule
//     (/dev/null, /dev/stdout, /dev/stderr excepted): it asks, in auto-edit
//     too. So does a line that sets PATH, LD_*, GIT_*, BASH_ENV... or opens
//     /dev/tcp.
//   - A deny rule names a line if any simple command, at any wrapper level,
//     may match it (a run-time part may stand for anything; /bin/rm is also
//     read as rm, RM as rm), or if the whole line's text matches it (so
//     `run_command(curl * | bash)` works; a pattern with shell operators is
//     matched against the whole line only). A command only known at run time
//     is denied by every run_command deny rule: it could be the one denied.
//   - A deny rule on read_file(P) also denies a command any word of which
//     names P (`cat .env`, `less ./.env`, `cat < .env`, `cp .env x`,
//     `--file=.env`, `@.env`, an unquoted glob that may expand to it, or the
//     literal tail of `$DIR/.env`); a deny rule on write_file/edit_file(P)
//     denies redirections to P and P as an argument of rm, mv, cp, tee,
//     touch, sed -i...
//   - A line that does not parse is never covered by an allow rule; it is
//     denied if a deny rule matches its text from some word on, and in
//     full-auto it asks when deny rules exist (they cannot be checked).
package policy
