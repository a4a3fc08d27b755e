# SPDX-License-Identifier: MIT
# hayate: build, run, test, bench. See README.md.
#   make        build/hayate.elf       make iso   build/hayate.iso
#   make run    boot it on a default setup (QEMU)
#   make test   every test, ending "N passed, N failed"
#   make unit   the host unit tests alone (build/unit/tests [NAME] filters)
#   make soak   the TCP soak over SOAK=FROM:COUNT[:v] seeds (a hunt)
#   make fuzz   every fuzz target FUZZ_SECONDS each, corpus kept, coverage
#   make bench  benchmark tables, build/bench.json
#   make qemu   build/qemu/qemu-system-x86_64: Debian's QEMU with our device
#               models (qemu/, the 82599 as -device ixgbe); incremental
#   make fuzz-bins, route-diff, bench-bins: what tests/fuzz/run,
#               tests/route/run and tools/bench.py run, from the host library

BUILD   := build
CC      := clang
LD      := ld.lld
NASM    := nasm
PYTHON  ?= python3

# One source list for net/: the kernel and every host binary build from it.
NET_SRCS     := $(sort $(wildcard net/*.c net/*/*.c))
KERNEL_SRCS  := $(sort $(wildcard kernel/*.c kernel/*/*.c kernel/arch/x86_64/*.c))
LIB_SRCS     := $(sort $(wildcard lib/*.c))
DRIVER_SRCS  := $(sort $(wildcard drivers/*/*.c drivers/*.c))
APP_SRCS     := $(sort $(wildcard apps/*/*.c apps/*.c))
TESTER_SRCS  := $(sort $(wildcard tester/*.c))
BGP_SRCS     := $(sort $(wildcard bgp/*.c))
ASM_SRCS     := $(sort $(wildcard boot/*.asm kernel/arch/x86_64/*.asm))
# Kernel and driver files with no hardware in them, also built into the
# host tests.
KERNEL_PORTABLE := $(LIB_SRCS) kernel/console/config.c kernel/console/cli_parse.c kernel/platform/acpi_madt.c drivers/virtio/virtqueue.c \
           drivers/virtio/virtqueue_packed.c drivers/pci/pci_window.c drivers/sff/sff8472.c drivers/mlx5/mlx5_enc.c

WARN    := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
           -Wno-unused-parameter -Wvla
KCFLAGS := --target=x86_64-unknown-none-elf -std=c11 -ffreestanding -nostdlibinc \
           -fno-stack-protector -fno-pic -fno-pie -mcmodel=kernel -mno-red-zone \
           -fno-omit-frame-pointer -fno-common -O2 -g $(WARN) -I. -Inet
# net/ is freestanding: it sees only its own rooms (-Inet, not -I.), so an
# include of kernel/, drivers/ or libc headers fails the build.
NETCFLAGS := $(filter-out -I.,$(KCFLAGS))
LDFLAGS := -nostdlib -static -z max-page-size=0x1000 -T linker.ld
HOSTCFLAGS := -std=c11 -D_DEFAULT_SOURCE -g -O1 -fno-omit-frame-pointer \
           -fsanitize=address,undefined -fno-sanitize-recover=undefined $(WARN) \
           -Wno-missing-prototypes -I. -Inet

KOBJS := $(patsubst %.c,$(BUILD)/k/%.o,$(KERNEL_SRCS) $(LIB_SRCS) $(DRIVER_SRCS) $(APP_SRCS) $(TESTER_SRCS) $(BGP_SRCS) $(NET_SRCS)) \
         $(patsubst %.asm,$(BUILD)/k/%.o,$(ASM_SRCS))

.PHONY: all iso run test unit soak fuzz fuzz-bins cov-bins route-diff bench-bins bench clean deps-build qemu \
        deps-test deps-fuzz FORCE
all: $(BUILD)/hayate.elf

$(BUILD)/k/net/%.o: net/%.c
	@mkdir -p $(dir $@)
	$(CC) $(NETCFLAGS) -MMD -c $< -o $@
$(BUILD)/k/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(KCFLAGS) -MMD -c $< -o $@
$(BUILD)/k/%.o: %.asm
	@mkdir -p $(dir $@)
	$(NASM) -f elf64 -g -F dwarf -MD $(@:.o=.d) -o $@ $<

# The commit goes into `show version`; version.o is rebuilt every time.
HAYATE_COMMIT := $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)$(shell git diff --quiet HEAD 2>/dev/null || echo -dirty)
$(BUILD)/k/kernel/version.o: KCFLAGS += -DHAYATE_COMMIT='"$(HAYATE_COMMIT)"'
$(BUILD)/k/kernel/version.o: FORCE
FORCE:

$(BUILD)/hayate.elf: $(KOBJS) linker.ld $(BUILD)/boundaries.ok
	$(LD) $(LDFLAGS) -o $@ $(KOBJS)

# The include rules between rooms (net/ freestanding, its public headers,
# apps through kernel/app.h, NIC drivers through their table).
$(BUILD)/boundaries.ok: tools/check-boundaries $(KOBJS)
	@tools/check-boundaries
	@touch $@

$(BUILD)/hayate.iso: $(BUILD)/hayate.elf tools/mkiso tools/default.conf
	tools/mkiso tools/default.conf $@
iso: $(BUILD)/hayate.iso

# ---- The host build: one source list, one library per flag set --------
# Everything portable (net/, lib/, the kernel and driver files with no
# hardware in them, the apps written only against net/'s API) goes into
# build/host/FLAVOUR/libhayate.a, the test fixtures (tests/support/) into
# libsupport.a beside it. Unit tests, fuzzers, the route differential tests
# and the benchmarks all link these; none lists sources of its own.
APP_PORTABLE := apps/udp_echo.c apps/tcp_echo.c apps/http.c apps/pingpong.c \
           apps/iperf3_proto.c
HOST_SRCS    := $(NET_SRCS) $(KERNEL_PORTABLE) $(APP_PORTABLE) $(TESTER_SRCS) $(BGP_SRCS)
SUPPORT_SRCS := $(sort $(wildcard tests/support/*.c))

HOST_WARN := $(WARN) -Wno-missing-prototypes
HOST_CFLAGS_unit := $(HOSTCFLAGS)
HOST_CFLAGS_fuzz := -std=c11 -D_DEFAULT_SOURCE -g -O2 -fno-omit-frame-pointer \
           -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined \
           $(HOST_WARN) -I. -Inet
# Benchmarks: tuned for this machine, and (bench-kernel) the kernel's code
# generation, baseline x86-64 as KCFLAGS, so lookups take the popcnt path.
# DWARF 4 for valgrind's callgrind.
HOST_CFLAGS_bench := -std=gnu11 -O2 -march=native -gdwarf-4 $(HOST_WARN) -I. -Inet
HOST_CFLAGS_bench-kernel := -std=gnu11 -O2 -march=x86-64 -mno-red-zone -fno-omit-frame-pointer \
           -gdwarf-4 $(HOST_WARN) -I. -Inet
# The TCP benchmark: baseline x86-64 for both stacks (lwIP's objects take
# the same flags in tools/bench/tcp/bench_tcp.py).
HOST_CFLAGS_bench-tcp := -std=gnu11 -O2 -march=x86-64 -gdwarf-4 $(HOST_WARN) -I. -Inet
# The route differential tests: optimised, baseline x86-64, no sanitizers.
HOST_CFLAGS_route-diff := -std=gnu11 -O2 -g $(HOST_WARN) -I. -Inet
HOST_FLAVOURS := unit fuzz bench bench-kernel bench-tcp route-diff

# Focused fuzz builds. A target that searches a few files links a library
# whose coverage is in those files only (flavour fuzz-FOCUS, the files
# FUZZ_FOCUS_FOCUS), so what libFuzzer does per input (every counter read,
# every comparison hooked) is for them and not for the whole stack under
# them. A structure-aware target (FOCUS-ops: its input is operations that
# it turns into packets) has no comparison tracing either: the values
# compared are its own, not bytes libFuzzer could change.
FUZZ_FOCUS_http  := apps/http.c
FUZZ_FOCUS_tcp   := $(wildcard net/tcp/*.c)
FUZZ_FOCUS_reasm := net/ip/reasm.c
FUZZ_FOCUS_acl   := $(wildcard net/acl/*.c)
FUZZ_FOCUS_OF_fuzz_acl       := acl
FUZZ_FOCUS_OF_fuzz_http      := http
FUZZ_FOCUS_OF_fuzz_http_pipe := http-ops
FUZZ_FOCUS_OF_fuzz_tcp_conn  := tcp-ops
FUZZ_FOCUS_OF_fuzz_reasm     := reasm-ops
FUZZ_FLAVOURS := fuzz-acl fuzz-http fuzz-http-ops fuzz-tcp-ops fuzz-reasm-ops
$(foreach f,$(FUZZ_FLAVOURS),$(eval HOST_CFLAGS_$(f) := $$(HOST_CFLAGS_fuzz) \
           $(if $(filter %-ops,$(f)),-fno-sanitize-coverage=trace-cmp)))
HOST_FLAVOURS += $(FUZZ_FLAVOURS)

# Coverage builds of the fuzz targets (make fuzz replays the kept corpus
# through them for its report): llvm's source-based coverage, no sanitizers.
HOST_CFLAGS_cov := -std=c11 -D_DEFAULT_SOURCE -g -O1 -fprofile-instr-generate -fcoverage-mapping \
           $(HOST_WARN) -I. -Inet
HOST_FLAVOURS += cov

# The benchmark programs include DPDK's headers, which our -Werror set
# does not suit: they build as they always have, DPDK's -march=corei7
# giving way to -march=native (tcp_bench, with no DPDK, keeps its flavour's).
DPDK_CFLAGS = $(shell pkg-config --cflags libdpdk 2>/dev/null)
DPDK_LIBS   = $(shell pkg-config --libs libdpdk 2>/dev/null)
bench_cflags = $(filter-out $(HOST_WARN),$(HOST_CFLAGS_$(2))) -Wall -Wextra -Wno-unused-parameter \
           $(if $(filter tools/bench/tcp/%,$(1)),,$(DPDK_CFLAGS) $(filter -march=native,$(HOST_CFLAGS_$(2))))
# The fuzzers' fixtures (tests/support/) are not what they search: no
# coverage there, whose checksum and frame-building loops took their time
# and gave them features that say nothing of the stack. Nor, in a focused
# build, outside its focus and the targets themselves.
fuzz_uncovered = $(filter tests/support/%,$(1)) \
           $(if $(filter fuzz-%,$(2)),$(filter-out $(FUZZ_FOCUS_$(patsubst fuzz-%,%,$(2:-ops=))) tests/fuzz/%,$(1)))
host_cflags = $(if $(filter tools/bench/%,$(1)),$(bench_cflags),$(HOST_CFLAGS_$(2)) \
           $(if $(filter fuzz%,$(2)),$(if $(strip $(fuzz_uncovered)),-fno-sanitize=fuzzer-no-link)))
host_objs = $(patsubst %.c,$(BUILD)/host/$(1)/%.o,$(2))
# Support before the library, grouped: host_env.c (support) is net/'s log.
host_deps = $(BUILD)/host/$(1)/libsupport.a $(BUILD)/host/$(1)/libhayate.a
host_libs = -Wl,--start-group $(BUILD)/host/$(1)/libsupport.a $(BUILD)/host/$(1)/libhayate.a -Wl,--end-group

define host_flavour
$(BUILD)/host/$(1)/%.o: %.c
	@mkdir -p $$(dir $$@)
	$$(CC) $$(call host_cflags,$$<,$(1)) -MMD -MP -c $$< -o $$@
$(BUILD)/host/$(1)/libhayate.a: $(call host_objs,$(1),$(HOST_SRCS))
	@rm -f $$@
	$$(AR) rcs $$@ $$^
$(BUILD)/host/$(1)/libsupport.a: $(call host_objs,$(1),$(SUPPORT_SRCS))
	@rm -f $$@
	$$(AR) rcs $$@ $$^
host-$(1): $(BUILD)/host/$(1)/libhayate.a $(BUILD)/host/$(1)/libsupport.a
HOST_OBJS += $(call host_objs,$(1),$(HOST_SRCS) $(SUPPORT_SRCS))
endef
$(foreach f,$(HOST_FLAVOURS),$(eval $(call host_flavour,$(f))))
.PHONY: $(addprefix host-,$(HOST_FLAVOURS))

# Host unit tests: tests/unit/ (main.c, the runner, and one folder per part
# of the tree) on the unit library.
UNIT_SRCS := $(sort $(wildcard tests/unit/*.c tests/unit/*/*.c))
UNIT_OBJS := $(call host_objs,unit,$(UNIT_SRCS))
$(BUILD)/unit/tests: $(UNIT_OBJS) $(call host_deps,unit)
	@mkdir -p $(dir $@)
	$(CC) $(HOSTCFLAGS) -o $@ $(UNIT_OBJS) $(call host_libs,unit) -lpthread
unit: $(BUILD)/unit/tests
	$(BUILD)/unit/tests

# The mlx5 driver's command encoders, one command a run, as hex
# (tests/e2e/test_mlx5_encodings.py compares them with a real card's trace).
$(BUILD)/unit/mlx5-encode: $(call host_objs,unit,tools/mlx5/encode.c) $(call host_deps,unit)
	@mkdir -p $(dir $@)
	$(CC) $(HOSTCFLAGS) -o $@ $(call host_objs,unit,tools/mlx5/encode.c) $(call host_libs,unit)

# hayate's BGP session and codec on a host socket, against a real daemon
# (tests/e2e/test_bgp_codec.py).
$(BUILD)/unit/bgp-probe: $(call host_objs,unit,tools/bgp/probe.c) $(call host_deps,unit)
	@mkdir -p $(dir $@)
	$(CC) $(HOSTCFLAGS) -o $@ $(call host_objs,unit,tools/bgp/probe.c) $(call host_libs,unit)

# The TCP soak's hunt over a range of seeds (the fixed seeds are a unit
# test): make soak SOAK=FROM:COUNT[:v] [SOAK_MIN_WRITE=N].
SOAK ?= 1000:160
SOAK_OBJS := $(call host_objs,unit,tests/soak/tcp_soak_hunt.c)
$(BUILD)/soak/tcp_soak_hunt: $(SOAK_OBJS) $(call host_deps,unit)
	@mkdir -p $(dir $@)
	$(CC) $(HOSTCFLAGS) -o $@ $(SOAK_OBJS) $(call host_libs,unit) -lpthread
soak: $(BUILD)/soak/tcp_soak_hunt
	$(BUILD)/soak/tcp_soak_hunt $(SOAK)

# libFuzzer targets, one binary per tests/fuzz/fuzz_*.c (tests/fuzz/run
# builds and runs them).
FUZZ_SRCS := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_NAMES := $(patsubst tests/fuzz/%.c,%,$(FUZZ_SRCS))
FUZZ_BINS := $(addprefix $(BUILD)/fuzz/,$(FUZZ_NAMES))
fuzz_flavour = fuzz$(addprefix -,$(FUZZ_FOCUS_OF_$(1)))
define fuzz_bin
$(BUILD)/fuzz/$(1): $(BUILD)/host/$(2)/tests/fuzz/$(1).o $(call host_deps,$(2))
	@mkdir -p $$(dir $$@)
	$$(CC) -fsanitize=fuzzer,address,undefined -o $$@ $$< $$(call host_libs,$(2))
FUZZ_OBJS += $(BUILD)/host/$(2)/tests/fuzz/$(1).o
endef
$(foreach t,$(FUZZ_NAMES),$(eval $(call fuzz_bin,$(t),$(call fuzz_flavour,$(t)))))
fuzz-bins: $(FUZZ_BINS)
COV_BINS := $(patsubst tests/fuzz/%.c,$(BUILD)/cov/%,$(FUZZ_SRCS))
$(BUILD)/cov/fuzz_%: $(BUILD)/host/cov/tests/fuzz/fuzz_%.o $(call host_deps,cov)
	@mkdir -p $(dir $@)
	$(CC) -fsanitize=fuzzer -fprofile-instr-generate -o $@ $< $(call host_libs,cov)
cov-bins: $(COV_BINS)

# make fuzz: every target FUZZ_SECONDS (default 180) each, FUZZ_JOBS at once
# (default: every core), what they find merged into tests/fuzz/corpus/, and
# a coverage report (build/fuzz/coverage.txt).
fuzz: deps-fuzz
	@FUZZ_SECONDS=$(or $(FUZZ_SECONDS),180) FUZZ_JOBS=$(FUZZ_JOBS) FUZZ_MERGE=1 FUZZ_COVERAGE=1 \
	    $(PYTHON) tests/fuzz/run

# The route tables' differential tests (tests/route/run runs them).
ROUTE_DIFF_OBJS := $(call host_objs,route-diff,$(sort $(wildcard tests/route/*.c)))
$(BUILD)/route-diff: $(ROUTE_DIFF_OBJS) $(call host_deps,route-diff)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $(ROUTE_DIFF_OBJS) $(call host_libs,route-diff) -lpthread
route-diff: $(BUILD)/route-diff

# The benchmark programs (tools/bench.py runs them): each tuned for this
# machine and, as NAME_kflags, with the kernel's code generation. The route
# and forwarding benchmarks set DPDK beside us (tools/deps bench installs
# it); tcp_bench sets lwIP beside us, whose objects bench_tcp.py builds.
ROUTE_BENCH_SRCS := tools/bench/route_bench.c tools/bench/route_bench6.c tools/bench/route_load.c
FWD_BENCH_SRCS   := tools/bench/fwd_bench.c tools/bench/fwd_bench6.c tools/bench/fwd_nic.c \
           tools/bench/route_load.c tools/bench/l3fwd_side.c tools/bench/fwd_scale.c tools/bench/fwd_acl.c
# fwd_bench's third side, DPDK's own l3fwd (l3fwd_side.c drives its
# lpm_main_loop): the example's files from Debian's dpdk-doc, never copied
# here, compiled as its Makefile does (its SRCS-y, -O3, DPDK's flags,
# ../common), main renamed; -march=native as DPDK's headers get in ours.
L3FWD_DIR  := /usr/share/dpdk/examples/l3fwd
L3FWD_SRCS := main.c l3fwd_acl.c l3fwd_lpm.c l3fwd_fib.c l3fwd_em.c l3fwd_event.c l3fwd_event_generic.c \
           l3fwd_event_internal_port.c
L3FWD_OBJS := $(patsubst %.c,$(BUILD)/bench/l3fwd/%.o,$(L3FWD_SRCS))
$(BUILD)/bench/l3fwd/%.o: $(L3FWD_DIR)/%.c
	@mkdir -p $(dir $@)
	$(CC) -O3 $(DPDK_CFLAGS) -DALLOW_EXPERIMENTAL_API -I$(L3FWD_DIR)/../common -march=native -gdwarf-4 \
	    -Dmain=l3fwd_main -MMD -MP -c $< -o $@
l3fwd_missing = @echo "fwd_bench: $@ is missing: DPDK's l3fwd example, the forwarding benchmark's peer," \
	    "comes with dpdk-doc (tools/deps bench; apt-get install dpdk-doc)" >&2; exit 1
$(L3FWD_DIR)/%.c:
	$(l3fwd_missing)
$(L3FWD_DIR)/%.h:
	$(l3fwd_missing)
L3FWD_SIDE := $(foreach f,bench bench-kernel,$(call host_objs,$(f),tools/bench/l3fwd_side.c))
$(L3FWD_SIDE): $(L3FWD_DIR)/l3fwd.h
$(L3FWD_SIDE): DPDK_CFLAGS += -I$(L3FWD_DIR)
-include $(wildcard $(BUILD)/bench/l3fwd/*.d)
# The generator (tester/) beside dpdk-testpmd, which it runs: no DPDK library.
GEN_BENCH_SRCS   := tools/bench/gen_bench.c tools/bench/fwd_nic.c
LWIP_OBJS := $(BUILD)/bench/lwip/lwip_a.o $(BUILD)/bench/lwip/lwip_b.o
# bench_program NAME FLAVOUR SOURCES [MORE OBJECTS] [LIBRARIES]
define bench_program
$(BUILD)/bench/$(1): $(call host_objs,$(2),$(3)) $(4) $(call host_deps,$(2))
	@mkdir -p $$(dir $$@)
	$$(CC) -o $$@ $$(filter %.o,$$^) $$(call host_libs,$(2)) $(5)
endef
$(eval $(call bench_program,route_bench,bench,$(ROUTE_BENCH_SRCS),,$$(DPDK_LIBS)))
$(eval $(call bench_program,route_bench_kflags,bench-kernel,$(ROUTE_BENCH_SRCS),,$$(DPDK_LIBS)))
$(eval $(call bench_program,fwd_bench,bench,$(FWD_BENCH_SRCS),$(L3FWD_OBJS),$$(DPDK_LIBS) -lrte_net_ring))
$(eval $(call bench_program,fwd_bench_kflags,bench-kernel,$(FWD_BENCH_SRCS),$(L3FWD_OBJS),$$(DPDK_LIBS) -lrte_net_ring))
$(eval $(call bench_program,gen_bench,bench,$(GEN_BENCH_SRCS)))
$(eval $(call bench_program,gen_bench_kflags,bench-kernel,$(GEN_BENCH_SRCS)))
$(eval $(call bench_program,tcp_bench,bench-tcp,tools/bench/tcp/tcp_bench.c tools/bench/tcp/tcp_scale.c,$(LWIP_OBJS)))
# BGP UPDATE ingest, a recorded session replayed (BIRD beside it: tools/bench/bgp_ref.py)
$(eval $(call bench_program,bgp_bench,bench,tools/bench/bgp_bench.c))
$(eval $(call bench_program,bgp_bench_kflags,bench-kernel,tools/bench/bgp_bench.c))
$(LWIP_OBJS) &: tools/bench/tcp/bench_tcp.py tools/bench/tcp/lwip_side.c tools/bench/tcp/lwipopts.h
	CC=$(CC) $(PYTHON) tools/bench/tcp/bench_tcp.py $(BUILD)/bench
BENCH_BINS := $(addprefix $(BUILD)/bench/,route_bench route_bench_kflags fwd_bench fwd_bench_kflags \
           gen_bench gen_bench_kflags tcp_bench bgp_bench bgp_bench_kflags)
bench-bins: $(BENCH_BINS)

-include $(HOST_OBJS:.o=.d) $(UNIT_OBJS:.o=.d) $(SOAK_OBJS:.o=.d) $(ROUTE_DIFF_OBJS:.o=.d)
-include $(FUZZ_OBJS:.o=.d)
-include $(wildcard $(BUILD)/host/*/tools/bench/*.d $(BUILD)/host/*/tools/bench/*/*.d) # the benchmarks' own

deps-build:
	@tools/deps build
deps-test:
	@tools/deps test
deps-fuzz:
	@tools/deps fuzz

# Debian's QEMU source with qemu/hw/net/* added (tools/qemu-build caches
# the source and the build under build/qemu; a model edit rebuilds in seconds).
qemu:
	@tools/qemu-build

# make run boots the router of tools/run.conf (two ports, two Linux hosts).
$(BUILD)/run.iso: $(BUILD)/hayate.elf tools/mkiso tools/run.conf
	tools/mkiso tools/run.conf $@
run: deps-build
	@$(MAKE) --no-print-directory $(BUILD)/run.iso
	@$(PYTHON) tools/run.py $(BUILD)/run.iso

# The tests boot our QEMU build's device models too (make qemu: minutes
# the first time, seconds after).
test: deps-test
	@$(MAKE) --no-print-directory all iso $(BUILD)/unit/tests $(BUILD)/unit/mlx5-encode $(BUILD)/unit/bgp-probe qemu
	@$(PYTHON) tests/run_all.py

bench: deps-build
	@$(PYTHON) tools/bench.py

# make bgp-table: the whole Internet table (rib-v4-2024, rib-v6-2024) from
# BIRD into hayate over BGP under QEMU, 10,000 lookups checked
# (tests/e2e/test_bgp_table.py at full size; make test runs a part of it).
.PHONY: bgp-table
bgp-table: deps-test iso
	BGP_TABLE_V4=1000000 BGP_TABLE_V6=200000 BGP_TABLE_CHECKS=10000 $(PYTHON) -m pytest -q -s tests/e2e/test_bgp_table.py

# make rfc2544: hayate as the RFC 2544 tester against hayate, then the
# Linux guest, as the router under test (tools/rfc2544, docs/rfc2544.md);
# build/rfc2544/report.{json,html} and PNGs. RFC2544_ARGS: the driver's
# options (python3 tools/rfc2544 --help); the default is sized for TCG.
RFC2544_ARGS ?= --line-mbps 10 --drain-ms 300
.PHONY: rfc2544
rfc2544: deps-build
	@$(MAKE) --no-print-directory all
	@$(PYTHON) tools/rfc2544 $(RFC2544_ARGS)

clean:
	rm -rf $(BUILD)

-include $(KOBJS:.o=.d)
