//go:build !linux

package layout

import "os"

// eachDirName calls f with the name of every entry of the directory root.
func eachDirName(root string, _ int, _ []byte, f func(name string)) error {
	d, err := os.Open(root)
	if err != nil {
		return err
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	for _, n := range names {
		f(n)
	}
	return err
}
