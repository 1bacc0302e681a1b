package layout

import (
	"os"
	"os/user"
	"strconv"
	"testing"
)

// The owner named in a permission error is os/user's name for the uid,
// read without os/user (see userName).
func TestUserNameIsOSUsers(t *testing.T) {
	for _, uid := range []int{0, os.Getuid(), 65534, 4000000} {
		want := "uid " + strconv.Itoa(uid)
		if u, err := user.LookupId(strconv.Itoa(uid)); err == nil && u.Username != "" {
			want = u.Username
		}
		if got := userName(uint32(uid)); got != want {
			t.Errorf("userName(%d) = %q, os/user says %q", uid, got, want)
		}
	}
}
