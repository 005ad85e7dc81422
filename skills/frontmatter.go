package skills

import (
	"encoding/json"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// frontmatter is a file's YAML header: each top-level key's value as a
// string (scalars) or a list (sequences), as Claude Code's files write
// them. The raw line of each key is kept too: "argument-hint: [file]
// [line]" is a flow sequence, or not YAML at all, yet a hint to show as
// written.
type frontmatter struct {
	scalars map[string]string
	lists   map[string][]string
	raw     map[string]string
	// maps are the keys whose value is a mapping ("hooks"), as parsed.
	maps map[string]*yaml.Node
	// yaml says the header was YAML (not read line by line).
	yaml bool
}

// splitFrontmatter separates a "---" header from the body. A file without
// one is all body.
func splitFrontmatter(text string) (header, body string, ok bool) {
	text = strings.TrimPrefix(text, "\ufeff")
	norm := strings.ReplaceAll(text, "\r\n", "\n")
	if !strings.HasPrefix(norm, "---\n") && norm != "---" {
		return "", norm, false
	}
	rest := strings.TrimPrefix(norm, "---\n")
	for i := 0; i <= len(rest); {
		end := strings.IndexByte(rest[i:], '\n')
		line := rest[i:]
		if end >= 0 {
			line = rest[i : i+end]
		}
		if strings.TrimRight(line, " \t") == "---" {
			after := ""
			if end >= 0 {
				after = rest[i+end+1:]
			}
			return rest[:i], after, true
		}
		if end < 0 {
			break
		}
		i += end + 1
	}
	// No closing line: not a header after all.
	return "", norm, false
}

// parseFrontmatter reads a header. YAML first; a header that is not YAML
// (Claude Code's docs show "argument-hint: [a] [b]") is read line by
// line, "key: value" and "- item", with a warning.
func parseFrontmatter(header string) (frontmatter, string) {
	fm := frontmatter{scalars: map[string]string{}, lists: map[string][]string{}, raw: rawLines(header), maps: map[string]*yaml.Node{}}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(header), &doc); err != nil {
		lineByLine(header, &fm)
		return fm, fmt.Sprintf("the frontmatter is not valid YAML (%v); read it line by line", yamlMessage(err))
	}
	fm.yaml = true
	if len(doc.Content) == 0 {
		return fm, ""
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return fm, "the frontmatter is not a list of key: value lines; ignored"
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i].Value, root.Content[i+1]
		switch v.Kind {
		case yaml.ScalarNode:
			fm.scalars[k] = v.Value
		case yaml.SequenceNode:
			var items []string
			for _, it := range v.Content {
				if it.Kind == yaml.ScalarNode {
					items = append(items, it.Value)
				}
			}
			fm.lists[k] = items
		case yaml.MappingNode:
			fm.maps[k] = v
		}
	}
	return fm, ""
}

// object returns key's value, a mapping, as JSON: nil when the header
// does not have key; an error when its value is not a mapping JSON can
// hold.
func (fm frontmatter) object(key string) (json.RawMessage, error) {
	n, ok := fm.maps[key]
	if !ok {
		if _, has := fm.raw[key]; !has {
			return nil, nil
		}
		if v, ok := fm.scalars[key]; ok && (strings.TrimSpace(v) == "" || v == "null" || v == "~") {
			return nil, nil // "hooks:" with nothing under it
		}
		if !fm.yaml {
			return nil, fmt.Errorf("%s cannot be read: the frontmatter is not valid YAML", key)
		}
		return nil, fmt.Errorf("%s must be a mapping of event names to matcher groups, as in settings.json", key)
	}
	var v any
	if err := n.Decode(&v); err != nil {
		return nil, fmt.Errorf("%s: %v", key, yamlMessage(err))
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("%s cannot be read as JSON (keys must be strings): %v", key, err)
	}
	return b, nil
}

// rawLines maps each top-level key to the text after its colon.
func rawLines(header string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(header, "\n") {
		if line == "" || line[0] == ' ' || line[0] == '\t' || line[0] == '#' || line[0] == '-' {
			continue
		}
		if k, v, ok := strings.Cut(line, ":"); ok {
			out[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	return out
}

// lineByLine is the reading of a header that is not YAML.
func lineByLine(header string, fm *frontmatter) {
	last := ""
	for _, line := range strings.Split(header, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case t == "" || strings.HasPrefix(t, "#"):
		case strings.HasPrefix(t, "- ") && last != "":
			fm.lists[last] = append(fm.lists[last], unquote(strings.TrimSpace(t[2:])))
		case line[0] != ' ' && line[0] != '\t' && strings.Contains(t, ":"):
			k, v, _ := strings.Cut(t, ":")
			last = strings.TrimSpace(k)
			if v = strings.TrimSpace(v); v != "" {
				fm.scalars[last] = unquote(v)
			}
		}
	}
}

func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' && s[len(s)-1] == '"' || s[0] == '\'' && s[len(s)-1] == '\'') {
		return s[1 : len(s)-1]
	}
	return s
}

func yamlMessage(err error) string {
	return strings.TrimPrefix(err.Error(), "yaml: ")
}

// str returns key's value as one string: a scalar, or a list as its raw
// line says it ("[file] [line]"), or joined.
func (fm frontmatter) str(key string) string {
	if v, ok := fm.scalars[key]; ok {
		return strings.TrimSpace(v)
	}
	if _, ok := fm.lists[key]; ok {
		if raw := fm.raw[key]; raw != "" {
			return raw
		}
		return strings.Join(fm.lists[key], " ")
	}
	return ""
}

// list returns key's value as a list: a sequence, or a scalar split at
// commas and spaces outside parentheses ("Read, Bash(git diff *)").
func (fm frontmatter) list(key string, split func(string) []string) []string {
	if l, ok := fm.lists[key]; ok {
		var out []string
		for _, it := range l {
			out = append(out, split(it)...)
		}
		return out
	}
	if v, ok := fm.scalars[key]; ok {
		return split(v)
	}
	return nil
}

// flag returns key's value as a boolean and whether it was set to one.
func (fm frontmatter) flag(key string) (value, set bool, bad string) {
	v, ok := fm.scalars[key]
	if !ok {
		return false, false, ""
	}
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true", "yes", "on":
		return true, true, ""
	case "false", "no", "off", "":
		return false, true, ""
	}
	return false, false, fmt.Sprintf("%s: %q is not true or false; ignored", key, v)
}
