package tools

import (
	"context"
	"encoding/json"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/tools/display"
)

// MultiEdit makes several replacements in one file, all or none.
type MultiEdit struct{ Input[multiEditInput] }

type multiEditInput struct {
	FilePath string     `json:"file_path" nova:"path" jsonschema:"The file to change, absolute or relative to the working directory"`
	Edits    []editSpec `json:"edits" jsonschema:"The edits, applied in order"`
}

// tuneSchema asks for at least one edit.
func (multiEditInput) tuneSchema(s *jsonschema.Schema) {
	edits := prop(s, "edits")
	edits.MinItems = jsonschema.Ptr(1)
	if edits.Items != nil {
		tuneEditSpec(edits.Items)
	}
}

// Name implements Tool.
func (*MultiEdit) Name() string { return "MultiEdit" }

// Kind implements Tool.
func (*MultiEdit) Kind() permission.Kind { return permission.KindEdit }

// Description implements Tool.
func (*MultiEdit) Description() string {
	return `Makes several replacements in one file in a single call. Each edit works like Edit (old_string, new_string, replace_all) and applies to the result of the edits before it, in order.

- All or nothing: if any edit fails (old_string not found, not unique, unchanged), no edit is applied and the error names the failing edit; fix it and send the whole list again.
- Read the file first; the call is refused if you have not, or if it changed since.
- Plan the order: an earlier edit may change text a later edit looks for.
- To create a file, give an empty old_string in the first edit and the content as its new_string.
- CRLF line endings, a UTF-8 byte-order mark and the file's permissions are kept.`
}

// Run implements Tool.
func (*MultiEdit) Run(ctx context.Context, input json.RawMessage, env *Env) (Result, error) {
	in, err := decodeFileInput[multiEditInput]("MultiEdit", input)
	if err != nil {
		return Errorf("%v", err), nil
	}
	return editFile(ctx, env, in.FilePath, in.Edits, true)
}

// Preview implements Previewer: the diff the edits would make.
func (*MultiEdit) Preview(_ context.Context, input json.RawMessage, env *Env) (*display.Display, *Result) {
	in, err := decodeFileInput[multiEditInput]("MultiEdit", input)
	if err != nil {
		return nil, nil
	}
	return previewEdit(env, in.FilePath, in.Edits, true)
}
