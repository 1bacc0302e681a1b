# Thin wrappers; the scripts hold the logic so CI and people run the same thing.
PREFIX ?= $(HOME)/.local

.PHONY: build test install bench clean
# As install.sh builds them: install/build.sh says how.
build:
	sh install/build.sh bin -trimpath

test:
	go test -race ./...

install:
	sh install/install.sh $(PREFIX)

bench:
	go test -run '^$$' -bench . ./...

clean:
	rm -rf bin
