package skills

import (
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Stamp fingerprints the skill and command files of d by their names,
// sizes and modification times, without reading them: while it is the
// same, a Set loaded earlier is still what Load would give, so a menu
// can be kept and loaded again only when a file is added, edited or
// removed.
func (d Dirs) Stamp() uint64 {
	h := fnv.New64a()
	mark := func(path string, fi fs.FileInfo) {
		fmt.Fprintf(h, "%s\x00%d\x00%d\x00", path, fi.Size(), fi.ModTime().UnixNano())
	}
	fmt.Fprintf(h, "trusted=%v\x00", d.Trusted)
	for _, r := range d.Roots() {
		if r.Kind == KindSkill {
			entries, err := os.ReadDir(r.Dir)
			if err != nil {
				continue
			}
			for _, e := range entries {
				p := filepath.Join(r.Dir, e.Name(), "SKILL.md")
				if fi, err := os.Stat(p); err == nil {
					mark(p, fi)
				}
			}
			continue
		}
		_ = filepath.WalkDir(r.Dir, func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() || !strings.HasSuffix(e.Name(), ".md") {
				return nil
			}
			if fi, err := e.Info(); err == nil {
				mark(p, fi)
			}
			return nil
		})
	}
	return h.Sum64()
}
