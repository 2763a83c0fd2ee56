#!/usr/bin/env bash
# packaging/linux/fathom-mime.xml: well-formed, accepted by
# update-mime-database without a warning, and, through the compiled database
# as a desktop reads it (QMimeDatabase), maps *.pftrace / *.perfetto-trace by
# name and real Perfetto traces by content, but not JSON, text or HTML.
# usage: mime_test.sh MIME_XML MIME_CHECK_BIN TESTDATA_DIR SAMPLE_TRACE
set -euo pipefail
xml="$1"; check="$2"; testdata="$3"; sample="$4"
type=application/x-perfetto-trace
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v xmllint >/dev/null || { echo "SKIP: no xmllint (libxml2-utils)"; exit 77; }
command -v update-mime-database >/dev/null || { echo "SKIP: no shared-mime-info"; exit 77; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
xmllint --noout "$xml" || fail "not well-formed"
mkdir -p "$tmp/share/mime/packages" "$tmp/home"
# One database built from the system's packages plus ours, as installing the
# .deb leaves it. (Two databases side by side would not do: Qt 6.4 lets the
# last one with any magic match win, whatever the priorities.)
cp /usr/share/mime/packages/*.xml "$tmp/share/mime/packages/" 2>/dev/null || true
cp "$xml" "$tmp/share/mime/packages/fathom.xml"
export XDG_DATA_DIRS="$tmp/share" XDG_DATA_HOME="$tmp/home"
out=$(PKGSYSTEM_ENABLE_FSYNC=0 update-mime-database "$tmp/share/mime" 2>&1) || fail "update-mime-database: $out"
[ -z "$out" ] || fail "update-mime-database complained: $out"
grep -q "^50:$type:\*\.pftrace$" "$tmp/share/mime/globs2" || fail "no *.pftrace glob"
grep -q "^50:$type:\*\.perfetto-trace$" "$tmp/share/mime/globs2" || fail "no *.perfetto-trace glob"
grep -aq "$type" "$tmp/share/mime/magic" || fail "no magic rule compiled"

printf '\nA plain text file that starts with an empty line.\n' > "$tmp/notes"
printf '\n\n\n' > "$tmp/blank"
cp "$sample" "$tmp/renamed-trace"   # no extension: content only
: > "$tmp/empty.pftrace"            # the name alone is enough
: > "$tmp/empty.perfetto-trace"

traces=("$sample" "$tmp/renamed-trace")
others=("$tmp/notes" "$tmp/blank")
for f in "$testdata"/*; do
  [ -f "$f" ] || continue
  case "$f" in
    *.pb|*.perfetto-trace|*.pftrace) traces+=("$f") ;;   # protobuf traces (testdata/README.md)
    *) others+=("$f") ;;                                # JSON, systrace text/HTML, README
  esac
done
[ ${#traces[@]} -ge 5 ] || fail "expected the testdata traces in $testdata"

results=$("$check" "${traces[@]}" "${others[@]}" "$tmp/empty.pftrace" "$tmp/empty.perfetto-trace")
echo "$results"
n=0
while IFS=$'\t' read -r file by_name by_content; do
  case "$file" in
    *.pftrace|*.perfetto-trace)
      [ "$by_name" = "$type" ] || fail "$file: by name $by_name" ;;
  esac
  is_trace=0
  for t in "${traces[@]}"; do [ "$t" = "$file" ] && is_trace=1; done
  if [ $is_trace = 1 ]; then
    [ "$by_content" = "$type" ] || fail "$file: by content $by_content, want $type"
    n=$((n + 1))
  elif [ "$file" != "$tmp/empty.pftrace" ] && [ "$file" != "$tmp/empty.perfetto-trace" ]; then
    [ "$by_content" != "$type" ] || fail "$file is not a Perfetto trace but matched by content"
  fi
done <<< "$results"
# GLib's reader (GNOME's file managers) too, when installed: content only.
if command -v gio >/dev/null 2>&1; then
  for f in "$tmp/renamed-trace" "$tmp/notes"; do
    got=$(gio info -a standard::content-type "$f" | sed -n 's/.*content-type: //p')
    want=$type; [ "$f" = "$tmp/notes" ] && want=text/plain
    [ "$got" = "$want" ] || fail "gio: $f is $got, want $want"
  done
fi
echo "OK: $n traces recognised by content, ${#others[@]} other files not claimed"
