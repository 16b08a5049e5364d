# shellcheck shell=bash
# kernel-source.sh: sourced after lib.sh. The kernel source the lab kernels
# are built from and the companion series applies to: Debian's newest
# linux-source-7.x package (the source of the stock 7.x kernel the suite
# boots), resolved from the apt lists like every other kernel.

# the source package's name, e.g. linux-source-7.3
source_pkg() {
	local pkg
	pkg=$(apt-cache search --names-only '^linux-source-7\.[0-9]+$' | awk '{print $1}' | sort -V | tail -n1)
	[ -n "$pkg" ] || die "no linux-source-7.x package in the apt lists"
	echo "$pkg"
}

# source_version PKG: its version in the apt lists
source_version() {
	apt-cache show --no-all-versions "$1" | awk '/^Version:/ {print $2; exit}'
}

# source_tarball PKG: the path of its source tarball, downloaded once
source_tarball() {
	local pkg=$1 dir t
	dir=$SCHEDLAB_CACHE/src/$pkg
	t=$(ls "$dir"/linux-source-*.tar.xz 2>/dev/null | head -n1 || true)
	if [ -z "$t" ]; then
		log "downloading $pkg"
		rm -rf "$dir"; mkdir -p "$dir/deb"
		chown _apt "$dir/deb" 2>/dev/null || true
		(cd "$dir/deb" && apt-get download -q "$pkg" >/dev/null)
		dpkg-deb --fsys-tarfile "$dir"/deb/*.deb | tar -x -C "$dir" --strip-components=3 \
			--wildcards './usr/src/linux-source-*.tar.xz'
		rm -rf "$dir/deb"
		t=$(ls "$dir"/linux-source-*.tar.xz | head -n1)
	fi
	echo "$t"
}

# series_patches: the companion series' patch files in the order they
# apply (git format-patch names; the cover letter has no diff)
series_patches() {
	ls "$SCHEDLAB_TOP"/patches/[0-9][0-9][0-9][0-9]-*.patch 2>/dev/null |
		grep -v '/0000-cover-letter\.patch$' | sort || true
}
