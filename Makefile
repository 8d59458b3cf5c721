# agent: build, test, bench, lint. CGO_ENABLED=0 is the default build.
GO       ?= go
BIN      ?= bin/agent
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT   ?= $(shell git rev-parse HEAD 2>/dev/null || echo unknown)
LDFLAGS  := -s -w -X agent/cmd.version=$(VERSION) -X agent/cmd.commit=$(COMMIT)
export CGO_ENABLED ?= 0

PREFIX   ?= $(HOME)/.local

.PHONY: build install test test-race test-cgo bench lint clean

build:
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) .

# install puts the binary on your PATH ($(PREFIX)/bin, ~/.local/bin by default).
install: build
	install -D -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/agent
	@echo "installed $(DESTDIR)$(PREFIX)/bin/agent"; case ":$$PATH:" in *":$(PREFIX)/bin:"*) ;; *) echo "add $(PREFIX)/bin to your PATH";; esac

# Every test, race detector on (it needs cgo), then the pure-Go build.
test: lint
	CGO_ENABLED=0 $(GO) build ./...
	CGO_ENABLED=1 $(GO) test -race -count=1 -timeout 30m ./...
	CGO_ENABLED=0 $(GO) test -count=1 -timeout 30m ./internal/repomap/... ./cmd/...

bench:
	$(GO) test -run '^$$' -bench . -benchmem -timeout 60m ./...

# staticcheck is installed with go install (outside the module's
# dependencies) the first time.
STATICCHECK_VERSION ?= v0.8.2
STATICCHECK ?= $(shell $(GO) env GOPATH)/bin/staticcheck

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	@[ -x "$(STATICCHECK)" ] || (cd / && $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION))
	$(STATICCHECK) ./...

clean:
	rm -rf bin
