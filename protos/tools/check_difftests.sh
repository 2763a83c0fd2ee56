#!/usr/bin/env bash
# Checks Fathom's protos against real Perfetto traces.
#
# 1. For every difftest folder D (default: ../shared/difftests next to the
#    repository), decodes D/trace.pb with
#      protoc --decode=perfetto.protos.Trace -I protos \
#        protos/perfetto/trace/trace.proto
#    and looks for unknown fields (lines that start with a bare field number).
#    Unknown fields are allowed only for TrackEvent extensions (TrackEvent
#    fields 1000..10000: upstream's ChromeTrackEvent / TestExtension protos)
#    and anything nested inside them.
# 2. Re-encodes D/trace.textproto with our schema and requires the result to
#    be byte-identical to D/trace.pb (upstream produced trace.pb from the
#    textproto with its own descriptors). Textprotos that use the upstream
#    ChromeTrackEvent/TestExtension extension syntax are skipped; the
#    heap-graph extension syntax is rewritten to our plain heap_graph field.
# 3. Decodes the real traces in the testdata folder (default
#    ../shared/testdata: *.perfetto-trace, *.pftrace, *.pb) and reports any
#    unknown fields by path (report only; FrameTimelineEvent, TracePacket 76,
#    is known to be absent from the schema).
#
# Usage: protos/tools/check_difftests.sh [-v] [DIFFTESTS_DIR [TESTDATA_DIR]]
# Exit status: 0 if steps 1 and 2 pass for every folder, 1 otherwise.

set -u

VERBOSE=0
if [[ "${1:-}" == "-v" ]]; then
  VERBOSE=1
  shift
fi

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PROTO_DIR="$(cd "$HERE/.." && pwd)"
REPO_DIR="$(cd "$PROTO_DIR/.." && pwd)"
DIFFTESTS="${1:-$REPO_DIR/../shared/difftests}"
TESTDATA="${2:-$REPO_DIR/../shared/testdata}"
PROTOC="${PROTOC:-protoc}"
ROOT_PROTO="perfetto/trace/trace.proto"

command -v "$PROTOC" >/dev/null || { echo "protoc not found" >&2; exit 2; }
[[ -d "$DIFFTESTS" ]] || { echo "no difftests dir: $DIFFTESTS" >&2; exit 2; }

TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

# Reads a protoc text dump on stdin, prints one line per unknown field:
#   <ALLOWED|UNKNOWN> <path>/<number>
classify() {
  python3 -c '
import re, sys
stack = []      # names of the enclosing messages
ext_depth = []  # stack depth at which an allowed extension started
for line in sys.stdin:
    s = line.strip()
    if not s:
        continue
    if s == "}":
        stack.pop()
        if ext_depth and len(stack) < ext_depth[-1]:
            ext_depth.pop()
        continue
    m = re.match(r"^(\w+)\s*(:|\{)", s)
    if not m:
        continue
    name, kind = m.group(1), m.group(2)
    if name.isdigit():
        path = "/".join(stack + [name])
        allowed = bool(ext_depth)
        if not allowed and stack and stack[-1] == "track_event" and \
                1000 <= int(name) <= 10000:
            allowed = True
            if kind == "{":
                ext_depth.append(len(stack) + 1)
        print(("ALLOWED " if allowed else "UNKNOWN ") + path)
    if kind == "{":
        stack.append(name)
'
}

fail=0
n_dirs=0
n_clean=0
n_allowed_only=0
n_enc_ok=0
n_enc_skip=0
for dir in "$DIFFTESTS"/*/; do
  [[ -f "$dir/trace.pb" ]] || continue
  name="$(basename "$dir")"
  n_dirs=$((n_dirs + 1))
  if ! "$PROTOC" --decode=perfetto.protos.Trace -I "$PROTO_DIR" "$ROOT_PROTO" \
      < "$dir/trace.pb" > "$TMP/dec.txt" 2> "$TMP/err.txt"; then
    echo "FAIL  $name: protoc --decode failed: $(head -c 300 "$TMP/err.txt")"
    fail=1
    continue
  fi
  classify < "$TMP/dec.txt" > "$TMP/unk.txt"
  n_unknown=$(grep -c '^UNKNOWN' "$TMP/unk.txt")
  n_ext=$(grep -c '^ALLOWED' "$TMP/unk.txt")
  if [[ "$n_unknown" != 0 ]]; then
    echo "FAIL  $name: $n_unknown unknown field(s):"
    grep '^UNKNOWN' "$TMP/unk.txt" | sed 's/^UNKNOWN /        /' | sort | uniq -c
    fail=1
  elif [[ "$n_ext" != 0 ]]; then
    n_allowed_only=$((n_allowed_only + 1))
    echo "ok    $name: only $n_ext TrackEvent extension field(s) unknown" \
         "(upstream ChromeTrackEvent/TestExtension)"
    if [[ $VERBOSE == 1 ]]; then
      sed 's/^ALLOWED /        /' "$TMP/unk.txt" | sort | uniq -c
    fi
  else
    n_clean=$((n_clean + 1))
    [[ $VERBOSE == 1 ]] && echo "ok    $name: no unknown fields"
  fi

  # Byte-exact re-encoding of the textproto.
  if [[ -f "$dir/trace.textproto" ]]; then
    if grep -qE '\[perfetto\.protos\.(ChromeTrackEvent|TestExtension)' \
        "$dir/trace.textproto"; then
      n_enc_skip=$((n_enc_skip + 1))
      [[ $VERBOSE == 1 ]] && echo "skip  $name: textproto uses upstream extensions"
    else
      sed -e 's/\[com\.android\.art\.tracing\.ArtHeapGraphTracePacket\.heap_graph\]/heap_graph/' \
          -e 's/\[com\.android\.internal\.FrameworksNativeTracePacket\.frame_timeline_event\]/frame_timeline_event/' \
        "$dir/trace.textproto" > "$TMP/in.txt"
      if ! "$PROTOC" --encode=perfetto.protos.Trace -I "$PROTO_DIR" \
          "$ROOT_PROTO" < "$TMP/in.txt" > "$TMP/enc.pb" 2> "$TMP/err.txt"; then
        echo "FAIL  $name: textproto does not parse: $(head -c 300 "$TMP/err.txt")"
        fail=1
      elif ! cmp -s "$TMP/enc.pb" "$dir/trace.pb"; then
        echo "FAIL  $name: re-encoded textproto differs from trace.pb"
        fail=1
      else
        n_enc_ok=$((n_enc_ok + 1))
      fi
    fi
  fi
done

echo "difftests: $n_dirs folders; $n_clean without unknown fields;" \
     "$n_allowed_only with only TrackEvent extension fields unknown;" \
     "$n_enc_ok textprotos re-encode byte-identically ($n_enc_skip skipped)"

if [[ -d "$TESTDATA" ]]; then
  shopt -s nullglob
  for f in "$TESTDATA"/*.perfetto-trace "$TESTDATA"/*.pftrace \
           "$TESTDATA"/*.pb; do
    name="$(basename "$f")"
    if ! "$PROTOC" --decode=perfetto.protos.Trace -I "$PROTO_DIR" \
        "$ROOT_PROTO" < "$f" > "$TMP/dec.txt" 2> "$TMP/err.txt"; then
      echo "testdata $name: protoc --decode failed: $(head -c 300 "$TMP/err.txt")"
      continue
    fi
    classify < "$TMP/dec.txt" | sed 's/^[A-Z]* //' > "$TMP/unk.txt"
    if [[ -s "$TMP/unk.txt" ]]; then
      # Report the outermost unknown field paths only.
      tops=$(awk -F/ '{
               for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+$/) break
               if (i == NF) print
             }' "$TMP/unk.txt" | sort | uniq -c | \
             awk '{printf "%s%s x%s", sep, $2, $1; sep=", "}')
      echo "testdata $name: unknown: $tops"
    else
      echo "testdata $name: no unknown fields"
    fi
  done
fi

exit $fail
