package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// thirdPartyCopies are the modules nova builds from a patched copy in
// third_party (each directory's NOVA.md says why), through a replace in
// go.mod.
var thirdPartyCopies = []struct{ dir, module string }{
	{"third_party/chroma", chromaModule},
	{"third_party/jsonschema", jsonschemaModule},
	{"third_party/glamour", "charm.land/glamour/v2"},
}

// TestThirdPartyCopiesAreRequiredVersions fails when the version of a
// module nova builds against moves away from the one its copy was made
// from: something came to require a newer one, or go.mod was edited. The
// copy would then be an old module under a new version's name.
func TestThirdPartyCopiesAreRequiredVersions(t *testing.T) {
	root := moduleRoot(t)
	graph := strings.Split(string(goCmd(t, root, "mod", "graph")), "\n")
	for _, c := range thirdPartyCopies {
		data, err := os.ReadFile(filepath.Join(root, c.dir, "VERSION"))
		if err != nil {
			t.Fatal(err)
		}
		fields := strings.Fields(string(data))
		if len(fields) != 2 {
			t.Fatalf("%s/VERSION = %q, want \"VERSION SUM\"", c.dir, data)
		}
		base := fields[0]
		out := goCmd(t, root, "list", "-m", "-json", c.module)
		var m struct {
			Version string
			Replace *struct{ Path, Dir string }
		}
		if err := json.Unmarshal(out, &m); err != nil {
			t.Fatalf("go list -m: %v\n%s", err, out)
		}
		if m.Replace == nil || filepath.Clean(m.Replace.Dir) != filepath.Join(root, c.dir) {
			t.Errorf("%s is not replaced by ./%s: %+v", c.module, c.dir, m.Replace)
		}
		// Who requires which version, for the message.
		var requirers []string
		for _, line := range graph {
			from, to, ok := strings.Cut(line, " ")
			if ok && strings.HasPrefix(to, c.module+"@") && !strings.HasPrefix(from, c.module+"@") {
				requirers = append(requirers, from+" requires "+strings.TrimPrefix(to, c.module+"@"))
			}
		}
		if m.Version != base {
			t.Errorf("the build selects %s %s, but %s is %s plus lazy.patch (%s).\n"+
				"Run %s/regen.sh %s to remake the copy from that version (it updates VERSION and go.mod), "+
				"check that lazy.patch still applies, and commit the result.",
				c.module, m.Version, c.dir, base, strings.Join(requirers, "; "), c.dir, m.Version)
		}
	}
}

// TestThirdPartyCopiesAreReproducible regenerates each copy from its module
// and lazy.patch and compares: the copy is what the patch says, nothing
// more.
func TestThirdPartyCopiesAreReproducible(t *testing.T) {
	if testing.Short() {
		t.Skip("regenerates the third_party copies")
	}
	root := moduleRoot(t)
	for _, c := range thirdPartyCopies {
		cmd := exec.Command("bash", filepath.Join(root, c.dir, "regen.sh"), "--check")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s/regen.sh --check: %v\n%s", c.dir, err, out)
		}
	}
}
