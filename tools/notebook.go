package tools

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/tools/display"
)

// Notebook limits: outputs are for orientation, not for reading data dumps.
const (
	maxNotebookOutputChars = 10_000
	maxNotebookImages      = 5
)

// nbCell is one notebook cell with its fields kept as they were, so fields
// nova does not know survive a rewrite.
type nbCell = map[string]json.RawMessage

// notebook is a parsed .ipynb file.
type notebook struct {
	top   map[string]json.RawMessage
	cells []nbCell
	major int
	minor int
}

func parseNotebook(data []byte) (*notebook, error) {
	nb := &notebook{}
	if err := json.Unmarshal(data, &nb.top); err != nil {
		return nil, fmt.Errorf("not a valid notebook (JSON): %w", err)
	}
	if raw, ok := nb.top["cells"]; ok {
		if err := json.Unmarshal(raw, &nb.cells); err != nil {
			return nil, fmt.Errorf("not a valid notebook: cells: %w", err)
		}
	}
	_ = json.Unmarshal(nb.top["nbformat"], &nb.major)
	_ = json.Unmarshal(nb.top["nbformat_minor"], &nb.minor)
	return nb, nil
}

// nbString reads a notebook text field, which nbformat allows as a string
// or as a list of lines.
func nbString(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []string
	if json.Unmarshal(raw, &parts) == nil {
		return strings.Join(parts, "")
	}
	return ""
}

// nbSource is s as Jupyter stores it: lines that keep their newlines.
func nbSource(s string) json.RawMessage {
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if lines == nil {
		lines = []string{}
	}
	return mustJSON(lines)
}

func mustJSON(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("encode notebook value: %v", err)) // only plain values are encoded
	}
	return json.RawMessage(bytes.TrimSpace(b.Bytes()))
}

func readNotebook(f *os.File, abs string) (Result, error) {
	data, err := io.ReadAll(f)
	if err != nil {
		return Result{}, fmt.Errorf("read %s: %w", abs, err)
	}
	nb, err := parseNotebook(data)
	if err != nil {
		return Errorf("%s: %v", abs, err), nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Notebook %s: %d cells (nbformat %d.%d)\n", abs, len(nb.cells), nb.major, nb.minor)
	var images []llm.Part
	for i, c := range nb.cells {
		id := nbString(c["id"])
		typ := nbString(c["cell_type"])
		if id != "" {
			fmt.Fprintf(&b, "\n<cell index=\"%d\" id=%q type=%q>\n", i, id, typ)
		} else {
			fmt.Fprintf(&b, "\n<cell index=\"%d\" type=%q>\n", i, typ)
		}
		src := nbString(c["source"])
		b.WriteString(src)
		if !strings.HasSuffix(src, "\n") {
			b.WriteByte('\n')
		}
		b.WriteString("</cell>\n")
		var outs []map[string]json.RawMessage
		if json.Unmarshal(c["outputs"], &outs) != nil || len(outs) == 0 {
			continue
		}
		text, imgs := nbOutputs(outs, maxNotebookImages-len(images))
		images = append(images, imgs...)
		if text != "" {
			fmt.Fprintf(&b, "<output cell=\"%d\">\n%s</output>\n", i, text)
		}
	}
	return Result{Output: b.String(), Images: images}, nil
}

// nbOutputs renders a cell's outputs as text, collecting up to maxImages
// image outputs as image parts.
func nbOutputs(outs []map[string]json.RawMessage, maxImages int) (string, []llm.Part) {
	var b strings.Builder
	var images []llm.Part
	for _, o := range outs {
		switch nbString(o["output_type"]) {
		case "stream":
			b.WriteString(nbString(o["text"]))
		case "execute_result", "display_data":
			var data map[string]json.RawMessage
			_ = json.Unmarshal(o["data"], &data)
			for _, mt := range []string{"image/png", "image/jpeg"} {
				raw, ok := data[mt]
				if !ok || len(images) >= maxImages {
					continue
				}
				img, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(nbString(raw), "\n", ""))
				if err == nil {
					images = append(images, llm.Part{Type: llm.PartImage, MediaType: mt, Data: img})
					fmt.Fprintf(&b, "[%s output attached]\n", mt)
				}
			}
			if t, ok := data["text/plain"]; ok {
				b.WriteString(nbString(t))
			}
		case "error":
			fmt.Fprintf(&b, "%s: %s\n", nbString(o["ename"]), nbString(o["evalue"]))
			var tb []string
			_ = json.Unmarshal(o["traceback"], &tb)
			for _, l := range tb {
				b.WriteString(stripANSI(l))
				b.WriteByte('\n')
			}
		}
		if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
			b.WriteByte('\n')
		}
	}
	s := b.String()
	if len(s) > maxNotebookOutputChars {
		cut := maxNotebookOutputChars
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
		s = s[:cut] + fmt.Sprintf("\n[... output truncated: %d more characters]\n", len(s)-cut)
	}
	return s, images
}

// stripANSI removes terminal colour sequences from tracebacks.
func stripANSI(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			i = j
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// NotebookEdit replaces, inserts or deletes one cell of a Jupyter notebook.
type NotebookEdit struct{ Input[notebookEditInput] }

type notebookEditInput struct {
	NotebookPath string `json:"notebook_path" nova:"path" jsonschema:"The notebook to edit, absolute or relative to the working directory"`
	CellID       string `json:"cell_id,omitempty" jsonschema:"The id of the cell (or its 0-based index) to replace or delete, or to insert after"`
	NewSource    string `json:"new_source" jsonschema:"The new source of the cell"`
	CellType     string `json:"cell_type,omitempty" jsonschema:"The type of the cell; required for insert"`
	EditMode     string `json:"edit_mode,omitempty" jsonschema:"replace (default), insert or delete"`
}

// tuneSchema lists the values cell_type and edit_mode take.
func (notebookEditInput) tuneSchema(s *jsonschema.Schema) {
	prop(s, "cell_type").Enum = enum("code", "markdown")
	prop(s, "edit_mode").Enum = enum("replace", "insert", "delete")
}

// Name implements Tool.
func (*NotebookEdit) Name() string { return "NotebookEdit" }

// Kind implements Tool.
func (*NotebookEdit) Kind() permission.Kind { return permission.KindEdit }

// Description implements Tool.
func (*NotebookEdit) Description() string {
	return `Changes one cell of a Jupyter notebook (.ipynb): replace its source, insert a new cell, or delete it. Read the notebook first; the edit is refused if it changed since.

- cell_id is the cell's id as shown by Read, or its 0-based index.
- edit_mode "replace" (default) sets the cell's source; a code cell's outputs and execution count are cleared. Passing cell_type changes the cell's type.
- edit_mode "insert" adds a new cell after cell_id (at the start when cell_id is omitted); cell_type is required.
- edit_mode "delete" removes the cell; new_source is ignored.
The notebook stays valid JSON and keeps the fields it had.`
}

// Run implements Tool.
func (*NotebookEdit) Run(ctx context.Context, input json.RawMessage, env *Env) (Result, error) {
	in, err := decodeFileInput[notebookEditInput]("NotebookEdit", input)
	if err != nil {
		return Errorf("%v", err), nil
	}
	abs := env.Abs(in.NotebookPath)
	if strings.ToLower(filepath.Ext(abs)) != ".ipynb" {
		return Errorf("%s is not a Jupyter notebook (.ipynb); use Edit for other files", abs), nil
	}
	data, err := os.ReadFile(abs)
	if os.IsNotExist(err) {
		return Errorf("%s", missingFileMessage(abs)), nil
	}
	if err != nil {
		return Result{}, fmt.Errorf("read %s: %w", abs, err)
	}
	if err := env.Files.CheckFresh(abs); err != nil {
		return Errorf("%v", err), nil
	}
	nb, err := parseNotebook(data)
	if err != nil {
		return Errorf("%s: %v", abs, err), nil
	}
	if nb.major < 4 {
		return Errorf("%s is in nbformat %d; only nbformat 4 notebooks can be edited", abs, nb.major), nil
	}
	msg, err := nb.apply(in)
	if err != nil {
		return Errorf("%s: %v", abs, err), nil
	}
	out, err := nb.encode(jsonIndent(data))
	if err != nil {
		return Result{}, fmt.Errorf("encode %s: %w", abs, err)
	}
	if err := ctx.Err(); err != nil {
		return Result{}, fmt.Errorf("edit %s: %w", abs, err)
	}
	if err := writeKeepingMode(ctx, env, abs, out); err != nil {
		return Errorf("%v", err), nil
	}
	env.Files.Record(abs)
	shown := shownPath(env, abs)
	return Result{
		Output:  fmt.Sprintf("%s in %s.", msg, shown),
		Display: display.Diff(newFileDiff(shown, string(data), string(out))),
	}, nil
}

// apply makes the edit in memory and says what it did.
func (nb *notebook) apply(in notebookEditInput) (string, error) {
	mode := in.EditMode
	if mode == "" {
		mode = "replace"
	}
	idx := -1
	if in.CellID != "" {
		idx = nb.find(in.CellID)
		if idx < 0 {
			return "", fmt.Errorf("no cell with id or index %q (the notebook has %d cells; Read it to see their ids)", in.CellID, len(nb.cells))
		}
	}
	switch mode {
	case "replace":
		if idx < 0 {
			return "", fmt.Errorf("cell_id is required to replace a cell")
		}
		c := nb.cells[idx]
		typ := nbString(c["cell_type"])
		if in.CellType != "" {
			typ = in.CellType
		}
		setCellType(c, typ)
		c["source"] = nbSource(in.NewSource)
		return fmt.Sprintf("Replaced the source of %s cell %d", typ, idx), nil
	case "insert":
		if in.CellType == "" {
			return "", fmt.Errorf("cell_type (code or markdown) is required to insert a cell")
		}
		c := nbCell{"metadata": json.RawMessage("{}"), "source": nbSource(in.NewSource)}
		setCellType(c, in.CellType)
		if nb.major > 4 || nb.major == 4 && nb.minor >= 5 {
			c["id"] = mustJSON(nb.newID())
		}
		at := idx + 1
		nb.cells = append(nb.cells[:at], append([]nbCell{c}, nb.cells[at:]...)...)
		return fmt.Sprintf("Inserted a new %s cell at index %d", in.CellType, at), nil
	case "delete":
		if idx < 0 {
			return "", fmt.Errorf("cell_id is required to delete a cell")
		}
		nb.cells = append(nb.cells[:idx], nb.cells[idx+1:]...)
		return fmt.Sprintf("Deleted cell %d (%d cells remain)", idx, len(nb.cells)), nil
	}
	return "", fmt.Errorf("edit_mode must be replace, insert or delete, not %q", mode)
}

// setCellType gives c the fields its type requires: code cells have outputs
// and an execution count (cleared, since the source changed), markdown
// cells have neither.
func setCellType(c nbCell, typ string) {
	c["cell_type"] = mustJSON(typ)
	if typ == "code" {
		c["outputs"] = json.RawMessage("[]")
		c["execution_count"] = json.RawMessage("null")
		return
	}
	delete(c, "outputs")
	delete(c, "execution_count")
}

// find returns the index of the cell with id, or whose index id is (also
// as "cell-N"), or -1.
func (nb *notebook) find(id string) int {
	for i, c := range nb.cells {
		if nbString(c["id"]) == id {
			return i
		}
	}
	n, err := strconv.Atoi(strings.TrimPrefix(id, "cell-"))
	if err == nil && n >= 0 && n < len(nb.cells) {
		return n
	}
	return -1
}

// newID returns a cell id unused in nb, shaped like Jupyter's.
func (nb *notebook) newID() string {
	used := map[string]bool{}
	for _, c := range nb.cells {
		used[nbString(c["id"])] = true
	}
	for {
		var b [4]byte
		_, _ = rand.Read(b[:])
		if id := hex.EncodeToString(b[:]); !used[id] {
			return id
		}
	}
}

// encode writes nb as Jupyter does (sorted keys, no HTML escaping, a final
// newline) with the indentation the file had.
func (nb *notebook) encode(indent string) ([]byte, error) {
	nb.top["cells"] = mustJSON(nb.cells)
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", indent)
	if err := enc.Encode(nb.top); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// jsonIndent guesses the indentation unit of a JSON document (Jupyter
// writes one space).
func jsonIndent(data []byte) string {
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		rest := data[i+1:]
		n := 0
		for n < len(rest) && (rest[n] == ' ' || rest[n] == '\t') {
			n++
		}
		if n > 0 {
			return string(rest[:n])
		}
	}
	return " "
}
