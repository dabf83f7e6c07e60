# SPDX-License-Identifier: GPL-2.0
#
# upmu: uncore PMU drivers, simulator and tools.
#
#   make            modules for the upmu debug kernel (built on first use)
#   make KDIR=/lib/modules/<ver>/build    modules for another kernel
#   make C=1 / W=1  sparse / extra warnings (passed to Kbuild)
#   make check      every test (host checks + QEMU suites)
#   make demo       boot a VM with a simulated 2-socket Tegra410 and show perf
#
# Kernel-side Kbuild rules live in ./Kbuild.

SHELL := /bin/bash
export C W

USERCFLAGS := -Wall -Wextra -Werror -O1 -g -D_GNU_SOURCE \
	      -fsanitize=address,undefined -fno-omit-frame-pointer

SELFTESTS := build/selftests/ucf_test build/selftests/cmem_test build/selftests/pcie_test \
	     build/selftests/c2c_test

.PHONY: all modules selftests check demo deps kernel lint clean

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

selftests: $(SELFTESTS)

build/selftests/%: selftests/upmu/%.c selftests/upmu/upmu_lib.c selftests/upmu/upmu_lib.h selftests/upmu/upmu_test.h
	@mkdir -p $(@D)
	$(CC) $(USERCFLAGS) -I"$$(scripts/ksrc.sh 2>/dev/null)/tools/testing/selftests" \
		-o $@ $< selftests/upmu/upmu_lib.c

check:
	@scripts/check.sh

demo:
	@scripts/demo.sh

clean:
	rm -rf build
