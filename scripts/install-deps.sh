#!/usr/bin/env bash
# Installs the Debian packages ebb's build and tests need, when any is missing.
# Idempotent and quiet when everything is present; uses sudo only when not root.
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  clang
  liburing-dev libhwloc-dev libxxhash-dev libtomlplusplus-dev libjansson-dev
  libblosc-dev libzfp-dev
  libcriterion-dev
  openmpi-bin libopenmpi-dev
  petsc-dev
  gfortran
  python3 python3-pytest python3-torch libopenblas0-pthread
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}" >&2
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
    echo "install-deps: not root and no sudo; install these packages: ${missing[*]}" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
