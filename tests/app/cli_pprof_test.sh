#!/usr/bin/env bash
# fathom-cli on pprof files made without Fathom (tests/core/pprof/*.textproto,
# encoded by protoc and gzipped at build time): `profiles` lists one line per
# sample type, `flamegraph --view SAMPLE_TYPE` exports that type, and a
# truncated profile is a one-line error naming the file and offset.
set -u
CLI="$1"
DATA="$2"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail=0
pass=0
check() {  # check NAME CONDITION-RESULT
  if [ "$2" -eq 0 ]; then pass=$((pass + 1)); else echo "FAIL: $1"; fail=$((fail + 1)); fi
}

out=$("$CLI" profiles "$DATA/heap.pb.gz"); check "profiles exits 0" $?
[ "$(echo "$out" | grep -c '^pprof ')" -eq 4 ]; check "one line per sample type" $?
echo "$out" | grep 'inuse_space' | grep -q 'value=4382 bytes (default)'
check "inuse_space total and default" $?
echo "$out" | grep 'alloc_objects' | grep -q 'value=19 count'; check "alloc_objects total" $?

# Default sample type; totals of the folded lines equal the file's.
"$CLI" flamegraph "$DATA/heap.pb.gz" -o "$TMP/inuse.folded" 2>/dev/null
check "flamegraph exits 0" $?
[ "$(awk '{s += $NF} END {print s}' "$TMP/inuse.folded")" = 4382 ]; check "inuse_space folded sum" $?
"$CLI" flamegraph "$DATA/heap.pb.gz" --view alloc_space -o "$TMP/alloc.folded" 2>/dev/null
[ "$(awk '{s += $NF} END {print s}' "$TMP/alloc.folded")" = 5650 ]; check "--view alloc_space" $?
grep -q '^main;handle_request;parse_json;fathom::Arena::Allocate(unsigned long);malloc 1024$' \
  "$TMP/alloc.folded"; check "inlined and demangled frames" $?
"$CLI" flamegraph "$DATA/cpu.pb" --kind pprof --view samples -o "$TMP/cpu.folded" 2>/dev/null
[ "$(awk '{s += $NF} END {print s}' "$TMP/cpu.folded")" = 6 ]; check "--kind pprof --view samples" $?
"$CLI" flamegraph "$DATA/heap.pb.gz" --view no_such_type >/dev/null 2>&1; [ $? -eq 1 ]
check "unknown sample type fails" $?

# pprof out, pprof back in: same total.
"$CLI" flamegraph "$DATA/heap.pb.gz" --view alloc_space --format pprof -o "$TMP/re.pb.gz" 2>/dev/null
"$CLI" profiles "$TMP/re.pb.gz" | grep -q 'alloc_space *value=5650 bytes'; check "re-export keeps the sample type" $?

# Streaming profile samples are CPU samples.
"$CLI" flamegraph "$DATA/streaming_profile.pb" --kind cpu -o "$TMP/s.folded" 2>/dev/null
[ "$(awk '{s += $NF} END {print s}' "$TMP/s.folded")" = 4 ]; check "streaming samples in cpu flamegraph" $?

head -c 100 "$DATA/heap.pb" > "$TMP/cut.pprof"
err=$("$CLI" info "$TMP/cut.pprof" 2>&1 >/dev/null); rc=$?
[ $rc -ne 0 ] && echo "$err" | grep -q 'cut.pprof.*byte offset'; check "truncated: file and offset" $?
[ "$(echo "$err" | wc -l)" -eq 1 ]; check "truncated: one line" $?

echo "cli_pprof_test: $pass passed, $fail failed"
[ $fail -eq 0 ]
