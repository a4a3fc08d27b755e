/* SPDX-License-Identifier: MIT */
/* kernel/arch/x86_64/fpu.c: enables x87, SSE, AVX and AVX-512 state.
 * Intel SDM vol. 1, 13.2-13.3 (XSAVE-supported features, enabling the XSAVE
 * feature set: CR4.OSXSAVE then XCR0) and vol. 3, 2.5 (CR0.MP/EM/TS/NE,
 * CR4.OSFXSR/OSXMMEXCPT). CPUID.(EAX=0DH,ECX=0):EAX lists the state
 * components XCR0 may hold; EBX is the save-area size for the XCR0 now set.
 *
 * isr.asm saves the whole enabled state around every interrupt with XSAVE
 * (FXSAVE when the CPU has no XSAVE), so an interrupt never corrupts vector
 * registers. It reads fpu_use_xsave and fpu_area_bytes. */
#include "fpu.h"

#include "cpu.h"
#include "lapic.h"
#include "trap.h"
#include "kernel/console/console.h"

enum {
    XCR0_X87 = 1 << 0,
    XCR0_SSE = 1 << 1,
    XCR0_AVX = 1 << 2,
    XCR0_AVX512 = 7 << 5, /* opmask, ZMM_Hi256, Hi16_ZMM: all or none */
};
enum { CR0_MP = 1 << 1, CR0_EM = 1 << 2, CR0_TS = 1 << 3, CR0_NE = 1 << 5 };
enum { CR4_OSFXSR = 1 << 9, CR4_OSXMMEXCPT = 1 << 10, CR4_OSXSAVE = 1 << 18 };

/* Read by isr.asm. Until fpu_init_cpu runs: FXSAVE's 512 bytes. */
uint8_t fpu_use_xsave;
uint32_t fpu_area_bytes = 512;
static uint64_t xcr0;

static uint64_t choose_xcr0(void)
{
    struct cpuid_regs f1 = cpuid(1, 0);
    if (!(f1.ecx & (1u << 26)) || cpuid(0, 0).eax < 0xd) /* no XSAVE */
        return 0;
    uint64_t can = cpuid(0xd, 0).eax | (uint64_t)cpuid(0xd, 0).edx << 32;
    uint64_t want = XCR0_X87 | XCR0_SSE;
    if ((f1.ecx & (1u << 28)) && (can & XCR0_AVX))
        want |= XCR0_AVX;
    if ((want & XCR0_AVX) && (cpuid(7, 0).ebx & (1u << 16)) && (can & XCR0_AVX512) == XCR0_AVX512)
        want |= XCR0_AVX512;
    return want & can;
}

void fpu_init_cpu(void)
{
    write_cr0((read_cr0() & ~(uint64_t)(CR0_EM | CR0_TS)) | CR0_MP | CR0_NE);
    write_cr4(read_cr4() | CR4_OSFXSR | CR4_OSXMMEXCPT);
    static int first = 1;
    if (first) { /* the bootstrap core decides for all */
        first = 0;
        xcr0 = choose_xcr0();
    }
    if (xcr0) {
        write_cr4(read_cr4() | CR4_OSXSAVE);
        cpu_xsetbv(0, xcr0);
    }
    __asm__ volatile("fninit");
    uint32_t mxcsr = 0x1f80; /* the reset value: all exceptions masked */
    __asm__ volatile("ldmxcsr %0" ::"m"(mxcsr));
    if (xcr0 && !fpu_use_xsave) {
        uint32_t size = cpuid(0xd, 0).ebx;
        fpu_area_bytes = (size + 63) & ~63u; /* isr.asm keeps rsp 64-aligned */
        fpu_use_xsave = 1;
    }
}

/* The test interrupt: destroys every vector register, as any handler
 * compiled for AVX might. */
static void clobber(struct trap_frame *f)
{
    if (xcr0 & XCR0_AVX)
        __asm__ volatile("vzeroall");
    else
        __asm__ volatile("pxor %%xmm0, %%xmm0; pxor %%xmm1, %%xmm1; pxor %%xmm2, %%xmm2; pxor %%xmm3, %%xmm3\n\t"
                         "pxor %%xmm4, %%xmm4; pxor %%xmm5, %%xmm5; pxor %%xmm6, %%xmm6; pxor %%xmm7, %%xmm7\n\t"
                         "pxor %%xmm8, %%xmm8; pxor %%xmm9, %%xmm9; pxor %%xmm10, %%xmm10; pxor %%xmm11, %%xmm11\n\t"
                         "pxor %%xmm12, %%xmm12; pxor %%xmm13, %%xmm13; pxor %%xmm14, %%xmm14; pxor %%xmm15, %%xmm15" ::
                             : "memory");
    lapic_eoi();
}

/* Sixteen registers, each loaded from or stored to its 32-byte slot of
 * the buffer in operand %0 (loads) or %1 (stores). */
#define R16(f) f(0) f(1) f(2) f(3) f(4) f(5) f(6) f(7) f(8) f(9) f(10) f(11) f(12) f(13) f(14) f(15)
#define YMM_LOAD(n) "vmovdqu " #n "*32(%0), %%ymm" #n "\n\t"
#define YMM_STORE(n) "vmovdqu %%ymm" #n ", " #n "*32(%1)\n\t"
#define XMM_LOAD(n) "movdqu " #n "*32(%0), %%xmm" #n "\n\t"
#define XMM_STORE(n) "movdqu %%xmm" #n ", " #n "*32(%1)\n\t"
#define VEC_CLOBBERS                                                                                     \
    "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", \
        "xmm11", "xmm12", "xmm13", "xmm14", "xmm15"

unsigned fpu_selftest(void)
{
    uint32_t in[16 * 8], out[16 * 8];
    for (unsigned i = 0; i < 16 * 8; i++) {
        in[i] = 0x9e3779b9u * (i + 1) ^ (uint32_t)lapic_id();
        out[i] = 0;
    }
    trap_set_handler(FPU_TEST_VECTOR, clobber);
    lapic_send_ipi(lapic_id(), FPU_TEST_VECTOR); /* pending until sti */
    bool avx = (xcr0 & XCR0_AVX) != 0;
    if (avx)
        __asm__ volatile(R16(YMM_LOAD) "sti; hlt; cli\n\t" R16(YMM_STORE) "vzeroupper"
                         :
                         : "r"(in), "r"(out)
                         : VEC_CLOBBERS);
    else
        __asm__ volatile(R16(XMM_LOAD) "sti; hlt; cli\n\t" R16(XMM_STORE) : : "r"(in), "r"(out) : VEC_CLOBBERS);
    unsigned lanes = avx ? 8 : 4, bad = 0;
    for (unsigned r = 0; r < 16; r++)
        for (unsigned k = 0; k < lanes; k++)
            bad += in[r * 8 + k] != out[r * 8 + k];
    return bad;
}

uint64_t fpu_xcr0(void) { return xcr0; }
uint32_t fpu_save_size(void) { return fpu_area_bytes; }

const char *fpu_describe(void)
{
    if (xcr0 & XCR0_AVX512)
        return "x87 sse avx avx512 (xsave)";
    if (xcr0 & XCR0_AVX)
        return "x87 sse avx (xsave)";
    return xcr0 ? "x87 sse (xsave)" : "x87 sse (fxsave)";
}
