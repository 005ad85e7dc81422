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
	if in.FilePath == "" {
		return Errorf("file_path is required"), nil
	}
	abs := env.Abs(in.FilePath)
	shown := shownPath(env, abs)
	st, err := os.Stat(abs)
	existed := err == nil
	if err != nil && !os.IsNotExist(err) {
		return Result{}, fmt.Errorf("write %s: %w", abs, err)
	}
	if existed && st.IsDir() {
		return Errorf("%s is a directory; give the path of a file", abs), nil
	}
	if err := env.Files.CheckFresh(abs); err != nil {
		return Errorf("%v", err), nil
	}
	var before string
	data := []byte(in.Content)
	if existed {
		old, err := os.ReadFile(abs)
		if err != nil {
			return Result{}, fmt.Errorf("read %s: %w", abs, err)
		}
		if !nulInHead(old) {
			doc := decodeText(old)
			before = doc.text
			// Keep the file's conventions unless the model chose its own.
			keep := textDoc{
				bom:  doc.bom && !strings.HasPrefix(in.Content, utf8BOM),
				crlf: doc.crlf && !strings.Contains(in.Content, "\r\n"),
			}
			data = keep.encode(in.Content)
		}
	}
	if err := ctx.Err(); err != nil {
		return Result{}, fmt.Errorf("write %s: %w", abs, err)
	}
	if err := writeKeepingMode(ctx, env, abs, data); err != nil {
		return Errorf("%v", err), nil
	}
	env.Files.Record(abs)
	after := toLF(strings.TrimPrefix(in.Content, utf8BOM))
	verb := "Created"
	if existed {
		verb = "Overwrote"
	}
	return Result{
		Output:  fmt.Sprintf("%s %s (%d lines).", verb, shown, len(textLines(after))),
		Display: display.Diff(newFileDiff(shown, before, after)),
	}, nil
}
