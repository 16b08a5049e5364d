# Shared helpers for schedlab's scripts (sourced, not run).

SCHEDLAB_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# Downloads, extracted kernels and build roots live outside the work tree so
# that clean clones reuse them; a cold run recreates everything from apt.
SCHEDLAB_CACHE=${SCHEDLAB_CACHE:-/var/cache/schedlab}

log() { printf '[%s] %s\n' "$(date +%T)" "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }
# guest_cc ARCH: the compiler of the guests' own programs (tests, tools).
# Another architecture's are cross-built with the host's cross gcc,
# bookworm's, as the arm64 guest root (guest-rootfs.sh) whose libraries
# they link against, whatever compiler built the kernel (7.x: gcc-14)
guest_cc() { case "${1:-x86}" in arm64) echo aarch64-linux-gnu-gcc-12 ;; *) echo cc ;; esac; }

# The kernel series there are (kernels.sh): the stock Debian kernels, the
# two built here (lab, lab-debug), the arm64 ones.
SCHEDLAB_SERIES_ALL="6.1 6.12 7 lab lab-debug arm64-6.12 arm64-7"
# What make check runs: guest jobs, each a series or a part of one
# (SERIES:PART, see check.sh), in the order they start (two at a time; the
# order is explained in check.sh).
SCHEDLAB_CHECK_JOBS="lab-debug:reload 6.1:core lab lab-debug:stress arm64-6.12:biglittle 7:core 6.12:core arm64-7:eas lab:noproxy arm64-7:smoke"
SCHEDLAB_SERIES_DEFAULT=6.12
