package ptyfile

import "strings"

// fieldsByMeaning maps words people write for a field, from other tools'
// files (Procfile runners, docker compose, systemd, tmuxinator), to the
// field pty.toml has for it. closest only sees spelling, and "cmd" is
// nearer to "cwd" than to "command".
var fieldsByMeaning = map[string]string{
	"cmd": "command", "exec": "command", "run": "command", "program": "command",
	"script": "command", "commandline": "command", "command_line": "command", "shell": "command",
	"args": "command", "argv": "command", "entrypoint": "command", "start": "command",

	"dir": "cwd", "directory": "cwd", "workdir": "cwd", "working_dir": "cwd",
	"working_directory": "cwd", "workingdirectory": "cwd", "wd": "cwd", "chdir": "cwd",
	"path": "cwd", "root": "cwd", "cd": "cwd", "folder": "cwd",

	"name": "display_name", "title": "display_name", "label": "display_name",
	"displayname": "display_name", "description": "display_name",

	"environment": "env", "vars": "env", "variables": "env", "envs": "env", "env_vars": "env",

	"tag": "tags", "labels": "tags", "metadata": "tags",

	"history": "scrollback", "scroll": "scrollback", "lines": "scrollback",
	"history_limit": "scrollback", "buffer": "scrollback", "scrollback_lines": "scrollback",

	"session_id": "id", "key": "id", "uid": "id",
}

// topByMeaning is fieldsByMeaning for the top level of the file.
var topByMeaning = map[string]string{
	"session": "sessions", "services": "sessions", "service": "sessions", "processes": "sessions",
	"process": "sessions", "apps": "sessions", "windows": "sessions", "panes": "sessions",
	"name": "prefix", "project": "prefix", "namespace": "prefix", "name_prefix": "prefix",
}

// suggestField is the field of known that k most likely means: the same
// word in another case or with dashes, a word of the same meaning, or the
// nearest spelling; "" when nothing is near.
func suggestField(k string, known []string, meaning map[string]string) string {
	norm := strings.ReplaceAll(strings.ToLower(k), "-", "_")
	for _, f := range known {
		if norm == f {
			return f
		}
	}
	if f, ok := meaning[norm]; ok {
		return f
	}
	if f, ok := meaning[strings.TrimSuffix(norm, "s")]; ok {
		return f
	}
	return closest(norm, known)
}
