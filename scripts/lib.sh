# Shared helpers for schedlab's scripts (sourced, not run).

SCHEDLAB_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# Downloads, extracted kernels and build roots live outside the work tree so
# that clean clones reuse them; a cold run recreates everything from apt.
SCHEDLAB_CACHE=${SCHEDLAB_CACHE:-/var/cache/schedlab}

log() { printf '[%s] %s\n' "$(date +%T)" "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# The kernel series the test matrix boots, in order (the longest first:
# two run at a time). 'default' for the demo.
SCHEDLAB_SERIES_ALL="lab-debug 6.1 6.12 7 lab"
# What make check runs: guest jobs, each a series or a part of one
# (SERIES:PART, see check.sh), in the order they start (two at a time; the
# order is explained in check.sh).
SCHEDLAB_CHECK_JOBS="lab-debug:stress 6.1:core 6.12:core lab-debug:reload 7:core lab arm64-6.12:biglittle lab:noproxy arm64-6.12:smoke"
SCHEDLAB_SERIES_DEFAULT=6.12
