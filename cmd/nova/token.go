package main

import (
	"fmt"
	"io"
	"math"
	"net/url"
	"os"
	"runtime"
	"strings"

	"github.com/spf13/pflag"

	"github.com/nova-dev/nova/remote"
)

// serverTokenEnv gives nova serve's and /remote's token.
const serverTokenEnv = "NOVA_SERVER_TOKEN"

// maxTokenFile bounds what --token-file reads.
const maxTokenFile = 4096

// tokenFlags are the ways to give the token of nova serve or /remote:
// --token, --token-file or NOVA_SERVER_TOKEN.
type tokenFlags struct {
	token    string // --token, then the token resolve found
	file     string // --token-file
	insecure bool   // --insecure-token
}

// add registers --token, --token-file and --insecure-token for what
// ("nova serve's requests", "/remote's browsers").
func (f *tokenFlags) add(fl *pflag.FlagSet, what string) {
	fl.StringVar(&f.token, "token", "", "the token "+what+" must carry (default --token-file, then "+serverTokenEnv+", else a random one); other users of this machine can read it in the process list (ps, /proc): prefer --token-file or "+serverTokenEnv)
	fl.StringVar(&f.file, "token-file", "", "read the token from this file (its first line, trimmed; the file must be readable by you alone)")
	fl.BoolVar(&f.insecure, "insecure-token", false, fmt.Sprintf("serve beyond loopback with a token of under %d bits (a short one can be guessed)", remote.MinTokenBits))
}

// resolve finds the token: --token, else --token-file, else
// NOVA_SERVER_TOKEN; "" leaves it to a random one. NOVA_SERVER_TOKEN is
// unset from nova's environment once read, whichever way the token came,
// so Bash, hooks and MCP servers do not inherit it.
func (f *tokenFlags) resolve(s *IOStreams) error {
	env, inEnv := s.lookupEnv(serverTokenEnv)
	if inEnv {
		if err := s.unsetenv(serverTokenEnv); err != nil {
			return err
		}
	}
	if f.token != "" && f.file != "" {
		return usageErr("--token and --token-file both give the token: give one")
	}
	if f.file != "" {
		tok, err := readTokenFile(f.file)
		if err != nil {
			return usageErr("--token-file %s: %v", f.file, err)
		}
		f.token = tok
	}
	if f.token == "" {
		f.token = env
	}
	return nil
}

// given reports whether the person gave a token (not a random one).
func (f *tokenFlags) given() bool { return f.token != "" }

// strongEnough refuses, for a host other machines reach, a token the
// person gave that has under remote.MinTokenBits (remote.TokenBits),
// unless --insecure-token. where names the command's address for the
// message.
func (f *tokenFlags) strongEnough(host, where string) error {
	if remote.Loopback(host) || !f.given() || f.insecure {
		return nil
	}
	if bits := remote.TokenBits(f.token); bits < remote.MinTokenBits {
		return usageErr("%s %s is reachable from other machines, and the token has about %d bits, under the %d it needs there (a short one is guessed quickly): give a long random one (openssl rand -hex 32), or --insecure-token to serve it anyway",
			where, host, int(math.Floor(bits)), remote.MinTokenBits)
	}
	return nil
}

// readTokenFile reads a token file: its first line, trimmed. A file that
// others than its owner can read (or write) is refused, as ssh refuses
// such a key: the token would not be the owner's secret.
func readTokenFile(path string) (string, error) {
	fh, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("not a regular file")
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("other users may read or change it (mode %04o): chmod 600 %s", fi.Mode().Perm(), path)
	}
	data, err := io.ReadAll(io.LimitReader(fh, maxTokenFile+1))
	if err != nil {
		return "", err
	}
	if len(data) > maxTokenFile {
		return "", fmt.Errorf("over %d bytes: it should hold the token alone", maxTokenFile)
	}
	line, _, _ := strings.Cut(string(data), "\n")
	tok := strings.TrimSpace(line)
	if tok == "" {
		return "", fmt.Errorf("it is empty: put the token on its first line")
	}
	return tok, nil
}

// tokenURL is the URL to open for a server at hostport: the token in
// the fragment, which the browser never sends to a server (the page
// keeps it; docs/remote.md, "How the token travels").
func tokenURL(hostport, token string) string {
	return "http://" + hostport + "/#token=" + url.QueryEscape(token)
}
