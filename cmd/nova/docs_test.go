package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// docsDir is the user documentation, from this package's directory.
const docsDir = "../../docs"

// docRow is one row of a flag table: the flags its first cell names.
type docRow struct {
	long  []string // without the leading --
	short []string // without the leading -
	text  string
}

var (
	codeSpan = regexp.MustCompile("`([^`]*)`")
	flagName = regexp.MustCompile(`^(--?)([A-Za-z][A-Za-z-]*)`)
)

// flagTable reads the table of file whose header's first cell is "flag":
// the flags named in the code spans of each row's first cell.
func flagTable(t *testing.T, file string) []docRow {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(docsDir, file))
	if err != nil {
		t.Fatal(err)
	}
	var rows []docRow
	in := false
	for line := range strings.SplitSeq(string(data), "\n") {
		switch {
		case strings.HasPrefix(line, "| flag |"):
			if in || rows != nil {
				t.Fatalf("%s: more than one flag table", file)
			}
			in = true
			continue
		case !strings.HasPrefix(line, "|"):
			in = false
			continue
		case !in || strings.HasPrefix(line, "| ---"):
			continue
		}
		// An escaped \| is inside a cell, not between two.
		cells := strings.Split(strings.ReplaceAll(line, `\|`, "\x00"), "|")
		row := docRow{text: line}
		for _, span := range codeSpan.FindAllStringSubmatch(cells[1], -1) {
			m := flagName.FindStringSubmatch(span[1])
			if m == nil {
				t.Errorf("%s: %q in the flag column is no flag", file, span[1])
				continue
			}
			if m[1] == "--" {
				row.long = append(row.long, m[2])
			} else {
				row.short = append(row.short, m[2])
			}
		}
		if len(row.long) == 0 {
			t.Errorf("%s: row names no flag: %s", file, line)
		}
		rows = append(rows, row)
	}
	if rows == nil {
		t.Fatalf("%s: no flag table (a table whose first column is \"flag\")", file)
	}
	return rows
}

// cobraOwn are the flags cobra adds to every command by itself.
func cobraOwn(name string) bool { return name == "help" || name == "version" }

// checkFlagTable fails when the table of file leaves out a flag of cmd
// that want selects, or names a flag cmd does not have, or a shorthand
// that is not the one of a flag in its row. Hidden flags need not be
// documented, but may be.
func checkFlagTable(t *testing.T, file string, cmd *cobra.Command, want func(*pflag.Flag) bool) {
	t.Helper()
	documented := map[string]bool{}
	for _, row := range flagTable(t, file) {
		shorts := map[string]bool{}
		for _, name := range row.long {
			f := cmd.Flags().Lookup(name)
			switch {
			case f == nil || cobraOwn(name):
				t.Errorf("%s documents --%s, which %q does not have: %s", file, name, cmd.CommandPath(), row.text)
				continue
			case !want(f):
				t.Errorf("%s documents --%s, which does not belong in this table", file, name)
			}
			documented[name] = true
			if f.Shorthand != "" {
				shorts[f.Shorthand] = true
			}
		}
		for _, s := range row.short {
			if !shorts[s] {
				t.Errorf("%s documents -%s, which is not the shorthand of a flag in its row: %s", file, s, row.text)
			}
		}
	}
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if !cobraOwn(f.Name) && !f.Hidden && want(f) && !documented[f.Name] {
			t.Errorf("--%s of %q is not in the flag table of docs/%s: add a row for it", f.Name, cmd.CommandPath(), file)
		}
	})
}

func isPrintOnly(f *pflag.Flag) bool { _, ok := f.Annotations[printOnly]; return ok }

// TestDocsFlagTables: the flag tables of the docs and the flags of the
// commands are the same set, so a flag cannot be added undocumented nor
// removed and still documented.
func TestDocsFlagTables(t *testing.T) {
	t.Parallel()
	f := &Factory{IOStreams: &IOStreams{}}
	root := newRootCmd(f, nil)
	root.InitDefaultHelpFlag()
	root.InitDefaultVersionFlag()
	all := func(*pflag.Flag) bool { return true }
	checkFlagTable(t, "print-mode.md", root, all)
	checkFlagTable(t, "tui.md", root, func(f *pflag.Flag) bool { return !isPrintOnly(f) })
	checkFlagTable(t, "sandbox.md", newDoctorCmd(f, nil), all)
	checkFlagTable(t, "mcp.md", newMCPAddCmd(f, nil), all)
}

// TestDocsNameEveryFlag: every flag of every subcommand is named
// somewhere in the docs, by its long name or its shorthand.
func TestDocsNameEveryFlag(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join(docsDir, "*.md"))
	if err != nil || len(files) == 0 {
		t.Fatalf("docs: %v %v", files, err)
	}
	var docs strings.Builder
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		docs.Write(data)
	}
	text := docs.String()
	named := func(flag string) bool { return namedIn(text, flag) }
	var walk func(cmd *cobra.Command)
	walk = func(cmd *cobra.Command) {
		cmd.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if cobraOwn(f.Name) || f.Hidden {
				return
			}
			if !named("--"+f.Name) && (f.Shorthand == "" || !named("-"+f.Shorthand)) {
				t.Errorf("--%s of %q is named nowhere in docs/", f.Name, cmd.CommandPath())
			}
		})
		for _, c := range cmd.Commands() {
			walk(c)
		}
	}
	walk(newRootCmd(&Factory{IOStreams: &IOStreams{}}, nil))
}

// namedIn reports whether text names flag as the regexp
// (^|[\s`(])FLAG\b would find it: at the start or after white space, a
// backquote or a parenthesis, and not running on into more of a word. A
// literal search does it: a regexp per flag over all of docs/ took
// seconds under -race.
func namedIn(text, flag string) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], flag)
		if j < 0 {
			return false
		}
		at, end := i+j, i+j+len(flag)
		before := at == 0 || strings.ContainsRune("\t\n\f\r `(", rune(text[at-1]))
		after := end < len(text) && isWordByte(text[end])
		if before && flag != "" && isWordByte(flag[len(flag)-1]) != after {
			return true
		}
		i = at + 1
	}
}

// isWordByte is \w of package regexp: an ASCII letter, digit or underscore.
func isWordByte(b byte) bool {
	return b == '_' || '0' <= b && b <= '9' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z'
}

// TestNamedInIsTheRegexp holds namedIn to the regexp it replaced, on the
// edges: start of text, each boundary before, a longer flag after.
func TestNamedInIsTheRegexp(t *testing.T) {
	t.Parallel()
	texts := []string{"--model x", "a --model", "`--model`", "(--model)", "x--model", "--models", "--model-id", "--model_x",
		"\t--model\n", "é--model", "--mode --model", "--modelx --model.", "-p", "a -p b", "-pq", "", "--"}
	for _, text := range texts {
		for _, flag := range []string{"--model", "-p", "--mode"} {
			want := regexp.MustCompile("(^|[\\s`(])" + regexp.QuoteMeta(flag) + `\b`).MatchString(text)
			if got := namedIn(text, flag); got != want {
				t.Errorf("namedIn(%q, %q) = %v, the regexp says %v", text, flag, got, want)
			}
		}
	}
}
