package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/nova-dev/nova/atomicfile"
)

// seenFile records the providers of config.json a terminal of nova last
// saw, so the next start can say which are new.
const seenFile = "providers-seen.json"

// seenProvider is what is recorded of a provider: where it sends
// requests (never its key).
type seenProvider struct {
	Type    string `json:"type"`
	BaseURL string `json:"base_url,omitempty"`
}

// NoteProviders compares config.json's providers (f, read from
// novaHome) with those recorded in NOVA_HOME/providers-seen.json, records
// f's, and returns in words each one that is new or now sends requests
// elsewhere: a terminal says them at start, since providers can be added
// without it (nova serve's POST /api/config/providers, another process).
// The first call, with nothing recorded, records and says nothing. The
// record is rewritten atomically.
func NoteProviders(novaHome string, f *File) ([]string, error) {
	path := filepath.Join(novaHome, seenFile)
	now := map[string]seenProvider{}
	for _, p := range f.Providers {
		now[p.Key] = seenProvider{Type: string(p.Type), BaseURL: p.BaseURL}
	}
	var before struct {
		Providers map[string]seenProvider `json:"providers"`
	}
	data, err := os.ReadFile(path)
	first := errors.Is(err, fs.ErrNotExist)
	switch {
	case first:
	case err != nil:
		return nil, fmt.Errorf("read %s: %w", path, err)
	default:
		if err := json.Unmarshal(data, &before); err != nil {
			// A torn or foreign record is started afresh, saying nothing:
			// it cannot tell what was seen.
			first = true
		}
	}
	var out []string
	if !first {
		keys := make([]string, 0, len(now))
		for k := range now {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		cfg := filepath.Join(novaHome, "config.json")
		for _, k := range keys {
			p, was := now[k], before.Providers[k]
			where := p.Type
			if p.BaseURL != "" {
				where += ", " + p.BaseURL
			}
			switch _, known := before.Providers[k]; {
			case !known:
				out = append(out, fmt.Sprintf("%s has a provider nova has not seen before: %q (%s). If you did not add it, remove it: nova serve's API, or another program, may have.", cfg, k, where))
			case was != p:
				out = append(out, fmt.Sprintf("provider %q in %s now sends requests to %s (it was %s, %s). If you did not change it, fix it.", k, cfg, where, was.Type, was.BaseURL))
			}
		}
	}
	if !first && equalSeen(before.Providers, now) {
		return out, nil
	}
	rec, err := json.MarshalIndent(map[string]any{"providers": now}, "", "  ")
	if err != nil {
		return out, err
	}
	if err := os.MkdirAll(novaHome, 0o700); err != nil {
		return out, fmt.Errorf("create %s: %w", novaHome, err)
	}
	if err := atomicfile.Write(path, append(rec, '\n'), 0o600); err != nil {
		return out, fmt.Errorf("record the providers seen: %w", err)
	}
	return out, nil
}

func equalSeen(a, b map[string]seenProvider) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// ignoredSeenFile records, per folder, the untrusted project grants print
// mode last told of, so a script run again and again in one folder is
// told once, not on every run.
const ignoredSeenFile = "ignored-seen.json"

// maxIgnoredFolders bounds the record: the folders told of longest ago
// are forgotten first (and told of again, once).
const maxIgnoredFolders = 200

// NoteIgnored returns the grants of ignored that were not told of for
// folder yet (all of them when the set changed since), and records the
// set. An unreadable record tells all, as a first run would.
func NoteIgnored(novaHome, folder string, ignored []IgnoredSetting) ([]IgnoredSetting, error) {
	path := filepath.Join(novaHome, ignoredSeenFile)
	type entry struct {
		Seen []string `json:"seen"`
		At   int64    `json:"at"` // the order of recording: higher is newer
	}
	rec := map[string]entry{}
	if data, err := os.ReadFile(path); err == nil {
		if json.Unmarshal(data, &rec) != nil {
			rec = map[string]entry{}
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return ignored, fmt.Errorf("read %s: %w", path, err)
	}
	key := func(ig IgnoredSetting) string { return ig.File + "\x00" + ig.Setting + "\x00" + ig.Value }
	told := map[string]bool{}
	for _, k := range rec[folder].Seen {
		told[k] = true
	}
	var fresh []IgnoredSetting
	now := make([]string, 0, len(ignored))
	for _, ig := range ignored {
		now = append(now, key(ig))
		if !told[key(ig)] {
			fresh = append(fresh, ig)
		}
	}
	if len(fresh) == 0 && len(now) == len(rec[folder].Seen) {
		return nil, nil
	}
	var newest int64
	for _, e := range rec {
		newest = max(newest, e.At)
	}
	if len(now) == 0 {
		delete(rec, folder)
	} else {
		rec[folder] = entry{Seen: now, At: newest + 1}
	}
	for len(rec) > maxIgnoredFolders {
		oldest, at := "", int64(-1)
		for f, e := range rec {
			if at < 0 || e.At < at {
				oldest, at = f, e.At
			}
		}
		delete(rec, oldest)
	}
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return fresh, err
	}
	if err := os.MkdirAll(novaHome, 0o700); err != nil {
		return fresh, fmt.Errorf("create %s: %w", novaHome, err)
	}
	if err := atomicfile.Write(path, append(data, '\n'), 0o600); err != nil {
		return fresh, fmt.Errorf("record the ignored settings told of: %w", err)
	}
	return fresh, nil
}
