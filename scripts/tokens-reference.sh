#!/usr/bin/env bash
# Regenerates internal/tokens/testdata/reference.json: the reference
# encoder's token counts of internal/tokens' test corpus, which
# TestReferenceCorpus compares internal/tokens.Counter with (offline).
#
# Needs go, node and npm (the registry, once, for one pinned package).
# Run it after changing the corpus generator, or when a Go toolchain's
# GOROOT/src files differ from the recorded ones (the test skips those).
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

go test -count=1 -run '^TestReferenceCorpus$' ./internal/tokens/ -args -corpus-out "$work/corpus.json" >/dev/null
(cd "$work" && npm init -y >/dev/null && npm install --no-audit --no-fund --silent tiktoken@1.0.22)
NODE_PATH="$work/node_modules" node scripts/tokens-reference.cjs "$work/corpus.json" > "$work/reference.json"
mv "$work/reference.json" internal/tokens/testdata/reference.json
echo "wrote internal/tokens/testdata/reference.json ($(grep -c '"name"' internal/tokens/testdata/reference.json) items)"
