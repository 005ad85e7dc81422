GO ?= go
BIN := bin/nova
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X main.version=$(VERSION)

.PHONY: build install test fuzz bench fmt vet clean

build:
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/nova

install:
	$(GO) install -trimpath -ldflags '$(LDFLAGS)' ./cmd/nova

test:
	@unformatted=$$(gofmt -l .); if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(GO) test -race -count=1 -timeout 10m ./...
	$(MAKE) fuzz

# The shell analysis is fuzzed for a fixed short time on every run, from the
# committed corpus (permission/testdata/fuzz); new failing inputs land there.
FUZZTIME ?= 20s
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzCheckAgainstInterpreter$$' -fuzztime $(FUZZTIME) ./permission
	$(GO) test -run '^$$' -fuzz '^FuzzShellAnalysis$$' -fuzztime 10s ./permission

bench:
	$(GO) test -run '^$$' -bench . -benchtime 1x -count 1 ./... 

clean:
	rm -rf bin
