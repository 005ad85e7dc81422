package tools

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/permission"
)

// maxImageBytes keeps images under the providers' 5 MB limit once base64
// encoded.
const maxImageBytes = 3_750_000

// Read shows a file to the model: numbered text lines, an image, or a
// notebook cell by cell.
type Read struct{ Input[readInput] }

type readInput struct {
	FilePath string `json:"file_path" nova:"path" jsonschema:"The file to read, absolute or relative to the working directory"`
	Offset   int    `json:"offset,omitempty" jsonschema:"The 1-based line number to start reading from; only for files too long to read at once"`
	Limit    int    `json:"limit,omitempty" jsonschema:"How many lines to read (default 2000)"`
}

// tuneSchema adds the bounds struct tags cannot say.
func (readInput) tuneSchema(s *jsonschema.Schema) {
	prop(s, "offset").Minimum = jsonschema.Ptr(0.0)
	prop(s, "limit").Minimum = jsonschema.Ptr(1.0)
}

// Name implements Tool.
func (*Read) Name() string { return "Read" }

// Kind implements Tool: Read has no side effects.
func (*Read) Kind() permission.Kind { return permission.KindRead }

// Description implements Tool.
func (*Read) Description() string {
	return `Reads a file from the local filesystem. file_path may be absolute or relative to the working directory.

- By default it returns up to 2000 lines from the start of the file. For long files pass offset (the 1-based line number to start at) and limit (how many lines); the output says when more lines remain.
- Lines are numbered like ` + "`cat -n`" + `: spaces, the line number, a tab, then the line. The number and the tab are not part of the file: never copy them into Edit's old_string.
- Lines longer than 2000 characters are cut, with a marker saying how much was left out.
- Images (PNG, JPEG, GIF, WebP) are shown to you as images.
- Jupyter notebooks (.ipynb) are shown cell by cell (index, id, type, source, text outputs); change them with NotebookEdit.
- Binary files are refused. Directories are refused: use LS to list one.
- Read a file before you Edit or Write it; Write and Edit refuse files you have not read or that changed since you read them.
- You can call Read on several files in parallel.`
}

// Run implements Tool.
func (*Read) Run(ctx context.Context, input json.RawMessage, env *Env) (Result, error) {
	in, err := decodeFileInput[readInput]("Read", input)
	if err != nil {
		return Errorf("%v", err), nil
	}
	if in.FilePath == "" {
		return Errorf("file_path is required"), nil
	}
	abs := env.Abs(in.FilePath)
	// One open, checked against what the permission check judged, serves
	// every read below: the path is not looked up again.
	f, err := openApproved(ctx, abs)
	if os.IsNotExist(err) {
		return Errorf("%s", missingFileMessage(abs)), nil
	}
	if err != nil {
		return Errorf("read %s: %v", abs, err), nil
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return Result{}, fmt.Errorf("read %s: %w", abs, err)
	}
	if st.IsDir() {
		return Errorf("%s is a directory; use LS to list it", abs), nil
	}
	ext := strings.ToLower(filepath.Ext(abs))
	var res Result
	switch {
	case imageMediaType(ext) != "":
		res, err = readImage(f, abs, ext, st.Size())
	case ext == ".ipynb":
		res, err = readNotebook(f, abs)
	default:
		var src io.Reader = f
		if env.Buffers != nil {
			// The editor's buffer is what the person sees, unsaved edits
			// included; the file was opened (and so checked) all the same.
			if text, berr := env.Buffers.ReadBuffer(ctx, abs); berr == nil {
				src = strings.NewReader(text)
			}
		}
		res, err = readText(ctx, src, abs, shownPath(env, abs), in.Offset, in.Limit)
	}
	if err == nil && !res.IsError {
		env.Files.Record(abs)
	}
	return res, err
}

// imageMediaType is the media type of the image extensions models can see.
func imageMediaType(ext string) string {
	switch ext {
	case ".png":
		return "image/png"
	case ".jpg", ".jpeg":
		return "image/jpeg"
	case ".gif":
		return "image/gif"
	case ".webp":
		return "image/webp"
	}
	return ""
}

func readImage(f *os.File, abs, ext string, size int64) (Result, error) {
	if size > maxImageBytes {
		return Errorf("%s is %d bytes; images larger than %d bytes cannot be sent to the model", abs, size, maxImageBytes), nil
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return Result{}, fmt.Errorf("read %s: %w", abs, err)
	}
	if len(data) == 0 {
		return Errorf("%s is an empty file, not an image", abs), nil
	}
	// Trust the bytes over the name: providers reject an image whose
	// declared type does not match its content.
	mt := imageMediaType(ext)
	if sniffed := http.DetectContentType(data); sniffed != mt {
		if imageMediaType("."+strings.TrimPrefix(sniffed, "image/")) == "" {
			return Errorf("%s does not contain a PNG, JPEG, GIF or WebP image (its content looks like %s)", abs, sniffed), nil
		}
		mt = sniffed
	}
	return Result{
		Output: fmt.Sprintf("Image %s (%s, %d bytes) is attached.", abs, mt, len(data)),
		Images: []llm.Part{{Type: llm.PartImage, MediaType: mt, Data: data}},
	}, nil
}

// readText numbers the lines [offset, offset+limit) of a text file. It
// streams, so a huge file costs memory only for the lines shown.
func readText(ctx context.Context, f io.Reader, abs, shown string, offset, limit int) (Result, error) {
	br := bufio.NewReaderSize(f, 64<<10)
	head, _ := br.Peek(binarySniffBytes)
	if nulInHead(head) {
		return Errorf("%s is a binary file (it contains NUL bytes) and cannot be shown as text; inspect it with a command-line tool (file, xxd, strings) through Bash if you must", abs), nil
	}
	if len(head) == 0 {
		return Result{Output: fmt.Sprintf("%s is empty (0 lines).", shown)}, nil
	}
	offset = max(offset, 1)
	if limit <= 0 {
		limit = readDefaultLimit
	}
	var b strings.Builder
	total, shownLines := 0, 0
	for {
		if total%4096 == 0 && ctx.Err() != nil {
			return Result{}, fmt.Errorf("read %s: %w", abs, ctx.Err())
		}
		keep := 0
		if total+1 >= offset && shownLines < limit {
			keep = maxLineChars*utf8.UTFMax + 1
		}
		line, dropped, err := nextLine(br, keep)
		if err == io.EOF {
			break
		}
		if err != nil {
			return Result{}, fmt.Errorf("read %s: %w", abs, err)
		}
		total++
		if keep == 0 {
			continue
		}
		s := string(line)
		if total == 1 {
			s = strings.TrimPrefix(s, utf8BOM)
		}
		if dropped == 0 {
			s = strings.TrimSuffix(s, "\r")
		}
		fmt.Fprintf(&b, "%6d\t%s\n", total, cutLine(s, dropped))
		shownLines++
	}
	if offset > total {
		return Errorf("%s has %d lines; offset %d is past the end", shown, total, offset), nil
	}
	if rest := total - (offset - 1) - shownLines; rest > 0 {
		fmt.Fprintf(&b, "\n... %d more lines; use offset=%d to read on\n", rest, offset+shownLines)
	}
	return Result{Output: b.String()}, nil
}

// nextLine reads one line without its newline, keeping at most keep bytes
// and counting the characters it dropped; io.EOF means no line was left.
func nextLine(r *bufio.Reader, keep int) ([]byte, int, error) {
	var kept []byte
	dropped, got := 0, false
	for {
		chunk, err := r.ReadSlice('\n')
		got = got || len(chunk) > 0
		ended := err == nil
		if ended {
			chunk = chunk[:len(chunk)-1]
		}
		if room := keep - len(kept); room > 0 {
			take := min(room, len(chunk))
			kept = append(kept, chunk[:take]...)
			chunk = chunk[take:]
		}
		if keep > 0 {
			dropped += runeStarts(chunk)
		}
		switch {
		case ended:
			return kept, dropped, nil
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF && got:
			return kept, dropped, nil
		default:
			return nil, 0, err
		}
	}
}

// runeStarts counts the characters that start in b; unlike
// utf8.RuneCount it stays exact when a character straddles two chunks.
func runeStarts(b []byte) int {
	n := 0
	for _, c := range b {
		if c&0xC0 != 0x80 {
			n++
		}
	}
	return n
}

// cutLine is cutLongLine for a line of which extra characters were already
// dropped while reading.
func cutLine(s string, extra int) string {
	if extra == 0 {
		return cutLongLine(s)
	}
	n := 0
	for i := range s {
		if n == maxLineChars {
			return s[:i] + fmt.Sprintf(" [... line truncated: %d more characters]", utf8.RuneCountInString(s[i:])+extra)
		}
		n++
	}
	return s + fmt.Sprintf(" [... line truncated: %d more characters]", extra)
}
