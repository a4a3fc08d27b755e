/* SPDX-License-Identifier: MIT */
/* kernel/arch/x86_64/fpu.h: x87/SSE/AVX state on every core, so vector code
 * may run anywhere, and its save area for interrupt entry (isr.asm). */
#ifndef KERNEL_ARCH_FPU_H
#define KERNEL_ARCH_FPU_H

#include <stdint.h>

/* On each core, the bootstrap core first: CR0/CR4 bits, XCR0 with x87, SSE,
 * AVX and the AVX-512 state where the CPU has them (the same on all). */
void fpu_init_cpu(void);
uint64_t fpu_xcr0(void);         /* 0 when there is no XSAVE */
uint32_t fpu_save_size(void);    /* bytes isr.asm saves per interrupt */
const char *fpu_describe(void);  /* "x87 sse avx avx512" */
/* Self-test, on the calling core: fills every YMM (XMM without AVX)
 * register, takes an interrupt whose handler wipes them all, and checks
 * they came back. Returns the number of 32-bit lanes that differ. Takes
 * one interrupt (vector FPU_TEST_VECTOR, a self-IPI). */
enum { FPU_TEST_VECTOR = 0xf2 };
unsigned fpu_selftest(void);

#endif
