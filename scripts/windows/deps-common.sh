# Shared by build-deps.sh and build.sh: where the Windows dependency cache is.
# The cache name carries the versions it was built from (bump DEPS_REV when the
# recipe changes), so a new recipe never reuses an old cache.
TRIPLE=x86_64-w64-mingw32
WIN_PACKAGES=(g++-mingw-w64-x86-64-posix libz-mingw-w64-dev wine64 nsis dpkg-dev
              cmake ninja-build protobuf-compiler tcl pkg-config make perl)
# The Debian 12 source versions the recipe was written for (the cache key).
DEPS_REV=1
DEP_VERSIONS=(sqlite3-3.40.1 zstd-1.5.4 protobuf-3.21.12 libusb-1.0.26 openssl-3.0 rev$DEPS_REV)
_key=$(IFS=_; echo "${DEP_VERSIONS[*]}")
FATHOM_WIN_DEPS_ROOT="${FATHOM_WIN_DEPS_ROOT:-$HOME/.cache/fathom}"
DEPS_DIR="$FATHOM_WIN_DEPS_ROOT/windows-deps-$_key"
PREFIX="$DEPS_DIR/prefix"
SRC="$DEPS_DIR/src"
WORK="$DEPS_DIR/build"

# install_missing TAG PACKAGE...: apt-get installs those not installed (root).
install_missing() {
  local tag=$1 missing=()
  shift
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "$tag: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
}
