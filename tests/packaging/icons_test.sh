#!/usr/bin/env bash
# resources/icons: every name other code uses as :/icons/<name>.svg exists,
# is in fathom.qrc, is a 24x24 SVG, and renders with Qt's SVG renderer (a
# contact sheet of all icons on light and dark backgrounds is written to
# $TMPDIR, useful to look at after changing an icon).
# usage: icons_test.sh RESOURCES_DIR [fathom-icon-render]
set -euo pipefail
res="$1"; render="${2:-}"
fail() { echo "FAIL: $*" >&2; exit 1; }
names="fathom open record stop timeline flamegraph query logs zoom-in zoom-out zoom-fit back
forward search export copy pin hide filter settings device usb computer refresh diamond warning
error run"
for n in $names; do
  svg="$res/icons/$n.svg"
  [ -f "$svg" ] || fail "missing icon $n"
  grep -q "<file>icons/$n.svg</file>" "$res/fathom.qrc" || fail "$n.svg not in fathom.qrc"
  grep -q 'viewBox="0 0 24 24"' "$svg" || fail "$n.svg: viewBox is not 0 0 24 24"
  xmllint --noout "$svg" || fail "$n.svg is not well-formed"
done
for f in "$res"/icons/*.svg; do
  grep -q "<file>icons/$(basename "$f")</file>" "$res/fathom.qrc" || fail "$f not in fathom.qrc"
done
xmllint --noout "$res/fathom.qrc" || fail "fathom.qrc is not well-formed"
if [ -x "$render" ]; then
  sheet="${TMPDIR:-/tmp}/fathom-icons-sheet.png"
  (cd "$res/icons" && "$render" sheet "$sheet" $(for n in $names; do echo "$n.svg"; done)) ||
    fail "an icon does not render"
  echo "contact sheet: $sheet"
fi
echo "OK: $(echo $names | wc -w) icons"
