# hayate: build, run, test, bench. See README.md.
#   make        build/hayate.elf       make iso   build/hayate.iso
#   make run    boot it on a default setup (QEMU)
#   make test   every test, ending "N passed, N failed"
#   make bench  benchmark tables, build/bench.json

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
ASM_SRCS     := $(sort $(wildcard boot/*.asm kernel/arch/x86_64/*.asm))
# Kernel and driver files with no hardware in them, also built into the
# host tests.
KERNEL_PORTABLE := $(LIB_SRCS) kernel/config.c kernel/cli_parse.c kernel/acpi_madt.c drivers/virtio/virtqueue.c \
           drivers/virtio/virtqueue_packed.c

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

KOBJS := $(patsubst %.c,$(BUILD)/k/%.o,$(KERNEL_SRCS) $(LIB_SRCS) $(DRIVER_SRCS) $(APP_SRCS) $(NET_SRCS)) \
         $(patsubst %.asm,$(BUILD)/k/%.o,$(ASM_SRCS))

.PHONY: all iso run test unit bench clean deps-build deps-test FORCE
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

$(BUILD)/hayate.elf: $(KOBJS) linker.ld $(BUILD)/net-freestanding.ok
	$(LD) $(LDFLAGS) -o $@ $(KOBJS)

# -Inet cannot stop a path that climbs out of net/ ("../kernel/lib.h").
$(BUILD)/net-freestanding.ok: $(NET_SRCS) $(wildcard net/*.h net/*/*.h)
	@mkdir -p $(dir $@)
	@if grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"]*\.\./' $^; then \
	    echo "net/ must not include from outside net/ (above)"; exit 1; fi
	@touch $@

$(BUILD)/hayate.iso: $(BUILD)/hayate.elf tools/mkiso tools/default.conf
	tools/mkiso tools/default.conf $@
iso: $(BUILD)/hayate.iso

# Host unit tests: tests/unit/*.c with net/ and the portable kernel files.
# Applications written only against net/'s API, also host-tested.
APP_PORTABLE := apps/udp_echo.c apps/tcp_echo.c apps/http.c apps/pingpong.c \
           apps/iperf3_proto.c
UNIT_SRCS := $(sort $(wildcard tests/unit/*.c)) $(NET_SRCS) $(KERNEL_PORTABLE) $(APP_PORTABLE)
$(BUILD)/unit/tests: $(UNIT_SRCS) $(wildcard tests/unit/*.h net/*.h net/*/*.h lib/*.h kernel/*.h apps/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(HOSTCFLAGS) -o $@ $(UNIT_SRCS) -lpthread
unit: $(BUILD)/unit/tests
	$(BUILD)/unit/tests

deps-build:
	@tools/deps build
deps-test:
	@tools/deps test

# make run boots the router of tools/run.conf (two ports, two Linux hosts).
$(BUILD)/run.iso: $(BUILD)/hayate.elf tools/mkiso tools/run.conf
	tools/mkiso tools/run.conf $@
run: deps-build
	@$(MAKE) --no-print-directory $(BUILD)/run.iso
	@$(PYTHON) tools/run.py $(BUILD)/run.iso

test: deps-test
	@$(MAKE) --no-print-directory all iso $(BUILD)/unit/tests
	@$(PYTHON) tests/run_all.py

bench: deps-build
	@$(PYTHON) tools/bench.py

clean:
	rm -rf $(BUILD)

-include $(KOBJS:.o=.d)
