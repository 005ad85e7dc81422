package tools

import "syscall"

// setPdeathsig has the kernel kill the process when nova dies, even by
// SIGKILL, when nothing else could stop it. It reaches only the child
// itself: what that child started lives on, orphaned, and is stopped by
// ReapOrphanShells at the next start (a sandboxed command is a pid
// namespace under bwrap --die-with-parent, which takes it all down).
func setPdeathsig(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
