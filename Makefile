# SPDX-License-Identifier: GPL-2.0
#
# Top-level Makefile of ubfab: builds the module for one or both kernel
# series, the library, ubctl, libubshmem, ubrun and the selftests into
# build/, and drives deps, lint, check, demo and the VM shell. The parts
# have their own makefiles (kmod/Kbuild, lib/, tools/ubctl/, comm/,
# tools/ubrun/, examples/, selftests/ubfab/); this file
# only calls them. `make help` lists the targets. Only `make deps` and the
# goals that call it install packages or download anything.

# The first rule below is env.mk's; the default goal must not be it.
.DEFAULT_GOAL := all

UBFAB_CACHE ?= $(HOME)/.cache/ubfab
export UBFAB_CACHE
ENV_MK := $(UBFAB_CACHE)/env.mk

# tools/deps.sh (Debian packages, kernels, the kselftest harness; fast when
# there is nothing to do) runs first for `make deps` and the goals that set
# up a fresh machine: env.mk is its output and make remakes it before
# reading it. Sub-makes started from here skip it. Every other goal uses
# what the machine has, env.mk included if it is there (it names the
# release of each kernel series), and stops naming the Debian package to
# install (or `make deps`) when something is missing.
DEPS_GOALS := deps demo check check-debug bench bench-scale bench-compare shell
ifneq ($(UBFAB_DEPS_DONE),)
-include $(ENV_MK)
else ifneq ($(filter $(DEPS_GOALS),$(MAKECMDGOALS)),)
include $(ENV_MK)
$(ENV_MK): FORCE
	@$(CURDIR)/tools/deps.sh
else
-include $(ENV_MK)
endif
export UBFAB_DEPS_DONE := 1

# The kernel to build the module for: KVER is 6.1 (default), 6.12 or
# 6.12-rt (the releases deps.sh chose), "debug" (tools/debug-kernel.sh) or a
# full release with installed headers; or give the build tree as KDIR.
KVER ?= 6.1
KVER_GIVEN := $(KVER)
# The release of a kernel build tree (Debian's kernel.release files do not
# always hold it).
kdir-release = $(shell sed -n 's/.*UTS_RELEASE "\(.*\)"/\1/p' \
	$(1)/include/generated/utsrelease.h 2>/dev/null)
ifneq ($(origin KDIR),undefined)
override KVER := $(call kdir-release,$(KDIR))
else ifeq ($(KVER),debug)
KDIR := $(shell $(CURDIR)/tools/debug-kernel.sh --print 2>/dev/null | \
	sed -n 's/^KDIR=//p')
ifeq ($(KDIR),)
$(error no debug kernel: build it with tools/debug-kernel.sh)
endif
override KVER := $(call kdir-release,$(KDIR))
else
# env.mk's name for a series: 6.12 -> UBFAB_KVER_6_12, 6.12-rt -> ..._6_12_RT.
kver-var = UBFAB_KVER_$(subst -,_,$(subst .,_,$(subst -rt,-RT,$(1))))
override KVER := $(or $($(call kver-var,$(KVER))),$(KVER))
KDIR := /usr/src/linux-headers-$(KVER)
endif

# $(call no-kernel,<release>,<kernel build tree>): why the module cannot be
# built there and what to do; for Debian's headers, the package, unless
# the release is still a series name (6.1, 6.12, 6.12-rt) without env.mk.
is-series = $(shell echo '$(1)' | grep -Ex '[0-9]+\.[0-9]+(-rt)?')
no-kernel = no kernel build tree $(or $(2),for $(1)): $(if $(filter \
	/usr/src/linux-headers-$(1),$(2)),$(if $(call is-series,$(1)),$(ENV_MK) \
	is missing$(comma) which names the release of each series: run `make \
	deps`$(comma) or give KVER=<release> or KDIR=<tree>,install the Debian \
	package linux-headers-$(1) (`make deps` installs those of the kernels \
	it picks)),KDIR must name a kernel build tree)
comma := ,

# What ubvm -k takes for it (the debug kernel's release is not in the cache).
VM_KERNEL := $(if $(filter debug,$(KVER_GIVEN)),debug,$(KVER))

# The kernel the demo boots: both series boot in about the same time here
# (5-9 s); 6.12 is the newer one.
DEMO_KVER ?= 6.12

# Build output in the kernel's style, for what the default goal, demo,
# bench and their parts build: one short step per part ("  BUILD lib")
# and no command lines of the sub-makes, unless V=1; the kernel's kbuild
# takes the same V= (passed on in MAKEFLAGS) and keeps its own quiet
# lines ("  CC [M]  ..."). With -s (the scripts' make -s) no steps either.
ifeq ($(V),1)
QUIET_MAKE :=
step =
else
QUIET_MAKE := -s
step = @printf '  %-6s %s\n' '$(1)' '$(2)';
endif
ifneq ($(findstring s,$(firstword -$(MAKEFLAGS))),)
step =
endif

BUILD := $(CURDIR)/build
# Module build directory for a kernel release: links to the sources in
# kmod/, so that each release keeps its own objects.
moddir = $(BUILD)/$(1)/kmod
MODDIR ?= $(call moddir,$(KVER))
# The checkout whose kmod/ (and uAPI header) the module is built from: this
# one, or another commit's tree (tools/bench/compare.sh builds its base so,
# with a MODDIR of its own).
KMOD_TREE ?= $(CURDIR)
override KMOD_TREE := $(abspath $(KMOD_TREE))
KMOD_SOURCES := $(notdir $(wildcard $(KMOD_TREE)/kmod/*.c \
	$(KMOD_TREE)/kmod/*.h)) Kbuild

# $(call build-module,<release>,<kernel build tree>[,<module build dir>])
define build-module
	$(if $(wildcard $(2)/Makefile),,$(error $(call no-kernel,$(1),$(2))))
	@mkdir -p $(or $(3),$(call moddir,$(1)))
	@find $(or $(3),$(call moddir,$(1))) -maxdepth 1 -type l \
		! -exec test -e {} \; -delete
	@$(foreach f,$(KMOD_SOURCES),ln -sfn $(KMOD_TREE)/kmod/$(f) \
		$(or $(3),$(call moddir,$(1)))/$(f);)
	$(call step,BUILD,ubfab.ko for $(1))$(MAKE) --no-print-directory \
		-C $(2) M=$(or $(3),$(call moddir,$(1))) \
		UBFAB_ROOT=$(KMOD_TREE) W=1 modules
endef

# The selftests need the kselftest harness, which `make deps` extracts:
# without it the default goal builds the rest and says so.
all: modules lib tools comm $(if $(UBFAB_KSELFTEST),selftests)
	$(if $(UBFAB_KSELFTEST),,@echo "make: selftests not built: no" \
		"kselftest harness (\`make deps\` extracts it)")

modules:
	$(call build-module,$(KVER),$(KDIR),$(MODDIR))

modules-all:
	$(if $(wildcard $(ENV_MK)),,$(error modules-all builds for the 6.1 \
		and 6.12 kernels named in $(ENV_MK)$(comma) which is missing: \
		run `make deps`))
	$(call build-module,$(UBFAB_KVER_6_1),$(UBFAB_KDIR_6_1))
	$(call build-module,$(UBFAB_KVER_6_12),$(UBFAB_KDIR_6_12))

lib:
	$(call step,BUILD,lib)$(MAKE) $(QUIET_MAKE) -C lib O=$(BUILD)/lib

tools: lib
	$(call step,BUILD,ubctl)$(MAKE) $(QUIET_MAKE) -C tools/ubctl \
		O=$(BUILD)/tools
	$(call step,BUILD,ubrun)$(MAKE) $(QUIET_MAKE) -C tools/ubrun \
		O=$(BUILD)/tools

# libubshmem, the communication layer over libubfab (Documentation/shmem.rst)
comm: lib
	$(call step,BUILD,comm)$(MAKE) $(QUIET_MAKE) -C comm O=$(BUILD)/comm

selftests: lib comm
	$(if $(UBFAB_KSELFTEST),,$(error no kselftest harness: `make deps` \
		extracts it from Debian's linux-source-6.12$(comma) or give \
		UBFAB_KSELFTEST=<dir with kselftest_harness.h>))
	$(call step,BUILD,selftests)$(MAKE) $(QUIET_MAKE) -C selftests/ubfab \
		O=$(BUILD)/selftests/ubfab KSELFTEST=$(UBFAB_KSELFTEST)

deps:
	@:

lint:
	@tools/lint.sh

check:
	@tools/check.sh

check-debug:
	@tools/check.sh -d

# The Python binding (python/): that its enums follow the uAPI header, then
# its tests in the test VM on KVER with the host's python3 (ubvm -R), the
# module (make modules), lib and ubctl of this tree. python-uapi
# regenerates the enums.
check-python: lib tools
	@$(MAKE) -s --no-print-directory -C python uapi-check
	@tools/vm/ubvm -k $(VM_KERNEL) -R -t 120 -- /usr/bin/python3 -m pytest \
		-p no:cacheprovider --color=no -q python/tests

# libubshmem's ranks started by Open MPI's mpirun (PMIx), in the test VM on
# KVER with the host's mpirun (ubvm -R) and the module (make modules) with
# shmem_test's fabric of 4 nodes of 16 dies: selftests/ubfab/shmem_mpi.sh.
check-mpi: lib tools comm selftests
	@tools/vm/ubvm -k $(VM_KERNEL) -R -t 300 -p "nodes=4 chips_per_node=8 \
		dies_per_chip=2 cpus_per_node=1 npu_mem=64M cpu_mem=64M" -- \
		selftests/ubfab/shmem_mpi.sh

python-uapi:
	@$(MAKE) --no-print-directory -C python uapi

# A short run of ubbench queue send in the test VM on KVER, its JSON
# checked with jq (tools/bench/tests/vm.sh, in the host's root: ubvm -R).
check-bench: ubbench
	@tools/vm/ubvm -k $(VM_KERNEL) -R -t 120 -- tools/bench/tests/vm.sh

# The demo's programs, linked with the libubfab the VM has in /usr/lib:
# its scenario on the fabric (tools/vm/demo_scenario.c) and its load on
# the fabric model (tools/vm/demo_load.c).
DEMO_PROGS := $(addprefix $(BUILD)/tools/vm/,demo_scenario demo_load)

$(DEMO_PROGS): $(BUILD)/tools/vm/%: tools/vm/%.c tools/common/published.h lib
	@mkdir -p $(dir $@)
	$(call step,CC,tools/vm/$*)$(CC) -O2 -g -Wall -Wextra -Iinclude/uapi \
		-Ilib -Itools/common -o $@ $< -L$(BUILD)/lib -lubfab

# tools/vm/demo_run.sh runs them and ubbench (its latency of single
# WRITEs) in the VM and writes the charts of what comes back into
# build/demo/ (tools/plot/ubplot).
demo: lib tools $(DEMO_PROGS) ubbench
	@$(MAKE) --no-print-directory modules KVER=$(DEMO_KVER)
	$(call step,VM,cm384 demo on $(DEMO_KVER))tools/vm/demo_run.sh \
		$(DEMO_KVER) $(BUILD)/demo $(DEMO_PROGS) \
		$(BUILD)/tools/bench/ubbench

# Figures of the memory semantics and the NPU queues, measured in the VM,
# and the fabric model against the published table (tools/bench/,
# Documentation/benchmarks.rst); BENCH_ARGS go to ubbench. Without them,
# a second boot loads the module with profile=cm384 for ubbench queue
# scale (a queue on each of its 768 NPU dies), a third runs libubshmem's
# collectives (8 ranks to 64 KiB, outputs checked) and a fourth its MoE
# dispatch and combine at EP 8 (2 GiB: the payload moves), each as ranks
# of ubrun (built by tools, beside ubbench in the VM); bench-scale is the
# second alone.
BENCH_KVER ?= 6.12
BENCH_SCALE_PARAMS := profile=cm384
BENCH_COLL_ARGS := -r 8 -m 64K coll --check
BENCH_EP_ARGS := -s 8 ep

ubbench: lib comm
	$(call step,BUILD,ubbench)$(MAKE) $(QUIET_MAKE) -C tools/bench \
		O=$(BUILD)/tools/bench

bench-build: ubbench tools
	@$(MAKE) --no-print-directory modules KVER=$(BENCH_KVER)

bench: bench-build
	@tools/bench/run.sh -k $(BENCH_KVER) -- $(BENCH_ARGS)
	$(if $(BENCH_ARGS),,@tools/bench/run.sh -k $(BENCH_KVER) \
		-p $(BENCH_SCALE_PARAMS) -- queue scale)
	$(if $(BENCH_ARGS),,@tools/bench/run.sh -k $(BENCH_KVER) -n coll \
		-- $(BENCH_COLL_ARGS))
	$(if $(BENCH_ARGS),,@tools/bench/run.sh -k $(BENCH_KVER) -m 2G -n ep \
		-- $(BENCH_EP_ARGS))

bench-scale: bench-build
	@tools/bench/run.sh -k $(BENCH_KVER) -p $(BENCH_SCALE_PARAMS) \
		-- $(BENCH_ARGS) queue scale

# The same figures for ubfab.ko of commit BASE and of the working tree, in
# one VM, BENCH_ROUNDS rounds; tools/bench/compare.sh builds both modules.
BENCH_ROUNDS ?= 3

bench-compare:
	$(if $(BASE),,$(error bench-compare: give BASE=<commit>))
	@tools/bench/compare.sh -k $(BENCH_KVER) -r $(BENCH_ROUNDS) $(BASE) \
		-- $(BENCH_ARGS)

.PHONY: ubbench bench bench-build bench-scale bench-compare

# The soak run (tools/soak/, Documentation/testing.rst "Soak"): 64
# processes with every op and faults for SOAK_MINUTES in the VM of
# SOAK_KVER (the debug kernel: KASAN, lockdep, kmemleak; it must be built,
# tools/debug-kernel.sh, or give SOAK_KVER=6.12), then unload, kmemleak
# and the kernel log. SOAK_ARGS go to the soak program (soak -h).
SOAK_MINUTES ?= 20
SOAK_KVER ?= debug
SOAK_SRCS := $(wildcard tools/soak/*.c) tools/common/json.c

$(BUILD)/tools/soak/soak: $(SOAK_SRCS) tools/soak/soak.h lib
	@mkdir -p $(dir $@)
	$(call step,CC,tools/soak/soak)$(CC) -O2 -g -Wall -Wextra \
		-Iinclude/uapi -Ilib -Itools/common -o $@ $(SOAK_SRCS) \
		-L$(BUILD)/lib -lubfab

soak: lib tools $(BUILD)/tools/soak/soak
	@$(MAKE) --no-print-directory modules KVER=$(SOAK_KVER)
	$(call step,VM,soak for $(SOAK_MINUTES) min on $(SOAK_KVER))tools/soak/run.sh \
		-k $(SOAK_KVER) -m $(SOAK_MINUTES) $(if $(SOAK_ARGS),-- $(SOAK_ARGS))

.PHONY: soak

# Debian packages of the checkout's files (tracked and new, not ignored),
# built out of tree into build/deb/ and checked by lintian (tools/deb/).
deb:
	@tools/deb/build.sh

shell: all
	tools/vm/ubvm -k $(VM_KERNEL) -s

# The man pages (Documentation/man/, scdoc) into build/man.
man:
	$(call step,GEN,man pages)$(MAKE) $(QUIET_MAKE) -C Documentation/man \
		O=$(BUILD)/man

install: lib tools comm ubbench man
	$(MAKE) -C lib O=$(BUILD)/lib install
	$(MAKE) -C tools/ubctl O=$(BUILD)/tools install
	$(MAKE) -C comm O=$(BUILD)/comm install
	$(MAKE) -C tools/ubrun O=$(BUILD)/tools install
	$(MAKE) -C tools/bench O=$(BUILD)/tools/bench install
	$(MAKE) -C Documentation/man O=$(BUILD)/man install
	$(MAKE) -C python install

# The examples (examples/), built as a user's project builds them: against
# libubfab and libubshmem installed with DESTDIR into build/install, found
# by pkg-config.
EXAMPLES_ROOT := $(BUILD)/install

examples: lib comm
	$(call step,INSTALL,into $(EXAMPLES_ROOT))$(MAKE) $(QUIET_MAKE) -C lib \
		O=$(BUILD)/lib DESTDIR=$(EXAMPLES_ROOT) PREFIX=/usr install
	@$(MAKE) $(QUIET_MAKE) -C comm O=$(BUILD)/comm DESTDIR=$(EXAMPLES_ROOT) \
		PREFIX=/usr install
	@mkdir -p $(BUILD)/examples
	$(call step,BUILD,examples)PKG_CONFIG_SYSROOT_DIR=$(EXAMPLES_ROOT) \
		PKG_CONFIG_PATH=$(EXAMPLES_ROOT)/usr/lib/pkgconfig \
		$(MAKE) $(QUIET_MAKE) -C examples O=$(BUILD)/examples

clean:
	rm -rf build
	rm -f kmod/*.o kmod/*.ko kmod/*.mod kmod/*.mod.c kmod/.*.cmd \
		kmod/modules.order Module.symvers modules.order .*.cmd

help:
	@echo 'Targets (deps, demo, check, check-debug, bench, bench-scale,'
	@echo 'bench-compare and shell run tools/deps.sh first; the others'
	@echo 'install and download nothing):'
	@echo '  all          module for KVER, lib, ubctl, selftests (default;'
	@echo '               the selftests only after make deps)'
	@echo '  modules      ubfab.ko for KVER (or KDIR) in build/<release>/kmod'
	@echo '  modules-all  ubfab.ko for the 6.1 and the 6.12 kernel'
	@echo '  lib tools comm selftests ubbench   one part, into build/'
	@echo '               (tools: ubctl and ubrun; comm: libubshmem)'
	@echo '  deps         install and cache the dependencies (tools/deps.sh):'
	@echo '               Debian packages, kernels, kselftest harness'
	@echo '  lint         checkpatch, sparse (both kernels), docutils, pyflakes, shellcheck'
	@echo '  check        build, lint, host tests, VM tests on 6.1 and 6.12,'
	@echo '               the Debian packages (make deb, installed with DKMS'
	@echo '               into a clean root), then check-debug'
	@echo '  check-debug  VM tests on the debug kernel (KASAN, lockdep, KUnit,'
	@echo '               kmemleak, ...) and on the 6.12 PREEMPT_RT kernel'
	@echo '  check-python the Python binding'"'"'s tests in a VM (for KVER)'
	@echo '  check-mpi    libubshmem under Open MPI'"'"'s mpirun in a VM (for KVER)'
	@echo '  python-uapi  regenerate python/ubfab/_uapi.py from the uAPI'
	@echo '  check-bench  ubbench queue send briefly in a VM (for KVER), its'
	@echo '               JSON checked with jq'
	@echo '  demo         the cm384 fabric in a VM: ubctl topo, a scenario'
	@echo '               (modeled latency, bandwidth, incast, a plane down,'
	@echo '               bytes per plane), memory, time, the model'"'"'s'
	@echo '               memory under load (< 16 MiB?), ubbench latency;'
	@echo '               charts in build/demo/ (tools/plot/ubplot)'
	@echo '  bench        memory, queue and model benchmarks in a VM'
	@echo '               (BENCH_KVER=6.12, BENCH_ARGS), then queue scale'
	@echo '               in a second VM with profile=cm384, then the'
	@echo '               collectives (checked) and MoE EP 8 of libubshmem'
	@echo '  bench-scale  queue scale alone, profile=cm384 (768 queues)'
	@echo '  bench-compare  the same for the module of BASE=<commit> against'
	@echo '               this tree'"'"'s, side by side in one VM (BENCH_ROUNDS=3)'
	@echo '  soak         64 processes, every op, faults (port and plane'
	@echo '               flaps, entity resets, SIGKILL) for SOAK_MINUTES=20'
	@echo '               in the debug-kernel VM (SOAK_KVER): payloads, bytes,'
	@echo '               memory trend, latency drift, kmemleak, kernel log'
	@echo '  shell        VM shell with the module loaded (for KVER)'
	@echo '  man          the man pages (Documentation/man/) into build/man'
	@echo '  install      libubfab, libubfab-ffi, libubshmem, headers, ubctl and'
	@echo '               its bash completion, ubrun, ubbench, the man pages,'
	@echo '               the Python package ubfab into DESTDIR/PREFIX (uAPI in'
	@echo '               PREFIX/include/ubfab/linux)'
	@echo '  examples     install lib and comm into build/install (DESTDIR) and'
	@echo '               build examples/ against them with pkg-config'
	@echo '  deb          Debian packages (ubfab-dkms, libubfab1, libubfab-ffi1,'
	@echo '               libubshmem1, libubfab-dev, ubfab-tools, python3-ubfab)'
	@echo '               into'
	@echo '               build/deb/, then lintian'
	@echo '  clean        remove build/'
	@echo 'Variables: KVER=6.1|6.12|6.12-rt|debug|<release>,'
	@echo '  KDIR=<kernel build tree>, DEMO_KVER, UBFAB_CACHE (now $(UBFAB_CACHE)),'
	@echo '  V=1 (command lines instead of the short build steps).'

.PHONY: all modules modules-all lib tools comm examples selftests deps \
	lint check check-debug check-python check-mpi check-bench python-uapi \
	demo deb shell man install \
	clean help FORCE
