package mcptest

import (
	"context"
	"fmt"
	"log"
	"os"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/server"
)

// The environment MainIfRequested reads. A test starts os.Args[0] with
// EnvServer=stdio (and the options it wants) to get a stdio server.
const (
	// EnvServer selects the server: "stdio" is the only value.
	EnvServer = "NOVA_TEST_MCP_SERVER"
	// EnvStartDelay is Options.StartDelay as a Go duration ("300ms").
	EnvStartDelay = "NOVA_TEST_MCP_START_DELAY"
	// EnvCancelledFile is Options.CancelledFile.
	EnvCancelledFile = "NOVA_TEST_MCP_CANCELLED_FILE"
	// EnvName is Options.Name.
	EnvName = "NOVA_TEST_MCP_NAME"
	// EnvPidFile is Options.PidFile.
	EnvPidFile = "NOVA_TEST_MCP_PID_FILE"
	// CrashText is what the stdio server writes to stderr as the crash
	// tool kills it: what a client reports of a server that died.
	CrashText = "mcptest: crashing on purpose"
)

// StdioEnv returns the environment that makes os.Args[0] a stdio server
// with options o, for client.NewStdioMCPClient(os.Args[0], StdioEnv(o)).
// It also sets GORACE's atexit_sleep_ms to 0 (keeping the rest of GORACE):
// a -race binary otherwise sleeps a second on exit, and every Close of a
// stdio client waits for that.
func StdioEnv(o Options) []string {
	env := []string{
		EnvServer + "=stdio",
		EnvName + "=" + o.Name,
		EnvCancelledFile + "=" + o.CancelledFile,
		EnvPidFile + "=" + o.PidFile,
		"GORACE=" + strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"),
	}
	if o.StartDelay > 0 {
		env = append(env, EnvStartDelay+"="+o.StartDelay.String())
	}
	return env
}

// MainIfRequested serves New over stdio and exits when the environment asks
// for it: NOVA_TEST_MCP_SERVER=stdio (options from NOVA_TEST_MCP_START_DELAY
// as a Go duration, NOVA_TEST_MCP_CANCELLED_FILE, NOVA_TEST_MCP_NAME and
// NOVA_TEST_MCP_PID_FILE). A
// test package calls it first thing in TestMain, so the test binary itself
// is the stdio server (os.Args[0] with that env).
func MainIfRequested() {
	if os.Getenv(EnvServer) != "stdio" {
		return
	}
	// Stdout carries JSON-RPC only; anything the server has to say goes to
	// stderr, which the client drains.
	errLog := log.New(os.Stderr, "mcptest: ", log.LstdFlags)
	o := Options{Name: os.Getenv(EnvName), CancelledFile: os.Getenv(EnvCancelledFile)}
	if v := os.Getenv(EnvStartDelay); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			errLog.Printf("%s: %v", EnvStartDelay, err)
			os.Exit(2)
		}
		o.StartDelay = d
	}
	if f := os.Getenv(EnvPidFile); f != "" {
		if err := appendPid(f); err != nil {
			errLog.Printf("%s: %v", EnvPidFile, err)
			os.Exit(2)
		}
	}
	time.Sleep(o.StartDelay)
	err := server.ServeStdio(build(o, nil),
		server.WithErrorLogger(errLog),
		server.WithStdioContextFunc(func(ctx context.Context) context.Context {
			// A stdio server that crashes is a process that dies: no
			// response, no flush, just an exit status.
			return withCrash(ctx, func() {
				fmt.Fprintln(os.Stderr, CrashText)
				os.Exit(CrashExitCode)
			})
		}),
	)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcptest:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// appendPid adds this process's ID to the file at path, a line.
func appendPid(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintln(f, os.Getpid()); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}
