#!/usr/bin/env bash
# packaging/linux/fathom.desktop: desktop-file-validate (desktop-file-utils)
# and consistency with the MIME type and the icon set.
# usage: desktop_test.sh PACKAGING_LINUX_DIR ICONS_DIR
set -euo pipefail
linux="$1"; icons="$2"
desktop="$linux/fathom.desktop"
fail() { echo "FAIL: $*" >&2; exit 1; }

mime_type=$(sed -n 's/.*<mime-type type="\([^"]*\)".*/\1/p' "$linux/fathom-mime.xml")
[ -n "$mime_type" ] || fail "no mime-type in fathom-mime.xml"
grep -qx "MimeType=$mime_type;" "$desktop" || fail "desktop MimeType is not $mime_type"
icon=$(sed -n 's/^Icon=//p' "$desktop")
[ -f "$icons/$icon.svg" ] || fail "Icon=$icon has no $icons/$icon.svg"
grep -qx 'Exec=fathom %f' "$desktop" || fail "Exec must pass the file (%f) to fathom"

if ! command -v desktop-file-validate >/dev/null 2>&1; then
  echo "SKIP: desktop-file-validate not installed (package desktop-file-utils)"
  exit 77
fi
# It exits non-zero on errors only; warnings fail here too, hints do not.
out=$(desktop-file-validate "$desktop" 2>&1) || fail "desktop-file-validate: $out"
if grep -qiE '(error|warning):' <<< "$out"; then fail "desktop-file-validate: $out"; fi
echo "desktop-file-validate: no errors or warnings${out:+ (hints: $out)}"
