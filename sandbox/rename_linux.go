package sandbox

import "golang.org/x/sys/unix"

// renameNoReplace renames from to to, failing with EEXIST when to exists:
// a placeholder directory must never replace one that appeared meanwhile
// (rename(2) would replace an empty directory, even another sandbox's
// mount point). It fails with EINVAL where the filesystem cannot.
func renameNoReplace(from, to string) error {
	return unix.Renameat2(unix.AT_FDCWD, from, unix.AT_FDCWD, to, unix.RENAME_NOREPLACE)
}
