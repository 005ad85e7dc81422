package tools

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/nova-dev/nova/atomicfile"
	"github.com/nova-dev/nova/permission"
)

// DefaultSpillThreshold is the output size, in characters, above which a
// result is written to disk and the model gets a preview and the path.
const DefaultSpillThreshold = 50_000

// DefaultBatchBudget bounds the sum of one batch of parallel results.
const DefaultBatchBudget = 150_000

// Preview sizes of a spilled result.
const (
	previewHead = 2_000
	previewTail = 1_000
)

// SpillMeta is kept beside each spilled result.
type SpillMeta struct {
	CallID    string    `json:"call_id"`
	Tool      string    `json:"tool"`
	Size      int       `json:"size"`
	SHA256    string    `json:"sha256"`
	CreatedAt time.Time `json:"created_at"`
}

// shape spills res when it is too large, unless the call reads a spilled
// file back (which is never spilled again).
func (p *Pipeline) shape(call Call, req permission.Request, res Result, env *Env) (Result, string) {
	limit := p.SpillThreshold
	if limit <= 0 {
		limit = DefaultSpillThreshold
	}
	if len(res.Output) <= limit || readsSpill(req, env) {
		return res, ""
	}
	return spill(call, res, env)
}

func readsSpill(req permission.Request, env *Env) bool {
	if env.SpillDir == "" {
		return false
	}
	for _, a := range req.Paths {
		if strings.HasPrefix(a.Path, filepath.Clean(env.SpillDir)+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// spill writes res.Output to SpillDir/<call-id>.txt with its metadata and
// returns a preview result. When nothing can be written, the output is cut
// to head and tail instead, and the model is told so.
func spill(call Call, res Result, env *Env) (Result, string) {
	out := res.Output
	path, err := writeSpill(env.SpillDir, call, out)
	head, tail := out[:cutIndex(out, previewHead)], out[cutIndex(out, len(out)-previewTail):]
	var b strings.Builder
	if err != nil {
		fmt.Fprintf(&b, "[output of %d characters was too large and could not be saved (%v); showing the first %d and last %d characters]\n", len(out), err, len(head), len(tail))
		path = ""
	} else {
		fmt.Fprintf(&b, "[output of %d characters was too large for the conversation; the full output is in %s — read it in ranges with Read (offset/limit) or search it with Grep]\n", len(out), path)
	}
	b.WriteString(head)
	b.WriteString("\n[...]\n")
	b.WriteString(tail)
	res.Output = b.String()
	return res, path
}

func writeSpill(dir string, call Call, out string) (string, error) {
	if dir == "" {
		return "", fmt.Errorf("no spill directory")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("create %s: %w", dir, err)
	}
	name := safeName(call.ID)
	path := filepath.Join(dir, name+".txt")
	if err := atomicfile.Write(path, []byte(out), 0o600); err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(out))
	meta, _ := json.Marshal(SpillMeta{CallID: call.ID, Tool: call.Name, Size: len(out), SHA256: hex.EncodeToString(sum[:]), CreatedAt: time.Now().UTC()})
	if err := atomicfile.Write(filepath.Join(dir, name+".json"), meta, 0o600); err != nil {
		return "", err
	}
	return path, nil
}

// safeName keeps a call id usable as a file name.
func safeName(id string) string {
	if id == "" {
		return fmt.Sprintf("call-%d", time.Now().UnixNano())
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			return r
		}
		return '_'
	}, id)
}

// cutIndex moves i back to a UTF-8 boundary of s, within [0, len(s)].
func cutIndex(s string, i int) int {
	if i <= 0 {
		return 0
	}
	if i >= len(s) {
		return len(s)
	}
	for i > 0 && s[i]&0xC0 == 0x80 {
		i--
	}
	return i
}

// Budget is what is left of the character budget of one model response's
// tool results. Results are fitted as they go out to the frontends, so
// what a person sees is what the model gets: a group that finishes
// together is fitted at once (largest spilled first), and each later
// result with what the earlier ones left.
type Budget struct {
	left int
	env  *Env
}

// NewBudget starts a batch budget of total characters (DefaultBatchBudget
// when total is not positive).
func NewBudget(env *Env, total int) *Budget {
	if total <= 0 {
		total = DefaultBatchBudget
	}
	return &Budget{left: total, env: env}
}

// Fit keeps outs within what is left of the budget by spilling the largest
// first, and takes what they use. Outcomes already spilled, and results
// too small to be worth a preview, are left alone.
func (b *Budget) Fit(outs []Outcome) {
	total := 0
	for _, o := range outs {
		total += len(o.Result.Output)
	}
	idx := make([]int, len(outs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(x, y int) bool { return len(outs[idx[x]].Result.Output) > len(outs[idx[y]].Result.Output) })
	for _, i := range idx {
		if total <= b.left {
			break
		}
		o := &outs[i]
		if o.SpillPath != "" || len(o.Result.Output) <= previewHead+previewTail+500 {
			continue
		}
		before := len(o.Result.Output)
		o.Result, o.SpillPath = spill(o.Call, o.Result, b.env)
		total -= before - len(o.Result.Output)
	}
	b.left = max(b.left-total, 0)
}
