package tools

import "testing"

// TestEnvAbs checks "~/" leads to the Env's home, not the process's.
func TestEnvAbs(t *testing.T) {
	t.Setenv("HOME", "/home/decoy")
	for _, tc := range []struct{ home, in, want string }{
		{"/home/u", "~/notes.md", "/home/u/notes.md"},
		{"/home/u", "~", "/home/u"},
		{"/home/u", "src/../a.go", "/work/ws/a.go"},
		{"/home/u", "/etc/hosts", "/etc/hosts"},
		{"/home/u", "~user/x", "/work/ws/~user/x"},
		{"", "~/notes.md", "/work/ws/~/notes.md"},
	} {
		env := &Env{Workdir: "/work/ws", Home: tc.home}
		if got := env.Abs(tc.in); got != tc.want {
			t.Errorf("home %q: Abs(%q) = %q, want %q", tc.home, tc.in, got, tc.want)
		}
	}
}
