#!/usr/bin/env bash
# Fills the Windows Qt cache that scripts/windows/build.sh builds fathom.exe with:
# shared mingw-w64 builds of Qt 6.4.2 qtbase (Core, Gui, Widgets, PrintSupport,
# Concurrent, Test and the windows platform plugin) and qtsvg, and QCustomPlot
# 2.1.0 against them, all from Debian 12's source packages. The host tools (moc,
# rcc, uic) are those of Debian's own Qt 6 of the same version (QT_HOST_PATH).
#
#   scripts/windows/build-qt-deps.sh       # prints the prefix on its last line
#
# Shared Qt, not static: the DLLs and plugins (platforms/qwindows.dll,
# imageformats/qsvg.dll) go next to fathom.exe as in any Qt for Windows
# install, so Qt's plugin loading, windeployqt and the LGPL's relinking clause
# work as documented; a static Qt needs every plugin imported by hand.
# Needs root for apt (only when packages are missing). NICE as in build-deps.sh.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=deps-common.sh
source "$HERE/deps-common.sh"
# shellcheck source=qt-common.sh
source "$HERE/qt-common.sh"

JOBS="${JOBS:-$(nproc)}"
NICE="${NICE:-0}"

# Unpacks source package $1 under $QT_SRC and prints its directory (deb-src lines:
# build-deps.sh adds them).
fetch_source() {
  local pkg=$1 dir
  mkdir -p "$QT_SRC/$pkg"
  dir=$(find "$QT_SRC/$pkg" -mindepth 1 -maxdepth 1 -type d | head -n1)
  if [ -z "$dir" ]; then
    (cd "$QT_SRC/$pkg" && apt-get source -qq "$pkg" >/dev/null) || return 1
    dir=$(find "$QT_SRC/$pkg" -mindepth 1 -maxdepth 1 -type d | head -n1)
  fi
  echo "$dir"
}

CROSS=(-G Ninja -DCMAKE_TOOLCHAIN_FILE="$HERE/mingw-w64.cmake" -DCMAKE_BUILD_TYPE=Release
       -DCMAKE_INSTALL_PREFIX="$QT_PREFIX" -DQT_HOST_PATH=/usr
       -DQT_HOST_PATH_CMAKE_DIR="$QT_HOST_CMAKE_DIR"
       # The toolchain's -static is for Fathom's executables; Qt's DLLs link the
       # mingw runtime DLLs, which build.sh copies next to them.
       -DCMAKE_EXE_LINKER_FLAGS=
       # The toolchain searches this prefix (qtsvg and QCustomPlot find Qt there).
       -DFATHOM_WIN_DEPS="$QT_PREFIX" -DCMAKE_C_COMPILER_LAUNCHER= -DCMAKE_CXX_COMPILER_LAUNCHER=)

# Only what Fathom uses (CMakeLists.txt: Widgets Svg Concurrent Test PrintSupport);
# everything else off to halve the build. Bundled third-party code (zlib, pcre2,
# libpng, harfbuzz, ...) so nothing else needs cross-building.
build_qtbase() {
  [ -f "$QT_PREFIX/lib/cmake/Qt6Widgets/Qt6WidgetsConfig.cmake" ] && return 0
  local s; s=$(fetch_source qt6-base)
  # Qt 6.4's Gui has its DirectWrite font engine and database only with Direct2D
  # on, but PrintSupport and the windows platform plugin test DirectWrite alone
  # and fail to link with Direct2D off (not needed: its platform plugin only).
  # Their guards get Gui's condition; idempotent (the pattern ends the line).
  sed -i 's/^#if QT_CONFIG(directwrite)$/#if QT_CONFIG(directwrite) \&\& QT_CONFIG(direct2d)/' \
    "$s/src/printsupport/platform/windows/qprintengine_win.cpp"
  sed -i 's/^#if QT_CONFIG(directwrite3)$/#if QT_CONFIG(directwrite3) \&\& QT_CONFIG(direct2d)/' \
    "$s/src/plugins/platforms/windows/qwindowsintegration.cpp"
  # Debian's source drops the Wintab header (src/3rdparty/wintab, not free): the
  # windows platform plugin goes without Wintab tablets (pens still arrive as
  # WM_POINTER input, which the plugin reads without it).
  local w="$s/src/plugins/platforms/windows"
  sed -i 's|QT_CONFIG(tabletevent)|0 /* no wintab.h in Debian source */|' \
    "$w/qwindowscontext.cpp" "$w/qwindowspointerhandler.cpp" "$w/qwindowspointerhandler.h"
  sed -i 's/CONDITION QT_FEATURE_tabletevent/CONDITION FALSE AND QT_FEATURE_tabletevent/' \
    "$w/CMakeLists.txt"
  # dynamicgl (on by default) without opengl: its one use does not compile.
  sed -i 's/^#if QT_CONFIG(dynamicgl)$/#if QT_CONFIG(dynamicgl) \&\& QT_CONFIG(opengl)/' \
    "$w/qwindowswindow.cpp"
  [ -f "$QT_WORK/qtbase/CMakeCache.txt" ] ||
  cmake -S "$s" -B "$QT_WORK/qtbase" "${CROSS[@]}" -DBUILD_SHARED_LIBS=ON \
    -DQT_BUILD_EXAMPLES=OFF -DQT_BUILD_TESTS=OFF -DQT_BUILD_BENCHMARKS=OFF \
    -DFEATURE_sql=OFF -DFEATURE_network=OFF -DFEATURE_dbus=OFF -DFEATURE_opengl=OFF \
    -DFEATURE_vulkan=OFF -DFEATURE_direct2d=OFF -DFEATURE_freetype=OFF \
    -DFEATURE_fontconfig=OFF -DFEATURE_icu=OFF -DFEATURE_glib=OFF -DFEATURE_zstd=OFF \
    -DFEATURE_openssl=OFF -DFEATURE_printsupport=ON -DFEATURE_concurrent=ON \
    -DFEATURE_testlib=ON -DFEATURE_widgets=ON -DFEATURE_gui=ON \
    -DFEATURE_system_zlib=OFF -DFEATURE_system_pcre2=OFF -DFEATURE_system_png=OFF \
    -DFEATURE_system_jpeg=OFF -DFEATURE_system_harfbuzz=OFF -DFEATURE_system_doubleconversion=OFF
  nice -n "$NICE" cmake --build "$QT_WORK/qtbase" -j"$JOBS"
  cmake --install "$QT_WORK/qtbase"
}

# qtsvg: the Svg module (icons) and imageformats/qsvg.dll, iconengines/qsvgicon.dll.
build_qtsvg() {
  [ -f "$QT_PREFIX/lib/cmake/Qt6Svg/Qt6SvgConfig.cmake" ] && return 0
  # Called in a condition (main), where set -e does not hold: every step checked.
  local s; s=$(fetch_source qt6-svg) && [ -n "$s" ] || return 1
  if [ ! -f "$QT_WORK/qtsvg/CMakeCache.txt" ]; then
    cmake -S "$s" -B "$QT_WORK/qtsvg" "${CROSS[@]}" -DCMAKE_PREFIX_PATH="$QT_PREFIX" \
      -DQT_BUILD_EXAMPLES=OFF -DQT_BUILD_TESTS=OFF || return 1
  fi
  nice -n "$NICE" cmake --build "$QT_WORK/qtsvg" -j"$JOBS" || return 1
  cmake --install "$QT_WORK/qtsvg"
}

# Debian's CMake build of QCustomPlot (a DLL). Its exported target does not say
# that users import the symbols (QCUSTOMPLOT_USE_LIBRARY, Q_DECL_IMPORT on
# Windows), so the installed config adds it.
build_qcustomplot() {
  local cfg="$QT_PREFIX/lib/cmake/QCustomPlotQt6/QCustomPlotQt6Config.cmake"
  [ -f "$cfg" ] && return 0
  local s; s=$(fetch_source qcustomplot)
  [ -f "$QT_WORK/qcustomplot/CMakeCache.txt" ] ||
  cmake -S "$s" -B "$QT_WORK/qcustomplot" "${CROSS[@]}" -DCMAKE_PREFIX_PATH="$QT_PREFIX" \
    -DUSE_QT_VERSION=6 -DCMAKE_INSTALL_LIBDIR=lib
  nice -n "$NICE" cmake --build "$QT_WORK/qcustomplot" -j"$JOBS"
  cmake --install "$QT_WORK/qcustomplot"
  printf '%s\n' "set_property(TARGET QCustomPlotQt6::QCustomPlotQt6 APPEND PROPERTY" \
    "  INTERFACE_COMPILE_DEFINITIONS QCUSTOMPLOT_USE_LIBRARY)" >> "$cfg"
}

# Runs "$@", says how long it took, and keeps its exit status.
timed() {
  local t rc=0; t=$(date +%s)
  "$@" || rc=$?
  echo "build-qt-deps: $1 took $(( $(date +%s) - t )) s"
  return $rc
}

main() {
  if [ -f "$QT_PREFIX/.complete" ]; then
    echo "build-qt-deps: cache present ($QT_PREFIX)"
    echo "$QT_PREFIX"
    return 0
  fi
  local start; start=$(date +%s)
  install_missing build-qt-deps "${WIN_PACKAGES[@]}" "${QT_HOST_PACKAGES[@]}"
  mkdir -p "$QT_SRC" "$QT_WORK" "$QT_PREFIX"
  timed build_qtbase
  timed build_qcustomplot
  # Debian's archive as reached where this recipe was written serves qt6-svg's .dsc
  # but answers 404 for both its tarballs, to apt-get source as to anything else
  # (bookworm has no other qt6-svg): without qtsvg fathom.exe still builds and runs,
  # only its SVG icons stay blank, so the cache is usable but not marked complete.
  if ! timed build_qtsvg; then
    echo "build-qt-deps: qtsvg not built (apt-get source qt6-svg failed?): SVG icons will be blank" >&2
    echo "$QT_PREFIX"
    return 0
  fi
  printf '%s\n' "${QT_DEP_VERSIONS[@]}" > "$QT_PREFIX/VERSIONS"
  touch "$QT_PREFIX/.complete"
  echo "build-qt-deps: built in $(( $(date +%s) - start )) s on $(nproc) cores ($QT_PREFIX)"
  echo "$QT_PREFIX"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  main "$@"
fi
