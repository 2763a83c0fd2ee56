#!/usr/bin/env python3
"""Copies real trace files into one seed directory per loader fuzz target.

    collect_seeds.py SHARED_DIR PPROF_DATA_DIR OUT_DIR

Sources: ../shared/testdata, every difftest trace (ours and upstream's),
../shared/reliability's reproducers, and the pprof profiles tests/core
encodes at build time. Each file goes to the targets whose format it is,
sorted by its first bytes like core/import/trace_format.cc (roughly: a seed
only has to be a good starting point). gzip-wrapped files are unwrapped so
the fuzzer mutates the format itself, not a deflate stream. Files over
MAX_BYTES are left out: they would slow every mutation of them.
"""
import glob
import gzip
import os
import sys

MAX_BYTES = 1 << 20
TARGETS = ("trace", "json", "systrace", "archive", "pprof")
# Reproducers that take seconds each (decompression bombs, 900 KB of nesting):
# their own regression tests cover them.
SLOW = ("bomb", "nested_compressed_20000", "zip_nested_200")


def kind(data):
    s = data.lstrip(b"\xef\xbb\xbf").lstrip()
    if data[:4] == b"PK\x03\x04" or data[257:262] == b"ustar":
        return "archive"
    if s[:1] in (b"{", b"["):
        return "json"
    if s[:1] == b"<" or s.startswith(b"# tracer") or b"TRACE:" in data[:4096]:
        return "systrace"
    if b"-0 " in data and b"[00" in data:
        return "systrace"
    # Perfetto protobuf, gzip, and the formats without a target of their own
    # (strace, simpleperf, dumpstate, ...) go to the whole-loader target.
    return "trace"


def main():
    shared, pprof_dir, out = sys.argv[1:4]
    for t in TARGETS:
        os.makedirs(os.path.join(out, t), exist_ok=True)
    sources = []
    for pattern in ("testdata/*", "difftests/*/trace.pb", "difftests-upstream/*/*/trace.pb",
                    "reliability/*"):
        sources += sorted(glob.glob(os.path.join(shared, pattern)))
    sources += sorted(glob.glob(os.path.join(pprof_dir, "*")))
    counts = dict.fromkeys(TARGETS, 0)
    for path in sources:
        if not os.path.isfile(path) or any(s in path for s in SLOW):
            continue
        if os.path.getsize(path) > MAX_BYTES:
            continue
        with open(path, "rb") as f:
            data = f.read()
        if data[:2] == b"\x1f\x8b":
            try:
                inflated = gzip.decompress(data)
                if len(inflated) <= MAX_BYTES:
                    data = inflated
            except (OSError, EOFError):
                pass  # a damaged reproducer: the trace target gets it as is
        if os.path.dirname(path) == pprof_dir.rstrip("/"):
            target = "pprof" if path.endswith((".pb", ".gz")) and "streaming" not in path else "trace"
        else:
            target = kind(data)
        if not data:
            continue
        rel = os.path.relpath(path, shared) if path.startswith(shared) else os.path.basename(path)
        name = rel.replace(os.sep, "_").removesuffix(".gz")
        with open(os.path.join(out, target, name), "wb") as f:
            f.write(data)
        counts[target] += 1
    print("collect_seeds: " + ", ".join(f"{t} {counts[t]}" for t in TARGETS))


if __name__ == "__main__":
    main()
