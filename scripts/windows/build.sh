#!/usr/bin/env bash
# Cross-builds Fathom for 64-bit Windows into build-win/ with Debian's mingw-w64:
# build-win/bin/fathom-cli.exe, a static executable that needs no DLLs besides
# Windows' own, so the folder runs from any location. The dependencies come from
# the cache that scripts/windows/build-deps.sh fills (built first when missing,
# unless FATHOM_WIN_NO_DEPS_BUILD=1). Extra arguments go to cmake's configure;
# FATHOM_WIN_OPT (default -O2) is the optimisation level of the first configure.
# FATHOM_WIN_GUI=1 builds the window too, build-win/bin/fathom.exe, against the Qt
# cache of scripts/windows/build-qt-deps.sh (built first when missing, same rule),
# and puts Qt's DLLs and plugins next to it (deploy-qt.sh). Off by default: the
# Qt cache takes long to build and test.sh's Windows step needs the CLI only.
#   scripts/windows/build.sh            # then: tests/windows/wine_cli_test.sh
#   FATHOM_WIN_GUI=1 scripts/windows/build.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
HERE=$ROOT/scripts/windows
# shellcheck source=deps-common.sh
source "$HERE/deps-common.sh"
if [ ! -f "$PREFIX/.complete" ]; then
  if [ "${FATHOM_WIN_NO_DEPS_BUILD:-0}" = 1 ]; then
    echo "windows: no dependency cache at $PREFIX (scripts/windows/build-deps.sh)" >&2
    exit 1
  fi
  "$HERE/build-deps.sh"
fi
# shellcheck source=qt-common.sh
source "$HERE/qt-common.sh"
GUI=${FATHOM_WIN_GUI:-0}
BUILD=${FATHOM_WIN_BUILD_DIR:-$ROOT/build-win}
ICON_RENDER=
gui_args=(-DFATHOM_BUILD_GUI=OFF)
if [ "$GUI" = 1 ]; then
  if [ ! -f "$QT_PREFIX/lib/cmake/QCustomPlotQt6/QCustomPlotQt6Config.cmake" ]; then
    if [ "${FATHOM_WIN_NO_DEPS_BUILD:-0}" = 1 ]; then
      echo "windows: no Qt cache at $QT_PREFIX (scripts/windows/build-qt-deps.sh)" >&2
      exit 1
    fi
    "$HERE/build-qt-deps.sh"
  fi
  # Qt's host tools (moc, rcc, uic) are Debian's own Qt 6 of the same version.
  gui_args=(-DFATHOM_BUILD_GUI=ON -DFATHOM_WIN_QT="$QT_PREFIX" -DQT_HOST_PATH=/usr
            -DQT_HOST_PATH_CMAKE_DIR="$QT_HOST_CMAKE_DIR")
  # The cached Qt has no QtSvg (packaging/README.md): the icons go in as PNGs, and
  # fathom.exe gets its .ico, rendered by fathom-icon-render built for this machine
  # with Debian's qt6-svg-dev (resources/icon_pngs.cmake). Without it they stay blank.
  if [ -f "$QT_HOST_CMAKE_DIR/Qt6Svg/Qt6SvgConfig.cmake" ]; then
    cmake -S "$ROOT/packaging/tools" -B "$BUILD/host-tools" -G Ninja \
      -DCMAKE_BUILD_TYPE=Release >/dev/null
    cmake --build "$BUILD/host-tools" >/dev/null
    ICON_RENDER=$BUILD/host-tools/fathom-icon-render
    gui_args+=(-DFATHOM_ICON_RENDER="$ICON_RENDER")
  else
    echo "windows: no qt6-svg-dev on this machine: fathom.exe's icons stay blank" >&2
  fi
fi
export CCACHE_BASEDIR="$ROOT"
# The target's pkg-config files only (libzstd, libusb-1.0), never the build machine's.
export PKG_CONFIG_LIBDIR="$PREFIX/lib/pkgconfig"
unset PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR
if [ ! -f "$BUILD/CMakeCache.txt" ]; then
  # The protos are generated with the build machine's protoc (same 3.21 as the
  # cross-built libprotobuf); everything else is found in the cache's prefix.
  cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_TOOLCHAIN_FILE="$HERE/mingw-w64.cmake" -DFATHOM_WIN_DEPS="$PREFIX" \
    -DFATHOM_BUILD_TESTS=OFF -DFATHOM_BUILD_BENCH=OFF -DFATHOM_BUILD_DEVICE=OFF \
    "${gui_args[@]}" \
    -DProtobuf_PROTOC_EXECUTABLE=/usr/bin/protoc \
    -DProtobuf_INCLUDE_DIR="$PREFIX/include" -DProtobuf_LIBRARY="$PREFIX/lib/libprotobuf.a" \
    -DOPENSSL_USE_STATIC_LIBS=ON \
    -DZLIB_LIBRARY=/usr/$TRIPLE/lib/libz.a -DZLIB_INCLUDE_DIR=/usr/$TRIPLE/include \
    -DOPENSSL_ROOT_DIR="$PREFIX" -DSQLite3_INCLUDE_DIR="$PREFIX/include" \
    -DSQLite3_LIBRARY="$PREFIX/lib/libsqlite3.a" \
    "-DCMAKE_CXX_FLAGS_RELEASE=${FATHOM_WIN_OPT:--O2} -DNDEBUG" \
    "-DCMAKE_C_FLAGS_RELEASE=${FATHOM_WIN_OPT:--O2} -DNDEBUG" \
    "$@"
elif [ "$GUI" = 1 ] && ! grep -q '^FATHOM_BUILD_GUI:BOOL=ON' "$BUILD/CMakeCache.txt"; then
  cmake -S "$ROOT" -B "$BUILD" "${gui_args[@]}"    # a CLI-only build dir gains the GUI
elif [ -n "$ICON_RENDER" ] && ! grep -qF "FATHOM_ICON_RENDER:FILEPATH=$ICON_RENDER" \
       "$BUILD/CMakeCache.txt"; then
  cmake -S "$ROOT" -B "$BUILD" "${gui_args[@]}"    # a GUI build dir from before the PNG icons
fi
start=$(date +%s)
targets=(fathom-cli)
[ "$GUI" = 1 ] && targets+=(fathom)
cmake --build "$BUILD" -j "${JOBS:-$(nproc)}" --target "${targets[@]}"
if [ "$GUI" = 1 ]; then
  "$HERE/deploy-qt.sh" "$BUILD/bin" "$QT_PREFIX"
  echo "windows: $BUILD/bin/fathom.exe ($(stat -c %s "$BUILD/bin/fathom.exe") bytes)"
fi
# FATHOM_WIN_PACKAGE=1: the installer and zip too (makensis from Debian's nsis): a 64-bit
# installer (packaging/Windows.cmake), tested under wine64 by tests/windows/installer_test.sh.
if [ "${FATHOM_WIN_PACKAGE:-0}" = 1 ] && command -v makensis >/dev/null; then
  (cd "$BUILD" && cpack -G NSIS >/dev/null && cpack -G ZIP >/dev/null) &&
    echo "windows: $(ls "$BUILD"/fathom-*-win64.exe) ($(stat -c %s "$BUILD"/fathom-*-win64.exe) bytes)"
fi
echo "windows: $BUILD/bin/fathom-cli.exe ($(stat -c %s "$BUILD/bin/fathom-cli.exe") bytes," \
     "built in $(( $(date +%s) - start )) s)"
