# SPDX-License-Identifier: GPL-2.0
#
# upmu: uncore PMU drivers, simulator and tools.
#
#   make            modules for the upmu debug kernel (built on first use)
#   make KDIR=/lib/modules/<ver>/build    modules for another kernel
#   make C=1 / W=1  sparse / extra warnings (passed to Kbuild)
#   make tools      userspace tools (build/tools/upmu-metrics)
#   make selftests  test programs, with ASan/UBSan (build/selftests/)
#   make check      every test (host checks + QEMU suites), sized for CI
#   make soak       make check with the tests' long loop counts (UPMU_SOAK=1)
#   make demo       boot a VM with a simulated 2-socket Tegra410 and show perf
#   make bench      read/open cost ratios in one VM (bench/README;
#                   BENCH_KERNEL=debug, BENCH_ARGS="-n 20000" for upmu_bench)
#   make install    build for the running kernel (or KDIR=...), modules_install
#                   and depmod; INSTALL_MOD_PATH=DIR (or DESTDIR=DIR) stages
#                   below DIR instead of /
#   make dkms-src   the DKMS source tree $(DESTDIR)/usr/src/upmu-<version>
#
# Kernel-side Kbuild rules live in ./Kbuild.

SHELL := /bin/bash
export C W

# -fno-var-tracking-assignments: half the build of the sanitized programs
# (their harness tests expand into large functions, whose variable
# tracking took half of gcc's time: nic_fw_test 25 s -> 12 s), at the cost
# of fewer variable locations in gdb; ASan's and UBSan's reports (function,
# file, line) are the same
USERCFLAGS := -Wall -Wextra -Werror -O1 -g -fno-var-tracking-assignments -D_GNU_SOURCE \
	      -fsanitize=address,undefined -fno-omit-frame-pointer
TOOLCFLAGS := -Wall -Wextra -Werror -O2 -g -D_GNU_SOURCE

# sysfs and perf_event_open helpers shared by the tools and the selftests
PMULIB := tools/lib/upmu_pmu.c tools/lib/upmu_pmu.h
# Ice Lake-X IIO stacks and the PCI functions below them
IIOLIB := tools/lib/upmu_iio.c tools/lib/upmu_iio.h
# the counting loop (interval, duration, -- command) of the counting tools
RUNLIB := tools/lib/upmu_run.c tools/lib/upmu_run.h
# their events' groups through libperf (the 7.2 tree's, scripts/libperf.sh)
LIBPERF_OBJ := build/obj/upmu_libperf.o
METRICS := tools/upmu-metrics/upmu-metrics.c tools/upmu-metrics/t410_metrics.c \
	   tools/upmu-metrics/metrics.h
PCIMAP := tools/upmu-pcimap/upmu-pcimap.c
# a Tegra410 PCIE PMU's root complex and ports, from sysfs
T410PCI := tools/lib/upmu_t410pci.c tools/lib/upmu_t410pci.h
IOSTAT := tools/upmu-iostat/upmu-iostat.c
# the DOCA-like diagnostic-counter library (fwctl) and its CLI
DIAGLIB := tools/lib/upmu_diag.c tools/lib/upmu_diag_ids.c tools/lib/upmu_diag.h \
	   driver/include/hw/nic_cmd.h
DIAG := tools/upmu-diag/upmu-diag.c tools/upmu-diag/diag_io.c tools/upmu-diag/diag_io.h
DIAGINC := -Itools/upmu-diag -Idriver/include -isystem build/include -I/usr/include/json-c

TOOLS := build/tools/upmu-metrics build/tools/upmu-pcimap build/tools/upmu-diag \
	 build/tools/upmu-iostat build/tools/upmu-list build/tools/upmu-exporter
# build/selftests/upmu-* are the tools built with the sanitizers, for the tests
SELFTESTS := build/selftests/ucf_test build/selftests/cmem_test \
	     build/selftests/pcie_test build/selftests/pcie_tgt_test \
	     build/selftests/c2c_test build/selftests/families_test \
	     build/selftests/fixture_test build/selftests/sim_test \
	     build/selftests/fuzz_test build/selftests/stress_test \
	     build/selftests/testpmu_test build/selftests/icx_test \
	     build/selftests/icx_mem_test \
	     build/selftests/upmu-metrics build/selftests/upmu-pcimap \
	     build/selftests/upmu-iostat build/selftests/upmu-list \
	     build/selftests/upmu-exporter \
	     build/selftests/exporter_unit_test build/selftests/exporter_fuzz \
	     build/selftests/nic_fw_test \
	     build/selftests/upmu-diag build/selftests/diag_unit_test \
	     build/selftests/nic_diag_lib build/selftests/aux_parse_test \
	     build/selftests/aux_perfdata build/selftests/perfdata_fuzz \
	     build/selftests/perfdata_forksrv.so build/selftests/perfdata_fakeperf \
	     build/selftests/pmu_unit_test \
	     build/selftests/bpf_read_test build/selftests/upmu_read.bpf.o \
	     build/selftests/aux_parse_test32 build/selftests/topo_test

.PHONY: all modules tools selftests check soak demo bench deps kernel lint clean install dkms-src \
	fuzz perf-patches

all: modules

modules:
	@scripts/build-modules.sh $(KDIR) >/dev/null

deps:
	@scripts/deps.sh

kernel:
	@scripts/kbuild.sh

lint:
	@scripts/lint.sh checkpatch
	@scripts/lint.sh sparse $(KDIR)

tools: $(TOOLS)

# The fwctl test needs the fwctl uAPI (Linux 6.15+), which Debian 12's
# linux-libc-dev (6.1) lacks: it is copied from the kernel source the
# debug kernel is built from, at build time, into build/include.
SELFTESTS += build/selftests/nic_fwctl_test build/selftests/nic_pmu_test \
	     build/selftests/nic_aux_test
FWCTL_UAPI := build/include/fwctl/fwctl.h build/include/fwctl/mlx5.h
build/include/fwctl/%.h:
	@mkdir -p $(@D)
	cp "$$(scripts/ksrc.sh 2>/dev/null)/include/uapi/fwctl/$*.h" $@
NICFWTESTS := build/selftests/nic_fwctl_test build/selftests/nic_pmu_test \
	      build/selftests/nic_aux_test
$(NICFWTESTS): $(FWCTL_UAPI) driver/include/hw/nic_cmd.h selftests/upmu/nic_fwctl_util.h
$(NICFWTESTS): USERCFLAGS += -isystem build/include
build/selftests/nic_aux_test: driver/include/hw/upmu_aux.h

selftests: $(SELFTESTS)

# Each tool twice: build/tools/ optimised, build/selftests/ sanitized.
build/tools/upmu-metrics build/selftests/upmu-metrics: $(METRICS) $(PMULIB) $(RUNLIB) $(LIBPERF_OBJ)
build/tools/upmu-metrics build/selftests/upmu-metrics: TOOLLIBS = $(LIBPERF_LIBS) -ljson-c -lm
build/tools/upmu-metrics build/selftests/upmu-metrics: TOOLINC = $(LIBPERF_INC)
build/tools/upmu-pcimap build/selftests/upmu-pcimap: $(PCIMAP) $(PMULIB) $(IIOLIB) $(T410PCI)
build/tools/upmu-iostat build/selftests/upmu-iostat: $(IOSTAT) $(PMULIB) $(IIOLIB) $(RUNLIB) $(LIBPERF_OBJ)
build/tools/upmu-iostat build/selftests/upmu-iostat: TOOLLIBS = $(LIBPERF_LIBS) -ljson-c -lm
build/tools/upmu-iostat build/selftests/upmu-iostat: TOOLINC = $(LIBPERF_INC)
build/tools/upmu-diag build/selftests/upmu-diag: $(DIAG) $(DIAGLIB) | $(FWCTL_UAPI)
build/tools/upmu-diag build/selftests/upmu-diag: TOOLLIBS := -ljson-c -lm
build/tools/upmu-diag build/selftests/upmu-diag: TOOLINC := $(DIAGINC)
build/tools/upmu-list build/selftests/upmu-list: tools/upmu-list/upmu-list.c $(PMULIB)
build/tools/upmu-list build/selftests/upmu-list: TOOLLIBS := -ljson-c
build/tools/upmu-list build/selftests/upmu-list: TOOLINC := -I/usr/include/json-c
# the Prometheus exporter (Documentation/upmu-exporter.rst), on libmicrohttpd
EXPORTER := tools/upmu-exporter/upmu-exporter.c tools/upmu-exporter/config.c \
	    tools/upmu-exporter/expo.c tools/upmu-exporter/collect.c \
	    tools/upmu-exporter/http.c tools/upmu-exporter/exporter.h tools/upmu-exporter/http.h
build/tools/upmu-exporter build/selftests/upmu-exporter: $(EXPORTER) $(PMULIB) $(IIOLIB) $(T410PCI)
build/tools/upmu-exporter build/selftests/upmu-exporter: TOOLLIBS := -lmicrohttpd -lpthread -lm
# Host-side tests of the exporter's parts: config.c, expo.c, and http.c on
# socketpairs (collect.c linked, finding no PMU in an empty UPMU_PMU_DEVICES)
EXPORTER_PARTS := $(filter-out tools/upmu-exporter/upmu-exporter.c,$(EXPORTER))
build/selftests/exporter_unit_test: selftests/upmu/exporter_unit_test.c $(EXPORTER_PARTS) \
				    $(PMULIB) $(IIOLIB) $(T410PCI)
	@mkdir -p $(@D)
	$(CC) $(USERCFLAGS) -Itools/lib -Itools/upmu-exporter \
		-I"$$(scripts/ksrc.sh 2>/dev/null)/tools/testing/selftests" \
		-o $@ $(filter %.c,$^) -lmicrohttpd -lpthread -lm
build/selftests/exporter_fuzz: selftests/upmu/exporter_fuzz.c selftests/upmu/splitmix.h \
			       $(EXPORTER_PARTS) $(PMULIB) $(IIOLIB) $(T410PCI)
	@mkdir -p $(@D)
	$(CC) $(USERCFLAGS) -Itools/lib -Itools/upmu-exporter \
		-o $@ $(filter %.c,$^) -lmicrohttpd -lpthread -lm
$(TOOLS): TOOLBUILDFLAGS := $(TOOLCFLAGS)
build/selftests/upmu-%: TOOLBUILDFLAGS := $(USERCFLAGS)
$(TOOLS) build/selftests/upmu-metrics build/selftests/upmu-pcimap build/selftests/upmu-diag \
build/selftests/upmu-iostat build/selftests/upmu-list build/selftests/upmu-exporter:
	@mkdir -p $(@D)
	$(CC) $(TOOLBUILDFLAGS) -Itools/lib $(TOOLINC) -o $@ $(filter %.c %.o,$^) $(TOOLLIBS)

# libperf: its headers and archives (with the libapi it needs), built once
# from the 7.2 tree; the shim that reads an evsel's fd needs the tree's
# tools/ headers, so it is built on its own
LIBPERF_INC = -I"$$(scripts/libperf.sh)/include"
LIBPERF_LIBS = "$$(scripts/libperf.sh)/lib/libperf.a" "$$(scripts/libperf.sh)/lib/libapi.a"
$(LIBPERF_OBJ): tools/lib/upmu_libperf.c tools/lib/upmu_libperf.h scripts/libperf.sh
	@mkdir -p $(@D)
	K=$$(scripts/ksrc.sh 2>/dev/null) && L=$$(scripts/libperf.sh) && \
	$(CC) $(TOOLCFLAGS) -Itools/lib -I"$$L/include" -I"$$K/tools/include" \
		-I"$$K/tools/include/uapi" -I"$$K/tools/arch/x86/include" -c -o $@ $<

# Host-side unit tests of the diag library and the CLI's JSON/CSV code.
build/selftests/diag_unit_test: selftests/upmu/diag_unit_test.c $(DIAGLIB) \
				tools/upmu-diag/diag_io.c tools/upmu-diag/diag_io.h | $(FWCTL_UAPI)
	@mkdir -p $(@D)
	$(CC) $(USERCFLAGS) -Itools/lib $(DIAGINC) \
		-I"$$(scripts/ksrc.sh 2>/dev/null)/tools/testing/selftests" \
		-o $@ $(filter %.c,$^) -ljson-c -lm

# The diag library on the simulated NIC (run by nic_diag_test.sh).
build/selftests/nic_diag_lib: selftests/upmu/nic_diag_lib.c $(DIAGLIB) | $(FWCTL_UAPI)
	@mkdir -p $(@D)
	$(CC) $(USERCFLAGS) -Itools/lib $(DIAGINC) \
		-I"$$(scripts/ksrc.sh 2>/dev/null)/tools/testing/selftests" \
		-o $@ $(filter %.c,$^)

# The perf decoder's parse library (tools/perf-aux/), which the perf patch
# series (tools/perf-patches/) carries: its record format is the kernel's
# header, its data-ID names are generated from the diag library's table.
PERFAUX := tools/perf-aux/upmu-nic-aux-parse.c tools/perf-aux/upmu-nic-aux-parse.h \
	   tools/perf-aux/upmu-nic-aux-ids.c build/perf-aux/upmu-nic-aux.h
PERFAUXINC := -Ibuild/perf-aux -Itools/perf-aux -Itools/lib -Idriver/include
build/perf-aux/upmu-nic-aux.h: driver/include/hw/upmu_aux.h
	@mkdir -p $(@D)
	cp $< $@
build/perf-aux/gen-ids: tools/perf-aux/gen-ids.c tools/lib/upmu_diag_ids.c tools/lib/upmu_diag.h
	@mkdir -p $(@D)
	$(CC) $(TOOLCFLAGS) -Itools/lib -Idriver/include -o $@ $(filter %.c,$^)
build/selftests/aux_parse_test: selftests/upmu/aux_parse_test.c selftests/upmu/aux_records.h \
				$(PERFAUX) tools/lib/upmu_diag_ids.c tools/lib/upmu_diag.h
	@mkdir -p $(@D)
	$(CC) $(USERCFLAGS) $(PERFAUXINC) -o $@ $(filter %.c,$^)
# perf.data streams with known AUX records for the patched perf (aux_perf_test.sh)
build/selftests/aux_perfdata: selftests/upmu/aux_perfdata.c selftests/upmu/aux_records.h \
			      build/perf-aux/upmu-nic-aux.h
	@mkdir -p $(@D)
	$(CC) $(USERCFLAGS) -Ibuild/perf-aux -o $@ $<
# The fuzzer of whole perf.data files for the ASan/UBSan perf (perfdata_fuzz_test.sh)
build/selftests/perfdata_fuzz: selftests/upmu/perfdata_fuzz.c selftests/upmu/splitmix.h
	@mkdir -p $(@D)
	$(CC) $(USERCFLAGS) -o $@ $<
# its fork server, preloaded into perf after the sanitizer runtime: not
# instrumented itself
build/selftests/perfdata_forksrv.so: selftests/upmu/perfdata_forksrv.c
	@mkdir -p $(@D)
	$(CC) $(TOOLCFLAGS) -fPIC -shared -o $@ $<
# a perf that fails in every way, for the check of the fuzzer itself
build/selftests/perfdata_fakeperf: selftests/upmu/perfdata_fakeperf.c
	@mkdir -p $(@D)
	$(CC) $(TOOLCFLAGS) -o $@ $<
# The same test as a 32-bit program (gcc-multilib), where size_t products
# wrap: UBSan only, as 32-bit ASan does not run under qemu-i386, which runs
# it where the kernel has no ia32 emulation (qemu-i386 build/selftests/aux_parse_test32).
build/selftests/aux_parse_test32: selftests/upmu/aux_parse_test.c selftests/upmu/aux_records.h \
				  $(PERFAUX) tools/lib/upmu_diag_ids.c tools/lib/upmu_diag.h
	@mkdir -p $(@D)
	$(CC) -m32 -Wall -Wextra -Werror -O1 -g -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 \
		-fsanitize=undefined -fno-omit-frame-pointer $(PERFAUXINC) -o $@ $(filter %.c,$^)
# make fuzz: the parse library under libFuzzer (clang), FUZZ_ARGS for it,
# seeded with the checked-in corpus (selftests/upmu/aux-corpus, read only)
build/fuzz/aux_parse_fuzz: selftests/upmu/aux_parse_test.c selftests/upmu/aux_records.h $(PERFAUX) \
			   tools/lib/upmu_diag_ids.c tools/lib/upmu_diag.h
	@mkdir -p $(@D)
	clang -g -O1 -D_GNU_SOURCE -DUPMU_LIBFUZZER -fsanitize=fuzzer,address,undefined \
		$(PERFAUXINC) -o $@ $(filter %.c,$^)
fuzz: build/fuzz/aux_parse_fuzz build/selftests/aux_parse_test build/selftests/perfdata_fuzz \
      build/selftests/perfdata_forksrv.so build/selftests/perfdata_fakeperf
	UPMU_PERFDATA_FUZZ_N=$${UPMU_PERFDATA_FUZZ_N:-100000} UPMU_PERFDATA_FUZZ_JOBS=2 \
		selftests/upmu/perfdata_fuzz_test.sh "$$(scripts/perfbuild.sh)" \
		"$$(UPMU_PERF_SAN=1 scripts/perfbuild.sh)" build/selftests/perfdata_fuzz
	UPMU_AUX_FUZZ_N=$${UPMU_AUX_FUZZ_N:-100000000} build/selftests/aux_parse_test
	@mkdir -p build/fuzz/corpus
	build/fuzz/aux_parse_fuzz -max_total_time=$${FUZZ_TIME:-600} $(FUZZ_ARGS) build/fuzz/corpus \
		selftests/upmu/aux-corpus

# BPF programs that read upmu events (libbpf and clang from Debian)
build/selftests/upmu_read.bpf.o: selftests/upmu/bpf/upmu_read.bpf.c
	@mkdir -p $(@D)
	clang -O2 -g -Wall -Werror -target bpf \
		-I/usr/include/$$(gcc -print-multiarch) -c -o $@ $<
build/selftests/bpf_read_test: USERLIBS := -lbpf

build/selftests/nic_fw_test: driver/include/hw/nic_cmd.h
build/selftests/icx_test build/selftests/icx_mem_test: selftests/upmu/icx_test.h
build/selftests/%: selftests/upmu/%.c selftests/upmu/upmu_lib.c selftests/upmu/upmu_lib.h \
		   selftests/upmu/upmu_test.h $(PMULIB)
	@mkdir -p $(@D)
	$(CC) $(USERCFLAGS) -Itools/lib \
		-I"$$(scripts/ksrc.sh 2>/dev/null)/tools/testing/selftests" \
		-o $@ $< selftests/upmu/upmu_lib.c tools/lib/upmu_pmu.c $(USERLIBS)

check:
	@scripts/check.sh

soak:
	@UPMU_SOAK=1 scripts/check.sh

demo:
	@scripts/demo.sh

bench:
	@bench/bench.sh --kernel $(or $(BENCH_KERNEL),stock) -- $(BENCH_ARGS)

# the NIC sections use the diag library, hence the fwctl uAPI
build/bench/upmu_bench: bench/upmu_bench.c bench/bench_nic.c bench/bench_icx.c bench/bench.h bench/bench_util.h \
			$(PMULIB) $(DIAGLIB) | $(FWCTL_UAPI)
	@mkdir -p $(@D)
	$(CC) $(TOOLCFLAGS) -Itools/lib -Idriver/include -isystem build/include \
		-o $@ $(filter %.c,$^)

# the upmu-exporter section's storm client (bench/README)
build/bench/exporter_storm: bench/exporter_storm.c
	@mkdir -p $(@D)
	$(CC) $(TOOLCFLAGS) -pthread -o $@ $<
build/bench/bench_aux: bench/bench_aux.c bench/bench_util.h $(PMULIB)
	@mkdir -p $(@D)
	$(CC) $(TOOLCFLAGS) -Itools/lib -Idriver/include -isystem build/include \
		-o $@ $(filter %.c,$^)

install:
	@scripts/install.sh modules $(KDIR)

dkms-src:
	@scripts/install.sh dkms-src

clean:
	rm -rf build
