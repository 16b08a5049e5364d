#!/usr/bin/env bash
# extract-btf.sh SOURCE OUT
#
# Write the raw BTF blob of a kernel (the format of /sys/kernel/btf/vmlinux)
# to OUT. SOURCE may be:
#   - a raw BTF file (e.g. /sys/kernel/btf/vmlinux): copied;
#   - an ELF vmlinux (e.g. the one Debian's 7.x headers ship): its .BTF
#     section is dumped;
#   - a compressed boot image (vmlinuz/bzImage): the embedded vmlinux is
#     located by the compressor's magic bytes, decompressed, and its .BTF
#     section dumped.
# Exits non-zero with a message if no BTF can be found.
set -euo pipefail

src=${1:?usage: extract-btf.sh SOURCE OUT}
out=${2:?usage: extract-btf.sh SOURCE OUT}
[ -r "$src" ] || { echo "extract-btf: cannot read $src" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

magic_of() { head -c4 "$1" | od -An -tx1 | tr -d ' \n'; }

# The host's objcopy knows the host's ELF machines only; readelf reads any
# ELF file (an arm64 vmlinux on an x86 host): its section table gives the
# .BTF section's offset and size, cut out with dd.
dump_elf_btf() {
	local off size
	if ! objcopy --dump-section .BTF="$tmp/btf" "$1" "$tmp/discard" 2>/dev/null; then
		read -r off size < <(readelf -SW "$1" 2>/dev/null |
			awk '{ sub(/^ *\[ *[0-9]+\] */, "") } $1 == ".BTF" { print $4, $5; exit }') || return 1
		[ -n "$off" ] || return 1
		dd if="$1" of="$tmp/btf" bs=4096 iflag=skip_bytes,count_bytes skip=$((16#$off)) count=$((16#$size)) status=none || return 1
	fi
	[ -s "$tmp/btf" ] && [ "$(magic_of "$tmp/btf")" = "9feb0100" ] || return 1
	cp "$tmp/btf" "$out"
}

case "$(magic_of "$src")" in
9feb01*)	# raw BTF (little endian magic 0xeB9F, version 1)
	cat "$src" >"$out"; exit 0 ;;
7f454c46)	# ELF
	dump_elf_btf "$src" && exit 0
	echo "extract-btf: $src is an ELF file without a .BTF section" >&2; exit 1 ;;
esac

# A compressed image: try each compressor at every offset where its magic
# occurs, keep the first result that is an ELF with BTF.
try() {	# try MAGIC_HEX DECOMPRESSOR...
	local magic=$1; shift
	local off
	for off in $(LC_ALL=C grep -obUaP "$magic" "$src" 2>/dev/null | cut -d: -f1 | head -n 8); do
		tail -c +$((off + 1)) "$src" | "$@" >"$tmp/vmlinux" 2>/dev/null || true
		if [ "$(magic_of "$tmp/vmlinux")" = "7f454c46" ] && dump_elf_btf "$tmp/vmlinux"; then
			exit 0
		fi
	done
}
try '\x28\xb5\x2f\xfd' zstd -dc
try '\xfd\x37\x7a\x58\x5a\x00' xz -dc
try '\x1f\x8b\x08' gzip -dc
try '\x02\x21\x4c\x18' lz4 -dc
try '\x5d\x00\x00' xz -dc --format=lzma
echo "extract-btf: no BTF found in $src" >&2
exit 1
