package permission_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// The attack corpus lives in testdata/attacks, one YAML file per class.
// A file looks like this (see testdata/attacks/README.md):
//
//	class: 1
//	title: decision taken before the state it depends on
//	defaults:                 # merged into every case, key by key
//	  source: nova audit class 1
//	  config: {mode: default}
//	cases:
//	  - id: c01-cd-ssh-cat
//	    note: both calls are checked before the first one moves the shell
//	    calls: [{Bash: cd ~/.ssh}, {Bash: cat id_rsa}]
//
// A case gives its tool calls in one of three ways: run (one Bash command
// in one turn), calls (several calls in one turn) or turns (a list of
// turns, each a list of calls). A call is a one-key map from the tool
// name to its input; a Bash input may be the command string alone.

// corpusFile is one YAML file of the corpus.
type corpusFile struct {
	Class    int          `yaml:"class"`
	Title    string       `yaml:"title"`
	Defaults attackCase   `yaml:"defaults"`
	Cases    []attackCase `yaml:"cases"`
	path     string
}

// attackCase is one bypass attempt or positive control.
type attackCase struct {
	ID     string       `yaml:"id"`
	Class  int          `yaml:"class"`
	Source string       `yaml:"source"`
	Note   string       `yaml:"note"`
	Setup  *setupSpec   `yaml:"setup"`
	Config *configSpec  `yaml:"config"`
	Run    string       `yaml:"run"`
	Calls  []toolCall   `yaml:"calls"`
	Turns  [][]toolCall `yaml:"turns"`
	Expect *expectSpec  `yaml:"expect"`
	// Needs names programs the case cannot run without; it is skipped
	// where one is missing.
	Needs []string `yaml:"needs"`

	file  string // where the case was read, for messages
	title string // the class title
}

// setupSpec says what the world holds beyond the standard layout: a git
// workspace with README.md and src/app.txt, a home with ~/.ssh keys,
// ~/.aws/credentials, ~/.bashrc and ~/.gitconfig, and an outside
// directory with keep.txt. Paths are relative to the case root (ws/...,
// home/..., outside/...).
type setupSpec struct {
	NoGit     bool              `yaml:"no_git"`     // the workspace is not a repository
	Dotenv    bool              `yaml:"dotenv"`     // ws/.env holds the secret token
	Go        bool              `yaml:"go"`         // ws is a Go module with one passing test
	Remote    bool              `yaml:"remote"`     // outside/remote.git is the origin
	Dirty     bool              `yaml:"dirty"`      // README.md has an uncommitted change
	Preload   bool              `yaml:"preload"`    // ws/evil.so writes outside/preload-ran when loaded
	Files     map[string]string `yaml:"files"`      // path -> content (placeholders and {{token}} expanded)
	Repeat    map[string]int    `yaml:"repeat"`     // path -> how many times its content is repeated
	Exec      []string          `yaml:"exec"`       // paths made executable
	Dirs      []string          `yaml:"dirs"`       // directories to create
	Symlinks  map[string]string `yaml:"symlinks"`   // link path -> target (placeholders expanded)
	Remove    []string          `yaml:"remove"`     // paths of the standard layout to remove
	GitConfig map[string]string `yaml:"git_config"` // ws/.git/config entries planted before the run
	Sh        []string          `yaml:"sh"`         // shell lines the harness runs in ws (bash, outside any sandbox)
	Commit    bool              `yaml:"commit"`     // commit the planted files
	Race      *raceSpec         `yaml:"race"`       // swap a directory for a symlink during the run
}

// raceSpec swaps Dir (under the case root) between a real directory and a
// symlink to Target for as long as the agent runs.
type raceSpec struct {
	Dir    string `yaml:"dir"`
	Target string `yaml:"target"`
}

// configSpec is the permission set-up of a case.
type configSpec struct {
	Mode      string   `yaml:"mode"`
	Allow     []string `yaml:"allow"`
	Ask       []string `yaml:"ask"`
	Deny      []string `yaml:"deny"`
	AddDirs   []string `yaml:"add_dirs"` // relative to the case root
	Sandbox   bool     `yaml:"sandbox"`
	AutoAllow bool     `yaml:"auto_allow"`
	Network   bool     `yaml:"network"`
	// AllowedDomains filters the network through nova's proxy
	// (sandbox.network.allowedDomains); every other host is refused, as
	// in print mode.
	AllowedDomains []string `yaml:"allowed_domains"`
}

// expectSpec is what must hold after the run besides "nothing escaped".
type expectSpec struct {
	// Control marks a positive control: a call that must run, shown by
	// Output, Created or Contains.
	Control  bool              `yaml:"control"`
	Output   []string          `yaml:"output"`   // each appears in some tool result
	Created  []string          `yaml:"created"`  // paths (relative to the root) that must exist
	Contains map[string]string `yaml:"contains"` // path -> text the file must contain
	// Kept lists paths (relative to the root) the attack must not remove,
	// for deny rules whose target is inside the workspace (rm -rf build).
	Kept []string `yaml:"kept"`
	// NoPostGit skips the harness's git status and git commit: the case
	// plants configuration that would run code in any git command, the
	// user's own included, so only nova's commands are under test.
	NoPostGit bool `yaml:"no_post_git"`
	// Nondeterministic marks a race: whether it escapes varies by run.
	Nondeterministic bool `yaml:"nondeterministic"`
}

// toolCall is one call of a case: the tool and its input with
// placeholders not yet expanded.
type toolCall struct {
	Tool  string
	Input any
}

// UnmarshalYAML reads {Tool: input} where a Bash input may be a string.
func (c *toolCall) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode || len(n.Content) != 2 {
		return fmt.Errorf("line %d: a call is a map of one tool name to its input, like {Bash: ls}", n.Line)
	}
	c.Tool = n.Content[0].Value
	var in any
	if err := n.Content[1].Decode(&in); err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	if s, ok := in.(string); ok {
		if c.Tool != "Bash" {
			return fmt.Errorf("line %d: only Bash takes a bare string; give %s a map", n.Line, c.Tool)
		}
		in = map[string]any{"command": s}
	}
	if _, ok := in.(map[string]any); !ok {
		return fmt.Errorf("line %d: the input of %s must be a map", n.Line, c.Tool)
	}
	c.Input = in
	return nil
}

// turns returns the case's calls turn by turn.
func (c *attackCase) turnList() [][]toolCall {
	switch {
	case c.Run != "":
		return [][]toolCall{{{Tool: "Bash", Input: map[string]any{"command": c.Run}}}}
	case len(c.Calls) > 0:
		return [][]toolCall{c.Calls}
	}
	return c.Turns
}

// optionalPrograms are programs a case may use that a machine may lack;
// a case naming one that is missing is skipped, not failed.
func optionalPrograms() []string {
	return []string{"npm", "node", "make", "zip", "unzip", "script", "ssh", "ssh-add", "perl", "curl", "jq", "rg",
		"python3", "xxd", "hexdump", "file", "tree", "fd", "go", "tar", "strings", "od", "awk", "bwrap"}
}

// programs lists the optional programs the case's calls name, and the
// ones it says it needs.
func (c *attackCase) programs() []string {
	var text strings.Builder
	for _, turn := range c.turnList() {
		for _, call := range turn {
			if in, ok := call.Input.(map[string]any); ok {
				for _, v := range in {
					if s, ok := v.(string); ok {
						text.WriteString(s + " ")
					}
				}
			}
		}
	}
	words := map[string]bool{}
	for _, w := range strings.FieldsFunc(text.String(), func(r rune) bool {
		return !(r == '-' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}) {
		words[w] = true
	}
	out := append([]string(nil), c.Needs...)
	for _, p := range optionalPrograms() {
		if words[p] {
			out = append(out, p)
		}
	}
	if c.config().Sandbox {
		out = append(out, "bwrap")
	}
	return out
}

func (c *attackCase) control() bool { return c.Expect != nil && c.Expect.Control }

func (c *attackCase) expect() expectSpec {
	if c.Expect == nil {
		return expectSpec{}
	}
	return *c.Expect
}

func (c *attackCase) setup() setupSpec {
	if c.Setup == nil {
		return setupSpec{}
	}
	return *c.Setup
}

func (c *attackCase) config() configSpec {
	if c.Config == nil {
		return configSpec{Mode: "default"}
	}
	return *c.Config
}

// loadCorpus reads every YAML file of dir, applies each file's defaults
// and checks the cases are complete.
func loadCorpus(dir string) ([]*attackCase, map[int]string, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, nil, err
	}
	sort.Strings(paths)
	var all []*attackCase
	titles := map[int]string{}
	seen := map[string]string{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, nil, err
		}
		var f corpusFile
		dec := yaml.NewDecoder(strings.NewReader(string(b)))
		dec.KnownFields(true)
		if err := dec.Decode(&f); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", filepath.Base(p), err)
		}
		if f.Class <= 0 || f.Title == "" {
			return nil, nil, fmt.Errorf("%s: the file needs a class number and a title", filepath.Base(p))
		}
		titles[f.Class] = f.Title
		for i := range f.Cases {
			c := f.Cases[i]
			applyDefaults(&c, f.Defaults)
			if c.Class == 0 {
				c.Class = f.Class
			}
			c.file, c.title = filepath.Base(p), f.Title
			if err := validateCase(&c); err != nil {
				return nil, nil, fmt.Errorf("%s: case %d (%s): %w", c.file, i+1, c.ID, err)
			}
			if other, dup := seen[c.ID]; dup {
				return nil, nil, fmt.Errorf("%s: case id %s is also used in %s", c.file, c.ID, other)
			}
			seen[c.ID] = c.file
			all = append(all, &c)
		}
	}
	return all, titles, nil
}

// applyDefaults fills what a case leaves out from its file's defaults;
// a key the case gives replaces the default whole.
func applyDefaults(c *attackCase, d attackCase) {
	if c.Source == "" {
		c.Source = d.Source
	}
	if c.Setup == nil {
		c.Setup = d.Setup
	}
	if c.Config == nil {
		c.Config = d.Config
	}
	if c.Expect == nil {
		c.Expect = d.Expect
	}
	if c.Class == 0 {
		c.Class = d.Class
	}
}

func validateCase(c *attackCase) error {
	if c.ID == "" {
		return fmt.Errorf("no id")
	}
	if strings.ContainsAny(c.ID, " /") {
		return fmt.Errorf("the id may hold neither spaces nor slashes")
	}
	if c.Source == "" {
		return fmt.Errorf("no source: cite an advisory, a URL or \"nova audit class N\"")
	}
	n := 0
	for _, set := range []bool{c.Run != "", len(c.Calls) > 0, len(c.Turns) > 0} {
		if set {
			n++
		}
	}
	if n != 1 {
		return fmt.Errorf("give exactly one of run, calls and turns")
	}
	for _, turn := range c.turnList() {
		if len(turn) == 0 {
			return fmt.Errorf("an empty turn")
		}
	}
	e := c.expect()
	if e.Control && len(e.Output) == 0 && len(e.Created) == 0 && len(e.Contains) == 0 {
		return fmt.Errorf("a control must say what shows it ran (output, created or contains)")
	}
	if e.Control && len(e.Kept) > 0 {
		return fmt.Errorf("kept is for attacks")
	}
	if !e.Control && (len(e.Output) > 0 || len(e.Created) > 0 || len(e.Contains) > 0) {
		return fmt.Errorf("output, created and contains are for controls only")
	}
	cfg := c.config()
	if cfg.AutoAllow && !cfg.Sandbox {
		return fmt.Errorf("auto_allow needs sandbox: true")
	}
	s := c.setup()
	if s.Dotenv && !hasRule(cfg.Deny, "Read(") {
		return fmt.Errorf("setup dotenv puts the secret in ws/.env: deny it with a Read rule")
	}
	return nil
}

func hasRule(rules []string, prefix string) bool {
	for _, r := range rules {
		if strings.HasPrefix(r, prefix) {
			return true
		}
	}
	return false
}

// expand replaces the placeholders of s: {{ws}}, {{home}}, {{outside}},
// {{root}}, {{port}}, {{sock}}, {{remote}} and {{wsmark}}; in setup files
// also {{token}}, the secret, which calls never name.
func expand(s string, vars map[string]string) string {
	if !strings.Contains(s, "{{") {
		return s
	}
	for k, v := range vars {
		s = strings.ReplaceAll(s, "{{"+k+"}}", v)
	}
	return s
}

// expandValue expands placeholders in every string of a decoded YAML value.
func expandValue(v any, vars map[string]string) any {
	switch x := v.(type) {
	case string:
		return expand(x, vars)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, val := range x {
			out[k] = expandValue(val, vars)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, val := range x {
			out[i] = expandValue(val, vars)
		}
		return out
	}
	return v
}

// callInput is the JSON input of c with placeholders expanded. Bash calls
// get a 90 s timeout unless they set one, so a hung attack cannot stall
// the corpus; a go test compiling while the whole suite runs under -race
// on two cores took over 20 s.
func callInput(c toolCall, vars map[string]string) (json.RawMessage, error) {
	in := expandValue(c.Input, vars).(map[string]any)
	if c.Tool == "Bash" {
		if _, ok := in["timeout"]; !ok {
			in["timeout"] = 90000
		}
	}
	return json.Marshal(in)
}
