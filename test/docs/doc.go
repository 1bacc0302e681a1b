// Package docs checks the documentation that messages and the README
// point people to: every docs/ file a string in the source names exists
// and the README links it, every docs/ link in the README resolves, and
// the README says before its first command what a newcomer trips on.
package docs
