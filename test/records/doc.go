// Package records tests the registry's records end to end, through the
// built binaries: ids and names that could collide with the root's own
// files, roots owned by someone else, damaged metadata, bounded values and
// logs, writes that fail half way, and files replaced by symbolic links.
package records
