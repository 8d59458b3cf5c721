// Counts the tokens of internal/tokens' test corpus with the reference
// encoder and prints internal/tokens/testdata/reference.json.
//
// Run through scripts/tokens-reference.sh, which makes the corpus and
// installs the encoder. The reference is the npm package tiktoken: OpenAI's
// Rust tiktoken compiled to WASM, its vocabularies inside the package.
// encode_ordinary counts special-token text as ordinary text, as
// internal/tokens does. The file also records a SHA-256 of each vocabulary
// (every ordinary token's id and bytes, in id order) for the Go test to
// compare with the tables it loads.
'use strict';
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');
const { get_encoding } = require('tiktoken');

const sizes = { o200k_base: 199998, cl100k_base: 100256 };
const corpus = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));

// The package's exports hide package.json from require: read it from the
// directory the package was found in.
const version = (name) => {
  for (const dir of require.resolve.paths(name)) {
    const file = path.join(dir, name, 'package.json');
    if (fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, 'utf8')).version;
  }
  throw new Error(`no package.json for ${name}`);
};

const enc = Object.fromEntries(Object.keys(sizes).map((e) => [e, get_encoding(e)]));
const vocab = {};
for (const [e, n] of Object.entries(sizes)) {
  const h = crypto.createHash('sha256');
  for (let id = 0; id < n; id++) {
    h.update(`${id} ${Buffer.from(enc[e].decode_single_token_bytes(id)).toString('hex')}\n`);
  }
  vocab[e] = { tokens: n, sha256: h.digest('hex') };
}
const items = corpus.map((it) => {
  const out = { name: it.name, sha256: it.sha256, bytes: it.bytes };
  if (it.goroot) out.goroot = it.goroot;
  for (const e of Object.keys(sizes)) out[e] = enc[e].encode_ordinary(it.text).length;
  return out;
});
for (const e of Object.keys(sizes)) enc[e].free();
const doc = {
  reference: `tiktoken@${version('tiktoken')} (npm, WASM build of the Rust crate), encode_ordinary`,
  regenerate: 'scripts/tokens-reference.sh',
  vocab,
  items,
};
process.stdout.write(JSON.stringify(doc, null, 1) + '\n');
