package launchconfig

import (
	"errors"
	"strconv"

	"github.com/ptyorg/pty/internal/jsonlite"
)

// Parse reads the launch config that the launcher writes (with
// AppendJSON, as json.Marshal would) on pty-daemon's fd 3. It reads it by
// hand rather than with json.Unmarshal, whose reflection the daemon would
// otherwise link:
// half a megabyte of a binary every session keeps resident. Unknown
// fields are ignored, as json.Unmarshal ignores them.
func Parse(b []byte) (Config, error) {
	var c Config
	d := jsonlite.NewDecoder(b)
	err := d.Object(func(key string) error {
		var err error
		switch key {
		case "root":
			err = jsonlite.Into(d, &c.Root, d.String)
		case "id":
			err = jsonlite.Into(d, &c.ID, d.String)
		case "command":
			err = jsonlite.Into(d, &c.Command, d.String)
		case "args":
			c.Args, err = d.Strings()
		case "displayCommand":
			err = jsonlite.Into(d, &c.DisplayCommand, d.String)
		case "cwd":
			err = jsonlite.Into(d, &c.Cwd, d.String)
		case "rows":
			err = jsonlite.Into(d, &c.Rows, d.Int)
		case "cols":
			err = jsonlite.Into(d, &c.Cols, d.Int)
		case "scrollback":
			c.Scrollback, err = jsonlite.Ptr(d, d.Int)
		case "tags":
			c.Tags, err = d.StringMap(c.Tags)
		case "displayName":
			c.DisplayName, err = jsonlite.Ptr(d, d.String)
		case "extraEnv":
			c.ExtraEnv, err = d.StringMap(c.ExtraEnv)
		case "unsetEnv":
			c.UnsetEnv, err = d.Strings()
		case "isolateEnv":
			err = jsonlite.Into(d, &c.IsolateEnv, d.Bool)
		case "env":
			c.ExactEnv, err = d.StringMap(c.ExactEnv)
		case "ephemeral":
			err = jsonlite.Into(d, &c.Ephemeral, d.Bool)
		case "extra":
			c.Extra, err = d.RawObject(c.Extra)
		case "replace":
			err = jsonlite.Into(d, &c.Replace, d.Bool)
		case "replaceGeneration":
			err = jsonlite.Into(d, &c.ReplaceGen, d.String)
		case "generation":
			err = jsonlite.Into(d, &c.Generation, d.String)
		case "createdAt":
			err = jsonlite.Into(d, &c.CreatedAt, d.String)
		case "sockIno":
			var n int
			if n, err = d.Int(); err == nil && n < 0 {
				err = errors.New("negative inode")
			}
			c.SockIno = uint64(n)
		case "waited":
			err = jsonlite.Into(d, &c.Waited, d.Bool)
		default:
			_, err = d.Raw()
		}
		if err != nil {
			return errors.New(strconv.Quote(key) + ": " + err.Error())
		}
		return nil
	})
	if err == nil {
		err = d.End()
	}
	return c, err
}
