package tools

import (
	"regexp/syntax"
	"unicode"
	"unicode/utf8"
)

// grepRun is the prefilter of patterns without a required literal
// (`[0-9a-f]{40}`, `[A-Z_]{12,}`): every match is a run of at least min
// bytes, each of them in the set in. Text without such a run cannot match,
// and finding runs skips min bytes at a time where the set is rare, so most
// of a file is never handed to Go's regexp, which has no DFA.
type grepRun struct {
	in  [256]bool
	min int
}

// Limits of a useful run prefilter: a shorter run is found everywhere, and
// a larger set matches most text.
const (
	grepRunMinLen  = 6
	grepRunMaxSet  = 128
	grepRunNoMatch = 1 << 30 // min of a pattern that matches nothing
)

// requiredRun returns re's run prefilter, or nil when it would not pay.
// re should be simplified. Outside multiline mode a match never holds a
// newline, so a run ends at one.
func requiredRun(re *syntax.Regexp, multiline bool) *grepRun {
	r := &grepRun{}
	r.min = r.add(re)
	if !multiline {
		r.in['\n'] = false
	}
	n := 0
	for _, ok := range r.in {
		if ok {
			n++
		}
	}
	if r.min < grepRunMinLen || r.min >= grepRunNoMatch || n > grepRunMaxSet {
		return nil
	}
	return r
}

// add puts the bytes re's matches can hold into r.in and returns the
// fewest bytes a match of re has.
func (r *grepRun) add(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpNoMatch:
		return grepRunNoMatch
	case syntax.OpLiteral:
		n := 0
		for _, c := range re.Rune {
			n += r.addRune(c, re.Flags&syntax.FoldCase != 0)
		}
		return n
	case syntax.OpCharClass:
		least := grepRunNoMatch
		for i := 0; i+1 < len(re.Rune); i += 2 {
			lo, hi := re.Rune[i], re.Rune[i+1]
			for c := lo; c <= hi && c < utf8.RuneSelf; c++ {
				r.in[c] = true
			}
			if hi >= utf8.RuneSelf {
				// Any byte of a multi-byte sequence: a superset is safe.
				for b := 0x80; b < 256; b++ {
					r.in[b] = true
				}
			}
			least = min(least, utf8.RuneLen(max(lo, 0)))
		}
		return least
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		for b := range r.in {
			r.in[b] = true
		}
		r.in['\n'] = re.Op == syntax.OpAnyChar
		return 1
	case syntax.OpCapture:
		return r.add(re.Sub[0])
	case syntax.OpStar, syntax.OpQuest:
		r.add(re.Sub[0])
		return 0
	case syntax.OpPlus:
		return r.add(re.Sub[0])
	case syntax.OpRepeat:
		n := r.add(re.Sub[0])
		return min(grepRunNoMatch, n*re.Min)
	case syntax.OpConcat:
		n := 0
		for _, s := range re.Sub {
			n = min(grepRunNoMatch, n+r.add(s))
		}
		return n
	case syntax.OpAlternate:
		least := grepRunNoMatch
		for _, s := range re.Sub {
			least = min(least, r.add(s))
		}
		return least
	}
	// Empty-width assertions (^ $ \b \A \z) and the empty match hold no bytes.
	return 0
}

// addRune adds c's bytes (and those of its other cases under fold) and
// returns the fewest bytes any of them takes.
func (r *grepRun) addRune(c rune, fold bool) int {
	least := r.addBytes(c)
	if fold {
		for f := unicode.SimpleFold(c); f != c; f = unicode.SimpleFold(f) {
			least = min(least, r.addBytes(f))
		}
	}
	return least
}

func (r *grepRun) addBytes(c rune) int {
	var buf [utf8.UTFMax]byte
	n := utf8.EncodeRune(buf[:], c)
	for _, b := range buf[:n] {
		r.in[b] = true
	}
	return n
}

// find returns the offset of a run of at least r.min bytes of r.in that
// starts at or after pos, or -1. It looks at one byte in r.min where the
// set is rare: a run of r.min bytes that starts in [pos, i] holds byte i.
func (r *grepRun) find(data []byte, pos int) int {
	m := r.min
	for i := pos + m - 1; i < len(data); {
		if !r.in[data[i]] {
			i += m
			continue
		}
		j := i - 1
		for j > i-m && r.in[data[j]] {
			j--
		}
		if j == i-m {
			return i - m + 1
		}
		// No run holding i starts at or before j, which is not in the set.
		i = j + m
	}
	return -1
}
