package sandbox

import "strings"

// gitVar is one variable of a git config file. section and key are lower
// case, as git compares them; a subsection is dropped, since what the
// sandbox looks for (include.path, includeIf.*.path, core.hooksPath,
// extensions.worktreeConfig) does not depend on it.
type gitVar struct {
	section, key, value string
}

// parseGitConfig reads the variables of a git config file. It follows git's
// syntax closely enough for the few variables the sandbox reads: sections
// in both spellings, comments, quotes, escapes and continued lines. A
// variable with no "=" is boolean true.
func parseGitConfig(data []byte) []gitVar {
	var out []gitVar
	section := ""
	lines := strings.Split(string(data), "\n")
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSpace(strings.TrimSuffix(lines[i], "\r"))
		if strings.HasPrefix(line, "[") {
			end := strings.IndexByte(line, ']')
			if end < 0 {
				continue
			}
			header := strings.TrimSpace(line[1:end])
			if j := strings.IndexAny(header, " \t\""); j >= 0 {
				header = header[:j] // [section "subsection"]
			} else if j := strings.IndexByte(header, '.'); j >= 0 {
				header = header[:j] // [section.subsection]
			}
			section = strings.ToLower(header)
			line = strings.TrimSpace(line[end+1:]) // "[core] key = v" is one line
		}
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		name, raw, hasValue := strings.Cut(line, "=")
		name = strings.ToLower(strings.TrimSpace(name))
		if !hasValue {
			out = append(out, gitVar{section, name, "true"})
			continue
		}
		// A backslash at the end of a line continues the value.
		for strings.HasSuffix(raw, `\`) && !strings.HasSuffix(raw, `\\`) && i+1 < len(lines) {
			i++
			raw = raw[:len(raw)-1] + strings.TrimSuffix(lines[i], "\r")
		}
		out = append(out, gitVar{section, name, gitValue(raw)})
	}
	return out
}

// gitValue decodes a raw config value: quotes, escapes, and a comment
// outside quotes ending it.
func gitValue(raw string) string {
	var b strings.Builder
	quoted := false
	raw = strings.TrimSpace(raw)
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case c == '"':
			quoted = !quoted
		case c == '\\' && i+1 < len(raw):
			i++
			switch raw[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'b':
				// git removes the previous character; rare enough to ignore
			default:
				b.WriteByte(raw[i])
			}
		case !quoted && (c == '#' || c == ';'):
			return strings.TrimSpace(b.String())
		default:
			b.WriteByte(c)
		}
	}
	return strings.TrimSpace(b.String())
}

// gitValueOf returns the last value of section.key in vars, or "".
func gitValueOf(vars []gitVar, section, key string) string {
	value := ""
	for _, v := range vars {
		if v.section == section && v.key == key {
			value = v.value
		}
	}
	return value
}

// gitBool reports whether the last setting of section.key in vars is true,
// as git reads a boolean.
func gitBool(vars []gitVar, section, key string) bool {
	on := false
	for _, v := range vars {
		if v.section == section && v.key == key {
			switch strings.ToLower(v.value) {
			case "true", "yes", "on", "1":
				on = true
			default:
				on = false
			}
		}
	}
	return on
}

// isGitCommand reports whether v is a variable whose value git runs as a
// command. Subsections are dropped, so filter.<driver>.clean is filter.clean.
func isGitCommand(v gitVar) bool {
	switch v.section + "." + v.key {
	case "core.fsmonitor", "core.editor", "core.pager", "core.sshcommand", "core.askpass", "core.gitproxy",
		"sequence.editor", "diff.external", "diff.textconv", "diff.command",
		"filter.clean", "filter.smudge", "filter.process", "merge.driver",
		"credential.helper", "gpg.program", "difftool.cmd", "mergetool.cmd", "browser.cmd", "web.browser",
		"uploadpack.packobjectshook", "remote.uploadpack", "remote.receivepack":
		return true
	}
	switch v.section {
	case "pager":
		return true
	case "alias", "submodule":
		return strings.HasPrefix(v.value, "!")
	}
	return false
}

// commandPaths returns the words of a command that name files by path
// (they hold a slash); a bare name is looked up in PATH, not the workspace.
func commandPaths(command string) []string {
	var out []string
	for _, word := range strings.Fields(strings.TrimPrefix(command, "!")) {
		word = strings.Trim(word, `"';&|()`)
		if strings.Contains(word, "/") && !strings.Contains(word, "%") && !strings.Contains(word, "://") {
			out = append(out, word)
		}
	}
	return out
}
