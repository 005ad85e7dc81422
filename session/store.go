package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/nova-dev/nova/llm"
	"github.com/oklog/ulid/v2"
)

// File names inside a session directory.
const (
	transcriptFile = "transcript.jsonl"
	metaFile       = "meta.json"
	lockFile       = "lock"
	spillDir       = "tool-results"
)

// ErrNotFound is returned when no session matches an id, prefix or filter.
var ErrNotFound = errors.New("session not found")

// ErrExists is a new session given the id of one there is.
var ErrExists = errors.New("a session with this id exists already")

// Meta describes a session for listing, without its transcript.
type Meta struct {
	ID           string    `json:"id"`
	Title        string    `json:"title,omitempty"`
	CreatedAt    time.Time `json:"created_at"`
	UpdatedAt    time.Time `json:"updated_at"`
	AgentKey     string    `json:"agent_key,omitempty"`
	WorkspaceDir string    `json:"workspace_dir"`
	Model        string    `json:"model,omitempty"`
	MessageCount int       `json:"message_count"`
	// Usage is the session's cumulative token usage.
	Usage llm.Usage `json:"usage"`
}

// Filter selects sessions for List.
type Filter struct {
	// Workspace keeps only sessions of this directory; empty means all.
	Workspace string
	// Limit caps the number returned (newest first); 0 means no cap.
	Limit int
}

// Store is the set of sessions under one NOVA_HOME. It holds no open files;
// it is safe to use from several goroutines.
type Store struct {
	root string
	// now is the clock records are stamped with; tests replace it to order
	// sessions without sleeping.
	now func() time.Time
}

// NewStore returns the store of sessions under novaHome/sessions.
func NewStore(novaHome string) *Store {
	return &Store{
		root: filepath.Join(novaHome, "sessions"),
		now:  func() time.Time { return time.Now().UTC() },
	}
}

// Dir returns the directory that holds session id's files.
func (st *Store) Dir(id string) string { return filepath.Join(st.root, id) }

// Create starts a new session described by m (WorkspaceDir, AgentKey, Model;
// the rest is filled in) and returns it open and locked. m.ID, when set,
// is the new session's id (Claude Code's --session-id); one a session has
// already is refused.
//
// The session appears whole or not at all: its directory is made under a
// hidden name that listing ignores, filled (spill directory, lock,
// transcript with its first record, meta.json) and only then renamed to its
// id. Whatever fails on the way (a full disk, a read-only one) removes what
// was made, so no half-made session is left to list, resume or trip over.
func (st *Store) Create(m Meta) (*Session, error) {
	now := st.now()
	id := m.ID
	if id == "" {
		id = ulid.Make().String()
	} else if err := checkID(id); err != nil {
		return nil, fmt.Errorf("create session: %w", err)
	} else if _, err := os.Lstat(st.Dir(id)); err == nil {
		return nil, fmt.Errorf("create session %s: %w", id, ErrExists)
	}
	m.ID = id
	m.CreatedAt, m.UpdatedAt = now, now
	m.MessageCount, m.Usage, m.Title = 0, llm.Usage{}, ""
	if m.WorkspaceDir != "" {
		m.WorkspaceDir = filepath.Clean(m.WorkspaceDir)
	}
	if err := os.MkdirAll(st.root, 0o700); err != nil {
		return nil, fmt.Errorf("create session: %w", err)
	}
	staging, err := os.MkdirTemp(st.root, ".new-"+id+"-")
	if err != nil {
		return nil, fmt.Errorf("create session %s: %w", id, err)
	}
	s, err := st.fill(staging, m)
	if err == nil {
		dir := st.Dir(id)
		if err = os.Rename(staging, dir); err == nil {
			s.dir = dir
			// The rename is what makes the session exist: make it durable
			// as the transcript's first record already is.
			syncDir(st.root)
			return s, nil
		}
		err = fmt.Errorf("create session %s: %w", id, err)
		s.f.Close()
		s.claude.f.Close()
		s.lock.release()
	}
	if rmErr := os.RemoveAll(staging); rmErr != nil {
		err = fmt.Errorf("%w (and %s could not be removed: %v)", err, staging, rmErr)
	}
	return nil, err
}

// fill makes the files of new session m in dir and returns it open and
// locked; on failure it has closed what it opened and dir may hold the
// rest, for the caller to remove.
func (st *Store) fill(dir string, m Meta) (*Session, error) {
	if err := os.Mkdir(filepath.Join(dir, spillDir), 0o700); err != nil {
		return nil, fmt.Errorf("create session %s: %w", m.ID, err)
	}
	lk, err := acquire(dir, m.ID)
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(dir, transcriptFile), os.O_CREATE|os.O_EXCL|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		lk.release()
		return nil, fmt.Errorf("create session %s: %w", m.ID, err)
	}
	s := &Session{store: st, dir: dir, lock: lk, f: f, t: Transcript{Meta: m, boundary: -1}}
	if s.claude, err = createClaudeLog(dir); err != nil {
		f.Close()
		lk.release()
		return nil, fmt.Errorf("create session %s: %w", m.ID, err)
	}
	hdr := m
	if err := s.append(Record{Type: RecordSession, Time: m.CreatedAt, Session: &hdr}); err != nil {
		f.Close()
		s.claude.f.Close()
		lk.release()
		return nil, err
	}
	return s, nil
}

// syncDir flushes dir's entries to disk where the system allows it; a
// failure costs durability across a power cut only, so it is not reported.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// Open loads session id and locks it for writing, so this process can
// continue it. It fails with a *LockedError when another process has it
// open. Lines that could not be read are skipped and reported as warnings;
// an incomplete last line (left by a crash mid-write) is cut off so new
// records start on a clean line.
func (st *Store) Open(id string) (*Session, []Warning, error) {
	if err := checkID(id); err != nil {
		return nil, nil, err
	}
	dir := st.Dir(id)
	if _, err := os.Stat(filepath.Join(dir, transcriptFile)); err != nil {
		return nil, nil, notFound(id, err)
	}
	lk, err := acquire(dir, id)
	if err != nil {
		return nil, nil, err
	}
	s, warns, err := st.openLocked(id, dir, lk)
	if err != nil {
		lk.release()
		return nil, warns, err
	}
	return s, warns, nil
}

func (st *Store) openLocked(id, dir string, lk *sessionLock) (*Session, []Warning, error) {
	path := filepath.Join(dir, transcriptFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0o600)
	if err != nil {
		return nil, nil, notFound(id, err)
	}
	t, good, warns, err := readTranscript(f, id, true)
	if err != nil {
		f.Close()
		return nil, warns, err
	}
	if err := f.Truncate(good); err != nil {
		f.Close()
		return nil, warns, fmt.Errorf("open session %s: cut torn last line: %w", id, err)
	}
	if err := os.MkdirAll(filepath.Join(dir, spillDir), 0o700); err != nil {
		f.Close()
		return nil, warns, fmt.Errorf("open session %s: %w", id, err)
	}
	s := &Session{store: st, dir: dir, lock: lk, f: f, t: *t, size: good}
	// meta.json may lag the transcript after a crash; the transcript wins.
	if err := s.writeMeta(); err != nil {
		f.Close()
		return nil, warns, err
	}
	// Hooks' copy in Claude Code's format is rebuilt unless it is in step:
	// an older nova wrote none, and a crash may have left it behind.
	c, late, err := openClaudeLog(dir, &s.t)
	warns = append(warns, late...)
	if err != nil {
		warns = append(warns, Warning{Msg: err.Error() + "; hooks' transcript_path will not be kept up to date"})
	} else {
		s.claude = c
	}
	return s, warns, nil
}

// Load reads session id without locking it, for showing or exporting a
// session another process may have open. It never modifies the files.
func (st *Store) Load(id string) (*Transcript, []Warning, error) {
	if err := checkID(id); err != nil {
		return nil, nil, err
	}
	f, err := os.Open(filepath.Join(st.Dir(id), transcriptFile))
	if err != nil {
		return nil, nil, notFound(id, err)
	}
	defer f.Close()
	t, _, warns, err := readTranscript(f, id, false)
	return t, warns, err
}

// List returns the sessions that match f, most recently updated first. It
// reads only meta.json files, except for a session whose meta.json is
// missing or unreadable (a crash at the wrong moment): that one is read from
// its transcript, so no session drops out of the list.
func (st *Store) List(f Filter) ([]Meta, error) {
	entries, err := os.ReadDir(st.root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	ws := ""
	if f.Workspace != "" {
		ws = filepath.Clean(f.Workspace)
	}
	metas := st.readMetas(entries, ws)
	sort.Slice(metas, func(i, j int) bool {
		if !metas[i].UpdatedAt.Equal(metas[j].UpdatedAt) {
			return metas[i].UpdatedAt.After(metas[j].UpdatedAt)
		}
		return metas[i].ID > metas[j].ID
	})
	if f.Limit > 0 && len(metas) > f.Limit {
		metas = metas[:f.Limit]
	}
	return metas, nil
}

// readMetas reads the meta.json of each session directory in entries and
// keeps those of workspace ws (all when empty). Listing is a few thousand
// small reads whose cost is system calls, so they run in parallel.
func (st *Store) readMetas(entries []fs.DirEntry, ws string) []Meta {
	ids := make([]string, 0, len(entries))
	for _, e := range entries {
		if e.IsDir() && checkID(e.Name()) == nil {
			ids = append(ids, e.Name())
		}
	}
	found := make([]Meta, len(ids))
	ok := make([]bool, len(ids))
	workers := min(max(runtime.GOMAXPROCS(0), 4), len(ids)/32+1)
	chunk := (len(ids) + workers - 1) / workers
	var wg sync.WaitGroup
	for lo := 0; lo < len(ids); lo += chunk {
		hi := min(lo+chunk, len(ids))
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 4096)
			for i := lo; i < hi; i++ {
				m, err := readSmallMeta(filepath.Join(st.root, ids[i], metaFile), buf)
				if err != nil || m.ID != ids[i] {
					m, err = st.metaFromTranscript(ids[i])
				}
				ok[i] = err == nil && m.ID == ids[i] && (ws == "" || m.WorkspaceDir == ws)
				found[i] = m
			}
		}()
	}
	wg.Wait()
	metas := make([]Meta, 0, len(ids))
	for i, m := range found {
		if ok[i] {
			metas = append(metas, m)
		}
	}
	return metas
}

// Latest returns the most recently updated session of workspace (all
// workspaces when empty), or ErrNotFound.
func (st *Store) Latest(workspace string) (Meta, error) {
	metas, err := st.List(Filter{Workspace: workspace, Limit: 1})
	if err != nil {
		return Meta{}, err
	}
	if len(metas) == 0 {
		return Meta{}, fmt.Errorf("no session for %s: %w", workspaceName(workspace), ErrNotFound)
	}
	return metas[0], nil
}

// Resolve returns the full id of the one session whose id starts with
// prefix (case-insensitive), so people can type a short id.
func (st *Store) Resolve(prefix string) (string, error) {
	p := strings.ToUpper(strings.TrimSpace(prefix))
	if p == "" {
		return "", fmt.Errorf("empty session id: %w", ErrNotFound)
	}
	entries, err := os.ReadDir(st.root)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("resolve session %s: %w", prefix, err)
	}
	var found []string
	for _, e := range entries {
		if e.IsDir() && checkID(e.Name()) == nil && strings.HasPrefix(e.Name(), p) {
			found = append(found, e.Name())
		}
	}
	switch len(found) {
	case 0:
		return "", fmt.Errorf("no session %s: %w", prefix, ErrNotFound)
	case 1:
		return found[0], nil
	}
	return "", fmt.Errorf("session id %s is ambiguous: it matches %d sessions (%s, ...)", prefix, len(found), strings.Join(found[:2], ", "))
}

// Delete removes session id and everything in its directory, spilled tool
// results included. It refuses with a *LockedError while any process (this
// one included) has the session open.
func (st *Store) Delete(id string) error {
	if err := checkID(id); err != nil {
		return err
	}
	dir := st.Dir(id)
	if _, err := os.Stat(dir); err != nil {
		return notFound(id, err)
	}
	lk, err := acquire(dir, id)
	if err != nil {
		return err
	}
	// meta.json goes first so that listing stops showing the session even
	// if the rest of the removal is interrupted.
	err = os.Remove(filepath.Join(dir, metaFile))
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		err = removeAllBut(dir, lockFile)
	}
	lk.release()
	if err != nil {
		return fmt.Errorf("delete session %s: %w", id, err)
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("delete session %s: %w", id, err)
	}
	return nil
}

// removeAllBut removes the entries of dir except keep, which is the lock
// file held while removing.
func removeAllBut(dir, keep string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.Name() == keep {
			continue
		}
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

func readMeta(path string) (Meta, error) {
	var m Meta
	b, err := os.ReadFile(path)
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("read %s: %w", path, err)
	}
	return m, nil
}

// metaFromTranscript rebuilds the meta of session id from its transcript,
// read-only, for listing a session whose meta.json is lost.
func (st *Store) metaFromTranscript(id string) (Meta, error) {
	t, _, err := st.Load(id)
	if err != nil {
		return Meta{}, err
	}
	return t.Meta, nil
}

// readSmallMeta is readMeta for listing: a meta.json is a few hundred
// bytes, and reading it with one open, one read and one close (os.ReadFile
// makes about twice as many system calls) roughly halves the cost of
// listing thousands of sessions.
func readSmallMeta(path string, buf []byte) (Meta, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return Meta{}, err
	}
	n, err := syscall.Read(fd, buf)
	syscall.Close(fd)
	if err != nil || n < 0 || n == len(buf) {
		return readMeta(path) // an error to report well, or a large file
	}
	var m Meta
	if err := json.Unmarshal(buf[:n], &m); err != nil {
		return m, fmt.Errorf("read %s: %w", path, err)
	}
	return m, nil
}

// checkID accepts only canonical ULIDs, which also keeps ids from naming
// paths outside the sessions directory.
func checkID(id string) error {
	if _, err := ulid.ParseStrict(id); err != nil || strings.ToUpper(id) != id {
		return fmt.Errorf("%q is not a session id: %w", id, ErrNotFound)
	}
	return nil
}

func notFound(id string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("session %s: %w", id, ErrNotFound)
	}
	return fmt.Errorf("session %s: %w", id, err)
}

func workspaceName(ws string) string {
	if ws == "" {
		return "any workspace"
	}
	return ws
}
