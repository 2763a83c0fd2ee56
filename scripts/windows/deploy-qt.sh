#!/usr/bin/env bash
# Puts what fathom.exe needs at run time next to it, as windeployqt would (Debian's
# Qt has no windeployqt for a Linux host): the Qt plugins a Windows GUI loads
# (platforms/qwindows.dll, styles/, imageformats/, iconengines/), then every DLL
# that the executable and those plugins import, found by following their import
# tables through the Qt prefix and the mingw-w64 runtime (libstdc++, libgcc_s,
# libwinpthread, which Qt's DLLs link).
#   scripts/windows/deploy-qt.sh BIN_DIR QT_PREFIX
set -euo pipefail
BIN=$1 QT=$2
TRIPLE=x86_64-w64-mingw32
SEARCH=("$QT/bin" "$(dirname "$($TRIPLE-g++-posix -print-libgcc-file-name)")"
        /usr/$TRIPLE/lib)
for d in platforms styles imageformats iconengines; do
  [ -d "$QT/plugins/$d" ] || continue
  mkdir -p "$BIN/$d"
  cp -u "$QT/plugins/$d"/*.dll "$BIN/$d/" 2>/dev/null || true
done

imports() { $TRIPLE-objdump -p "$1" | sed -n 's/^\s*DLL Name: //p'; }

# Breadth-first over import tables; DLLs not in SEARCH are Windows' own.
queue=("$BIN/fathom.exe" "$BIN"/*/*.dll)
while [ ${#queue[@]} -gt 0 ]; do
  f=${queue[0]}; queue=("${queue[@]:1}")
  while read -r dll; do
    [ -e "$BIN/$dll" ] && continue
    for d in "${SEARCH[@]}"; do
      # Import names are case-insensitive on Windows; files here keep their case.
      src=$(find "$d" -maxdepth 1 -iname "$dll" -print -quit 2>/dev/null)
      if [ -n "$src" ]; then cp "$src" "$BIN/$dll"; queue+=("$BIN/$dll"); break; fi
    done
  done < <(imports "$f")
done
echo "deploy-qt: $(find "$BIN" -name '*.dll' | wc -l) DLLs next to $BIN/fathom.exe"
