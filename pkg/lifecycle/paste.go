package lifecycle

// Paste brackets: a program in bracketed-paste mode takes what is between
// them as one pasted block, not as typed keys. pty send (--paste) and pty
// web's paste both wrap text in them.
const (
	PasteStart = "\x1b[200~"
	PasteEnd   = "\x1b[201~"
)
