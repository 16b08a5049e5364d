# The emulated machine of a guest, by architecture and platform: shared by
# vm-run.sh (the harness) and vm-smoke.sh (sourced after lib.sh, not run).
#
# vm_machine ARCH WORKDIR sets:
#   qemu            the QEMU command and machine, without -smp, -m or devices
#   console         the kernel's console device
#   busybox         a static busybox of ARCH for the initramfs
#   smp             the vCPUs (the platform's, else SCHEDLAB_VM_CPUS, else 2)
#   dtb             the -dtb arguments (empty: QEMU's own tree)
#   platform        SCHEDLAB_VM_PLATFORM or the architecture's default
#   platform_modules the kernel modules the platform needs loaded at boot
#   append_platform kernel arguments of the platform
# and needs mem (MiB) set: the device tree is dumped for that size.
#
# x86: q35, -cpu max, the host's busybox. arm64: virt, -cpu max, console on
# the PL011, busybox from Debian's arm64 busybox-static (apt-foreign.sh,
# cached). Platforms: "virt", QEMU's machine as it is, equal CPUs;
# "biglittle" (arm64's default), 2 little, 1 mid and 1 big CPU with OPP
# tables and an energy model: QEMU's own tree for exactly this machine
# plus scripts/dt/virt-biglittle.dtsi (biglittle-dtb.sh), and the kernel's
# cpufreq-dt loaded at boot, which brings up schedutil and EAS.
vm_machine() {
	local arch=$1 work=$2 bbver bbdir
	platform=${SCHEDLAB_VM_PLATFORM:-}
	smp=${SCHEDLAB_VM_CPUS:-2}
	dtb=() platform_modules=() append_platform=
	case "$arch" in
	arm64)
		qemu=(qemu-system-aarch64 -machine virt -cpu max)
		console=ttyAMA0
		platform=${platform:-biglittle}
		bbver=$("$SCHEDLAB_TOP/scripts/apt-foreign.sh" arm64 apt-cache show --no-all-versions busybox-static |
			awk '/^Version:/ { print $2; exit }')
		[ -n "$bbver" ] || die "no arm64 busybox-static in the package lists"
		bbdir=$SCHEDLAB_CACHE/busybox-arm64-${bbver//[:~]/_}
		if [ ! -x "$bbdir/bin/busybox" ]; then
			log "fetching busybox-static $bbver (arm64)"
			rm -rf "$bbdir.tmp.$$"; mkdir -p "$bbdir.tmp.$$/debs"
			(cd "$bbdir.tmp.$$/debs" && "$SCHEDLAB_TOP/scripts/apt-foreign.sh" arm64 apt-get download -q busybox-static >/dev/null)
			dpkg-deb -x "$bbdir.tmp.$$"/debs/*.deb "$bbdir.tmp.$$"
			rm -rf "$bbdir.tmp.$$/debs"
			mv -T "$bbdir.tmp.$$" "$bbdir" 2>/dev/null || rm -rf "$bbdir.tmp.$$"
		fi
		busybox=$bbdir/bin/busybox
		;;
	x86)
		qemu=(qemu-system-x86_64 -machine q35 -cpu max)
		console=ttyS0
		busybox=/bin/busybox
		platform=${platform:-virt}
		;;
	*)	die "no machine known for $arch" ;;
	esac
	command -v "${qemu[0]}" >/dev/null || die "${qemu[0]} not found (scripts/setup-host.sh installs it)"
	case "$platform" in
	biglittle)
		[ "$arch" = arm64 ] || die "the virtual big.LITTLE is an arm64 virt machine"
		smp=4
		"$SCHEDLAB_TOP/scripts/dt/biglittle-dtb.sh" "$work/biglittle.dtb" \
			"${qemu[@]}" -smp "$smp" -m "$mem"
		dtb=(-dtb "$work/biglittle.dtb")
		platform_modules=(cpufreq-dt)
		# sched_verbose: the kernel logs when it starts energy-aware
		# scheduling
		append_platform=sched_verbose ;;
	virt)	;;
	*)	die "unknown SCHEDLAB_VM_PLATFORM '$platform' (biglittle, virt)" ;;
	esac
}

# vm_modules ROOT KVER DEST NAME...: the kernel modules NAME (e.g. virtiofs,
# cpufreq-dt) of the kernel KVER unpacked under ROOT, with their
# dependencies first (modules.dep, made with depmod -b where the package
# does not ship it), decompressed into DEST (busybox's insmod takes a plain
# .ko), their file names in load order in DEST/order. A NAME built into
# the kernel is skipped; nothing is written without modules.
vm_modules() {
	local root=$1 kver=$2 dest=$3 moddir m b
	shift 3
	moddir=
	for m in "$root/lib/modules/$kver" "$root/usr/lib/modules/$kver"; do
		[ -d "$m/kernel" ] && { moddir=$m; break; }
	done
	[ -n "$moddir" ] || return 0
	[ -f "$moddir/modules.dep" ] || depmod -b "${moddir%/lib/modules/*}" "$kver"
	local -A seen=()
	local order=()
	vm_modules_add() {	# NAME: its dependencies, then NAME
		local path deps d
		path=$(awk -F: -v m="$1" '{ n = $1; sub(/.*\//, "", n); sub(/\.ko.*/, "", n); gsub(/-/, "_", n) } n == m { print; exit }' "$moddir/modules.dep")
		[ -n "$path" ] || return 0	# built in
		deps=${path#*:}; path=${path%%:*}
		[ -n "${seen[$path]:-}" ] && return 0
		seen[$path]=1
		for d in $deps; do
			d=$(basename "$d"); d=${d%%.ko*}; vm_modules_add "${d//-/_}"
		done
		order+=("$path")
	}
	for m in "$@"; do vm_modules_add "${m//-/_}"; done
	[ ${#order[@]} -gt 0 ] || return 0
	mkdir -p "$dest"
	for m in "${order[@]}"; do
		b=$(basename "$m")
		case $b in
		*.ko.xz)  xz -dc "$moddir/$m" >"$dest/${b%.xz}"; b=${b%.xz} ;;
		*.ko.zst) zstd -qdc "$moddir/$m" >"$dest/${b%.zst}"; b=${b%.zst} ;;
		*.ko.gz)  gzip -dc "$moddir/$m" >"$dest/${b%.gz}"; b=${b%.gz} ;;
		*)	  cp "$moddir/$m" "$dest/$b" ;;
		esac
		echo "$b" >>"$dest/order"
	done
}
