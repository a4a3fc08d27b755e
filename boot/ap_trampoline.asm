; SPDX-License-Identifier: MIT
; boot/ap_trampoline.asm: where an application core starts.
;
; kernel/platform/smp.c copies ap_trampoline .. ap_trampoline_end to
; AP_TRAMPOLINE_PHYS (0x8000, kernel/mem/memmap.h), fills in the parameter block
; at PARAMS (struct ap_boot_params) and sends INIT, STARTUP(0x08) (Intel SDM
; vol. 3, 9.4.4.1). The core wakes in real mode at 0800:0000, caches
; disabled (CR0 = 60000010H after INIT, SDM vol. 3, 10.1.1), and goes
;   16-bit: say it is alive, load a flat GDT, turn on protection and caches;
;   32-bit: PAE, the trampoline's own page tables (AP_BOOT_TABLES_PHYS: the
;           kernel's mappings plus an identity map of the first 2 MiB, where
;           this code runs), EFER as the bootstrap core has it (LME, NXE),
;           then paging, which activates long mode (SDM vol. 3, 10.8.5);
;   64-bit: jump to ap_entry64 in the kernel image, which loads the kernel's
;           own tables, switches to the core's stack and calls
;           smp_ap_main(percpu).
; Everything here runs at the copy's address, so every address is written
; as AT(label): the label's offset from ap_trampoline, plus 0x8000.

%define TRAMP           0x8000
%define PARAMS          (TRAMP + 0xf00)
%define P_BOOT_CR3      (PARAMS + 0x00)
%define P_EFER          (PARAMS + 0x08)
%define P_KERNEL_CR3    (PARAMS + 0x10)
%define P_ENTRY         (PARAMS + 0x18)
%define P_STACK         (PARAMS + 0x20)
%define P_ARG           (PARAMS + 0x28)
%define P_ALIVE         (PARAMS + 0x30)
%define AT(x)           (TRAMP + ((x) - ap_trampoline))

%define CR0_PE          (1 << 0)
%define CR0_MP          (1 << 1)
%define CR0_EM          (1 << 2)
%define CR0_NE          (1 << 5)
%define CR0_WP          (1 << 16)
%define CR0_NW          (1 << 29)
%define CR0_CD          (1 << 30)
%define CR0_PG          (1 << 31)

global ap_trampoline
global ap_trampoline_end
global ap_entry64
extern smp_ap_main

section .rodata.ap_trampoline progbits alloc noexec nowrite align=16
bits 16
ap_trampoline:
    cli
    cld
    xor ax, ax
    mov ds, ax
    mov dword [P_ALIVE], 1                  ; the bootstrap core waits for this
    o32 lgdt [AT(gdt_ptr)]
    mov eax, cr0
    and eax, ~(CR0_CD | CR0_NW)
    or eax, CR0_PE
    mov cr0, eax
    jmp dword 0x08:AT(start32)

bits 32
start32:
    mov ax, 0x10
    mov ds, ax
    mov es, ax
    mov ss, ax
    mov eax, cr4
    or eax, (1 << 5) | (1 << 9) | (1 << 10) ; PAE, OSFXSR, OSXMMEXCPT
    mov cr4, eax
    mov eax, [P_BOOT_CR3]
    mov cr3, eax
    mov ecx, 0xc0000080                     ; EFER
    mov eax, [P_EFER]
    mov edx, [P_EFER + 4]
    wrmsr
    mov eax, cr0
    and eax, ~CR0_EM
    or eax, CR0_PG | CR0_WP | CR0_NE | CR0_MP
    mov cr0, eax
    jmp 0x18:AT(start64)

bits 64
start64:
    mov ax, 0x10
    mov ds, ax
    mov es, ax
    mov ss, ax
    xor eax, eax
    mov fs, ax
    mov gs, ax                              ; the GS base is set in C
    mov rdi, [P_ARG]
    mov rsi, [P_STACK]
    mov rdx, [P_KERNEL_CR3]
    mov rax, [P_ENTRY]
    jmp rax

align 8
gdt:
    dq 0
    dq 0x00cf9a000000ffff                   ; 0x08: 32-bit code
    dq 0x00cf92000000ffff                   ; 0x10: data
    dq 0x00af9a000000ffff                   ; 0x18: 64-bit code
gdt_ptr:
    dw gdt_ptr - gdt - 1
    dd AT(gdt)
ap_trampoline_end:

section .text
bits 64
; rdi = struct percpu *, rsi = stack top, rdx = the kernel's CR3. Runs in
; the kernel image, so the trampoline's tables can go now.
ap_entry64:
    mov cr3, rdx
    mov rsp, rsi
    xor ebp, ebp
    call smp_ap_main
.hang:
    cli
    hlt
    jmp .hang
