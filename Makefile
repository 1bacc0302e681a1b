# Thin wrappers; the scripts hold the logic so CI and people run the same thing.
PREFIX ?= $(HOME)/.local

.PHONY: build test install bench clean
# Without cgo, like install.sh: see the comment there.
build:
	CGO_ENABLED=0 go build -trimpath -o bin/ ./cmd/...

test:
	go test -race ./...

install:
	sh install/install.sh $(PREFIX)

bench:
	go test -run '^$$' -bench . ./...

clean:
	rm -rf bin
