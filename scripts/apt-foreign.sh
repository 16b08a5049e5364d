#!/usr/bin/env bash
# apt-foreign.sh ARCH CMD [ARGS...]
#
# Run apt-cache or apt-get (CMD) against Debian's package lists for another
# architecture (arm64), kept in a private apt state under the cache, so that
# the host's own apt (its lists, its dpkg status, its architectures) is
# never touched: nothing of ARCH is ever installed on the host, its packages
# are only downloaded (apt-get download) and unpacked by the caller.
#
# The suites are the ones the x86 series come from: bookworm and
# bookworm-security (6.1 and the current 6.12 LTS line), bookworm-backports
# and trixie-backports (7.x). The lists are refreshed at most once an hour,
# as setup-host.sh does for the host's (the newest point release is
# resolved from them).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

arch=${1:?usage: apt-foreign.sh ARCH apt-cache|apt-get ARGS...}
cmd=${2:?usage: apt-foreign.sh ARCH apt-cache|apt-get ARGS...}
shift 2
case "$arch" in arm64) ;; *) die "apt-foreign: no package lists known for '$arch' (known: arm64)" ;; esac
case "$cmd" in apt-cache|apt-get) ;; *) die "apt-foreign: '$cmd' is not apt-cache or apt-get" ;; esac

d=$SCHEDLAB_CACHE/apt-$arch
key=/usr/share/keyrings/debian-archive-keyring.gpg
mkdir -p "$d/lists/partial" "$d/cache/archives/partial" "$d/etc/sources.list.d" "$d/etc/preferences.d"
# One writer of the configuration and one updater at a time; the others
# wait and use its lists. Files are replaced whole (rename), never
# rewritten in place: a concurrent reader sees the old or the new one.
exec 9>"$d/lock"
flock 9
[ -f "$d/status" ] || : >"$d/status"	# nothing is ever installed here
cat >"$d/apt.conf.tmp" <<CONF
Dir::State "$d";
Dir::State::Lists "$d/lists";
Dir::State::status "$d/status";
Dir::Cache "$d/cache";
Dir::Etc::SourceList "$d/etc/sources.list";
Dir::Etc::SourceParts "$d/etc/sources.list.d";
Dir::Etc::PreferencesParts "$d/etc/preferences.d";
APT::Architecture "$arch";
APT::Architectures { "$arch"; };
Acquire::Languages "none";
CONF
mv "$d/apt.conf.tmp" "$d/apt.conf"
{
	for s in bookworm bookworm-backports trixie-backports; do
		echo "deb [arch=$arch signed-by=$key] http://deb.debian.org/debian $s main"
	done
	echo "deb [arch=$arch signed-by=$key] http://deb.debian.org/debian-security bookworm-security main"
} >"$d/etc/sources.list.tmp"
mv "$d/etc/sources.list.tmp" "$d/etc/sources.list"
export APT_CONFIG=$d/apt.conf

age=$(( $(date +%s) - $(stat -c %Y "$d/lists/updated" 2>/dev/null || echo 0) ))
if [ "$age" -gt 3600 ]; then
	log "apt-foreign: updating the $arch package lists"
	apt-get -q update >"$d/update.log" 2>&1 || { cat "$d/update.log" >&2; die "apt-foreign: apt-get update for $arch failed"; }
	touch "$d/lists/updated"
fi
flock -u 9
# apt-get download drops privileges to _apt unless told otherwise; the
# caller's directory belongs to root.
exec "$cmd" -o APT::Sandbox::User=root "$@"
