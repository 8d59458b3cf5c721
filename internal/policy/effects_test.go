package policy

import (
	"reflect"
	"strings"
	"testing"
)

// writeForms are the writing and executing forms of read-looking commands,
// each with the allow rule for the read form and what the reason must say
// (issue 9, finding 4, and section F of the hardening check). None may be
// covered by the rule.
var writeForms = []struct{ rule, cmd, why string }{
	// finding 4, verbatim
	{"git diff *", "git diff --output=/outside/file --no-index /dev/null x", "writes /outside/file (git diff --output writes to the file)"},
	{"sort *", "sort -o /outside/t2 hello.txt", "writes /outside/t2 (sort -o writes to the file)"},
	{"sed *", "sed -i s/a/b/ hello.txt", "writes hello.txt (sed -i rewrites the file in place)"},
	{"sed *", "sed -n 'w /outside/t3' hello.txt", "writes /outside/t3 (sed's w command writes to the file)"},
	{"sed *", "sed '1e touch /outside/t4' hello.txt", "`touch /outside/t4` (run by sed's e command"},
	{"uniq *", "uniq hello.txt /outside/t5", "writes /outside/t5 (uniq writes its output to its second operand)"},
	{"awk *", `awk 'BEGIN { system("touch /outside/t6") }'`, "`touch /outside/t6` (run by awk's system()"},
	{"awk *", `awk '{ print > "/outside/t7" }' hello.txt`, `writes /outside/t7 (awk's print > writes to the file)`},
	// more spellings of the same
	{"git diff *", "git diff --output /outside/f x", "git diff --output"},
	{"git diff *", "git diff --outp=/outside/f x", "git diff --output"},
	{"git log *", "git log -p --output=/outside/f", "git log --output"},
	{"git show *", "git show --output=/outside/f HEAD", "git show --output"},
	{"git format-patch *", "git format-patch -o /outside HEAD~1", "git format-patch -o"},
	{"git diff *", "git diff $OPT x", "may be an option of git diff that writes a file (--output)"},
	{"git *", "git -c core.pager='touch /outside/f' log", "`touch /outside/f` (run by git -c core.pager"},
	{"git *", "git -c diff.external=/tmp/x diff", "`/tmp/x` (run by git -c diff.external"},
	{"git *", "git -c alias.l='!touch /outside/f' l", "(run by git -c alias.l"},
	{"git *", "git -c core.fsmonitor='touch /outside/f' status", "git -c core.fsmonitor"},
	{"git *", "git -c include.path=/tmp/cfg log", "makes git load configuration or hooks"},
	{"git *", "git config alias.l '!touch /outside/f'", "which makes later git commands run a command"},
	{"git *", "git archive -o /outside/a.tar HEAD", "git archive -o"},
	{"git *", "git grep -O'touch /outside/f' x", "(run by git grep -O"},
	{"git *", "git rebase -x 'touch /outside/f' HEAD~1", "(run by git rebase -x"},
	{"sort *", "sort -uo/outside/f hello.txt", "sort -o"},
	{"sort *", "sort hello.txt --output=/outside/f", "sort --output"},
	{"sort *", "sort --out=/outside/f hello.txt", "sort --output"},
	{"sort *", "sort --compress-program=/tmp/x -S1 hello.txt", "(run by sort --compress-program"},
	{"sed *", "sed -i.bak s/a/b/ hello.txt", "sed -i rewrites"},
	{"sed *", "sed --in-place s/a/b/ hello.txt", "sed -i rewrites"},
	{"sed *", "sed 's/a/b/w /outside/f' hello.txt", "sed's s///w writes"},
	{"sed *", "sed -e 's/a/b/' -e 'W /outside/f' hello.txt", "sed's W command writes"},
	{"sed *", "sed 's/.*/date/e' hello.txt", "sed's s///e runs the result of the substitution"},
	{"sed *", "sed 'e' hello.txt", "sed's e command runs the pattern space"},
	{"sed *", "sed -f script.sed hello.txt", "runs a sed script file"},
	{"sed *", `sed "s/$A/b/" hello.txt`, "sed runs a script only known when it runs"},
	{"uniq *", "uniq -c hello.txt /outside/f", "uniq writes its output to its second operand"},
	{"uniq *", "uniq -f 1 hello.txt /outside/f", "uniq writes its output to its second operand"},
	{"awk *", `awk '{ print >> "/outside/f" }' hello.txt`, "awk's print >> writes"},
	{"awk *", `awk '{ printf "%s\n", $0 > "/outside/f" }' hello.txt`, "awk's print > writes"},
	{"awk *", `awk '{ print | "cat > /outside/f" }' hello.txt`, "writes /outside/f"},
	{"awk *", `awk '{ "date" | getline d }' hello.txt`, "`date` (run by awk's \"cmd\" | getline"},
	{"awk *", `awk '{ system($0) }' hello.txt`, "awk's system() runs a command only known when it runs"},
	{"awk *", `awk '{ print > $1 }' hello.txt`, "writes … (awk's print > writes"},
	{"awk *", "awk -f prog.awk hello.txt", "runs an awk program file"},
	{"gawk *", `gawk -l ext 'BEGIN { }'`, "gawk -l loads ext"},
	{"tee *", "tee /outside/f", "tee writes its input to the file"},
	{"find *", "find . -fls /outside/f", "find -fls writes its output"},
	{"find *", "find . -fprintf /outside/f %p", "find -fprintf writes its output"},
	{"tar *", "tar -xf a.tar", "tar -x writes the archive's members into ."},
	{"tar *", "tar xzf a.tar -C /outside", "tar -x writes the archive's members into /outside"},
	{"tar *", "tar -cf /outside/a.tar .", "tar writes the archive"},
	{"tar *", "tar -xOf a.tar --to-command='touch /outside/f'", "(run by tar --to-command"},
	{"tar *", "tar -cf /dev/null . --checkpoint=1 --checkpoint-action=exec='touch /outside/f'", "(run by tar --checkpoint-action=exec"},
	{"unzip *", "unzip a.zip -d /outside", "unzip writes the archive's members into /outside"},
	{"less *", "less -o /outside/f hello.txt", "less -o writes"},
	{"less *", "less '+!touch /outside/f' hello.txt", "(run by less +!"},
	{"less *", "less '+v' hello.txt", "runs less commands at start"},
	{"man *", "man -P 'touch /outside/f' ls", "(run by man -P"},
	{"man *", "man --pager='touch /outside/f' ls", "(run by man --pager"},
	{"vim *", "vim -c '!touch /outside/f' hello.txt", "(run by vim -c (an Ex shell command)"},
	{"vim *", "vim -c 'w /outside/f' hello.txt", "runs an Ex command"},
	{"curl *", "curl -o /outside/f https://example.com", "curl -o writes"},
	{"curl *", "curl -O https://example.com/f", "curl -O saves the download"},
	{"wget *", "wget https://example.com/f", "wget saves what it downloads"},
	{"xxd *", "xxd hello.txt /outside/f", "xxd writes its output to its second operand"},
	{"shuf *", "shuf -o /outside/f hello.txt", "shuf -o writes"},
	{"iconv *", "iconv -f utf-8 -t ascii -o /outside/f hello.txt", "iconv -o writes"},
	{"rg *", "rg --pre 'touch /outside/f' x", "(run by rg --pre"},
	{"dd *", "dd if=hello.txt of=/outside/f", "dd of= writes"},
	{"ssh *", "ssh -o ProxyCommand='touch /outside/f' host", "(run by ssh -o ProxyCommand"},
	{"openssl *", "openssl x509 -in c.pem -out /outside/f", "openssl -out writes"},
	{"socat *", "socat - CREATE:/outside/f", "socat CREATE: writes"},
	{"ex *", "ex -s f <<< 'w /outside/f'", "runs an Ex command"},
	{"split *", "split -l 1 hello.txt /outside/part", "split writes its pieces to files named /outside/part…"},
	{"csplit *", "csplit -f /outside/part hello.txt 2", "csplit writes its pieces"},
	{"sed *", "sed -f - hello.txt <<< 'w /outside/f'", "sed's w command writes"},
	{"sed *", "sed -f - hello.txt < script.sed", "sed runs a script only known when it runs"},
}

func TestWritingFormsOfReadCommandsAsk(t *testing.T) {
	for _, mode := range []Mode{ModeAsk, ModeAutoEdit} {
		for _, tc := range writeForms {
			p := mustPolicy(t, mode, []string{"run_command(" + tc.rule + ")"}, nil)
			d := p.Decide(cmdCall(tc.cmd))
			if d.Action != Ask || !strings.Contains(d.Reason, tc.why) {
				t.Errorf("%s, allow %s: %q: got %s %q, want ask saying %q", mode, tc.rule, tc.cmd, d.Action, d.Reason, tc.why)
			}
		}
	}
}

// The read forms stay covered by the same rules.
func TestReadFormsStillAllowed(t *testing.T) {
	for _, tc := range []struct{ rule, cmd string }{
		{"git diff *", "git diff --no-index /dev/null x"}, {"git diff *", "git diff --stat HEAD~1"},
		{"git log *", "git log --oneline -n 5"}, {"git log *", "git log --format=%H -- f"},
		{"git *", "git -c color.ui=never log"}, {"git *", "git -c core.quotepath=off status"},
		{"git *", "git config --get user.email"}, {"git *", "git config user.name me"},
		{"sort *", "sort -k1,1 -t, hello.txt"}, {"sort *", "sort -u -o /dev/stdout hello.txt"},
		{"sed *", "sed -n '/^x/,$p' hello.txt"}, {"sed *", "sed -e 's/a/b/g' -e 's|c|d|' hello.txt"},
		{"sed *", `sed ':a;N;$!ba;s/\n/ /g' hello.txt`}, {"sed *", "sed 's/x/y/w /dev/stdout' hello.txt"},
		{"sed *", "sed '1i header' hello.txt"}, {"sed *", "sed -E 's/(a|b)+/x/2' hello.txt"},
		{"sed *", "sed --sandbox 's/a/b/' hello.txt"}, {"sed *", `sed 'y/abc/xyz/;/^#/d;$!N' hello.txt`},
		{"uniq *", "uniq -c hello.txt"}, {"uniq *", "uniq -f 1 -s 2 hello.txt"},
		{"awk *", `awk '{ if ($1 > 5) print $2 }' hello.txt`}, {"awk *", "awk -F: '{print $1}' /etc/passwd"},
		{"awk *", `awk '{ n += $1 } END { printf "%d\n", n / 2 }' hello.txt`},
		{"awk *", `awk '{ print > "/dev/stderr" }' hello.txt`}, {"awk *", `awk '$1 ~ /a\/b/ { print }' hello.txt`},
		{"awk *", `awk -v n=3 'NR > n { print (NR > 1 ? "x" : "y") }' hello.txt`},
		{"tee *", "tee /dev/null"}, {"tar *", "tar -tf a.tar"}, {"tar *", "tar tzf a.tar.gz"},
		{"tar *", "tar -xOf a.tar f"}, {"unzip *", "unzip -l a.zip"}, {"less *", "less +G hello.txt"},
		{"less *", "less '+/pattern' hello.txt"}, {"man *", "man 1 ls"}, {"curl *", "curl -s https://example.com"},
		{"curl *", "curl -o - https://example.com"}, {"wget *", "wget -O - https://example.com"},
		{"find *", "find . -name '*.go' -print"}, {"xxd *", "xxd -l 16 hello.txt"}, {"vim *", "vim -c 'set nu' f"},
		{"ex *", "ex -s f <<< 'set nu'"}, {"socat *", "socat - TCP:localhost:80"},
	} {
		p := mustPolicy(t, ModeAsk, []string{"run_command(" + tc.rule + ")"}, nil)
		if d := p.Decide(cmdCall(tc.cmd)); d.Action != Allow {
			t.Errorf("allow %s: %q: got %s (%s), want allow", tc.rule, tc.cmd, d.Action, d.Reason)
		}
	}
}

// The code an exec form runs is checked against deny rules, in full-auto too.
func TestExecFormsCheckedByDenyRules(t *testing.T) {
	p := mustPolicy(t, ModeFullAuto, nil, []string{"run_command(rm *)"})
	for _, c := range []string{
		"sed '1e rm f' x", "sed 's/.*/rm f/e' x", "sed -n -e '1{e rm f' -e '}' x", `awk 'BEGIN { system("rm f") }'`,
		`awk 'BEGIN { "rm f" | getline }'`, `awk 'BEGIN { print | "rm f" }'`, `awk 'BEGIN { system("r" "m f") }'`,
		`awk -e 'BEGIN { system("rm f") }'`, "sort --compress-program=rm -S1 x", "git -c core.pager='rm f' log",
		"git -c core.sshCommand='rm f' fetch", "git -c diff.external=rm diff", "git -c include.path=/tmp/x log",
		"git config alias.x '!rm f'; git x", "git config core.hooksPath /tmp; git commit",
		"git rebase --exec='rm f' HEAD~1", "git bisect run rm f", "git submodule foreach 'rm f'",
		"git difftool -x 'rm f'", "git filter-branch --tree-filter 'rm f'", "git fetch --upload-pack='rm f' origin",
		"git clone -u 'rm f' x", "git clone ext::'rm f' x", "git archive --exec='rm f' --remote=x HEAD",
		"git frobnicate rm f", "tar -xf a.tar --to-command='rm f'", "tar -I 'rm f' -xf x",
		"tar -cf x.tar y --checkpoint=1 --checkpoint-action=exec='rm f'", "zip x.zip y -T -TT 'rm f #'",
		"rsync -e 'rm f' x y:", "ssh -o ProxyCommand='rm f' x", "scp -S rm x y:", "man -P 'rm f' ls",
		"man -H'rm f' ls", "less '+!rm f' x", "vim '+!rm f' x", "vim -c ':!rm f' x", "ex -c '!rm f' x",
		"rg --pre rm x", "nc -e /bin/rm x 1", "socat - EXEC:'rm f'", "wget --use-askpass='rm f' x", "fd -x rm",
		"strace -o '|rm f' ls", "sed -f /dev/stdin x <<< 'e rm f'", "sed -f - x <<EOF\n1e rm f\nEOF",
		"echo 'e rm f' | sed -f - x", `awk -f /dev/stdin <<< 'BEGIN { system("rm f") }'`, "awk -f <(echo x) f",
		"go test -exec rm ./...", "go build --toolexec 'rm f' .", "go env -w GOFLAGS=-toolexec=rm",
		"GOFLAGS=-toolexec=rm go build", "CC=rm go build", "go test $PKG", "ag --pager 'rm f' x",
		"ack --pager='rm f' x", "BAT_PAGER='rm f' bat x", "nm --plugin /tmp/x.so a.o", "ex f <<EOF\n!rm f\nEOF",
		"vim -es f <<< '!rm f'", "nvim -l x.lua", "prettier --plugin=./x.js --write .", "eslint -c /tmp/x.js .",
		"pylint --init-hook='import os' x",
	} {
		if d := p.Decide(cmdCall(c)); d.Action != Deny || d.Rule != "run_command(rm *)" {
			t.Errorf("%q: got %s (%s), want deny", c, d.Action, d.Reason)
		}
	}
}

// A write_file deny rule also sees the files these forms write.
func TestWritingFormsSeenByWriteDeny(t *testing.T) {
	p := mustPolicy(t, ModeFullAuto, nil, []string{"write_file(go.mod)"})
	for _, c := range []string{"sort -o go.mod x", "uniq x go.mod", "sed -n 'w go.mod' x", `awk '{print > "go.mod"}' x`,
		"git diff --output=go.mod", "curl -o go.mod https://x", "tee go.mod < x", "xxd x go.mod"} {
		if d := p.Decide(cmdCall(c)); d.Action != Deny {
			t.Errorf("%q: got %s (%s), want deny by write_file(go.mod)", c, d.Action, d.Reason)
		}
	}
}

// effectsOf runs one handler on a fresh analyzer.
type effectsOf struct {
	writes, reads, runs []string
	unknown             bool
}

func collect(an *analysis) effectsOf {
	var e effectsOf
	for _, w := range an.writes {
		e.writes = append(e.writes, printable(w.target))
	}
	for _, r := range an.reads {
		e.reads = append(e.reads, printable(r.target))
	}
	for _, en := range an.entries {
		if en.unknown != "" {
			e.unknown = true
		} else {
			e.runs = append(e.runs, printable(en.text))
		}
	}
	return e
}

func TestSedScript(t *testing.T) {
	for _, tc := range []struct {
		script string
		want   effectsOf
	}{
		{"s/a/b/g", effectsOf{}},
		{"w out", effectsOf{writes: []string{"out"}}},
		{"1,/x/W out; p", effectsOf{writes: []string{"out; p"}}}, // the file name runs to the end of the line
		{"s|a|b|gw out\np", effectsOf{writes: []string{"out"}}},
		{`s/a\/w x/b/`, effectsOf{}},
		{"r in\nR in2", effectsOf{reads: []string{"in", "in2"}}},
		{"$!N;P;D", effectsOf{}},
		{"1e ls -la", effectsOf{runs: []string{"ls -la"}}},
		{"/x/{e date\n}", effectsOf{runs: []string{"date"}}},
		{"s/x/y/e", effectsOf{unknown: true}},
		{"e", effectsOf{unknown: true}},
		{"a\\\nw not a command", effectsOf{}},
		{"i text; e no", effectsOf{}},
		{"y/w/e/", effectsOf{}},
		{"# w comment\np", effectsOf{}},
		{":a;N;$!ba;s/\\n/ /g", effectsOf{}},
		{"0,/re/I!d", effectsOf{}},
		{`\,x,d`, effectsOf{}},
		{"1~3p;2q5", effectsOf{}},
		{"s/a/b", effectsOf{unknown: true}}, // does not read: fail closed
		{"k", effectsOf{unknown: true}},
	} {
		a := &analyzer{an: &analysis{}}
		a.sedScript(tc.script, &callCtx{src: "sed"})
		if got := collect(a.an); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: got %+v, want %+v", tc.script, got, tc.want)
		}
	}
}

func TestAwkProgram(t *testing.T) {
	for _, tc := range []struct {
		prog string
		want effectsOf
	}{
		{`{ print $1 }`, effectsOf{}},
		{`{ if ($1 > 5) print $2 }`, effectsOf{}},
		{`{ print ($1 > 5) }`, effectsOf{}},
		{`{ print > "out" }`, effectsOf{writes: []string{"out"}}},
		{`{ printf("%s", $0) >> "out" }`, effectsOf{writes: []string{"out"}}},
		{`{ print > $1 ".txt" }`, effectsOf{writes: []string{"…"}}},
		{`{ print | "sort -u" }`, effectsOf{runs: []string{"sort -u"}}},
		{`BEGIN { system("date") }`, effectsOf{runs: []string{"date"}}},
		{`BEGIN { system("a" b) }`, effectsOf{unknown: true}},
		{`BEGIN { while (("ls" | getline l) > 0) n++ }`, effectsOf{runs: []string{"ls"}}},
		{`BEGIN { cmd | getline }`, effectsOf{unknown: true}},
		{`BEGIN { getline l < "in"; print l > "/dev/stderr" }`, effectsOf{reads: []string{"in"}}},
		{`$0 ~ /system("x")/ { n++ }`, effectsOf{}},
		{`{ a = b / c; d = e / f }`, effectsOf{}},
		{`# system("x")` + "\n{ n++ }", effectsOf{}},
		{`BEGIN { s = "system(\"x\")" }`, effectsOf{}},
		{`BEGIN { print |& "cat" }`, effectsOf{runs: []string{"cat"}}},
		{`@load "x"`, effectsOf{unknown: true}},
		{`BEGIN { f = "system"; @f("x") }`, effectsOf{unknown: true}},
	} {
		a := &analyzer{an: &analysis{}}
		a.awkProgram(tc.prog, &callCtx{src: "awk"}, "awk")
		if got := collect(a.an); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: got %+v, want %+v", tc.prog, got, tc.want)
		}
	}
}

// Option abbreviations are read as GNU getopt reads them; one that fits
// several options is read as the one that does the most.
func TestOptAbbreviations(t *testing.T) {
	tab := newOptTable("o:w", "output:w other quiet compress-program:p", false)
	for name, want := range map[string]string{"out": "output", "o": "output", "co": "compress-program",
		"q": "quiet", "output": "output", "x": ""} {
		got, _, ok := tab.lookupLong(name)
		if got != want || ok != (want != "") {
			t.Errorf("--%s: got %q %v, want %q", name, got, ok, want)
		}
	}
}
