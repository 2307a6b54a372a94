#!/usr/bin/env bash
# Build dependencies for a machine without network (the GPU machine: Ubuntu
# with CUDA, CMake and a compiler, but no liburing, hwloc, xxHash, toml++ or
# Criterion, and no apt access).
#
#   scripts/offline-deps.sh download [DIR]   # on a Debian 12 machine with apt:
#                                             # fetch the .deb files into DIR
#   scripts/offline-deps.sh extract [DIR]    # on the offline machine: unpack
#                                             # them into DIR/prefix (never /)
#   . DIR/env.sh                              # then: PKG_CONFIG_PATH, CMAKE_*,
#                                             # for a normal cmake configure
#
# DIR defaults to .deps in the repository root (ignored by git). Packages are
# unpacked with dpkg -x, so nothing is installed system-wide; their .pc files
# are rewritten to point into the prefix. Libraries the libraries need that
# the machine already has (same soname in ldconfig's cache) are not
# unpacked, so the prefix never shadows the system's copies. env.sh asks the
# linker for DT_RPATH (not RUNPATH), which applies to indirect dependencies
# too, so the test programs find libcriterion's libraries in the prefix
# without LD_LIBRARY_PATH.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cmd=${1:-}
dir=${2:-$root/.deps}

# What the build links (always unpacked: headers and the library they match).
direct=(
  liburing-dev liburing2
  libhwloc-dev libhwloc15
  libxxhash-dev libxxhash0
  libtomlplusplus-dev libtomlplusplus3
  libjansson-dev libjansson4
  libblosc-dev libblosc1
  libzfp-dev libzfp1
  libcriterion-dev libcriterion3
)
# What those libraries need in turn (Criterion: libgit2, nanomsg and theirs;
# c-blosc: lz4, snappy, zstd, zlib; zfp: OpenMP's runtime): unpacked only
# where the machine lacks them.
indirect=(
  liblz4-1 libsnappy1v5 libzstd1 zlib1g libgomp1
  libgit2-1.5 libnanomsg5 libhttp-parser2.9 libmbedcrypto7 libmbedtls14 libmbedx509-1
  libssh2-1 libgssapi-krb5-2 libkrb5-3 libk5crypto3 libkrb5support0 libcom-err2
  libkeyutils1 libffi8 libpcre2-8-0
)
# pkg-config itself, for a machine without one.
tools=(pkgconf pkgconf-bin libpkgconf3)

die() { echo "offline-deps: $*" >&2; exit 1; }

download() {
  command -v apt-get >/dev/null || die "download needs apt-get (a Debian 12 machine)"
  mkdir -p "$dir/debs"
  cd "$dir/debs"
  # (as root, apt warns that its _apt user cannot write here: harmless)
  apt-get download "${direct[@]}" "${indirect[@]}" "${tools[@]}" 2> >(grep -v "unsandboxed as root" >&2) >/dev/null ||
    die "apt-get download failed (run 'apt-get update' first?)"
  echo "offline-deps: $(ls ./*.deb | wc -l) packages, $(du -sh . | cut -f1) in $dir/debs" >&2
}

# The package name of a .deb file (dpkg-deb may be missing on the target:
# the file name is NAME_VERSION_ARCH.deb).
pkg_of() { basename "$1" | cut -d_ -f1; }

in_list() {
  local x=$1; shift
  for y in "$@"; do [ "$x" = "$y" ] && return 0; done
  return 1
}

# 0 when every shared library in the .deb is already known to the loader.
# Its sonames are the symlinks (libfoo.so.1 -> libfoo.so.1.2.3), which is
# what ldconfig's cache lists.
system_has_libs() {
  local deb=$1 tmp libs=0 have=0
  tmp=$(mktemp -d)
  dpkg -x "$deb" "$tmp"
  while IFS= read -r so; do
    libs=$((libs + 1))
    ldconfig -p | grep -q "^[[:space:]]*$(basename "$so") " && have=$((have + 1))
  done < <(find "$tmp" -name '*.so.*' -type l)
  rm -rf "$tmp"
  [ "$libs" -gt 0 ] && [ "$have" -eq "$libs" ]
}

extract() {
  command -v dpkg >/dev/null || die "extract needs dpkg (dpkg -x)"
  [ -d "$dir/debs" ] || die "no $dir/debs: run 'scripts/offline-deps.sh download' on a machine with apt first"
  local prefix=$dir/prefix
  rm -rf "$prefix"
  mkdir -p "$prefix"
  # OFFLINE_DEPS_ALL=1 unpacks everything (to try the prefix on a machine
  # that has the packages installed).
  local all=${OFFLINE_DEPS_ALL:-0} need_pkgconf=0
  command -v pkg-config >/dev/null || need_pkgconf=1
  [ "$all" -eq 1 ] && need_pkgconf=1
  for deb in "$dir"/debs/*.deb; do
    p=$(pkg_of "$deb")
    if in_list "$p" "${tools[@]}"; then
      [ "$need_pkgconf" -eq 1 ] || continue
    elif in_list "$p" "${indirect[@]}" && [ "$all" -ne 1 ]; then
      if system_has_libs "$deb"; then
        echo "offline-deps: $p: the system has its libraries, not unpacked" >&2
        continue
      fi
    fi
    dpkg -x "$deb" "$prefix"
  done
  # .pc files: /usr -> the prefix; drop Requires.private (Criterion names
  # boxfort, libffi, libgit2 and nanomsg there, whose -dev files we do not
  # need for dynamic linking).
  find "$prefix" -name '*.pc' -print0 | while IFS= read -r -d '' pc; do
    sed -i -E -e "s#^([A-Za-z_]+)=/usr#\1=$prefix/usr#" -e '/^Requires\.private:/d' "$pc"
  done
  local lib=$prefix/usr/lib/x86_64-linux-gnu
  {
    echo "# Written by scripts/offline-deps.sh extract; source it before cmake."
    echo "export PKG_CONFIG_PATH=\"$lib/pkgconfig:$prefix/usr/share/pkgconfig\${PKG_CONFIG_PATH:+:\$PKG_CONFIG_PATH}\""
    echo "export CMAKE_PREFIX_PATH=\"$prefix/usr\${CMAKE_PREFIX_PATH:+:\$CMAKE_PREFIX_PATH}\""
    echo "export LDFLAGS=\"-Wl,--disable-new-dtags -Wl,-rpath,$lib\${LDFLAGS:+ \$LDFLAGS}\""
    if [ "$need_pkgconf" -eq 1 ]; then
      mkdir -p "$prefix/bin"
      printf '#!/bin/sh\nLD_LIBRARY_PATH="%s" exec "%s/usr/bin/pkgconf" "$@"\n' "$lib" "$prefix" \
        > "$prefix/bin/pkg-config"
      chmod +x "$prefix/bin/pkg-config"
      echo "export PKG_CONFIG=\"$prefix/bin/pkg-config\""
      echo "export PATH=\"$prefix/bin:\$PATH\""
    fi
  } > "$dir/env.sh"
  echo "offline-deps: unpacked into $prefix; now: . $dir/env.sh" >&2
}

case "$cmd" in
  download) download ;;
  extract) extract ;;
  *) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
