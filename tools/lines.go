package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/nova-dev/nova/atomicfile"
)

// Shared limits of the file tools.
const (
	readDefaultLimit = 2000 // lines Read shows when no limit is given
	maxLineChars     = 2000 // longer lines are cut in Read's output
	binarySniffBytes = 8192 // a NUL byte in this head means binary
	snippetContext   = 3    // unchanged lines shown around an edit
	maxSnippetLines  = 40   // longer edit snippets are cut
	utf8BOM          = "\ufeff"
)

// textDoc is a text file as the model sees it: without its byte-order mark
// and with LF line endings, remembering both so a rewrite restores them.
type textDoc struct {
	bom  bool
	crlf bool
	text string
}

// decodeText splits data into its conventions and LF text. Only files whose
// every newline is CRLF are normalised, so a rewrite is byte-exact outside
// the lines that changed; mixed files are left as they are.
func decodeText(data []byte) textDoc {
	s := string(data)
	var d textDoc
	if strings.HasPrefix(s, utf8BOM) {
		d.bom = true
		s = s[len(utf8BOM):]
	}
	if lf := strings.Count(s, "\n"); lf > 0 && strings.Count(s, "\r\n") == lf {
		d.crlf = true
		s = strings.ReplaceAll(s, "\r\n", "\n")
	}
	d.text = s
	return d
}

// encode turns LF text back into bytes with d's line endings and BOM.
func (d textDoc) encode(text string) []byte {
	if d.crlf {
		text = strings.ReplaceAll(text, "\n", "\r\n")
	}
	if d.bom {
		text = utf8BOM + text
	}
	return []byte(text)
}

// toLF normalises the model's text: it may send CRLF copied from elsewhere.
func toLF(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }

// textLines splits LF text into lines; a final newline ends the last line
// rather than starting an empty one.
func textLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// catN numbers lines like `cat -n`, starting at first, cutting long lines.
func catN(lines []string, first int) string {
	var b strings.Builder
	for i, l := range lines {
		fmt.Fprintf(&b, "%6d\t%s\n", first+i, cutLongLine(l))
	}
	return b.String()
}

// cutLongLine keeps the first maxLineChars characters of l and says how
// many were left out: a minified file must not flood the context.
func cutLongLine(l string) string {
	if len(l) <= maxLineChars {
		return l
	}
	n := 0
	for i := range l {
		if n == maxLineChars {
			return l[:i] + fmt.Sprintf(" [... line truncated: %d more characters]", utf8.RuneCountInString(l[i:]))
		}
		n++
	}
	return l
}

// changedSnippet shows the lines of after that differ from before, with a
// few lines of context, numbered as in the file.
func changedSnippet(before, after string) string {
	ol, nl := textLines(before), textLines(after)
	p := 0
	for p < len(ol) && p < len(nl) && ol[p] == nl[p] {
		p++
	}
	s := 0
	for s < len(ol)-p && s < len(nl)-p && ol[len(ol)-1-s] == nl[len(nl)-1-s] {
		s++
	}
	start := max(0, p-snippetContext)
	end := min(len(nl), len(nl)-s+snippetContext)
	if start >= end {
		return "(the file is now empty)\n"
	}
	lines := nl[start:end]
	if len(lines) > maxSnippetLines {
		return catN(lines[:maxSnippetLines], start+1) +
			fmt.Sprintf("... (%d more lines in the changed region; Read the file to see them)\n", len(lines)-maxSnippetLines)
	}
	return catN(lines, start+1)
}

// shownPath is abs as people like to read it: relative inside the workspace.
func shownPath(env *Env, abs string) string {
	if rel, err := filepath.Rel(env.Workdir, abs); err == nil && filepath.IsLocal(rel) {
		return rel
	}
	return abs
}

// nulInHead reports whether data looks binary: text files have no NUL bytes.
func nulInHead(data []byte) bool {
	return bytes.IndexByte(data[:min(len(data), binarySniffBytes)], 0) >= 0
}

// decodeFileInput unmarshals a tool's input into T with an error the model
// can act on.
func decodeFileInput[T any](tool string, input json.RawMessage) (T, error) {
	var v T
	if err := json.Unmarshal(input, &v); err != nil {
		return v, fmt.Errorf("invalid input for %s: %w", tool, err)
	}
	return v, nil
}

// loadTextFile reads an existing text file for editing.
func loadTextFile(abs string) (textDoc, error) {
	st, err := os.Stat(abs)
	if err != nil {
		return textDoc{}, err
	}
	if st.IsDir() {
		return textDoc{}, fmt.Errorf("%s is a directory, not a file", abs)
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return textDoc{}, fmt.Errorf("read %s: %w", abs, err)
	}
	if nulInHead(data) {
		return textDoc{}, fmt.Errorf("%s looks like a binary file (it contains NUL bytes); it cannot be edited as text", abs)
	}
	return decodeText(data), nil
}

// writeRoots are the directories the file tools write in without letting
// a symbolic link carry a write out of them: the workspace and the added
// directories, resolved now. A link to a file outside is followed only to
// the file the permission check approved (see ApprovedWrites).
func writeRoots(ctx context.Context, env *Env) atomicfile.Roots {
	dirs := []string{env.Workdir}
	for _, d := range env.AddDirs {
		dirs = append(dirs, env.Abs(d))
	}
	return atomicfile.NewRoots(dirs...).Approving(approvedWrites(ctx)...)
}

// writeOptions are how the file tools write: through a symlink to its
// target (a rename would replace the link), creating missing parent
// directories, and with mode, or when it is 0 keeping the mode of an
// existing file (new files get 0644) and refusing one without write
// permission, which someone protected.
func writeOptions(mode os.FileMode) atomicfile.Options {
	if mode != 0 {
		return atomicfile.Options{Perm: mode, MkdirAll: true}
	}
	return atomicfile.Options{Perm: 0o644, KeepMode: true, MkdirAll: true}
}

// writeKeepingMode writes data to abs atomically, keeping its mode. The
// permission check judged abs some time ago; the write reaches it again
// from the workspace's open directory, so a directory swapped for a link
// since cannot take the write out of the workspace.
func writeKeepingMode(ctx context.Context, env *Env, abs string, data []byte) error {
	return writeRoots(ctx, env).WriteFile(abs, data, writeOptions(0))
}

// missingFileMessage says abs does not exist and suggests files of the same
// directory with similar names, the usual cause being a typo or wrong case.
func missingFileMessage(abs string) string {
	msg := "File does not exist: " + abs
	dir := filepath.Dir(abs)
	entries, err := os.ReadDir(dir)
	if err != nil {
		if os.IsNotExist(err) {
			msg += fmt.Sprintf(" (the directory %s does not exist either)", dir)
		}
		return msg
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if similar := similarNames(filepath.Base(abs), names); len(similar) > 0 {
		for i, s := range similar {
			similar[i] = filepath.Join(dir, s)
		}
		msg += ". Did you mean " + strings.Join(similar, " or ") + "?"
	}
	return msg
}

// similarNames returns up to three of names that look like want: another
// case, another extension, a small typo, or one containing the other.
func similarNames(want string, names []string) []string {
	type scored struct {
		name  string
		score int
	}
	lw := strings.ToLower(want)
	stem := strings.TrimSuffix(lw, filepath.Ext(lw))
	var found []scored
	for _, n := range names {
		ln := strings.ToLower(n)
		score := -1
		switch {
		case ln == lw:
			score = 0
		case strings.TrimSuffix(ln, filepath.Ext(ln)) == stem:
			score = 1
		default:
			if d := nameDistance(ln, lw); d <= max(2, len(lw)/5) {
				score = 1 + d
			} else if len(lw) >= 3 && len(ln) >= 3 && (strings.Contains(ln, lw) || strings.Contains(lw, ln)) {
				score = 10
			}
		}
		if score >= 0 {
			found = append(found, scored{n, score})
		}
	}
	sort.Slice(found, func(i, j int) bool {
		if found[i].score != found[j].score {
			return found[i].score < found[j].score
		}
		return found[i].name < found[j].name
	})
	var out []string
	for i := 0; i < len(found) && i < 3; i++ {
		out = append(out, found[i].name)
	}
	return out
}

// nameDistance is the Levenshtein distance of two short names.
func nameDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// How seekLines matched: each mode forgives more whitespace than the last.
const (
	matchExact      = iota
	matchTrimRight  // trailing whitespace ignored
	matchWhitespace // all runs of whitespace equal, leading and trailing ignored
)

// seekLines finds pat in lines at or after start, trying an exact match,
// then one ignoring trailing whitespace, then one ignoring whitespace
// differences. With eof the end of the file is tried first. It returns the
// index and the mode that matched, or -1.
func seekLines(lines, pat []string, start int, eof bool) (int, int) {
	if len(pat) == 0 {
		return start, matchExact
	}
	last := len(lines) - len(pat)
	if last < start {
		return -1, matchExact
	}
	norms := []func(string) string{
		func(s string) string { return s },
		func(s string) string { return strings.TrimRight(s, " \t\r") },
		collapseSpace,
	}
	for mode, norm := range norms {
		at := func(i int) bool {
			for j, p := range pat {
				if norm(lines[i+j]) != norm(p) {
					return false
				}
			}
			return true
		}
		if eof && at(last) {
			return last, mode
		}
		for i := start; i <= last; i++ {
			if at(i) {
				return i, mode
			}
		}
	}
	return -1, matchExact
}

// collapseSpace trims s and turns every run of whitespace into one space.
func collapseSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// fsAction is one write or removal of a patch being committed.
type fsAction struct {
	path   string
	data   []byte
	mode   os.FileMode // when set, the mode of the written file
	remove bool
}

// commitActions performs acts in order; if one fails, the ones done are
// undone from snapshots taken first, so the patch stays all or nothing.
// Snapshots, writes, removals and their undoing all go through roots, so
// none of them follows a link out of the workspace.
func commitActions(roots atomicfile.Roots, acts []fsAction) error {
	type snapshot struct {
		existed bool
		data    []byte
		mode    os.FileMode
	}
	snaps := map[string]snapshot{}
	for _, a := range acts {
		if _, ok := snaps[a.path]; ok {
			continue
		}
		if _, err := os.Lstat(a.path); err != nil {
			snaps[a.path] = snapshot{} // absent, or under a non-directory: the write will say
			continue
		}
		data, mode, err := roots.ReadFile(a.path)
		if err != nil {
			return err
		}
		snaps[a.path] = snapshot{existed: true, data: data, mode: mode}
	}
	for i, a := range acts {
		var err error
		if a.remove {
			err = roots.Remove(a.path)
		} else {
			err = roots.WriteFile(a.path, a.data, writeOptions(a.mode))
		}
		if err == nil {
			continue
		}
		var undo []error
		// The failed action is undone too: it may have half succeeded,
		// and restoring is harmless if not.
		for j := i; j >= 0; j-- {
			p := acts[j].path
			s := snaps[p]
			_, lerr := os.Lstat(p)
			var uerr error
			switch {
			case s.existed:
				if cur, _, err := roots.ReadFile(p); err != nil || !bytes.Equal(cur, s.data) {
					uerr = roots.WriteFile(p, s.data, atomicfile.Options{Perm: s.mode, MkdirAll: true})
				}
			case lerr == nil:
				uerr = roots.Remove(p) // it was created
			}
			if uerr != nil {
				undo = append(undo, uerr)
			}
		}
		if len(undo) > 0 {
			return fmt.Errorf("applying the patch failed (%w) and rolling back failed too: %v; check the files named", err, errors.Join(undo...))
		}
		return fmt.Errorf("applying the patch failed: %w. The changes already made were rolled back; no files were changed", err)
	}
	return nil
}
