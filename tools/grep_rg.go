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
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// grepRipgrep runs rg over q.root and reads its findings back into the
// shared form. rg is given flags that make it walk like the built-in walker
// (hidden files searched, .git skipped, .gitignore honoured with or without
// a repository, no global or .ignore files, no config file), and every file
// it reports is held to the built-in filters, ignore rules and Read deny
// rules again: rg's --glob overrides .gitignore, and its parent-directory
// rules differ from git's, so this post-filter is what makes both backends
// agree, and what keeps a denied file's lines from the model whatever rg
// read.
//
// What was left out is found by grepPreScan before rg starts. It must not
// depend on what the denied files hold (a count of the denied files rg
// reported would answer "does .env contain X?"), so it counts them as the
// built-in search does, reading nothing, and the paths found are passed to
// rg as excludes so it never opens them. rg skips files over --max-filesize
// without a word (its --debug log names them, but costs ~0.2 ms a line for
// every ignored file), so the scan finds those too.
func grepRipgrep(ctx context.Context, rg string, q *grepQuery) (*grepResult, error) {
	res, excludes, err := grepPreScan(ctx, q)
	if err != nil {
		return nil, err
	}
	args := rgArgs(q, excludes)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(ctx, rg, args...)
	cmd.Dir = q.root // rg then prints paths relative to the root, as the filters want
	if q.confine != "" {
		// rg starts in the directory the check resolved, held open: a
		// root swapped for a link since cannot move it (rg does not follow
		// links below it).
		dir, err := os.Open(q.root)
		if err != nil {
			return nil, fmt.Errorf("rg: %w", err)
		}
		defer dir.Close()
		if got := fdPath(dir); got != "" && got != q.confine {
			return nil, fmt.Errorf("%s changed since it was checked (it now leads to %s); nothing was searched", q.root, got)
		}
		cmd.Dir = dirOfFD(dir)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &rgStderrBuf{w: &stderr, n: 4096}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("rg: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start rg: %w", err)
	}
	keep := grepKeeper(q)
	var perr error
	r := bufio.NewReaderSize(stdout, 64<<10)
	switch q.mode {
	case "files_with_matches":
		res.files, perr = readRGFiles(r, keep)
	case "count":
		res.files, perr = readRGCounts(r, keep)
	default:
		res.files, res.complete, perr = readRGJSON(r, keep, q.maxLines)
	}
	if !res.complete || perr != nil {
		cancel() // stop rg rather than drain output we will not use
	}
	_, _ = io.Copy(io.Discard, stdout)
	werr := cmd.Wait()
	if perr != nil {
		return nil, fmt.Errorf("read rg output: %w", perr)
	}
	if !res.complete {
		return res, nil
	}
	var exit *exec.ExitError
	if errors.As(werr, &exit) && exit.ExitCode() == 1 {
		res.files = nil
		return res, nil // no match
	}
	// Exit 2 without a message is an unreadable file (--no-messages); the
	// results are still good. With a message it is a real failure.
	if werr != nil && (stderr.Len() > 0 || !errors.As(werr, &exit)) {
		return nil, fmt.Errorf("rg failed: %v: %s", werr, strings.TrimSpace(stderr.String()))
	}
	return res, nil
}

// rgArgs is rg's command line for q; excludes are --glob excludes to add.
func rgArgs(q *grepQuery, excludes []string) []string {
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
	// Later globs win in rg, so the excludes come after the user's glob.
	for _, x := range excludes {
		args = append(args, "--glob", x)
	}
	return append(args, "--regexp", q.rgPattern)
}

// grepMaxExcludes bounds the deny excludes given to rg on its command
// line; past it (a rule covering thousands of files) the post-filter alone
// keeps the denied files out.
const grepMaxExcludes = 500

// grepPreScan walks the tree as the built-in search does, reading no file,
// for what rg cannot be asked: which files a Read deny rule covers (counted
// into res, and returned as rg excludes, nil when there are too many), and
// which are over grepMaxFileSize (rg skips those silently).
func grepPreScan(ctx context.Context, q *grepQuery) (res *grepResult, excludes []string, err error) {
	res = &grepResult{complete: true}
	var (
		mu     sync.Mutex
		denied []string
	)
	deny := func(abs string) bool {
		if q.denied == nil || !q.denied(abs) {
			return false
		}
		mu.Lock()
		denied = append(denied, abs)
		mu.Unlock()
		return true
	}
	res.deniedDirs, err = walkTree(ctx, q.root, walkOptions{deniedDir: deny}, func(e walkEntry) {
		if !e.Type.IsRegular() || !q.filter.match(e.Rel) {
			return
		}
		if deny(e.Path) {
			mu.Lock()
			res.denied++
			mu.Unlock()
			return
		}
		if st, err := os.Lstat(e.Path); err == nil && st.Size() > grepMaxFileSize {
			mu.Lock()
			res.large = append(res.large, grepLarge{path: e.Path, size: st.Size()})
			mu.Unlock()
		}
	})
	if err != nil {
		return nil, nil, err
	}
	if len(denied) <= grepMaxExcludes {
		sort.Strings(denied)
		for _, p := range denied {
			if rel, ok := relUnder(q.root, p); ok {
				excludes = append(excludes, "!/"+rgGlobEscape(rel))
			}
		}
	}
	return res, excludes, nil
}

// rgGlobEscape quotes the glob metacharacters of a path for rg's --glob.
func rgGlobEscape(p string) string {
	var b strings.Builder
	for _, c := range p {
		if strings.ContainsRune(`\*?[]{}!`, c) {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// grepKeeper returns the post-filter for paths rg reports (relative to
// q.root): it answers the absolute path, or "" to drop the file.
func grepKeeper(q *grepQuery) func(rel string) string {
	ic := newIgnoreCache(q.root)
	return func(rel string) string {
		rel = strings.TrimPrefix(filepath.ToSlash(rel), "./")
		abs := filepath.Join(q.root, filepath.FromSlash(rel))
		if !q.filter.match(rel) || ic.fileIgnored(abs) || (q.denied != nil && q.denied(abs)) {
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
