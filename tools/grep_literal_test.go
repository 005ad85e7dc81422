package tools

import (
	"encoding/json"
	"math/rand/v2"
	"path/filepath"
	"regexp/syntax"
	"strings"
	"testing"
)

func TestGrepRequiredLiteral(t *testing.T) {
	t.Parallel()
	// want spells the literals as alternatives, "(?i)" marking a folded one.
	cases := []struct{ pattern, want string }{
		{`NEEDLE:\s+\w+`, "NEEDLE:"},
		{`(?i)Needle: the`, "(?i)needle: the"},
		{`(?i)kiss me`, "(?i) me"}, // k and s fold to non-ASCII letters
		{`(?i)123-456`, "123-456"}, // no letters: exact
		{`(?i)CAFÉ`, "(?i)caf"},
		{`café`, "café"},
		{`\bfunc\b\s+\w+\(`, "func"},
		{`(abc)+d`, "abc"},
		{`a?bc`, "bc"},
		{`TODO|FIXME`, "TODO|FIXME"},
		{`(TODO|FIXME): \w+ later`, " later"},
		{`(?i)(todo|fixme)`, "(?i)todo|(?i)fixme"},
		{`foo|bar|x*`, ""}, // a branch that matches anything
		{`a|b|c|d|e|f|g|h|i|j`, ""},
		{`x*`, ""},
		{`^$`, ""},
		{`[ab]cd`, "cd"},
		{`(?s)struct \{.*?\}`, "struct {"},
		{"a\uFFFDbc", "bc"},
	}
	for _, c := range cases {
		re, err := syntax.Parse(c.pattern, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		var alts []string
		if l := requiredLiteral(re.Simplify()); l != nil {
			for _, a := range l.alts {
				s := string(a.text)
				if a.fold {
					s = "(?i)" + s
				}
				alts = append(alts, s)
			}
		}
		if got := strings.Join(alts, "|"); got != c.want {
			t.Errorf("requiredLiteral(%s) = %q, want %q", c.pattern, got, c.want)
		}
	}
}

// TestGrepLiteralIndexFold compares the folded search with a plain search
// of the lower-cased text.
func TestGrepLiteralIndexFold(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	alphabet := []byte("aAbBxX:-é\n")
	for _, lit := range []string{"ab", "xa:", "b", ":a", "a-b:x", "bbb"} {
		re, _ := syntax.Parse("(?i)"+lit, syntax.Perl)
		l := requiredLiteral(re.Simplify())
		if l == nil || len(l.alts) != 1 || string(l.alts[0].text) != lit || !l.alts[0].fold {
			t.Fatalf("requiredLiteral((?i)%s) = %+v", lit, l)
		}
		for i := 0; i < 2000; i++ {
			data := make([]byte, rng.IntN(40))
			for j := range data {
				data[j] = alphabet[rng.IntN(len(alphabet))]
			}
			lower := make([]byte, len(data))
			for j, c := range data {
				if 'A' <= c && c <= 'Z' {
					c += 'a' - 'A'
				}
				lower[j] = c
			}
			want := strings.Index(string(lower), lit)
			if got := l.alts[0].index(data); got != want {
				t.Fatalf("index(%q, %q) = %d, want %d", data, lit, got, want)
			}
		}
	}
}

// TestGrepPrefilterAgrees runs every search with and without the literal
// prefilter, over the fixture and over generated text full of near misses,
// case variants and the non-ASCII letters that fold to k and s.
func TestGrepPrefilterAgrees(t *testing.T) {
	t.Parallel()
	root := grepFixture(t)
	rng := rand.New(rand.NewPCG(5, 6))
	words := []string{"needle", "NEEDLE", "Needle", "nee", "dle", "kiss", "KISS", "\u212aiss", "ki\u017fs", "café", "CAFÉ", "x", "", " ", "\t", "\r", ":", "(", "\x00"}
	var gen strings.Builder
	for i := 0; i < 400; i++ {
		for j := rng.IntN(6); j > 0; j-- {
			gen.WriteString(words[rng.IntN(len(words))])
		}
		gen.WriteByte('\n')
	}
	ftTree(t, root, map[string]string{"gen/a.txt": strings.ReplaceAll(gen.String(), "\x00", ""), "gen/b.txt": "\xffneedle\xfe\nbad \xc3 kiss\n"})
	env := NewEnv(root)
	cases := grepCases()
	for _, p := range []string{"needle", "needle|NEEDLE|dle", "(?i)nee|kiss|x", "(café|CAFÉ)\\b", "(?i)needle", "(?i)kiss", "(?i)CAFÉ", `nee\w*dle`, `(?i)i[sſ]+`, `\bneedle\b`, `needle$`, `^NEEDLE`, "(?i)needle:\\s*", "\uFFFDneedle"} {
		for _, mode := range []string{"files_with_matches", "content", "count"} {
			cases = append(cases, map[string]any{"pattern": p, "output_mode": mode})
		}
		cases = append(cases, map[string]any{"pattern": p, "output_mode": "content", "multiline": true, "-C": 1})
	}
	for _, c := range cases {
		with := ftRun(t, &Grep{Backend: "builtin"}, env, c)
		plain := ftRun(t, &Grep{Backend: "builtin", plain: true}, env, c)
		small := ftRun(t, &Grep{Backend: "builtin", chunk: 7}, env, c) // pieces of a line or two
		if with.Output != plain.Output || small.Output != plain.Output {
			name, _ := json.Marshal(c)
			t.Errorf("%s: prefilter or chunking changes the result\n--- with:\n%s\n--- small chunks:\n%s\n--- plain:\n%s", name, with.Output, small.Output, plain.Output)
		}
	}
	// The generated file must actually exercise the folded paths.
	res := ftRun(t, &Grep{Backend: "builtin"}, env, map[string]any{"pattern": "(?i)kiss", "output_mode": "count", "path": "gen"})
	if !strings.Contains(res.Output, filepath.Join(root, "gen/a.txt")) {
		t.Errorf("no folded match in the generated text: %s", res.Output)
	}
}
