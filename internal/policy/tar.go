package policy

import "strings"

// tar: extraction writes the archive's members, -c/-r/-u write the archive,
// --remove-files deletes what it archives; --to-command, -I
// (--use-compress-program), -F (--info-script), --rsh-command and
// --checkpoint-action=exec= run commands. unzip extracts unless it lists,
// tests or prints.

var tarOpts = newOptTable("b C f g:w H I:p K L N T:r V X:r F:c",
	"blocking-factor directory file listed-incremental:w format use-compress-program:p starting-file "+
		"tape-length newer after-date files-from:r label exclude-from:r info-script:c new-volume-script:c "+
		"to-command:c rsh-command:p rmt-command:p checkpoint-action index-file:w owner group mode mtime exclude transform "+
		"xform strip-components suffix backup? occurrence? record-size hole-detection quoting-style "+
		"exclude-tag exclude-tag-under exclude-tag-all newer-mtime one-top-level? atime-preserve?", false)

func (a *analyzer) tar(ws []string, c *callCtx) {
	if len(ws) > 1 && ws[1] != "" && ws[1][0] != '-' && !hasHole(ws[1]) {
		ws = tarOldStyle(ws)
	}
	extract, create, stdout, remove := false, false, false, false
	archive, dir := "", "."
	a.stdOpts(ws, c, tarOpts, "tar", func(o optArg, _ int) {
		switch o.name {
		case "x", "extract", "get":
			extract = true
		case "c", "create", "r", "append", "u", "update", "A", "catenate", "concatenate", "delete":
			create = true
		case "f", "file":
			archive = o.val
		case "C", "directory":
			dir = o.val
		case "O", "to-stdout", "to-command", "t", "list":
			stdout = true
		case "remove-files":
			remove = true
		case "checkpoint-action":
			if cmd, ok := strings.CutPrefix(o.val, "exec="); ok {
				a.codeVia(cmd, c, "tar --checkpoint-action=exec")
			}
		}
	})
	if extract && !stdout {
		a.write(strings.TrimSuffix(dir, "/")+"/"+string(rune(dynByte)), c, "tar -x writes the archive's members into "+printable(dir))
	}
	if create && archive != "" && archive != "-" {
		a.write(archive, c, "tar writes the archive")
	}
	if remove {
		a.write(string(rune(dynByte)), c, "tar --remove-files deletes the files it archives")
	}
}

// tarOldStyle turns `tar xzf a.tar` into `tar -x -z -f a.tar`: the letters'
// values are the following words, in order.
func tarOldStyle(ws []string) []string {
	out := []string{ws[0]}
	next := 2
	for k := 0; k < len(ws[1]); k++ {
		o := ws[1][k]
		out = append(out, "-"+string(o))
		if d, ok := tarOpts.short[o]; ok && !d.optional && next < len(ws) {
			out = append(out, ws[next])
			next++
		}
	}
	return append(out, ws[next:]...)
}

func (a *analyzer) unzip(ws []string, c *callCtx) {
	list, dir := false, "."
	for i := 1; i < len(ws); i++ {
		w := ws[i]
		switch {
		case w == "-d" && i+1 < len(ws):
			dir = ws[i+1]
			i++
		case w == "-x":
			i = len(ws)
		case len(w) > 1 && w[0] == '-' && strings.ContainsAny(w[1:], "lvtpcZz"):
			list = true
		}
	}
	if !list {
		a.write(strings.TrimSuffix(dir, "/")+"/"+string(rune(dynByte)), c, "unzip writes the archive's members into "+printable(dir))
	}
}
