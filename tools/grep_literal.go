package tools

import (
	"bytes"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// grepLiteral is a set of literals, one of which every match of a pattern
// contains ("NEEDLE:" for `NEEDLE:\s+\w+`, "TODO" or "FIXME" for
// `TODO|FIXME`). A file (and, outside multiline mode, a line) without any
// of them cannot match, and looking for them with bytes.Index is far
// cheaper than running Go's regexp, which has no DFA: this prefilter is
// what keeps the built-in search near ripgrep for the patterns people type.
type grepLiteral struct {
	alts []grepAlt
}

// grepAlt is one literal of a grepLiteral.
type grepAlt struct {
	text []byte // lower case when fold
	fold bool   // match ASCII letters in either case
	// anchor is the byte of text a folded search looks for first, the
	// rarest one; lo and up are its two cases.
	anchor int
	lo, up byte
}

// grepMaxAlts bounds the alternatives of a prefilter: past it one regexp
// pass costs less than that many scans.
const grepMaxAlts = 8

// requiredLiteral returns the literals one of which every match of re must
// contain, or nil when there are none worth searching for. re should be
// simplified (no counted repeats).
func requiredLiteral(re *syntax.Regexp) *grepLiteral {
	lits := literalsOf(re)
	if len(lits) == 0 {
		return nil
	}
	l := &grepLiteral{}
	for _, t := range lits {
		a := grepAlt{text: []byte(t.text), fold: t.fold}
		if a.fold {
			best := -1
			for i := range len(t.text) {
				if r := grepByteRank(t.text[i]); best < 0 || r < best {
					best, a.anchor = r, i
				}
			}
			a.lo = t.text[a.anchor]
			a.up = a.lo
			if 'a' <= a.lo && a.lo <= 'z' {
				a.up = a.lo - 'a' + 'A'
			}
		}
		l.alts = append(l.alts, a)
	}
	return l
}

// litText is a literal found in a pattern.
type litText struct {
	text string
	fold bool
}

// literalsOf finds the best set of required literals below re: a literal
// itself, the body of a group or of a repetition that runs at least once,
// the best of a concatenation's parts, or one literal from each branch of
// an alternation. Optional parts give none.
func literalsOf(re *syntax.Regexp) []litText {
	switch re.Op {
	case syntax.OpLiteral:
		if t, f := literalPiece(re.Rune, re.Flags&syntax.FoldCase != 0); t != "" {
			return []litText{{t, f}}
		}
	case syntax.OpCapture, syntax.OpPlus:
		return literalsOf(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return literalsOf(re.Sub[0])
		}
	case syntax.OpConcat:
		var best []litText
		for _, sub := range re.Sub {
			if l := literalsOf(sub); litScore(l) > litScore(best) {
				best = l
			}
		}
		return best
	case syntax.OpAlternate:
		var all []litText
		for _, sub := range re.Sub {
			l := literalsOf(sub)
			if len(l) == 0 {
				return nil // a branch without a literal can match anything
			}
			for _, t := range l {
				if !containsLit(all, t) {
					all = append(all, t)
				}
			}
		}
		if len(all) > grepMaxAlts {
			return nil
		}
		return all
	}
	return nil
}

func containsLit(lits []litText, t litText) bool {
	for _, l := range lits {
		if l == t {
			return true
		}
	}
	return false
}

// litScore ranks literal sets: the shortest literal decides how often a
// candidate is a false one, more alternatives and folding cost more scans.
func litScore(lits []litText) int {
	if len(lits) == 0 {
		return -1
	}
	shortest, folds := len(lits[0].text), 0
	for _, l := range lits {
		shortest = min(shortest, len(l.text))
		if l.fold {
			folds++
		}
	}
	return 4*shortest - len(lits) - folds
}

// literalPiece returns the longest run of runes that a plain byte search
// can find. Go's regexp reads an invalid UTF-8 byte as U+FFFD, so that rune
// is never searched for as bytes; under case folding only ASCII other than
// k and s (which fold to U+212A and U+017F) is kept, lower-cased.
func literalPiece(runes []rune, fold bool) (string, bool) {
	best, cur := "", strings.Builder{}
	flush := func() {
		if cur.Len() > len(best) {
			best = cur.String()
		}
		cur.Reset()
	}
	for _, r := range runes {
		switch {
		case r == utf8.RuneError:
			flush()
		case !fold:
			cur.WriteRune(r)
		case r >= utf8.RuneSelf || strings.ContainsRune("kKsS", r):
			flush()
		default:
			if 'A' <= r && r <= 'Z' {
				r += 'a' - 'A'
			}
			cur.WriteRune(r)
		}
	}
	flush()
	// Without letters a folded literal is an exact one (k and s are gone).
	return best, fold && strings.ContainsAny(best, "abcdefghijlmnopqrtuvwxyz")
}

// grepByteRank orders bytes from rare (low) to common in source text, so a
// folded search starts from the byte it meets least often.
func grepByteRank(b byte) int {
	const common = " \te\nt_ansoirl(),.c=;du\"mpfh:g/b-y*v0w1x'2{}><q3j[]z" // most common first
	if i := strings.IndexByte(common, b); i >= 0 {
		return len(common) - i
	}
	return 0
}

// in reports whether data holds one of the literals.
func (l *grepLiteral) in(data []byte) bool {
	for i := range l.alts {
		if l.alts[i].index(data) >= 0 {
			return true
		}
	}
	return false
}

// grepLitScan finds the literals' occurrences in data from left to right.
// It remembers where each alternative occurs next, so a scan over the
// whole of data costs one pass per alternative however often it is asked.
type grepLitScan struct {
	l    *grepLiteral
	data []byte
	// next is where each alternative occurs next (len(data) for nowhere),
	// -1 before the first search.
	next []int
}

func (l *grepLiteral) scanner(data []byte) *grepLitScan {
	s := &grepLitScan{l: l, data: data, next: make([]int, len(l.alts))}
	for i := range s.next {
		s.next[i] = -1
	}
	return s
}

// at returns the offset of the first occurrence of any literal starting at
// or after pos, or -1. Successive calls must not move pos backwards.
func (s *grepLitScan) at(pos int) int {
	first := -1
	for i := range s.l.alts {
		// An occurrence at or after pos stays the next one: none lies
		// between where it was searched from and it.
		if s.next[i] < pos {
			s.next[i] = len(s.data)
			if j := s.l.alts[i].index(s.data[pos:]); j >= 0 {
				s.next[i] = pos + j
			}
		}
		if s.next[i] < len(s.data) && (first < 0 || s.next[i] < first) {
			first = s.next[i]
		}
	}
	return first
}

// index returns the offset of the literal's first occurrence in data, or -1.
func (a *grepAlt) index(data []byte) int {
	if !a.fold {
		return bytes.Index(data, a.text)
	}
	n, k := len(a.text), a.anchor
	// nextLo and nextUp are the next offsets of the anchor's two cases at or
	// after from (len(data) when there is none); each is searched again only
	// once from has passed it.
	nextLo, nextUp := -1, -1
	if a.lo == a.up {
		nextUp = len(data)
	}
	for from := k; from <= len(data)-(n-k); {
		if nextLo < from {
			nextLo = grepIndexFrom(data, from, a.lo)
		}
		if nextUp < from {
			nextUp = grepIndexFrom(data, from, a.up)
		}
		pos := min(nextLo, nextUp)
		if pos >= len(data) {
			return -1
		}
		if start := pos - k; start+n <= len(data) && grepEqualFold(data[start:start+n], a.text) {
			return start
		}
		from = pos + 1
	}
	return -1
}

// grepIndexFrom returns the offset of c at or after from, or len(data).
func grepIndexFrom(data []byte, from int, c byte) int {
	if i := bytes.IndexByte(data[from:], c); i >= 0 {
		return from + i
	}
	return len(data)
}

// grepEqualFold reports whether s equals lower, the lower-case literal, when
// ASCII letters of s are lower-cased.
func grepEqualFold(s, lower []byte) bool {
	for i, c := range s {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}
