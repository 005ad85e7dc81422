package tools

import (
	"encoding/json"
	"math/rand/v2"
	"regexp"
	"regexp/syntax"
	"strings"
	"testing"
)

func TestGrepRequiredRun(t *testing.T) {
	t.Parallel()
	cases := []struct {
		pattern string
		min     int // 0: no run prefilter
		in, out string
	}{
		{`[0-9a-f]{40}`, 40, "09af", "g:\n"},
		{`[A-Z_]{12,}`, 12, "AZ_", "a0"},
		{`(?i)[a-f]{8}`, 8, "aAfF", "gG"},
		{`\d{3}-\d{4}`, 8, "09-", "a"},
		{`[a-z]+\d{6}`, 7, "az09", "A"},
		{`(?s)[a-z]{8}`, 8, "az", "\n"},
		{`\w+`, 0, "", ""},                 // too short to pay
		{`.{40}`, 0, "", ""},               // every byte
		{`[^"]{10}`, 0, "", ""},            // nearly every byte
		{`x*[0-9]{3}|[a-z]{9}`, 0, "", ""}, // the short branch decides
		{`é{6}`, 12, "\xc3\xa9", "e"},
	}
	for _, c := range cases {
		multiline := strings.HasPrefix(c.pattern, "(?s)")
		re, err := syntax.Parse(c.pattern, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		r := requiredRun(re.Simplify(), multiline)
		if c.min == 0 {
			if r != nil {
				t.Errorf("%s: a run prefilter of %d where none pays", c.pattern, r.min)
			}
			continue
		}
		if r == nil || r.min != c.min {
			t.Errorf("%s: run = %+v, want min %d", c.pattern, r, c.min)
			continue
		}
		for _, b := range []byte(c.in) {
			if !r.in[b] {
				t.Errorf("%s: %q not in the set", c.pattern, b)
			}
		}
		for _, b := range []byte(c.out) {
			if r.in[b] {
				t.Errorf("%s: %q in the set", c.pattern, b)
			}
		}
	}
}

// TestGrepRunFind compares find with a plain scan for the first run on
// random text from a small alphabet, so runs of every length occur.
func TestGrepRunFind(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 8))
	for _, m := range []int{1, 2, 3, 6, 11} {
		r := &grepRun{min: m}
		r.in['a'], r.in['b'] = true, true
		for i := 0; i < 3000; i++ {
			data := make([]byte, rng.IntN(60))
			for j := range data {
				data[j] = "aab\nx"[rng.IntN(5)]
			}
			pos := 0
			if len(data) > 0 {
				pos = rng.IntN(len(data))
			}
			want := -1
			for s := pos; s+m <= len(data) && want < 0; s++ {
				ok := true
				for _, c := range data[s : s+m] {
					ok = ok && r.in[c]
				}
				if ok {
					want = s
				}
			}
			got := r.find(data, pos)
			// find may return any start of a qualifying run; the first one
			// begins a run that the found one continues or equals.
			if (got < 0) != (want < 0) || got >= 0 && (got < want || !runAt(r, data, got)) {
				t.Fatalf("find(%q, %d) min %d = %d, want %d", data, pos, m, got, want)
			}
		}
	}
}

func runAt(r *grepRun, data []byte, at int) bool {
	if at+r.min > len(data) {
		return false
	}
	for _, c := range data[at : at+r.min] {
		if !r.in[c] {
			return false
		}
	}
	return true
}

// TestGrepRunPrefilterAgrees runs searches whose patterns get the run
// prefilter with and without it, over text full of near misses: runs one
// byte short, runs broken by a newline or a byte outside the set.
func TestGrepRunPrefilterAgrees(t *testing.T) {
	t.Parallel()
	root := grepFixture(t)
	rng := rand.New(rand.NewPCG(9, 10))
	hex := "0123456789abcdef"
	var gen strings.Builder
	for i := 0; i < 600; i++ {
		n := 30 + rng.IntN(14)
		for j := 0; j < n; j++ {
			gen.WriteByte(hex[rng.IntN(len(hex))])
			if rng.IntN(80) == 0 {
				gen.WriteString([]string{"g", "\n", "A", " ", "é"}[rng.IntN(5)])
			}
		}
		gen.WriteString([]string{"\n", " x\n", "\r\n", "ZZZZZZZZZZZZ\n", "PASSWORD_HASH_KEY\n"}[rng.IntN(5)])
	}
	ftTree(t, root, map[string]string{"gen/h.txt": gen.String()})
	env := NewEnv(root)
	var cases []map[string]any
	patterns := []string{`[0-9a-f]{40}`, `[0-9a-f]{36,}`, `(?i)[A-F0-9]{38}`, `[A-Z_]{12,}`, `^[0-9a-f]{32}$`, `\b[0-9a-f]{35}\b`, `[0-9]{3}[a-f]{3}`}
	for _, p := range patterns {
		re, _ := syntax.Parse(p, syntax.Perl)
		if requiredLiteral(re.Simplify()) != nil || requiredRun(re.Simplify(), false) == nil {
			t.Fatalf("%s does not exercise the run prefilter", p)
		}
		for _, mode := range []string{"files_with_matches", "content", "count"} {
			cases = append(cases, map[string]any{"pattern": p, "output_mode": mode})
		}
		cases = append(cases, map[string]any{"pattern": p, "output_mode": "content", "multiline": true, "-C": 1})
	}
	matched := false
	for _, c := range cases {
		with := ftRun(t, &Grep{Backend: "builtin"}, env, c)
		plain := ftRun(t, &Grep{Backend: "builtin", plain: true}, env, c)
		if with.Output != plain.Output {
			name, _ := json.Marshal(c)
			t.Errorf("%s: the run prefilter changes the result\n--- with:\n%s\n--- plain:\n%s", name, with.Output, plain.Output)
		}
		matched = matched || strings.Contains(with.Output, "h.txt")
	}
	if !matched || !regexp.MustCompile(`[0-9a-f]{40}`).MatchString(gen.String()) {
		t.Error("the generated text never matches, so the comparison proves little")
	}
}
