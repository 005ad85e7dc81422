package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/tools/display"
)

// Write creates a file or replaces its whole content.
type Write struct{ Input[writeInput] }

type writeInput struct {
	FilePath string `json:"file_path" nova:"path" jsonschema:"The file to write, absolute or relative to the working directory"`
	Content  string `json:"content" jsonschema:"The complete new content of the file"`
}

// Name implements Tool.
func (*Write) Name() string { return "Write" }

// Kind implements Tool.
func (*Write) Kind() permission.Kind { return permission.KindEdit }

// Description implements Tool.
func (*Write) Description() string {
	return `Writes a file, creating it (and missing parent directories) or replacing all of its content. file_path may be absolute or relative to the working directory.

- To overwrite an existing file you must have Read it in this session, and it must not have changed since; otherwise the write is refused.
- Prefer Edit for changing part of an existing file: it sends only the change.
- An existing file keeps its permissions, its CRLF line endings and its UTF-8 byte-order mark.
- Do not create documentation or README files unless asked.`
}

// Run implements Tool.
func (*Write) Run(ctx context.Context, input json.RawMessage, env *Env) (Result, error) {
	in, err := decodeFileInput[writeInput]("Write", input)
	if err != nil {
		return Errorf("%v", err), nil
	}
	p, fail, err := planWrite(env, in)
	if err != nil {
		return Result{}, err
	}
	if fail != nil {
		return *fail, nil
	}
	if err := ctx.Err(); err != nil {
		return Result{}, fmt.Errorf("write %s: %w", p.abs, err)
	}
	if err := writeKeepingMode(ctx, env, p.abs, p.data); err != nil {
		return Errorf("%v", err), nil
	}
	env.Files.Record(p.abs)
	verb := "Created"
	if p.existed {
		verb = "Overwrote"
	}
	return Result{
		Output:  fmt.Sprintf("%s %s (%d lines).", verb, p.shown, len(textLines(p.after))),
		Display: display.Diff(newFileDiff(p.shown, p.before, p.after)),
	}, nil
}

// writePlan is what a Write will do: the bytes it writes, and the text
// before and after for the diff.
type writePlan struct {
	abs, shown    string
	existed       bool
	data          []byte
	before, after string
}

// planWrite works out a Write without writing: Run writes it, Preview
// shows it. A failure the model can act on is fail; err is one outside
// the call.
func planWrite(env *Env, in writeInput) (p writePlan, fail *Result, err error) {
	failf := func(format string, args ...any) (writePlan, *Result, error) {
		r := Errorf(format, args...)
		return p, &r, nil
	}
	if in.FilePath == "" {
		return failf("file_path is required")
	}
	p.abs = env.Abs(in.FilePath)
	p.shown = shownPath(env, p.abs)
	st, err := os.Stat(p.abs)
	p.existed = err == nil
	if err != nil && !os.IsNotExist(err) {
		return p, nil, fmt.Errorf("write %s: %w", p.abs, err)
	}
	if p.existed && st.IsDir() {
		return failf("%s is a directory; give the path of a file", p.abs)
	}
	if err := env.Files.CheckFresh(p.abs); err != nil {
		return failf("%v", err)
	}
	p.data = []byte(in.Content)
	if p.existed {
		old, err := os.ReadFile(p.abs)
		if err != nil {
			return p, nil, fmt.Errorf("read %s: %w", p.abs, err)
		}
		if !nulInHead(old) {
			doc := decodeText(old)
			p.before = doc.text
			// Keep the file's conventions unless the model chose its own.
			keep := textDoc{
				bom:  doc.bom && !strings.HasPrefix(in.Content, utf8BOM),
				crlf: doc.crlf && !strings.Contains(in.Content, "\r\n"),
			}
			p.data = keep.encode(in.Content)
		}
	}
	p.after = toLF(strings.TrimPrefix(in.Content, utf8BOM))
	return p, nil, nil
}

// Preview implements Previewer: the new file's content as a diff (all
// added for a new file), or the change to the file it replaces.
func (*Write) Preview(_ context.Context, input json.RawMessage, env *Env) (*display.Display, *Result) {
	in, err := decodeFileInput[writeInput]("Write", input)
	if err != nil {
		return nil, nil
	}
	p, fail, err := planWrite(env, in)
	if fail != nil || err != nil {
		return nil, fail
	}
	return display.Diff(newFileDiff(p.shown, p.before, p.after)), nil
}
