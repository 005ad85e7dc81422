package live

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/nova-dev/nova/config"
	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/plugins"
	"github.com/nova-dev/nova/sandbox"
	"github.com/nova-dev/nova/tools"
)

// SandboxChoice is how the sandbox of a run was decided.
type SandboxChoice int

// The ways the sandbox is decided, flags over settings.
const (
	SandboxByDefault    SandboxChoice = iota // sandbox.enabled unset: on where it works
	SandboxBySetting                         // "enabled": true
	SandboxByFlag                            // --sandbox
	SandboxOffBySetting                      // "enabled": false
	SandboxOffByFlag                         // --no-sandbox
)

// chooseSandbox applies the flags over the settings.
func chooseSandbox(st *config.Settings, o Options) SandboxChoice {
	switch e := st.Sandbox.Enabled; {
	case o.NoSandbox:
		return SandboxOffByFlag
	case o.Sandbox:
		return SandboxByFlag
	case e == nil:
		return SandboxByDefault
	case *e:
		return SandboxBySetting
	}
	return SandboxOffBySetting
}

// On reports whether the sandbox is wanted.
func (c SandboxChoice) On() bool { return c <= SandboxByFlag }

// Explicit reports whether the person asked for the sandbox: then, where
// it cannot run, Bash asks rather than running without it.
func (c SandboxChoice) Explicit() bool { return c == SandboxBySetting || c == SandboxByFlag }

// TrustState says whether a workspace's project settings may grant, and why.
type TrustState struct {
	Trusted bool
	// Flag is --trust: trusted for this run only.
	Flag bool
	// Entry is the stored entry that trusts it; zero for none.
	Entry config.TrustedDir
}

// ResolveTrust looks the workspace up in the trust store; flag (--trust)
// trusts it for this run whatever the store says.
func ResolveTrust(novaHome, workdir string, flag bool) (TrustState, error) {
	entry, ok, err := config.NewTrustStore(novaHome).Lookup(workdir)
	if err != nil {
		return TrustState{}, err
	}
	return TrustState{Trusted: ok || flag, Flag: flag, Entry: entry}, nil
}

// Describe says, for nova doctor, how the workspace is trusted.
func (t TrustState) Describe(workdir string) string {
	switch {
	case t.Entry.Path == workdir:
		return "trusted (nova trust)"
	case t.Entry.Path != "":
		return "trusted by an ancestor: " + t.Entry.Path
	case t.Flag:
		return "trusted for this run (--trust)"
	}
	return "not trusted"
}

// Setup is the permission and sandbox set-up of a runtime, for the
// checker, the tools and nova doctor.
type Setup struct {
	// Settings are merged as trust allows; Settings.Ignored lists what
	// was left out.
	Settings *config.Settings
	// Files are the settings files loaded.
	Files  []string
	Trust  TrustState
	Config permission.Config
	Choice SandboxChoice
	// Probe is the sandbox probe's report; nil when the sandbox is off.
	Probe   *sandbox.Report
	Sandbox *sandbox.Sandbox
	// SandboxUnavailable says the sandbox was asked for explicitly but
	// cannot run: the tools' Env says so to every Bash check.
	SandboxUnavailable bool
	// SandboxErr says why the wanted sandbox cannot run; Notice says it
	// at start.
	SandboxErr error
	Notice     string
	// EnvPolicy is what of nova's environment the programs it starts
	// inherit (EnvPolicy).
	EnvPolicy tools.EnvPolicy
	// Plugins are the session's plugins (--plugin-dir's and those the
	// settings turn on), and what was left out.
	Plugins *plugins.Loaded
}

// SandboxCacheDir is where sandboxed commands keep their private
// toolchain caches (sandbox.Config.Caches): in nova's own directory, which
// no check of the workspace looks at and nothing outside the sandbox uses.
func SandboxCacheDir(novaHome string) string {
	return filepath.Join(novaHome, "cache", "sandbox")
}

// ProbeCacheFile is where a sandbox probe that worked is remembered.
func ProbeCacheFile(novaHome string) string {
	return filepath.Join(novaHome, "cache", "sandbox-probe.json")
}

// LoadSetup reads the settings files (what the project grants only when
// the workspace is trusted), probes the sandbox when it is on and builds
// the permission configuration. Its errors are ConfigErrors. scratch, when
// set, is a directory the sandboxed shell must be able to write.
func LoadSetup(ctx context.Context, o Options, scratch string) (*Setup, error) {
	ts, err := ResolveTrust(o.NovaHome, o.projectDir(), o.Trust)
	if err != nil {
		return nil, configErr("%v", err)
	}
	st, files, err := config.LoadSettingsLayers(o.NovaHome, o.projectDir(), o.Home, ts.Trusted, o.layers())
	if err != nil {
		return nil, configErr("%v", err)
	}
	file, err := config.LoadFile(o.NovaHome)
	if err != nil {
		return nil, configErr("%v", err)
	}
	t := &Setup{Settings: st, Files: files, Trust: ts, Choice: chooseSandbox(st, o), EnvPolicy: EnvPolicy(file, o.Getenv, st)}
	if t.Plugins, err = loadPlugins(o, st); err != nil {
		return nil, err
	}
	cfg, err := st.PermissionConfig(config.PermissionOptions{
		Workspace: o.Workdir, Home: o.Home, NovaHome: o.NovaHome, Mode: permission.Mode(o.PermissionMode), AddDirs: o.AddDirs,
		AllowedTools: o.AllowedTools, DisallowedTools: o.DisallowedTools,
	})
	if err != nil {
		return nil, configErr("%v", err)
	}
	available := false
	if t.Choice.On() {
		r := sandbox.ProbeCached(ctx, ProbeCacheFile(o.NovaHome), o.FreshProbe)
		t.Probe = &r
		dirs := append(append([]string(nil), st.Permissions.AdditionalDirectories...), o.AddDirs...)
		tmp := ""
		// Claude Code's sandbox.filesystem.allowWrite: writable for
		// commands, without widening what the file tools may touch.
		dirs = append(dirs, st.Sandbox.AllowWrite...)
		if scratch != "" {
			dirs = append(dirs, scratch)
			// TMPDIR of the session's sandboxed commands: it lasts from one
			// command to the next, and goes with the scratch directory.
			tmp = filepath.Join(scratch, "tmp")
			if err := os.MkdirAll(tmp, 0o700); err != nil {
				return nil, writeErr("cannot create the sandbox's temporary directory", tmp, err)
			}
		}
		hosts, err := sandboxHosts(st, cfg, o.SandboxBridge)
		if err != nil {
			return nil, configErr("%v", err)
		}
		sb, err := sandbox.New(sandbox.Config{
			Workspace: o.Workdir, AddDirs: dirs, Home: o.Home, NovaHome: o.NovaHome, Probed: &r,
			Network: st.Sandbox.Network.Everything(), AllowUnixSockets: isTrue(st.Sandbox.AllowUnixSockets), Mask: st.Sandbox.DenyRead,
			Caches: SandboxCacheDir(o.NovaHome), TempDir: tmp, Getenv: o.Getenv,
			Hosts: hosts, Bridge: o.SandboxBridge,
		})
		t.SandboxErr = err
		switch {
		case err == nil:
			t.Sandbox, available = sb, true
		case t.Choice.Explicit():
			t.SandboxUnavailable = true
			t.Notice = fmt.Sprintf("the Bash sandbox is enabled but cannot run: %v. Bash commands will need approval (and are refused in print mode).", err)
		default:
			// On by default only: nova works with the checker alone rather
			// than refuse every command on a machine without a sandbox.
			t.Notice = fmt.Sprintf("the Bash sandbox (on by default) cannot run here: %v. Bash commands run outside it, under the permission rules alone; "+
				"to stop this notice, set \"sandbox\": {\"enabled\": false} in %s.", err, filepath.Join(o.NovaHome, "settings.json"))
		}
	}
	if err := permission.CheckStartup(cfg.Mode, available, os.Geteuid()); err != nil {
		return nil, configErr("%v", err)
	}
	t.Config = cfg
	return t, nil
}

// isTrue reads an optional setting that defaults to false.
func isTrue(b *bool) bool { return b != nil && *b }
