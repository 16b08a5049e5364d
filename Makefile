# schedlab top-level Makefile.
#
#   make             build module/schedlab.ko for the running kernel
#                    (KDIR=/path/to/headers for another one) and the tools
#   make tools       host tools only (build/host/)
#   make demo        boot a stock Debian kernel in QEMU and tour schedlab's
#                    experiments with the schedlab command (KERNEL=6.1|6.12|7|
#                    lab|lab-debug); the transcript is docs/demo.md
#   make bench       benchmarks in one guest boot: build/bench/results.json
#   make proxy-ab    proxy execution off and on, side by side, on the lab
#                    kernel (alternating boots): build/proxy-ab/
#   make check       every test: host unit tests, DKMS, then the in-guest
#                    suite on each stock kernel (x86 6.1, 6.12, 7.x; arm64
#                    6.12 on a virtual big.LITTLE) and the whole suite on
#                    the lab kernel (the companion series, patches/; also
#                    booted without proxy execution), and the reliability
#                    suite on the debug kernel (the jobs: SCHEDLAB_CHECK_JOBS
#                    in scripts/lib.sh; KERNELS="7 lab:noproxy" picks some:
#                    a series alone runs its whole suite)
#   make install     the schedlab command, its man page and bash completion
#                    under $(DESTDIR)$(PREFIX) (PREFIX=/usr/local); make uninstall
#   make clean
#
# The VM targets install what they need through scripts/setup-host.sh (apt,
# as root) and cache downloads in /var/cache/schedlab (SCHEDLAB_CACHE).

CC ?= cc
HOST_CFLAGS := -O2 -g -Wall -Wextra -Werror
HOSTBIN := build/host
PREFIX ?= /usr/local
TOOLS := $(HOSTBIN)/btf_layout $(HOSTBIN)/ctxswitch $(HOSTBIN)/dlparams_check $(HOSTBIN)/pelt \
	$(HOSTBIN)/dl_control_loop $(HOSTBIN)/dl_worker_pool $(HOSTBIN)/dlparams_bench \
	$(HOSTBIN)/sl_load $(HOSTBIN)/signals_check $(HOSTBIN)/rename_loop \
	$(HOSTBIN)/dlparams_vma $(HOSTBIN)/sl_fuzz $(HOSTBIN)/sl_reload $(HOSTBIN)/schedlab \
	$(HOSTBIN)/sysfs_write

all: module tools

module:
	$(MAKE) -C module

tools: $(TOOLS)

$(HOSTBIN)/btf_layout: tools/btf-layout/btf_layout.c
	@mkdir -p $(HOSTBIN)
	$(CC) $(HOST_CFLAGS) -o $@ $<

# libtracecmd (Debian: libtracecmd-dev) reads the recorded trace.dat
TRACECMD_FLAGS = $(shell pkg-config --cflags --libs libtracecmd 2>/dev/null || \
	echo "-I/usr/include/trace-cmd -I/usr/include/tracefs -I/usr/include/traceevent -ltracecmd -ltracefs -ltraceevent")
# schedlab export writes SQLite (libsqlite3-dev) and reads the reports'
# JSON with json-c (libjson-c-dev)
SQLITE_FLAGS = $(shell pkg-config --cflags --libs sqlite3 2>/dev/null || echo -lsqlite3)
JSONC_FLAGS = $(shell pkg-config --cflags --libs json-c 2>/dev/null || echo "-I/usr/include/json-c -ljson-c")
$(HOSTBIN)/schedlab: tools/schedlab/schedlab.c
	@mkdir -p $(HOSTBIN)
	@[ -f /usr/include/trace-cmd/trace-cmd.h ] || pkg-config --exists libtracecmd || \
		{ echo "schedlab (the command) needs libtracecmd: apt install libtracecmd-dev" >&2; exit 1; }
	@[ -f /usr/include/sqlite3.h ] || pkg-config --exists sqlite3 || \
		{ echo "schedlab (the command) needs libsqlite3: apt install libsqlite3-dev" >&2; exit 1; }
	@[ -f /usr/include/json-c/json.h ] || pkg-config --exists json-c || \
		{ echo "schedlab (the command) needs json-c: apt install libjson-c-dev" >&2; exit 1; }
	$(CC) $(HOST_CFLAGS) -o $@ $< $(TRACECMD_FLAGS) $(SQLITE_FLAGS) $(JSONC_FLAGS)

$(HOSTBIN)/ctxswitch: tools/bench/ctxswitch.c
	@mkdir -p $(HOSTBIN)
	$(CC) $(HOST_CFLAGS) -o $@ $<

$(HOSTBIN)/signals_check: tests/guest/signals_check.c
	@mkdir -p $(HOSTBIN)
	$(CC) $(HOST_CFLAGS) -o $@ $<

$(HOSTBIN)/sl_load: tools/workload/sl_load.c
	@mkdir -p $(HOSTBIN)
	$(CC) $(HOST_CFLAGS) -o $@ $< -lpthread

$(HOSTBIN)/rename_loop: tools/workload/rename_loop.c
	@mkdir -p $(HOSTBIN)
	$(CC) $(HOST_CFLAGS) -o $@ $<

$(HOSTBIN)/pelt: tools/pelt/pelt.c module/pelt_core.c module/pelt_core.h
	@mkdir -p $(HOSTBIN)
	$(CC) $(HOST_CFLAGS) -Imodule -o $@ tools/pelt/pelt.c module/pelt_core.c

$(HOSTBIN)/dlparams_check: tests/guest/dlparams_check.c tools/lib/dl_util.h tools/lib/dlparams.c tools/lib/dlparams.h include/uapi/linux/schedlab_dlparams.h
	@mkdir -p $(HOSTBIN)
	$(CC) $(HOST_CFLAGS) -Iinclude/uapi -o $@ tests/guest/dlparams_check.c tools/lib/dlparams.c -lpthread

$(HOSTBIN)/dlparams_vma: tests/guest/dlparams_vma.c tools/lib/dl_util.h tools/lib/dlparams.h tests/lib/tap.h include/uapi/linux/schedlab_dlparams.h
	@mkdir -p $(HOSTBIN)
	$(CC) $(HOST_CFLAGS) -Iinclude/uapi -o $@ $< -lpthread

$(HOSTBIN)/sl_fuzz: tests/guest/sl_fuzz.c tools/lib/dl_util.h tests/lib/tap.h include/uapi/linux/schedlab_dlparams.h
	@mkdir -p $(HOSTBIN)
	$(CC) $(HOST_CFLAGS) -Iinclude/uapi -o $@ $<

$(HOSTBIN)/sysfs_write: tests/lib/sysfs_write.c
	@mkdir -p $(HOSTBIN)
	$(CC) $(HOST_CFLAGS) -o $@ $<

$(HOSTBIN)/sl_reload: tests/guest/sl_reload.c tests/lib/tap.h
	@mkdir -p $(HOSTBIN)
	$(CC) $(HOST_CFLAGS) -o $@ $<

$(HOSTBIN)/dl_%: tools/examples/dl_%.c tools/lib/dl_util.h tools/lib/dlparams.c tools/lib/dlparams.h include/uapi/linux/schedlab_dlparams.h
	@mkdir -p $(HOSTBIN)
	$(CC) $(HOST_CFLAGS) -Iinclude/uapi -o $@ $< tools/lib/dlparams.c -lpthread

$(HOSTBIN)/dlparams_bench: tools/bench/dlparams_bench.c tools/lib/dl_util.h tools/lib/dlparams.c tools/lib/dlparams.h include/uapi/linux/schedlab_dlparams.h
	@mkdir -p $(HOSTBIN)
	$(CC) $(HOST_CFLAGS) -Iinclude/uapi -o $@ $< tools/lib/dlparams.c

install: $(HOSTBIN)/schedlab
	install -D -m 755 $(HOSTBIN)/schedlab $(DESTDIR)$(PREFIX)/bin/schedlab
	install -D -m 644 docs/schedlab.1 $(DESTDIR)$(PREFIX)/share/man/man1/schedlab.1
	install -D -m 644 tools/schedlab/schedlab.bash-completion \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/schedlab

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/schedlab $(DESTDIR)$(PREFIX)/share/man/man1/schedlab.1 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/schedlab

check:
	bash scripts/check.sh $(KERNELS)

demo:
	bash scripts/demo.sh $(KERNEL)

bench:
	bash scripts/bench.sh $(KERNEL)

proxy-ab:
	bash scripts/proxy-ab.sh

clean:
	-$(MAKE) -C module clean 2>/dev/null
	rm -rf build module/generated

.PHONY: all module tools install uninstall check demo bench proxy-ab clean
