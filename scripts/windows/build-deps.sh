#!/usr/bin/env bash
# Fills the Windows dependency cache that scripts/windows/build.sh links against:
# static mingw-w64 builds of sqlite3, zstd, protobuf (libprotobuf only; code
# generation uses Debian's host protoc of the same version), libusb-1.0 and
# OpenSSL's libcrypto, all from Debian 12's own source packages. zlib comes
# from libz-mingw-w64-dev. Reuses the cache when it is complete.
#
#   scripts/windows/build-deps.sh          # prints the prefix on its last line
#   FATHOM_WIN_DEPS_ROOT=/elsewhere scripts/windows/build-deps.sh
#
# Needs root for apt (only when packages are missing). Builds with nice so the
# machine stays usable. Everything lands outside the work tree.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=deps-common.sh
source "$HERE/deps-common.sh"

JOBS="${JOBS:-$(nproc)}"
# NICE=10 keeps a shared machine responsive (the default shares it evenly).
NICE="${NICE:-0}"
start=$(date +%s)

# apt-get source needs deb-src lines; they go in a file of our own, with the
# same suites as the machine's own debian.sources, so nothing else is edited.
add_deb_src() {
  local f=/etc/apt/sources.list.d/fathom-deb-src.sources
  [ -f "$f" ] && return 0
  local src=/etc/apt/sources.list.d/debian.sources
  if [ -f "$src" ]; then
    sed -e 's/^Types: deb$/Types: deb-src/' "$src" > "$f"
  else
    printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: bookworm bookworm-updates\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' > "$f"
  fi
  apt-get update -qq
}

# Unpacks source package $1 under $SRC and prints its directory.
fetch_source() {
  local pkg=$1
  mkdir -p "$SRC/$pkg"
  local dir
  dir=$(find "$SRC/$pkg" -mindepth 1 -maxdepth 1 -type d | head -n1)
  if [ -z "$dir" ]; then
    # The newest source first; a security update's source is sometimes not yet on the
    # mirror, then the release suite's (the recipe does not depend on the point release).
    (cd "$SRC/$pkg" && { apt-get source -qq "$pkg" >/dev/null 2>&1 ||
       { rm -rf ./*; apt-get source -qq "$pkg/bookworm" >/dev/null; }; })
    dir=$(find "$SRC/$pkg" -mindepth 1 -maxdepth 1 -type d | head -n1)
  fi
  echo "$dir"
}

build_zstd() {
  [ -f "$PREFIX/lib/libzstd.a" ] && return 0
  local s; s=$(fetch_source libzstd)
  cmake -S "$s/build/cmake" -B "$WORK/zstd" -G Ninja "${CMAKE_CROSS[@]}" \
    -DZSTD_BUILD_PROGRAMS=OFF -DZSTD_BUILD_SHARED=OFF -DZSTD_BUILD_STATIC=ON \
    -DZSTD_BUILD_TESTS=OFF -DZSTD_MULTITHREAD_SUPPORT=ON -DZSTD_LEGACY_SUPPORT=OFF
  nice -n "$NICE" cmake --build "$WORK/zstd" -j"$JOBS"
  cmake --install "$WORK/zstd"
}

# Debian's sqlite3 source is the full tree. Its Makefile builds its code generators
# (lemon, mksourceid) with the target compiler when cross-compiling, so the
# amalgamation (sqlite3.c) is made by a native configure, then cross-compiled alone.
build_sqlite() {
  [ -f "$PREFIX/lib/libsqlite3.a" ] && return 0
  local s; s=$(fetch_source sqlite3)
  mkdir -p "$WORK/sqlite3" && cd "$WORK/sqlite3"
  [ -f Makefile ] || "$s/configure" --disable-tcl --disable-readline >/dev/null
  nice -n "$NICE" make sqlite3.c >/dev/null
  # Debian's own CFLAGS and configure options (debian/rules), so SQL behaves the same
  # (LIKE on blobs, soundex, math functions, ...) as with libsqlite3-dev on Linux.
  local flags=(-O2 -fno-strict-aliasing -DSQLITE_SECURE_DELETE -DSQLITE_ENABLE_COLUMN_METADATA
    -DSQLITE_ENABLE_FTS3 -DSQLITE_ENABLE_FTS3_PARENTHESIS -DSQLITE_ENABLE_RTREE=1
    -DSQLITE_SOUNDEX=1 -DSQLITE_ENABLE_UNLOCK_NOTIFY -DSQLITE_OMIT_LOOKASIDE=1
    -DSQLITE_ENABLE_DBSTAT_VTAB -DSQLITE_ALLOW_ROWID_IN_VIEW -DSQLITE_ENABLE_UPDATE_DELETE_LIMIT=1
    -DSQLITE_ENABLE_LOAD_EXTENSION -DSQLITE_ENABLE_JSON1 -DSQLITE_LIKE_DOESNT_MATCH_BLOBS
    -DSQLITE_THREADSAFE=1 -DSQLITE_ENABLE_FTS3_TOKENIZER=1 -DSQLITE_USE_URI=1
    -DSQLITE_MAX_SCHEMA_RETRY=25 -DSQLITE_ENABLE_PREUPDATE_HOOK -DSQLITE_ENABLE_SESSION
    -DSQLITE_ENABLE_STMTVTAB -DSQLITE_MAX_VARIABLE_NUMBER=250000
    -DSQLITE_ENABLE_FTS4 -DSQLITE_ENABLE_FTS5 -DSQLITE_ENABLE_MATH_FUNCTIONS)
  nice -n "$NICE" $TRIPLE-gcc-posix "${flags[@]}" -c sqlite3.c -o sqlite3-win.o
  install -d "$PREFIX/lib" "$PREFIX/include"
  rm -f "$PREFIX/lib/libsqlite3.a"
  $TRIPLE-ar rcs "$PREFIX/lib/libsqlite3.a" sqlite3-win.o
  cp sqlite3.h "$PREFIX/include/"
  [ -f sqlite3ext.h ] && cp sqlite3ext.h "$PREFIX/include/"
  cd - >/dev/null
}

build_libusb() {
  [ -f "$PREFIX/lib/libusb-1.0.a" ] && return 0
  local s; s=$(fetch_source libusb-1.0)
  mkdir -p "$WORK/libusb" && cd "$WORK/libusb"
  "$s/configure" --host=$TRIPLE --prefix="$PREFIX" --disable-shared --enable-static \
    --disable-udev --disable-examples-build --disable-tests-build
  nice -n "$NICE" make -j"$JOBS"
  make install
  cd - >/dev/null
}

# Only libprotobuf (full runtime: Fathom uses TextFormat); protoc stays the host's.
build_protobuf() {
  [ -f "$PREFIX/lib/libprotobuf.a" ] && return 0
  local s; s=$(fetch_source protobuf)
  cmake -S "$s/cmake" -B "$WORK/protobuf" -G Ninja "${CMAKE_CROSS[@]}" \
    -Dprotobuf_BUILD_TESTS=OFF -Dprotobuf_BUILD_PROTOC_BINARIES=OFF \
    -Dprotobuf_BUILD_SHARED_LIBS=OFF -Dprotobuf_WITH_ZLIB=OFF -Dprotobuf_BUILD_EXAMPLES=OFF \
    -Dprotobuf_BUILD_LIBPROTOC=OFF
  nice -n "$NICE" cmake --build "$WORK/protobuf" -j"$JOBS" --target libprotobuf
  cmake --install "$WORK/protobuf" 2>/dev/null || true
  # install() of a partial build may stop early: put what Fathom needs in place.
  install -d "$PREFIX/lib" "$PREFIX/include"
  cp "$WORK/protobuf/libprotobuf.a" "$PREFIX/lib/"
  (cd "$s/src" && find google -name '*.h' -o -name '*.inc' -o -name '*.proto' |
     while read -r f; do install -D -m644 "$f" "$PREFIX/include/$f"; done)
}

# libcrypto for adb's RSA keys (PKCS#8 PEM files shared with Google's adb,
# bignum maths of Android's public-key format) and record's MD5.
build_openssl() {
  [ -f "$PREFIX/lib/libcrypto.a" ] && return 0
  local s; s=$(fetch_source openssl)
  rm -rf "$WORK/openssl" && cp -a "$s" "$WORK/openssl" && cd "$WORK/openssl"
  # Only what adb and record need: RSA, SHA-1/MD5, PEM/PKCS#8. No TLS, no elliptic
  # curves, no legacy ciphers: about half of libcrypto's sources, half the build time.
  ./Configure mingw64 --cross-compile-prefix=$TRIPLE- --prefix="$PREFIX" --libdir=lib \
    no-shared no-module no-tests no-asm no-engine no-dso no-legacy no-ui-console \
    no-ssl no-tls no-dtls no-cmp no-ct no-ocsp no-srp no-cms no-ts no-sock no-async \
    no-idea no-seed no-camellia no-aria no-sm2 no-sm3 no-sm4 no-whirlpool no-mdc2 \
    no-rc2 no-rc4 no-rc5 no-md4 no-bf no-cast no-siphash no-scrypt no-ec no-dh no-dsa \
    no-des no-chacha no-poly1305 no-blake2 no-ocb no-siv no-rmd160 no-comp no-srtp \
    no-psk no-gost no-ktls no-multiblock no-sctp >/dev/null
  nice -n "$NICE" make -j"$JOBS" build_generated
  nice -n "$NICE" make -j"$JOBS" libcrypto.a
  install -d "$PREFIX/lib" "$PREFIX/include/openssl"
  cp libcrypto.a "$PREFIX/lib/"
  cp include/openssl/*.h "$PREFIX/include/openssl/"
  cd - >/dev/null
}

main() {
  if [ -f "$PREFIX/.complete" ]; then
    echo "build-deps: cache present ($PREFIX)"
    echo "$PREFIX"
    return 0
  fi
  install_missing build-deps "${WIN_PACKAGES[@]}"
  add_deb_src
  mkdir -p "$SRC" "$WORK" "$PREFIX"
  CMAKE_CROSS=(-DCMAKE_TOOLCHAIN_FILE="$HERE/mingw-w64.cmake" -DFATHOM_WIN_DEPS="$PREFIX"
               -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$PREFIX"
               -DCMAKE_C_COMPILER_LAUNCHER= -DCMAKE_CXX_COMPILER_LAUNCHER=)
  build_zstd
  # Two lanes: configure scripts wait on processes more than on the CPU, so the
  # autotools builds run beside the compile-heavy ones.
  (build_sqlite && build_libusb) > "$DEPS_DIR/lane2.log" 2>&1 &
  local lane2=$!
  build_openssl
  build_protobuf
  if ! wait "$lane2"; then
    tail -n 30 "$DEPS_DIR/lane2.log" >&2
    echo "build-deps: sqlite3/libusb failed (log: $DEPS_DIR/lane2.log)" >&2
    exit 1
  fi
  printf '%s\n' "${DEP_VERSIONS[@]}" > "$PREFIX/VERSIONS"
  touch "$PREFIX/.complete"
  echo "build-deps: built in $(( $(date +%s) - start )) s on $(nproc) cores ($PREFIX)"
  echo "$PREFIX"
}

main "$@"
