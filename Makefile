GO ?= go
BIN := bin/nova
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X main.version=$(VERSION)

.PHONY: build install test bench fmt vet clean

build:
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/nova

install:
	$(GO) install -trimpath -ldflags '$(LDFLAGS)' ./cmd/nova

test:
	@unformatted=$$(gofmt -l .); if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(GO) test -race -count=1 -timeout 8m ./...

bench:
	$(GO) test -run '^$$' -bench . -benchtime 1x -count 1 ./... 

clean:
	rm -rf bin
