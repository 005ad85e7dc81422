package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/tools/display"
)

// Edit replaces an exact string in a file.
type Edit struct{ Input[editInput] }

// editSpec is one replacement, as Edit takes it and MultiEdit lists them.
type editSpec struct {
	OldString  string `json:"old_string" jsonschema:"The exact text to replace"`
	NewString  string `json:"new_string" jsonschema:"The text to put in its place (must differ from old_string)"`
	ReplaceAll bool   `json:"replace_all,omitempty" jsonschema:"Replace every occurrence of old_string (default false)"`
}

// tuneEditSpec tells the model replace_all's default, which a tag cannot.
func tuneEditSpec(s *jsonschema.Schema) { prop(s, "replace_all").Default = json.RawMessage("false") }

type editInput struct {
	FilePath string `json:"file_path" nova:"path" jsonschema:"The file to change, absolute or relative to the working directory"`
	editSpec
}

func (editInput) tuneSchema(s *jsonschema.Schema) { tuneEditSpec(s) }

// Name implements Tool.
func (*Edit) Name() string { return "Edit" }

// Kind implements Tool.
func (*Edit) Kind() permission.Kind { return permission.KindEdit }

// Description implements Tool.
func (*Edit) Description() string {
	return `Replaces an exact string in a file. file_path may be absolute or relative to the working directory.

- Read the file first in this session; the edit is refused if you have not, or if the file changed on disk since.
- old_string must match the file exactly, including indentation (tabs or spaces) and blank lines. Copy it from Read's output without the line-number prefix (spaces, number, tab).
- old_string must occur exactly once, unless replace_all is true: include enough surrounding lines to make it unique. replace_all replaces every occurrence (useful for renaming).
- new_string must differ from old_string.
- Line endings (CRLF) and a UTF-8 byte-order mark are kept: write old_string and new_string with plain \n.
- An empty old_string creates a file that does not exist yet (prefer Write for that).
- For several changes to one file use MultiEdit.`
}

// Run implements Tool.
func (*Edit) Run(ctx context.Context, input json.RawMessage, env *Env) (Result, error) {
	in, err := decodeFileInput[editInput]("Edit", input)
	if err != nil {
		return Errorf("%v", err), nil
	}
	return editFile(ctx, env, in.FilePath, []editSpec{in.editSpec}, false)
}

// editFile applies edits in order to the file in memory and writes it once
// all succeeded, so a failing edit leaves the file as it was. multi words
// errors and output for MultiEdit.
func editFile(ctx context.Context, env *Env, path string, edits []editSpec, multi bool) (Result, error) {
	p, fail, err := planEdit(env, path, edits, multi)
	if err != nil {
		return Result{}, err
	}
	if fail != nil {
		return *fail, nil
	}
	if err := ctx.Err(); err != nil {
		return Result{}, fmt.Errorf("edit %s: %w", p.abs, err)
	}
	if err := writeKeepingMode(ctx, env, p.abs, p.doc.encode(p.text)); err != nil {
		return Errorf("%v", err), nil
	}
	env.Files.Record(p.abs)
	var head string
	switch {
	case !p.exists:
		head = fmt.Sprintf("Created %s (%d lines).", p.shown, len(textLines(p.text)))
	case multi:
		head = fmt.Sprintf("Applied %d edits to %s (%d replacements).", len(edits), p.shown, p.count)
	default:
		head = fmt.Sprintf("Edited %s: replaced %d occurrence%s.", p.shown, p.count, plural(p.count))
	}
	return Result{
		Output:  head + " The changed lines now read (cat -n):\n" + changedSnippet(p.doc.text, p.text),
		Display: display.Diff(p.diff()),
	}, nil
}

// editPlan is what an Edit or MultiEdit will write: the file as it is and
// its text after the edits.
type editPlan struct {
	abs, shown string
	exists     bool
	doc        textDoc
	text       string
	count      int // occurrences replaced
}

// diff is the display diff of the plan, the same the result carries.
func (p editPlan) diff() FileDiff { return newFileDiff(p.shown, p.doc.text, p.text) }

// planEdit applies edits to the file in memory, writing nothing: Run
// writes the result, Preview shows it to the person asked to approve it.
// A failure the model can act on is fail; err is one outside the call.
func planEdit(env *Env, path string, edits []editSpec, multi bool) (p editPlan, fail *Result, err error) {
	failf := func(format string, args ...any) (editPlan, *Result, error) {
		r := Errorf(format, args...)
		return p, &r, nil
	}
	if path == "" {
		return failf("file_path is required")
	}
	if len(edits) == 0 {
		return failf("edits is empty; give at least one edit")
	}
	p.abs = env.Abs(path)
	p.shown = shownPath(env, p.abs)
	_, err = os.Stat(p.abs)
	p.exists = err == nil
	if err != nil && !os.IsNotExist(err) {
		return p, nil, fmt.Errorf("edit %s: %w", p.abs, err)
	}
	if p.exists {
		if err := env.Files.CheckFresh(p.abs); err != nil {
			return failf("%v", err)
		}
		if p.doc, err = loadTextFile(p.abs); err != nil {
			return failf("%v", err)
		}
	} else if edits[0].OldString != "" {
		return failf("%s. Use Write to create a file.", missingFileMessage(p.abs))
	}
	text := p.doc.text
	for i, e := range edits {
		var n int
		var err error
		if i == 0 && e.OldString == "" {
			if text != "" {
				err = fmt.Errorf("old_string is empty, but %s already has content; an empty old_string only creates a new file or fills an empty one", p.shown)
			} else {
				text, n = toLF(e.NewString), 1
			}
		} else {
			text, n, err = applyEdit(text, e)
		}
		if err != nil {
			if multi {
				return failf("edits[%d] (edit %d of %d) failed: %v. No edits were applied; %s is unchanged.", i, i+1, len(edits), err, p.shown)
			}
			return failf("%v (in %s)", err, p.shown)
		}
		p.count += n
	}
	p.text = text
	return p, nil, nil
}

// Preview implements Previewer: the diff the edit would make.
func (*Edit) Preview(_ context.Context, input json.RawMessage, env *Env) (*display.Display, *Result) {
	in, err := decodeFileInput[editInput]("Edit", input)
	if err != nil {
		return nil, nil
	}
	return previewEdit(env, in.FilePath, []editSpec{in.editSpec}, false)
}

func previewEdit(env *Env, path string, edits []editSpec, multi bool) (*display.Display, *Result) {
	p, fail, err := planEdit(env, path, edits, multi)
	if fail != nil || err != nil {
		return nil, fail
	}
	return display.Diff(p.diff()), nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// applyEdit makes one replacement in LF text and returns the new text and
// how many occurrences it replaced.
func applyEdit(text string, e editSpec) (string, int, error) {
	old, repl := toLF(e.OldString), toLF(e.NewString)
	if old == repl {
		return "", 0, fmt.Errorf("old_string and new_string are identical; there is nothing to change")
	}
	if old == "" {
		return "", 0, fmt.Errorf("old_string is empty; give the exact text to replace")
	}
	n := strings.Count(text, old)
	if n == 0 && strings.Contains(old, "\n") && strings.Contains(text, "\r\n") {
		// A file with mixed line endings keeps its CRs in text; match the
		// model's LF strings against it with CRLF read as LF.
		if m := strings.Count(toLF(text), old); m == 1 || m > 1 && e.ReplaceAll {
			out, _ := replaceMixed(text, old, repl, e.ReplaceAll)
			return out, m, nil
		} else if m > 1 {
			n = m
		}
	}
	switch {
	case n == 0:
		return "", 0, fmt.Errorf("%s", notFoundMessage(text, old))
	case n > 1 && !e.ReplaceAll:
		return "", 0, fmt.Errorf("old_string is not unique: found %d matches, but replace_all is false; add surrounding lines to old_string so it matches one place, or set replace_all to true to replace all %d", n, n)
	case e.ReplaceAll:
		return strings.ReplaceAll(text, old, repl), n, nil
	}
	return strings.Replace(text, old, repl, 1), 1, nil
}

// replaceMixed replaces old (LF) in text read with CRLF as LF. A replaced
// span that had CRLF endings gets them in repl too.
func replaceMixed(text, old, repl string, all bool) (string, int) {
	norm := make([]byte, 0, len(text))
	pos := make([]int, 0, len(text)+1) // pos[j] is where norm[j] is in text
	for i := 0; i < len(text); i++ {
		if text[i] == '\r' && i+1 < len(text) && text[i+1] == '\n' {
			continue
		}
		norm = append(norm, text[i])
		pos = append(pos, i)
	}
	pos = append(pos, len(text))
	normText := string(norm)
	var b strings.Builder
	done, n, from := 0, 0, 0
	for {
		k := strings.Index(normText[from:], old)
		if k < 0 || n == 1 && !all {
			break
		}
		j := from + k
		start, end := pos[j], pos[j+len(old)]
		b.WriteString(text[done:start])
		r := repl
		if strings.Contains(text[start:end], "\r\n") {
			r = strings.ReplaceAll(repl, "\n", "\r\n")
		}
		b.WriteString(r)
		done, from, n = end, j+len(old), n+1
	}
	b.WriteString(text[done:])
	return b.String(), n
}

// notFoundMessage explains a missing old_string with the likely cause: the
// Read line-number prefixes copied along, or whitespace that differs.
func notFoundMessage(text, old string) string {
	msg := "old_string was not found in the file"
	pat := textLines(old)
	if hasLinePrefixes(pat) {
		return msg + "; it seems to include the line-number prefixes of Read's output (spaces, a number, a tab): leave them out"
	}
	if at, mode := seekLines(textLines(text), pat, 0, false); at >= 0 && mode != matchExact {
		return msg + fmt.Sprintf(" exactly, but it matches at line %d if whitespace is ignored: copy indentation (tabs vs spaces) and trailing spaces exactly as Read shows them", at+1)
	}
	if strings.Contains(collapseSpace(text), collapseSpace(old)) {
		return msg + " exactly, but it matches if whitespace is ignored: copy indentation (tabs vs spaces), spaces and line breaks exactly as Read shows them"
	}
	return msg + "; Read the file again and copy the text exactly"
}

// hasLinePrefixes reports whether every non-blank line starts like a line
// of Read's output.
func hasLinePrefixes(lines []string) bool {
	seen := false
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		t := strings.TrimLeft(l, " ")
		i := 0
		for i < len(t) && t[i] >= '0' && t[i] <= '9' {
			i++
		}
		if i == 0 || i >= len(t) || t[i] != '\t' {
			return false
		}
		seen = true
	}
	return seen
}
