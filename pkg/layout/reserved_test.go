package layout

import "testing"

// The reserved words read as the original pty reads them: keep is on for
// any value but false/0/no/off (any case, spaces around), and ptyfile*,
// strategy* and :-prefixed keys are hidden from listings.
func TestReservedTags(t *testing.T) {
	for v, off := range map[string]bool{"false": true, " OFF ": true, "No": true, "0": true, "true": false, "1": false, "yes": false, "": false, "nope": false} {
		if Falsy(v) != off {
			t.Errorf("Falsy(%q) = %v", v, !off)
		}
		if on := v != "" && !off; Truthy(v) != on {
			t.Errorf("Truthy(%q) = %v", v, !on)
		}
		if Keep(map[string]string{TagKeep: v}) == off {
			t.Errorf("keep=%q: Keep is %v", v, off)
		}
	}
	if Keep(nil) || Keep(map[string]string{"keeper": "1"}) {
		t.Error("Keep without a keep tag")
	}
	if !Permanent(map[string]string{TagStrategy: StrategyPermanent}) || Permanent(map[string]string{TagStrategy: "Permanent"}) || Permanent(nil) {
		t.Error("Permanent reads something other than strategy=permanent")
	}
	for k, want := range map[string]bool{TagPtyfile: true, TagPtyfileSession: true, TagPtyfileTags: true, TagStrategy: true, TagStatus: true, ":l12-ab": true,
		TagKeep: false, TagParent: false, TagRole: false, "team": false} {
		if ReservedTag(k) != want {
			t.Errorf("ReservedTag(%q) = %v", k, !want)
		}
	}
}
