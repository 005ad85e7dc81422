package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/permission"
)

func numbered(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func TestRead(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 2500)
	huge := strings.Repeat("é", 100_000)
	tests := []struct {
		name    string
		file    string // content of f.txt; "-" for none
		input   map[string]any
		isError bool
		want    []string
		exact   string
		absent  []string
	}{
		{name: "numbered like cat -n", file: "alpha\nbeta\n", input: map[string]any{"file_path": "f.txt"},
			exact: "     1\talpha\n     2\tbeta\n"},
		{name: "last line without newline", file: "alpha\nbeta", input: map[string]any{"file_path": "f.txt"},
			exact: "     1\talpha\n     2\tbeta\n"},
		{name: "offset and limit", file: numbered(1, 10), input: map[string]any{"file_path": "f.txt", "offset": 3, "limit": 2},
			exact: "     3\tline 3\n     4\tline 4\n\n... 6 more lines; use offset=5 to read on\n"},
		{name: "default limit of 2000 lines", file: numbered(1, 2500), input: map[string]any{"file_path": "f.txt"},
			want: []string{"  2000\tline 2000\n", "... 500 more lines; use offset=2001 to read on"}, absent: []string{"line 2001\n"}},
		{name: "offset to the end", file: numbered(1, 10), input: map[string]any{"file_path": "f.txt", "offset": 9},
			exact: "     9\tline 9\n    10\tline 10\n"},
		{name: "offset past the end", file: numbered(1, 10), input: map[string]any{"file_path": "f.txt", "offset": 50},
			isError: true, want: []string{"has 10 lines; offset 50 is past the end"}},
		{name: "long line cut", file: "short\n" + long + "\n", input: map[string]any{"file_path": "f.txt"},
			want: []string{"     2\t" + strings.Repeat("x", 2000) + " [... line truncated: 500 more characters]\n"}},
		{name: "huge line cut while streaming", file: huge + "\nnext\n", input: map[string]any{"file_path": "f.txt"},
			want: []string{strings.Repeat("é", 2000) + " [... line truncated: 98000 more characters]\n", "     2\tnext\n"}},
		{name: "empty file", file: "", input: map[string]any{"file_path": "f.txt"}, want: []string{"f.txt is empty"}},
		{name: "CRLF and BOM are not shown", file: "\ufeffa\r\nb\r\n", input: map[string]any{"file_path": "f.txt"},
			exact: "     1\ta\n     2\tb\n"},
		{name: "binary refused", file: "PK\x03\x04\x00\x00binary", input: map[string]any{"file_path": "f.txt"},
			isError: true, want: []string{"is a binary file"}},
		{name: "directory refused", file: "-", input: map[string]any{"file_path": "."},
			isError: true, want: []string{"is a directory; use LS"}},
		{name: "missing file suggests similar names", file: "x", input: map[string]any{"file_path": "F.txt"},
			isError: true, want: []string{"File does not exist:", "F.txt. Did you mean ", "f.txt?"}},
		{name: "missing directory", file: "-", input: map[string]any{"file_path": "nodir/f.txt"},
			isError: true, want: []string{"File does not exist:", "does not exist either"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := NewEnv(t.TempDir())
			path := filepath.Join(env.Workdir, "f.txt")
			if tt.file != "-" {
				putFile(t, path, tt.file, 0o644)
			}
			res := callFileTool(t, &Read{}, env, tt.input)
			if res.IsError != tt.isError {
				t.Fatalf("IsError = %v, output:\n%.500s", res.IsError, res.Output)
			}
			if tt.exact != "" && res.Output != tt.exact {
				t.Errorf("output =\n%q\nwant\n%q", res.Output, tt.exact)
			}
			wantContains(t, res.Output, tt.want...)
			for _, a := range tt.absent {
				if strings.Contains(res.Output, a) {
					t.Errorf("output has %q", a)
				}
			}
			_, recorded := env.Files.ReadAt(path)
			if recorded == tt.isError {
				t.Errorf("recorded = %v after a read with IsError = %v", recorded, tt.isError)
			}
		})
	}
}

func TestReadImage(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewRGBA(image.Rect(0, 0, 2, 2))); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		file    string
		data    []byte
		isError bool
		media   string
		want    string
	}{
		{"png", "pic.png", buf.Bytes(), false, "image/png", "image/png"},
		{"type from content, not name", "pic.jpg", buf.Bytes(), false, "image/png", "image/png"},
		{"not an image", "pic.gif", []byte("hello, I am text"), true, "", "does not contain a PNG, JPEG, GIF or WebP image"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := NewEnv(t.TempDir())
			if err := os.WriteFile(filepath.Join(env.Workdir, tt.file), tt.data, 0o644); err != nil {
				t.Fatal(err)
			}
			res := callFileTool(t, &Read{}, env, map[string]any{"file_path": tt.file})
			if res.IsError != tt.isError {
				t.Fatalf("IsError = %v: %s", res.IsError, res.Output)
			}
			wantContains(t, res.Output, tt.want)
			if tt.isError {
				return
			}
			if len(res.Images) != 1 {
				t.Fatalf("got %d images", len(res.Images))
			}
			img := res.Images[0]
			if img.Type != llm.PartImage || img.MediaType != tt.media || !bytes.Equal(img.Data, tt.data) {
				t.Errorf("image part = %s %s %d bytes", img.Type, img.MediaType, len(img.Data))
			}
		})
	}
}

func TestReadNotebook(t *testing.T) {
	t.Parallel()
	env := NewEnv(t.TempDir())
	putFile(t, filepath.Join(env.Workdir, "nb.ipynb"), testNotebook, 0o644)
	res := callFileTool(t, &Read{}, env, map[string]any{"file_path": "nb.ipynb"})
	if res.IsError {
		t.Fatal(res.Output)
	}
	wantContains(t, res.Output,
		"3 cells (nbformat 4.5)",
		"<cell index=\"0\" id=\"m1\" type=\"markdown\">\n# Title <b>bold</b>\n</cell>",
		"<cell index=\"1\" id=\"c1\" type=\"code\">\nimport os\nprint(1)\n</cell>",
		"<output cell=\"1\">\n1\n'result'\n</output>",
		"ZeroDivisionError: division by zero",
	)
	if strings.Contains(res.Output, "\x1b[") {
		t.Errorf("ANSI escapes kept in traceback")
	}
	if _, ok := env.Files.ReadAt(filepath.Join(env.Workdir, "nb.ipynb")); !ok {
		t.Errorf("notebook read not recorded")
	}
}

func TestReadPermission(t *testing.T) {
	t.Parallel()
	env := NewEnv("/work")
	req := requestFor(&Read{}, json.RawMessage(`{"file_path":"a/b.go"}`), env)
	want := permission.Request{Tool: "Read", Kind: permission.KindRead, Paths: []permission.Access{{Path: "/work/a/b.go"}}, Workdir: "/work"}
	if fmt.Sprint(req) != fmt.Sprint(want) {
		t.Errorf("Permission = %+v, want %+v", req, want)
	}
	if req := requestFor(&Read{}, json.RawMessage(`{nope`), env); len(req.Paths) != 0 || req.Tool != "Read" {
		t.Errorf("unparsable input gave %+v", req)
	}
}

func TestReadSchemasCompile(t *testing.T) {
	t.Parallel()
	r := NewRegistry()
	for _, tool := range []Tool{&Read{}, &Write{}, &Edit{}, &MultiEdit{}, &ApplyPatch{}, &NotebookEdit{}} {
		if err := r.Register(tool); err != nil {
			t.Errorf("register %s: %v", tool.Name(), err)
		}
		wantKind := permission.KindEdit
		if tool.Name() == "Read" {
			wantKind = permission.KindRead // only Read may run concurrently
		}
		if tool.Kind() != wantKind || len(tool.Description()) < 200 {
			t.Errorf("%s: kind %s, description of %d chars", tool.Name(), tool.Kind(), len(tool.Description()))
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, tool.Schema()); err != nil || !strings.Contains(compact.String(), `"additionalProperties":false`) {
			t.Errorf("%s schema allows extra properties", tool.Name())
		}
	}
	if err := r.validate("Read", json.RawMessage(`{"file_path":"x","extra":1}`)); err == nil {
		t.Errorf("Read accepted an unknown field")
	}
	if err := r.validate("MultiEdit", json.RawMessage(`{"file_path":"x","edits":[]}`)); err == nil {
		t.Errorf("MultiEdit accepted no edits")
	}
	if err := r.validate("NotebookEdit", json.RawMessage(`{"notebook_path":"x","new_source":"","edit_mode":"append"}`)); err == nil {
		t.Errorf("NotebookEdit accepted edit_mode append")
	}
}

// testNotebook is an nbformat 4.5 notebook with fields nova does not know.
const testNotebook = `{
 "cells": [
  {
   "cell_type": "markdown",
   "id": "m1",
   "metadata": {},
   "source": [
    "# Title <b>bold</b>"
   ]
  },
  {
   "cell_type": "code",
   "execution_count": 3,
   "id": "c1",
   "metadata": {"tags": ["keep-me"]},
   "outputs": [
    {"name": "stdout", "output_type": "stream", "text": ["1\n"]},
    {"data": {"text/plain": ["'result'"]}, "execution_count": 3, "metadata": {}, "output_type": "execute_result"}
   ],
   "source": [
    "import os\n",
    "print(1)"
   ]
  },
  {
   "cell_type": "code",
   "execution_count": 4,
   "id": "c2",
   "metadata": {},
   "outputs": [
    {"ename": "ZeroDivisionError", "evalue": "division by zero", "output_type": "error", "traceback": ["\u001b[0;31mZeroDivisionError\u001b[0m: boom"]}
   ],
   "source": "1/0"
  }
 ],
 "metadata": {
  "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
  "x_custom": {"kept": true}
 },
 "nbformat": 4,
 "nbformat_minor": 5
}
`
