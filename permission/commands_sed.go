package permission

import "strings"

// sedCheck reads every sed script for the files it reads (r, R), writes
// (w, W, s///w) and the commands it runs (e, s///e). --sandbox makes sed
// refuse all three.
func sedCheck(_ *Checker, inv *invocation, args []word) {
	scripts := inv.patterns
	if len(scripts) == 0 && !inv.markSeen("patfile") {
		if len(inv.pos) == 0 {
			inv.effect = "sed without a script"
			return
		}
		scripts = inv.pos[:1]
	}
	if inv.markSeen("patfile") {
		inv.effect = "a sed script file nova cannot read before it runs"
	}
	sandboxed := false
	for _, a := range args {
		if a.val == "--sandbox" {
			sandboxed = true
		}
	}
	for _, s := range scripts {
		if s.dyn {
			inv.effect = "a sed script only known at run time"
			continue
		}
		sc, ok := parseSedScript(s.val)
		switch {
		case !ok:
			inv.effect = "a sed script nova cannot read: " + shorten(s.val)
		case sandboxed:
		case sc.exec:
			inv.effect = "the sed script runs a command (e)"
		}
		if !sandboxed {
			for _, r := range sc.reads {
				inv.reads = append(inv.reads, word{val: r})
			}
			for _, w := range sc.writes {
				inv.writes = append(inv.writes, word{val: w})
			}
		}
	}
}

// sedScript is what a sed script touches.
type sedScript struct {
	reads, writes []string
	exec          bool
}

// parseSedScript reads a sed script command by command. ok is false for
// anything it does not understand, which then asks.
func parseSedScript(s string) (sedScript, bool) {
	var out sedScript
	i := 0
	for i < len(s) {
		for i < len(s) && strings.IndexByte(" \t\n;{}!", s[i]) >= 0 {
			i++
		}
		i = skipSedAddress(s, i)
		if i >= len(s) {
			return out, i == len(s)
		}
		c := s[i]
		i++
		switch c {
		case 's', 'y':
			if i >= len(s) || s[i] == '\n' || s[i] == '\\' {
				return out, false
			}
			i = skipDelimited(s, i)
			if i > len(s) {
				return out, false
			}
			i = skipDelimited(s, i-1)
			if i > len(s) {
				return out, false
			}
			if c == 'y' {
				continue
			}
			for i < len(s) && strings.IndexByte("gpiImM0123456789", s[i]) >= 0 {
				i++
			}
			if i < len(s) && s[i] == 'e' {
				out.exec = true
				i++
			}
			if i < len(s) && (s[i] == 'w' || s[i] == 'W') {
				name, next := sedFileName(s, i+1)
				out.writes = append(out.writes, name)
				i = next
			}
		case 'r', 'R', 'w', 'W':
			name, next := sedFileName(s, i)
			if c == 'r' || c == 'R' {
				out.reads = append(out.reads, name)
			} else {
				out.writes = append(out.writes, name)
			}
			i = next
		case 'e':
			out.exec = true
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case 'a', 'i', 'c', '#':
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case ':', 'b', 't', 'T':
			for i < len(s) && s[i] != '\n' && s[i] != ';' {
				i++
			}
		case 'p', 'P', 'd', 'D', 'n', 'N', 'g', 'G', 'h', 'H', 'x', 'l', '=', 'q', 'Q', 'z', 'F':
			for i < len(s) && s[i] >= '0' && s[i] <= '9' {
				i++
			}
		default:
			return out, false // v and anything unknown
		}
	}
	return out, true
}

// sedFileName reads the file name of r, R, w, W and s///w: GNU sed takes
// the rest of the line, semicolons included.
func sedFileName(s string, i int) (string, int) {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	j := i
	for j < len(s) && s[j] != '\n' {
		j++
	}
	return s[i:j], j
}

// skipSedAddress skips line numbers, $, ranges and /regex/ addresses.
func skipSedAddress(s string, i int) int {
	for i < len(s) {
		c := s[i]
		switch {
		case c >= '0' && c <= '9' || c == '$' || c == ',' || c == '~' || c == '+' || c == ' ' || c == '\t' || c == '!':
			i++
		case c == '/' || c == '\\':
			if c == '\\' {
				i++
			}
			i = skipDelimited(s, i)
			if i < len(s) && (s[i] == 'I' || s[i] == 'M') {
				i++
			}
		default:
			return i
		}
	}
	return i
}

// skipDelimited skips a field starting at its delimiter s[i], returning
// the index just after the closing delimiter, or len(s)+1 when the field
// is not closed.
func skipDelimited(s string, i int) int {
	if i >= len(s) {
		return len(s) + 1
	}
	d := s[i]
	for j := i + 1; j < len(s); j++ {
		if s[j] == '\\' {
			j++
			continue
		}
		if s[j] == d {
			return j + 1
		}
	}
	return len(s) + 1
}

// findCheck reads a find expression: the start paths are read (their
// names listed), -delete deletes below them, -fprint and friends write
// their files; what -exec runs is a command of its own, walked and checked
// as such.
func findCheck(_ *Checker, inv *invocation, args []word) {
	var roots []word
	for _, a := range args {
		if a.dyn || strings.HasPrefix(a.val, "-") || a.val == "(" || a.val == "!" || a.val == "," || a.val == ")" {
			if a.dyn && len(roots) == 0 {
				roots = append(roots, a)
				continue
			}
			break
		}
		roots = append(roots, a)
	}
	if len(roots) == 0 {
		roots = []word{{val: "."}}
	}
	// Positional words after the roots are operators or -exec payloads,
	// not files.
	inv.reads = append(dropWords(inv.reads, inv.pos), roots...)
	inv.pos = roots
	if inv.markSeen("x") {
		inv.execs = nil // the payload is judged as a command of its own
		inv.marks["payload"] = true
	}
	if inv.markSeen("w") {
		inv.effect = ""
		inv.writes = append(inv.writes, roots...)
		inv.rec = true
	}
}

// dateCheck: date MMDDhhmm sets the clock; date +FORMAT only prints.
func dateCheck(_ *Checker, inv *invocation, args []word) {
	for _, a := range inv.pos {
		if a.dyn || !strings.HasPrefix(a.val, "+") {
			inv.effect = "date " + a.val + " sets the clock"
		}
	}
	for _, a := range args {
		if a.val == "-s" || strings.HasPrefix(a.val, "--set") {
			inv.effect = "date --set sets the clock"
		}
	}
}
