package tools

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// grepRipgrep runs rg over q.root and reads its findings back into the
// shared form. rg is given flags that make it walk like the built-in walker
// (hidden files searched, .git skipped, .gitignore honoured with or without
// a repository, no global or .ignore files, no config file), and every file
// it reports is held to the built-in filters and ignore rules again: rg's
// --glob overrides .gitignore, and its parent-directory rules differ from
// git's, so this post-filter is what makes both backends agree.
func grepRipgrep(ctx context.Context, rg string, q *grepQuery) ([]grepFile, bool, error) {
	args := []string{
		"--no-config", "--hidden", "--glob", "!.git",
		"--no-require-git", "--no-ignore-parent", "--no-ignore-global", "--no-ignore-dot",
		"--max-filesize", strconv.Itoa(grepMaxFileSize), "--encoding", "none", "--no-messages",
	}
	if q.multiline {
		args = append(args, "--multiline") // "." matching "\n" is spelled into the pattern
	}
	switch q.mode {
	case "files_with_matches":
		args = append(args, "--files-with-matches", "--null")
	case "count":
		args = append(args, "--count-matches", "--with-filename", "--null")
	default:
		args = append(args, "--json", "--before-context", strconv.Itoa(q.before), "--after-context", strconv.Itoa(q.after))
	}
	if q.userGlob != "" {
		args = append(args, "--glob", q.userGlob)
	}
	for _, g := range q.filter.typeGlobs {
		args = append(args, "--type-add", "novatype:"+g)
	}
	if len(q.filter.typeGlobs) > 0 {
		args = append(args, "--type", "novatype")
	}
	args = append(args, "--regexp", q.rgPattern)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(ctx, rg, args...)
	cmd.Dir = q.root // rg then prints paths relative to the root, as the filters want
	var stderr bytes.Buffer
	cmd.Stderr = &rgStderrBuf{w: &stderr, n: 4096}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, false, fmt.Errorf("rg: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, false, fmt.Errorf("start rg: %w", err)
	}
	keep := grepKeeper(q)
	var (
		files    []grepFile
		complete = true
		perr     error
	)
	r := bufio.NewReaderSize(stdout, 64<<10)
	switch q.mode {
	case "files_with_matches":
		files, perr = readRGFiles(r, keep)
	case "count":
		files, perr = readRGCounts(r, keep)
	default:
		files, complete, perr = readRGJSON(r, keep, q.maxLines)
	}
	if !complete || perr != nil {
		cancel() // stop rg rather than drain output we will not use
	}
	_, _ = io.Copy(io.Discard, stdout)
	werr := cmd.Wait()
	if perr != nil {
		return nil, false, fmt.Errorf("read rg output: %w", perr)
	}
	if !complete {
		return files, false, nil
	}
	var exit *exec.ExitError
	if errors.As(werr, &exit) && exit.ExitCode() == 1 {
		return nil, true, nil // no match
	}
	// Exit 2 without a message is an unreadable file (--no-messages); the
	// results are still good. With a message it is a real failure.
	if werr != nil && (stderr.Len() > 0 || !errors.As(werr, &exit)) {
		return nil, false, fmt.Errorf("rg failed: %v: %s", werr, strings.TrimSpace(stderr.String()))
	}
	return files, true, nil
}

// grepKeeper returns the post-filter for paths rg reports (relative to
// q.root): it answers the absolute path, or "" to drop the file.
func grepKeeper(q *grepQuery) func(rel string) string {
	ic := newIgnoreCache(q.root)
	return func(rel string) string {
		rel = strings.TrimPrefix(filepath.ToSlash(rel), "./")
		abs := filepath.Join(q.root, filepath.FromSlash(rel))
		if !q.filter.match(rel) || ic.fileIgnored(abs) {
			return ""
		}
		return abs
	}
}

// readRGFiles reads --files-with-matches --null output: NUL-ended paths.
func readRGFiles(r *bufio.Reader, keep func(string) string) ([]grepFile, error) {
	var files []grepFile
	for {
		p, err := r.ReadString(0)
		if p = strings.TrimSuffix(p, "\x00"); p != "" {
			if abs := keep(p); abs != "" {
				files = append(files, grepFile{path: abs})
			}
		}
		if err == io.EOF {
			return files, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// readRGCounts reads --count-matches --with-filename --null output:
// "path\x00N\n" per file.
func readRGCounts(r *bufio.Reader, keep func(string) string) ([]grepFile, error) {
	var files []grepFile
	for {
		line, err := r.ReadString('\n')
		if p, n, ok := strings.Cut(strings.TrimSuffix(line, "\n"), "\x00"); ok {
			c, cerr := strconv.Atoi(n)
			if cerr != nil {
				return nil, fmt.Errorf("bad count line %q", line)
			}
			if abs := keep(p); abs != "" {
				files = append(files, grepFile{path: abs, count: c})
			}
		}
		if err == io.EOF {
			return files, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// rgText is rg's JSON for text that may not be UTF-8.
type rgText struct {
	Text  *string `json:"text"`
	Bytes string  `json:"bytes"`
}

func (t rgText) String() string {
	if t.Text != nil {
		return *t.Text
	}
	b, _ := base64.StdEncoding.DecodeString(t.Bytes)
	return string(b)
}

type rgEvent struct {
	Type string `json:"type"`
	Data struct {
		Path       rgText `json:"path"`
		Lines      rgText `json:"lines"`
		LineNumber int    `json:"line_number"`
	} `json:"data"`
}

// readRGJSON reads --json output: match and context events become lines;
// a multiline match event holds several lines.
func readRGJSON(r *bufio.Reader, keep func(string) string, maxLines int) ([]grepFile, bool, error) {
	var (
		files []grepFile
		cur   = -1 // index in files of the file being read, -1 when dropped
		total int
	)
	for {
		raw, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(raw)) > 0 {
			var ev rgEvent
			if jerr := json.Unmarshal(raw, &ev); jerr != nil {
				return nil, false, fmt.Errorf("bad JSON line: %w", jerr)
			}
			switch ev.Type {
			case "begin":
				cur = -1
				if abs := keep(ev.Data.Path.String()); abs != "" {
					files = append(files, grepFile{path: abs})
					cur = len(files) - 1
				}
			case "match", "context":
				if cur < 0 {
					break
				}
				text := strings.TrimSuffix(ev.Data.Lines.String(), "\n")
				for i, l := range strings.Split(text, "\n") {
					files[cur].lines = append(files[cur].lines, grepLine{n: ev.Data.LineNumber + i, text: l, match: ev.Type == "match"})
					total++
				}
				if total > maxLines {
					return files, false, nil
				}
			}
		}
		if err == io.EOF {
			return grepDropEmpty(files), true, nil
		}
		if err != nil {
			return nil, false, err
		}
	}
}

// grepDropEmpty removes files rg began but reported no line of (it sends
// begin only for files with matches, so this is defensive).
func grepDropEmpty(files []grepFile) []grepFile {
	out := files[:0]
	for _, f := range files {
		if len(f.lines) > 0 {
			out = append(out, f)
		}
	}
	return out
}

// rgStderrBuf keeps the first n bytes written and drops the rest, so a
// chatty rg cannot grow our memory.
type rgStderrBuf struct {
	w io.Writer
	n int
}

func (l *rgStderrBuf) Write(p []byte) (int, error) {
	if l.n > 0 {
		k := min(len(p), l.n)
		_, _ = l.w.Write(p[:k])
		l.n -= k
	}
	return len(p), nil
}
