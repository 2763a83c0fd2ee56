#!/usr/bin/env bash
# The .deb end to end: cpack packages what the build dir already holds, the
# control fields and file list are checked, every library the binaries link
# comes from a package the .deb depends on, and the binaries unpacked with
# dpkg -x run (--version, `info` on the shipped sample, an offscreen
# screenshot of it).
# usage: deb_test.sh CPACK BUILD_DIR VERSION
set -euo pipefail
cpack="$1"; build="$2"; version="$3"
fail() { echo "FAIL: $*" >&2; exit 1; }
for f in bin/fathom bin/fathom-cli; do
  [ -x "$build/$f" ] || fail "$build/$f is not built (build everything first)"
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
t0=$(date +%s)
if ! "$cpack" -G DEB --config "$build/CPackConfig.cmake" -B "$tmp/out" > "$tmp/cpack.log" 2>&1; then
  cat "$tmp/cpack.log"; fail "cpack -G DEB failed"
fi
debs=("$tmp"/out/*.deb)
[ ${#debs[@]} = 1 ] && [ -f "${debs[0]}" ] || fail "expected one .deb in $tmp/out"
deb="${debs[0]}"
echo "cpack: $(basename "$deb"), $(stat -c %s "$deb") bytes, $(($(date +%s) - t0)) s"

# Control fields.
field() { dpkg-deb -f "$deb" "$1"; }
[ "$(field Package)" = fathom ] || fail "Package: $(field Package)"
[ "$(field Version)" = "$version" ] || fail "Version: $(field Version), want $version"
[ "$(field Architecture)" = "$(dpkg --print-architecture)" ] || fail "Architecture: $(field Architecture)"
[ "$(field Section)" = devel ] || fail "Section: $(field Section)"
[ -n "$(field Maintainer)" ] || fail "no Maintainer"
[ -n "$(field Description)" ] || fail "no Description"
control=$(dpkg-deb -I "$deb")
grep -q ' postinst' <<< "$control" || fail "no postinst (udev trigger)"
depends=$(field Depends)
echo "Depends: $depends"
dep_names=$(echo "$depends" | tr ',|' '\n\n' | sed 's/(.*//; s/:.*//; s/ //g' | sort -u)
has_dep() { grep -qx "$1" <<< "$dep_names"; }
for p in libqt6core6 libqt6gui6 libqt6widgets6 libqt6svg6 libsqlite3-0 zlib1g libzstd1 libc6; do
  has_dep "$p" || fail "Depends lacks $p"
done

# File list: what must be there, and nothing else at the top of /usr/bin or
# outside /usr (no headers, static libraries or test binaries).
dpkg-deb -c "$deb" | awk '{print $1, $6}' > "$tmp/list"
paths=$(awk '{print $2}' "$tmp/list" | sed 's,^\./,/,; s,/$,,')
expect=(/usr/bin/fathom /usr/bin/fathom-cli
  /usr/share/applications/fathom.desktop /usr/share/mime/packages/fathom.xml
  /usr/share/icons/hicolor/scalable/apps/fathom.svg
  /usr/share/icons/hicolor/scalable/mimetypes/application-x-perfetto-trace.svg
  /usr/lib/udev/rules.d/70-fathom-adb.rules
  /usr/share/doc/fathom/README.md /usr/share/doc/fathom/sample/NOTICE
  /usr/share/fathom/sample/sample.pftrace)
for s in 16 22 24 32 48 64 128 256; do
  expect+=("/usr/share/icons/hicolor/${s}x${s}/apps/fathom.png")
done
while read -r f; do
  [ -n "$f" ] && expect+=("/usr/$f")
done < "$build/packaging/device-files.txt"
for f in "${expect[@]}"; do
  grep -qx "$f" <<< "$paths" || fail "package lacks $f"
done
for f in /usr/bin/fathom /usr/bin/fathom-cli; do
  grep -q "^-rwxr-xr-x \.$f\$" "$tmp/list" || fail "$f is not an executable file"
done
unexpected=$(echo "$paths" | grep -vE '^(/usr(/(bin|lib|share)(/.*)?)?|)$' || true)
[ -z "$unexpected" ] || fail "unexpected paths: $unexpected"
extra_bin=$(echo "$paths" | grep -E '^/usr/bin/' | grep -vxE '/usr/bin/fathom(-cli)?' || true)
[ -z "$extra_bin" ] || fail "unexpected programs: $extra_bin"
bad=$(echo "$paths" | grep -E '/include/|\.a$|/cmake/|gtest|bench' || true)
[ -z "$bad" ] || fail "development files in the package: $bad"
echo "files: $(grep -vc '^d' "$tmp/list") files, all ${#expect[@]} expected ones present"

# Unpack and run.
root="$tmp/root"
dpkg -x "$deb" "$root"
out=$("$root/usr/bin/fathom-cli" --version) || fail "fathom-cli --version failed"
[[ "$out" == *"$version"* ]] || fail "fathom-cli --version: $out"
out=$(QT_QPA_PLATFORM=offscreen "$root/usr/bin/fathom" --version) || fail "fathom --version failed"
[[ "$out" == *"$version"* ]] || fail "fathom --version: $out"
"$root/usr/bin/fathom-cli" info "$root/usr/share/fathom/sample/sample.pftrace" > "$tmp/info" ||
  fail "unpacked fathom-cli info on the shipped sample failed"
QT_QPA_PLATFORM=offscreen timeout 45 "$root/usr/bin/fathom" --screenshot "$tmp/shot.png" \
  --size 800x500 "$root/usr/share/fathom/sample/sample.pftrace" > "$tmp/gui.log" 2>&1 ||
  { cat "$tmp/gui.log"; fail "unpacked fathom --screenshot failed"; }
[ "$(head -c4 "$tmp/shot.png" | od -An -tx1 | tr -d ' ')" = 89504e47 ] || fail "no PNG screenshot"
echo "unpacked: --version ok, info ok, screenshot $(stat -c %s "$tmp/shot.png") bytes"

# The portable archive holds the same tree and runs from where it is unpacked.
"$cpack" -G TGZ --config "$build/CPackConfig.cmake" -B "$tmp/tgz" > "$tmp/cpack-tgz.log" 2>&1 ||
  { cat "$tmp/cpack-tgz.log"; fail "cpack -G TGZ failed"; }
tgzs=("$tmp"/tgz/*.tar.gz)
[ -f "${tgzs[0]}" ] || fail "no .tar.gz"
mkdir "$tmp/portable"
tar -xzf "${tgzs[0]}" -C "$tmp/portable"
top=$(find "$tmp/portable" -mindepth 1 -maxdepth 1 -type d)
for f in bin/fathom bin/fathom-cli share/applications/fathom.desktop lib/udev/rules.d/70-fathom-adb.rules; do
  [ -e "$top/$f" ] || fail "$(basename "${tgzs[0]}") lacks $f"
done
out=$("$top/bin/fathom-cli" --version) || fail "portable fathom-cli --version failed"
echo "portable: $(basename "${tgzs[0]}") runs: $out"

# Every library a shipped ELF links must come from a package in Depends.
# (One dpkg -S for all libraries: each call reads the whole dpkg database.)
: > "$tmp/libs"
while IFS= read -r elf; do
  [ "$(head -c4 "$elf" | od -An -c | tr -d ' ')" = '177ELF' ] || continue
  needed=$(readelf -d "$elf" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
  while read -r soname arrow path _; do
    [ "$arrow" = "=>" ] || continue
    grep -qxF "$soname" <<< "$needed" || continue
    [ "$path" != "not" ] || fail "$elf: $soname not found on this system"
    echo "$(readlink -f "$path") $soname ${elf#"$root"}" >> "$tmp/libs"
  done < <(ldd "$elf")
done < <(find "$root" -type f)
[ -s "$tmp/libs" ] || fail "no linked library found"
# dpkg knows a library by the path its package ships (/lib or /usr/lib).
dpkg -S $(awk '{print $1; sub("^/usr", "", $1); print $1}' "$tmp/libs" | sort -u) \
  2> /dev/null | sed -E 's/^([^:, ]+)(:[^ :]+)?: /\1 /' > "$tmp/owners" || true
while read -r path soname elf; do
  pkg=$(awk -v p="$path" -v q="${path#/usr}" '$2 == p || $2 == q {print $1; exit}' "$tmp/owners")
  [ -n "$pkg" ] || fail "$elf: $soname ($path) belongs to no package"
  has_dep "$pkg" || fail "$elf links $soname from $pkg, which Depends lacks"
done < "$tmp/libs"
echo "OK: $(wc -l < "$tmp/libs") direct library links covered by Depends; total $(($(date +%s) - t0)) s"
