# Shared by build-qt-deps.sh and build.sh: where the Windows Qt cache is. Separate
# from the CLI's cache (deps-common.sh) so either can be rebuilt alone; the name
# carries the versions (bump QT_DEPS_REV when the recipe changes).
QT_DEPS_REV=1
QT_DEP_VERSIONS=(qtbase-6.4.2 qtsvg-6.4.2 qcustomplot-2.1.0 rev$QT_DEPS_REV)
_qkey=$(IFS=_; echo "${QT_DEP_VERSIONS[*]}")
QT_DIR="${FATHOM_WIN_DEPS_ROOT:-$HOME/.cache/fathom}/windows-qt-$_qkey"
QT_PREFIX="$QT_DIR/prefix"
QT_SRC="$QT_DIR/src"
QT_WORK="$QT_DIR/build"
# Debian's Qt 6 of the same version supplies the host tools (moc, rcc, uic, ...).
QT_HOST_PACKAGES=(qt6-base-dev qt6-base-dev-tools qt6-svg-dev)
QT_HOST_CMAKE_DIR=/usr/lib/x86_64-linux-gnu/cmake
