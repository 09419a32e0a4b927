#!/bin/sh
# tools/setup-deps.sh -- install the Debian packages ctorch builds and
# tests with, if any is missing.  Run by `make demo` and `make test`.
#
# Quiet and fast when everything is there (one dpkg-query call).  As root
# it runs `apt-get update` and installs what is missing; otherwise it
# prints the command to run and exits 1.  OpenMP comes from GCC's libgomp
# (part of gcc), so no libomp-dev; python3-torch is deliberately not
# installed (the differential tests use it only when it is present).
# iproute2 gives `ip netns` for the two-host tests, which run only as
# root (skipped otherwise), so only root asks for it.  OpenMPI (the
# compiler wrapper and headers, and mpirun) gives the "mpi" backend and
# its tests; a build without it still works, with that backend missing.
set -u

# The C toolchain: build-essential, or at least gcc + make + libc headers.
TOOLCHAIN_ALT="gcc make libc6-dev"
PACKAGES="python3 python3-dev python3-numpy python3-pytest python3-setuptools python3-venv
          libopenblas-dev libopenmpi-dev openmpi-bin"
[ "$(id -u)" -eq 0 ] && PACKAGES="$PACKAGES iproute2"

if ! command -v dpkg-query >/dev/null 2>&1; then
    echo "setup-deps: no dpkg-query (not Debian?); not checking packages" >&2
    exit 0
fi

# Installed packages among those asked for, one name per line.
# shellcheck disable=SC2086  # the package lists are meant to be split
installed=$(dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' \
                build-essential $TOOLCHAIN_ALT $PACKAGES 2>/dev/null |
            awk '$1 == "ii" { print $2 }')

is_installed() {
    printf '%s\n' "$installed" | grep -qx "$1"
}

missing=""
for p in $PACKAGES; do
    is_installed "$p" || missing="$missing $p"
done
if ! is_installed build-essential; then
    alt_ok=1
    for p in $TOOLCHAIN_ALT; do
        is_installed "$p" || alt_ok=0
    done
    [ "$alt_ok" -eq 1 ] || missing="build-essential$missing"
fi
missing=${missing# }

[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
    echo "setup-deps: missing Debian packages: $missing" >&2
    echo "setup-deps: install them with:" >&2
    echo "    sudo apt-get update && sudo apt-get install -y $missing" >&2
    exit 1
fi

echo "setup-deps: installing $missing" >&2
apt-get update || exit 1
# shellcheck disable=SC2086  # word splitting of the package list is intended
DEBIAN_FRONTEND=noninteractive apt-get install -y $missing || exit 1
