package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/gofrs/flock"
	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/nova-dev/nova/atomicfile"
)

// authRecord is what nova keeps of one server's OAuth login: the client
// the authorization server registered for nova (dynamic registration
// happens once, not at every login) and the current token. Server and URL
// say whose it is, so a file can never be read as another server's.
type authRecord struct {
	Server       string `json:"server"`
	URL          string `json:"url"`
	ClientID     string `json:"client_id,omitempty"`
	ClientSecret string `json:"client_secret,omitempty"`
	AuthMethod   string `json:"token_endpoint_auth_method,omitempty"`
	// RedirectURI is the loopback address the client was registered with;
	// a login that cannot listen there again registers a new client.
	RedirectURI string           `json:"redirect_uri,omitempty"`
	Token       *transport.Token `json:"token,omitempty"`
}

// tokenStore is mcp-go's TokenStore over a file in the auth directory,
// read at every GetToken so a token another nova process refreshed or a
// login in another terminal is seen at once. With no directory it keeps
// the record in memory (a Manager built without AuthDir).
type tokenStore struct {
	path        string // "" keeps rec in memory
	lock        string // the directory's lock file, shared by every server's file
	server, url string

	mu  sync.Mutex
	rec authRecord // the memory store's record
}

// AuthFile is the file that holds the OAuth login of s in dir: named by
// the server's name and a hash of name and URL, so a server whose URL
// changed never sends the token another URL was given.
func AuthFile(dir string, s Server) string {
	sum := sha256.Sum256([]byte(s.Name + "\x00" + s.URL))
	clean := []rune(strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			return r
		}
		return '_'
	}, s.Name))
	clean = clean[:min(len(clean), 40)]
	return filepath.Join(dir, string(clean)+"-"+hex.EncodeToString(sum[:8])+".json")
}

func newTokenStore(dir string, s Server) *tokenStore {
	st := &tokenStore{server: s.Name, url: s.URL}
	if dir != "" {
		st.path = AuthFile(dir, s)
		st.lock = filepath.Join(dir, ".lock")
	}
	st.rec = authRecord{Server: s.Name, URL: s.URL}
	return st
}

// load returns the stored record; a missing file, or one written for
// another server or URL, is an empty record.
func (s *tokenStore) load() (authRecord, error) {
	empty := authRecord{Server: s.server, URL: s.url}
	if s.path == "" {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.rec, nil
	}
	data, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return empty, nil
	}
	if err != nil {
		return empty, fmt.Errorf("read the stored login: %w", err)
	}
	var rec authRecord
	if err := json.Unmarshal(data, &rec); err != nil {
		// A file nova cannot read is no login: the next login rewrites it.
		return empty, nil
	}
	if rec.Server != s.server || rec.URL != s.url {
		return empty, nil
	}
	return rec, nil
}

// update changes the stored record under the directory's lock, so two
// nova processes saving a refreshed token and a registration do not lose
// each other's; the file is readable by its owner only.
func (s *tokenStore) update(change func(*authRecord)) error {
	if s.path == "" {
		s.mu.Lock()
		defer s.mu.Unlock()
		change(&s.rec)
		return nil
	}
	dir := filepath.Dir(s.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	lock := flock.New(s.lock, flock.SetPermissions(0o600))
	if err := lock.Lock(); err != nil {
		return fmt.Errorf("lock %s: %w", s.lock, err)
	}
	defer lock.Unlock()
	rec, err := s.load()
	if err != nil {
		return err
	}
	change(&rec)
	rec.Server, rec.URL = s.server, s.url
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.Write(s.path, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("store the login: %w", err)
	}
	return nil
}

// GetToken implements transport.TokenStore.
func (s *tokenStore) GetToken(ctx context.Context) (*transport.Token, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rec, err := s.load()
	if err != nil {
		return nil, err
	}
	if rec.Token == nil {
		return nil, transport.ErrNoToken
	}
	return rec.Token, nil
}

// SaveToken implements transport.TokenStore: mcp-go calls it after a code
// exchange and after every refresh, so the refreshed token outlives nova.
func (s *tokenStore) SaveToken(ctx context.Context, tok *transport.Token) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return s.update(func(r *authRecord) { r.Token = tok })
}

// stamp is when the stored login last changed (zero when there is none):
// a server waiting for a login is tried again once it changes, say after
// nova mcp login in another terminal.
func (s *tokenStore) stamp() time.Time {
	if s.path == "" {
		return time.Time{}
	}
	fi, err := os.Stat(s.path)
	if err != nil {
		return time.Time{}
	}
	return fi.ModTime()
}

// Logout removes the stored OAuth login of s from dir (the token and the
// registered client); removed says whether there was one.
func Logout(dir string, s Server) (removed bool, err error) {
	path := AuthFile(dir, s)
	err = os.Remove(path)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	}
	return false, fmt.Errorf("remove %s: %w", path, err)
}
