#!/usr/bin/env python3
"""Writes the seed corpus of FuzzPSBT: every PSBT (base64 or hex) found in Tests/Vectors/psbt/*.json, decoded
to binary, deduplicated, each file named after its SHA-256. Valid and invalid vectors both go in: the invalid ones
take the fuzzer straight to the parser's error paths. PSBTs over 16 KB are left out to keep the corpus small.

Usage: Fuzz/make-corpus-psbt.py [VECTORS_DIR] (default: Tests/Vectors of the package)
"""

import base64
import binascii
import hashlib
import json
import sys
from pathlib import Path

MAGIC = b"psbt\xff"
LIMIT = 16 * 1024


def strings(node):
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for value in node.values():
            yield from strings(value)
    elif isinstance(node, list):
        for value in node:
            yield from strings(value)


def decode(text):
    text = text.strip()
    if text.startswith("cHNidP"):
        try:
            return base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError):
            return None
    if text.lower().startswith("70736274ff"):
        try:
            return bytes.fromhex(text)
        except ValueError:
            return None
    return None


def main():
    package = Path(__file__).resolve().parent.parent
    default = package / "Tests" / "Vectors"
    vectors = Path(sys.argv[1] if len(sys.argv) > 1 else default) / "psbt"
    out = package / "Fuzz" / "corpus" / "FuzzPSBT"
    out.mkdir(parents=True, exist_ok=True)
    seen = set()
    for path in sorted(vectors.glob("*.json")):
        for text in strings(json.loads(path.read_text())):
            data = decode(text)
            if data is None or not data.startswith(MAGIC) or len(data) > LIMIT:
                continue
            digest = hashlib.sha256(data).hexdigest()
            if digest in seen:
                continue
            seen.add(digest)
            (out / digest[:16]).write_bytes(data)
    print(f"{len(seen)} seeds in {out}")


if __name__ == "__main__":
    main()
