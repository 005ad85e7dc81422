package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/tools/display"
)

// ApplyPatch applies a multi-file patch in the format of OpenAI's
// apply_patch tool, all or nothing.
type ApplyPatch struct{ Input[applyPatchInput] }

type applyPatchInput struct {
	Input string `json:"input" jsonschema:"The whole patch, from *** Begin Patch to *** End Patch"`
}

// Patch headers.
const (
	patchBegin  = "*** Begin Patch"
	patchEnd    = "*** End Patch"
	patchAdd    = "*** Add File: "
	patchUpdate = "*** Update File: "
	patchDelete = "*** Delete File: "
	patchMove   = "*** Move to: "
	patchEOF    = "*** End of File"
)

// Name implements Tool.
func (*ApplyPatch) Name() string { return "ApplyPatch" }

// Kind implements Tool.
func (*ApplyPatch) Kind() permission.Kind { return permission.KindEdit }

// Description implements Tool.
func (*ApplyPatch) Description() string {
	return `Adds, updates, moves and deletes files with one patch. The patch is all or nothing: if any part does not apply, no file is changed and the error names the file and hunk.

Format (paths relative to the working directory):
*** Begin Patch
*** Add File: path/new.txt
+every line of the new file, each starting with +
*** Update File: path/old.py
*** Move to: path/renamed.py   (optional)
@@ def some_function():        (optional: a line above the change, to find the right place)
 context line (starts with a space)
-line to remove
+line to add
 context line
*** End of File                 (optional: the hunk ends at the end of the file)
*** Delete File: path/obsolete.txt
*** End Patch

- Give about 3 lines of context above and below each change, copied exactly; start another hunk with @@ for changes further down, in file order.
- Context is matched exactly, then ignoring trailing whitespace, then ignoring whitespace differences.
- Add File refuses an existing file; Move to refuses an existing destination.
- A file you have Read must not have changed on disk since.`
}

// Permission implements Permissioner: every file the patch names is a
// write, found by its headers even when the rest of the patch does not
// parse.
func (*ApplyPatch) Permission(input json.RawMessage, env *Env) permission.Request {
	req := permission.Request{Tool: "ApplyPatch", Kind: permission.KindEdit}
	var in applyPatchInput
	if json.Unmarshal(input, &in) != nil {
		return req
	}
	seen := map[string]bool{}
	for _, l := range strings.Split(in.Input, "\n") {
		l = strings.TrimRight(l, "\r")
		for _, h := range []string{patchAdd, patchUpdate, patchDelete, patchMove} {
			if p, ok := strings.CutPrefix(l, h); ok && strings.TrimSpace(p) != "" {
				abs := env.Abs(strings.TrimSpace(p))
				if !seen[abs] {
					seen[abs] = true
					req.Paths = append(req.Paths, permission.Access{Path: abs, Write: true})
				}
			}
		}
	}
	return req
}

// patchFile is one file operation of a patch.
type patchFile struct {
	op     byte // 'A', 'M' (update) or 'D'
	path   string
	moveTo string
	add    []string // lines of an added file
	hunks  []patchHunk
}

// patchHunk is one @@ section of an update.
type patchHunk struct {
	anchor   string // the line after "@@ ", found before the hunk's lines
	old, new []string
	eof      bool
}

// parsePatch reads patch text into file operations; errors name the patch
// line. Text around the Begin/End markers (a heredoc wrapper) is ignored.
func parsePatch(text string) ([]patchFile, error) {
	lines := strings.Split(toLF(text), "\n")
	begin, end := -1, -1
	for i, l := range lines {
		switch strings.TrimSpace(l) {
		case patchBegin:
			if begin < 0 {
				begin = i
			}
		case patchEnd:
			end = i
		}
	}
	if begin < 0 {
		return nil, fmt.Errorf("the patch must start with %q", patchBegin)
	}
	if end < begin {
		return nil, fmt.Errorf("the patch must end with %q", patchEnd)
	}
	var files []patchFile
	i := begin + 1
	for i < end {
		l := lines[i]
		switch {
		case strings.HasPrefix(l, patchAdd):
			f := patchFile{op: 'A', path: strings.TrimSpace(strings.TrimPrefix(l, patchAdd))}
			for i++; i < end && !isPatchHeader(lines[i]); i++ {
				add, ok := strings.CutPrefix(lines[i], "+")
				if !ok {
					return nil, fmt.Errorf("line %d: every line of an added file must start with '+', got %q", i+1, lines[i])
				}
				f.add = append(f.add, add)
			}
			files = append(files, f)
		case strings.HasPrefix(l, patchDelete):
			files = append(files, patchFile{op: 'D', path: strings.TrimSpace(strings.TrimPrefix(l, patchDelete))})
			i++
		case strings.HasPrefix(l, patchUpdate):
			f := patchFile{op: 'M', path: strings.TrimSpace(strings.TrimPrefix(l, patchUpdate))}
			i++
			if i < end && strings.HasPrefix(lines[i], patchMove) {
				f.moveTo = strings.TrimSpace(strings.TrimPrefix(lines[i], patchMove))
				i++
			}
			var err error
			if i, err = parseHunks(lines, i, end, &f); err != nil {
				return nil, err
			}
			files = append(files, f)
		case strings.TrimSpace(l) == "":
			i++
		default:
			return nil, fmt.Errorf("line %d: expected %q, %q or %q, got %q", i+1, strings.TrimSpace(patchAdd), strings.TrimSpace(patchUpdate), strings.TrimSpace(patchDelete), l)
		}
	}
	for _, f := range files {
		if f.path == "" {
			return nil, fmt.Errorf("a file header has no path")
		}
	}
	return files, nil
}

// isPatchHeader reports whether l starts the next file of a patch.
func isPatchHeader(l string) bool {
	return strings.HasPrefix(l, patchAdd) || strings.HasPrefix(l, patchUpdate) || strings.HasPrefix(l, patchDelete)
}

// parseHunks reads the hunks of an update from lines[i:end] and returns
// where the next file starts.
func parseHunks(lines []string, i, end int, f *patchFile) (int, error) {
	var cur *patchHunk
	for ; i < end && !isPatchHeader(lines[i]); i++ {
		l := lines[i]
		if l == "@@" || strings.HasPrefix(l, "@@ ") {
			f.hunks = append(f.hunks, patchHunk{anchor: hunkAnchor(l)})
			cur = &f.hunks[len(f.hunks)-1]
			continue
		}
		if l == patchEOF {
			if cur == nil {
				return 0, fmt.Errorf("line %d: %q outside a hunk", i+1, patchEOF)
			}
			cur.eof = true
			continue
		}
		if cur == nil {
			if len(f.hunks) > 0 {
				return 0, fmt.Errorf("line %d: expected @@ to start a hunk", i+1)
			}
			// The first hunk of a file may leave out its @@.
			f.hunks = append(f.hunks, patchHunk{})
			cur = &f.hunks[0]
		}
		kind, body := byte(' '), ""
		if l != "" {
			kind, body = l[0], l[1:]
		}
		switch kind {
		case ' ':
			cur.old = append(cur.old, body)
			cur.new = append(cur.new, body)
		case '-':
			cur.old = append(cur.old, body)
		case '+':
			cur.new = append(cur.new, body)
		default:
			return 0, fmt.Errorf("line %d: a hunk line of %s must start with ' ', '-' or '+', got %q", i+1, f.path, l)
		}
	}
	if len(f.hunks) == 0 && f.moveTo == "" {
		return 0, fmt.Errorf("the update of %s has no hunks", f.path)
	}
	return i, nil
}

// hunkAnchor is the line to find before a hunk: the text after "@@ ". A
// unified-diff range ("@@ -3,4 +3,5 @@"), which models write out of habit,
// carries no anchor; what follows its closing "@@" does.
func hunkAnchor(l string) string {
	a := strings.TrimSpace(strings.TrimPrefix(l, "@@"))
	if strings.HasPrefix(a, "-") {
		if _, after, ok := strings.Cut(a, "@@"); ok {
			return strings.TrimSpace(after)
		}
	}
	return a
}

// fileChange is the planned outcome for one patch file.
type fileChange struct {
	patchFile
	abs, dest string      // dest differs from abs for a move
	mode      os.FileMode // of a moved file, for its new path
	doc       textDoc
	before    string
	after     string
	shown     string // the path the diff names
	label     string // how the summary names the file
}

// Run implements Tool.
func (*ApplyPatch) Run(ctx context.Context, input json.RawMessage, env *Env) (Result, error) {
	in, err := decodeFileInput[applyPatchInput]("ApplyPatch", input)
	if err != nil {
		return Errorf("%v", err), nil
	}
	changes, fail := planPatchInput(in.Input, env)
	if fail != nil {
		return *fail, nil
	}
	if err := ctx.Err(); err != nil {
		return Result{}, fmt.Errorf("apply patch: %w", err)
	}
	var acts []fsAction
	for _, c := range changes {
		if c.op == 'D' {
			acts = append(acts, fsAction{path: c.abs, remove: true})
			continue
		}
		acts = append(acts, fsAction{path: c.dest, data: c.doc.encode(c.after), mode: c.mode})
		if c.dest != c.abs {
			acts = append(acts, fsAction{path: c.abs, remove: true})
		}
	}
	if err := commitActions(writeRoots(ctx, env), acts); err != nil {
		return Errorf("%v", err), nil
	}
	var b strings.Builder
	b.WriteString("Success. Updated the following files:\n")
	diffs := make([]FileDiff, 0, len(changes))
	for _, c := range changes {
		fmt.Fprintf(&b, "%c %s\n", c.op, c.label)
		if c.op != 'D' {
			env.Files.Record(c.dest)
		}
		diffs = append(diffs, newFileDiff(c.shown, c.before, c.after))
	}
	return Result{Output: b.String(), Display: display.Diff(diffs...)}, nil
}

// Preview implements Previewer: the diff of every file the patch would
// change.
func (*ApplyPatch) Preview(_ context.Context, input json.RawMessage, env *Env) (*display.Display, *Result) {
	in, err := decodeFileInput[applyPatchInput]("ApplyPatch", input)
	if err != nil {
		return nil, nil
	}
	changes, fail := planPatchInput(in.Input, env)
	if fail != nil {
		return nil, fail
	}
	diffs := make([]FileDiff, 0, len(changes))
	for _, c := range changes {
		diffs = append(diffs, newFileDiff(c.shown, c.before, c.after))
	}
	return display.Diff(diffs...), nil
}

// planPatchInput parses a patch and computes its changes; a failure is
// what the model is told, and nothing was written.
func planPatchInput(patch string, env *Env) ([]fileChange, *Result) {
	files, err := parsePatch(patch)
	if err != nil {
		fail := Errorf("invalid patch: %v. No files were changed.", err)
		return nil, &fail
	}
	changes, err := planPatch(files, env)
	if err != nil {
		fail := Errorf("%v. No files were changed.", err)
		return nil, &fail
	}
	return changes, nil
}

// planPatch computes every file's new content without writing anything.
func planPatch(files []patchFile, env *Env) ([]fileChange, error) {
	touched := map[string]bool{}
	claim := func(abs string) error {
		if touched[abs] {
			return fmt.Errorf("%s appears more than once in the patch; combine its changes into one entry", shownPath(env, abs))
		}
		touched[abs] = true
		return nil
	}
	var changes []fileChange
	for _, f := range files {
		c := fileChange{patchFile: f, abs: env.Abs(f.path)}
		c.dest = c.abs
		c.shown = shownPath(env, c.abs)
		c.label = c.shown
		if err := claim(c.abs); err != nil {
			return nil, err
		}
		switch f.op {
		case 'A':
			if _, err := os.Lstat(c.abs); err == nil {
				return nil, fmt.Errorf("cannot add %s: it already exists; use *** Update File to change it", c.shown)
			}
			if len(f.add) > 0 {
				c.after = strings.Join(f.add, "\n") + "\n"
			}
		case 'D':
			before, err := loadForDelete(env, c.abs, c.shown)
			if err != nil {
				return nil, err
			}
			c.before = before
		case 'M':
			doc, err := loadForPatch(env, c.abs, c.shown)
			if err != nil {
				return nil, err
			}
			c.doc, c.before = doc, doc.text
			if c.after, err = applyHunks(doc.text, f.hunks, c.shown); err != nil {
				return nil, err
			}
			if f.moveTo == "" {
				break
			}
			c.dest = env.Abs(f.moveTo)
			if c.dest == c.abs {
				break
			}
			if st, err := os.Stat(c.abs); err == nil {
				c.mode = st.Mode().Perm()
			}
			if err := claim(c.dest); err != nil {
				return nil, err
			}
			if _, err := os.Lstat(c.dest); err == nil {
				return nil, fmt.Errorf("cannot move %s to %s: the destination already exists", c.shown, shownPath(env, c.dest))
			}
			c.shown = shownPath(env, c.dest)
			c.label = fmt.Sprintf("%s (moved from %s)", c.shown, shownPath(env, c.abs))
		}
		changes = append(changes, c)
	}
	return changes, nil
}

// checkIfRead refuses a file the model read that changed since. The model
// need not have read a file to patch it: Codex models patch from context.
func checkIfRead(env *Env, abs string) error {
	if _, read := env.Files.ReadAt(abs); read {
		return env.Files.CheckFresh(abs)
	}
	return nil
}

// loadForPatch reads a file the patch updates.
func loadForPatch(env *Env, abs, shown string) (textDoc, error) {
	if err := checkIfRead(env, abs); err != nil {
		return textDoc{}, err
	}
	doc, err := loadTextFile(abs)
	if errors.Is(err, os.ErrNotExist) {
		return textDoc{}, fmt.Errorf("cannot update: %s", missingFileMessage(abs))
	}
	if err != nil {
		return textDoc{}, fmt.Errorf("%s: %w", shown, err)
	}
	return doc, nil
}

// loadForDelete checks a file the patch deletes and returns its text for
// the diff (empty for a binary file, which may be deleted all the same).
func loadForDelete(env *Env, abs, shown string) (string, error) {
	if err := checkIfRead(env, abs); err != nil {
		return "", err
	}
	st, err := os.Lstat(abs)
	if os.IsNotExist(err) {
		return "", fmt.Errorf("cannot delete: %s", missingFileMessage(abs))
	}
	if err != nil {
		return "", fmt.Errorf("%s: %w", shown, err)
	}
	if st.IsDir() {
		return "", fmt.Errorf("cannot delete %s: it is a directory", shown)
	}
	data, err := os.ReadFile(abs)
	if err != nil || nulInHead(data) {
		return "", nil
	}
	return decodeText(data).text, nil
}

// applyHunks applies hunks in order to LF text. A file that ended without a
// newline keeps ending without one.
func applyHunks(text string, hunks []patchHunk, shown string) (string, error) {
	lines := textLines(text)
	type repl struct {
		at, n int
		new   []string
	}
	var repls []repl
	next := 0
	for hi, h := range hunks {
		if h.anchor != "" {
			at, _ := seekLines(lines, []string{h.anchor}, next, false)
			if at < 0 {
				return "", hunkError(shown, hi, len(hunks), fmt.Sprintf("its @@ line %q was not found", h.anchor), nil)
			}
			next = at + 1
		}
		if len(h.old) == 0 {
			at := len(lines)
			if h.anchor != "" {
				at = next
			}
			repls = append(repls, repl{at, 0, h.new})
			continue
		}
		old, nw := h.old, h.new
		at, _ := seekLines(lines, old, next, h.eof)
		if at < 0 && old[len(old)-1] == "" {
			// A blank line before the next header is usually not context.
			old = old[:len(old)-1]
			if len(nw) > 0 && nw[len(nw)-1] == "" {
				nw = nw[:len(nw)-1]
			}
			at, _ = seekLines(lines, old, next, h.eof)
		}
		if at < 0 {
			return "", hunkError(shown, hi, len(hunks), "its context and removed lines were not found", h.old)
		}
		repls = append(repls, repl{at, len(old), nw})
		next = at + len(old)
	}
	for i := len(repls) - 1; i >= 0; i-- {
		r := repls[i]
		lines = append(lines[:r.at], append(append([]string{}, r.new...), lines[r.at+r.n:]...)...)
	}
	out := strings.Join(lines, "\n")
	if len(lines) > 0 && (text == "" || strings.HasSuffix(text, "\n")) {
		out += "\n"
	}
	return out, nil
}

// hunkError says which hunk of which file did not apply and shows the first
// lines it looked for.
func hunkError(shown string, i, n int, why string, want []string) error {
	msg := fmt.Sprintf("hunk %d of %d in %s did not apply: %s", i+1, n, shown, why)
	if len(want) > 0 {
		show := want[:min(len(want), 5)]
		msg += ". It expected these lines:\n    " + strings.Join(show, "\n    ")
		if len(want) > len(show) {
			msg += "\n    ..."
		}
		msg += "\nRead the file again and resend the patch with context copied exactly"
	}
	return errors.New(msg)
}
