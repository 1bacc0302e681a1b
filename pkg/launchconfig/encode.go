package launchconfig

import (
	"encoding/json"
	"strconv"

	"github.com/ptyorg/pty/internal/jsonlite"
)

// AppendJSON appends c as json.Marshal writes it, byte for byte, without
// reflection: the launcher writes the config while the caller waits, and
// encoding/json's first use of a type (building its field cache) costs
// more than the rest of the encoding many times over.
func (c *Config) AppendJSON(b []byte) ([]byte, error) {
	str := func(b []byte, s string) ([]byte, error) { return jsonlite.AppendString(b, s), nil }
	field := func(name string) { b = append(b, ',', '"'); b = append(b, name...); b = append(b, '"', ':') }
	var err error
	b = append(b, `{"root":`...)
	b = jsonlite.AppendString(b, c.Root)
	field("id")
	b = jsonlite.AppendString(b, c.ID)
	field("command")
	b = jsonlite.AppendString(b, c.Command)
	field("args")
	if b, err = jsonlite.AppendArray(b, c.Args, str); err != nil {
		return nil, err
	}
	field("displayCommand")
	b = jsonlite.AppendString(b, c.DisplayCommand)
	field("cwd")
	b = jsonlite.AppendString(b, c.Cwd)
	field("rows")
	b = strconv.AppendInt(b, int64(c.Rows), 10)
	field("cols")
	b = strconv.AppendInt(b, int64(c.Cols), 10)
	if c.Scrollback != nil {
		field("scrollback")
		b = strconv.AppendInt(b, int64(*c.Scrollback), 10)
	}
	if len(c.Tags) > 0 {
		field("tags")
		b, _ = jsonlite.AppendObject(b, c.Tags, str)
	}
	if c.DisplayName != nil {
		field("displayName")
		b = jsonlite.AppendString(b, *c.DisplayName)
	}
	if len(c.ExtraEnv) > 0 {
		field("extraEnv")
		b, _ = jsonlite.AppendObject(b, c.ExtraEnv, str)
	}
	if len(c.UnsetEnv) > 0 {
		field("unsetEnv")
		b, _ = jsonlite.AppendArray(b, c.UnsetEnv, str)
	}
	if c.IsolateEnv {
		field("isolateEnv")
		b = append(b, "true"...)
	}
	if c.Ephemeral {
		field("ephemeral")
		b = append(b, "true"...)
	}
	if len(c.Extra) > 0 {
		field("extra")
		if b, err = jsonlite.AppendObject(b, c.Extra, appendRaw); err != nil {
			return nil, err
		}
	}
	if c.Replace {
		field("replace")
		b = append(b, "true"...)
	}
	if c.ReplaceGen != "" {
		field("replaceGeneration")
		b = jsonlite.AppendString(b, c.ReplaceGen)
	}
	if len(c.ExactEnv) > 0 {
		field("env")
		b, _ = jsonlite.AppendObject(b, c.ExactEnv, str)
	}
	if c.Generation != "" {
		field("generation")
		b = jsonlite.AppendString(b, c.Generation)
	}
	if c.CreatedAt != "" {
		field("createdAt")
		b = jsonlite.AppendString(b, c.CreatedAt)
	}
	if c.SockIno != 0 {
		field("sockIno")
		b = strconv.AppendUint(b, c.SockIno, 10)
	}
	if c.Waited {
		field("waited")
		b = append(b, "true"...)
	}
	return append(b, '}'), nil
}

// appendRaw writes a json.RawMessage as json.Marshal does: compacted, nil
// as null; invalid JSON is an error.
func appendRaw(b []byte, v json.RawMessage) ([]byte, error) {
	if v == nil {
		return append(b, "null"...), nil
	}
	return jsonlite.AppendCompact(b, v)
}
