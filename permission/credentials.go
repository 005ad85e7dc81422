package permission

import "path/filepath"

// credentialNames are the credential stores under the home directory,
// relative to it: ssh and gpg keys, cloud, registry and git tokens, and
// Claude Code's files that carry them (~/.claude.json holds its MCP
// servers' headers and env; ~/.claude/settings.json its env, often an
// ANTHROPIC_AUTH_TOKEN, and nova reads only its hooks).
func credentialNames() []string {
	return []string{
		".ssh",
		".aws",
		".gnupg",
		".config/gh",
		".netrc",
		".docker/config.json",
		".kube",
		".local/share/keyrings",
		".password-store",
		".config/gcloud",
		".azure",
		".git-credentials",
		".config/git/credentials",
		".npmrc",
		".pypirc",
		".cargo/credentials",
		".cargo/credentials.toml",
		".terraform.d/credentials.tfrc.json",
		".claude/.credentials.json",
		".claude.json",
		".claude/settings.json",
	}
}

// novaCredentialNames are the files and directories of NOVA_HOME that
// hold secrets, relative to it: config.json's API keys, settings.json's
// MCP servers (their headers and env, as nova mcp add writes them) and
// mcp-auth's OAuth logins.
func novaCredentialNames() []string {
	return []string{"config.json", "settings.json", "mcp-auth"}
}

// CredentialPaths returns the absolute paths of the files and directories
// that hold credentials: the stores under home and nova's own in
// novaHome. The checker never lets a tool read them unasked, and the
// sandbox shows them empty to its commands. An empty novaHome means
// home/.nova; an empty home leaves out the stores under it.
func CredentialPaths(home, novaHome string) []string {
	var out []string
	if home != "" {
		for _, name := range credentialNames() {
			out = append(out, filepath.Join(home, name))
		}
		if novaHome == "" {
			novaHome = filepath.Join(home, ".nova")
		}
	}
	if novaHome != "" {
		for _, name := range novaCredentialNames() {
			out = append(out, filepath.Join(novaHome, name))
		}
	}
	return out
}
