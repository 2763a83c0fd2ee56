#!/usr/bin/env bash
# Installs the Debian 12 packages Fathom builds and tests with, only those
# that are missing. Non-interactive; needs root (or sudo).
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config ccache
  protobuf-compiler libprotobuf-dev
  libsqlite3-dev zlib1g-dev libzstd-dev
  libusb-1.0-0-dev libssl-dev
  liblz4-dev libbrotli-dev
  qt6-base-dev qt6-svg-dev libqcustomplot-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  clang libclang-rt-14-dev
  xvfb xauth
  adb
  openjdk-17-jdk-headless
  desktop-file-utils shared-mime-info libxml2-utils librsvg2-bin
  libunwind8 libjemalloc2 heaptrack python3
  g++-aarch64-linux-gnu
  llvm
  chromium
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "setup: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "setup: missing packages (${missing[*]}) and not root; install them first" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
