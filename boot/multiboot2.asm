; SPDX-License-Identifier: MIT
; boot/multiboot2.asm: the multiboot2 header and the 32-bit entry.
;
; GRUB (Multiboot2 spec, 3.2 "Machine state") enters start32 in 32-bit
; protected mode, paging off, EAX = 0x36d76289, EBX = physical address of
; the boot information. We check for long mode, map the first 4 GiB twice
; (identity, for the jump, and at the direct-map base) plus the kernel's
; higher-half window, enable PAE + long mode + paging, and jump to
; kernel_main64(mbi_phys, magic). kernel/mem/vm.c replaces these tables.

%define KERNEL_VMA   0xffffffff80000000
%define MB2_MAGIC    0xe85250d6
%define MB2_BOOTED   0x36d76289
%define PTE_P        1
%define PTE_W        2
%define PTE_PS       0x80
%define COM1         0x3f8

global start32
global boot_pml4
global boot_gdt64_ptr
extern kernel_main64
extern boot_stack_top_ptr

section .multiboot
align 8
mb2_header:
    dd MB2_MAGIC
    dd 0                                    ; i386 protected mode
    dd mb2_header_end - mb2_header
    dd -(MB2_MAGIC + (mb2_header_end - mb2_header))
align 8                                     ; entry address tag (type 3)
    dw 3, 0
    dd 12
    dd start32
align 8                                     ; end tag
    dw 0, 0
    dd 8
mb2_header_end:

section .boot.text
bits 32
start32:
    cli
    cld
    mov esp, boot_stack32_top
    mov edi, ebx                            ; keep mbi; survives to 64-bit
    mov esi, eax
    cmp eax, MB2_BOOTED
    jne .no_multiboot
    ; CPUID 0x80000001 EDX bit 29: long mode.
    mov eax, 0x80000000
    cpuid
    cmp eax, 0x80000001
    jb .no_long_mode
    mov eax, 0x80000001
    cpuid
    test edx, 1 << 29
    jz .no_long_mode
    mov ebp, edx                            ; bit 20: NX

    ; Clear the table pages, then fill them.
    push edi
    mov edi, boot_pml4
    mov ecx, (boot_tables_end - boot_pml4) / 4
    xor eax, eax
    rep stosd
    pop edi

    ; PD 0..3: 2048 x 2 MiB pages = 4 GiB.
    mov ebx, boot_pd
    xor ecx, ecx
.fill_pd:
    mov eax, ecx
    shl eax, 21
    or eax, PTE_P | PTE_W | PTE_PS
    mov [ebx + ecx * 8], eax
    mov eax, ecx
    shr eax, 11
    mov [ebx + ecx * 8 + 4], eax            ; bits 32+ of the address
    inc ecx
    cmp ecx, 2048
    jne .fill_pd
    ; PDPT low: four PDs.
    mov ebx, boot_pdpt_low
    mov eax, boot_pd + (PTE_P | PTE_W)
    mov [ebx], eax
    add eax, 4096
    mov [ebx + 8], eax
    add eax, 4096
    mov [ebx + 16], eax
    add eax, 4096
    mov [ebx + 24], eax
    ; PDPT high: entry 510 = -2 GiB maps physical 0..1 GiB (the kernel).
    mov dword [boot_pdpt_high + 510 * 8], boot_pd + (PTE_P | PTE_W)
    ; PML4: 0 identity, 256 direct map (0xffff800000000000), 511 kernel.
    mov dword [boot_pml4], boot_pdpt_low + (PTE_P | PTE_W)
    mov dword [boot_pml4 + 256 * 8], boot_pdpt_low + (PTE_P | PTE_W)
    mov dword [boot_pml4 + 511 * 8], boot_pdpt_high + (PTE_P | PTE_W)

    mov eax, boot_pml4
    mov cr3, eax
    mov eax, cr4
    or eax, (1 << 5) | (1 << 9) | (1 << 10) ; PAE, OSFXSR, OSXMMEXCPT
    mov cr4, eax
    mov ecx, 0xc0000080                     ; EFER
    rdmsr
    or eax, 1 << 8                          ; LME
    test ebp, 1 << 20
    jz .no_nx
    or eax, 1 << 11                         ; NXE
.no_nx:
    wrmsr
    mov eax, cr0
    and eax, ~(1 << 2)                      ; EM off: SSE usable
    or eax, (1 << 31) | (1 << 16) | (1 << 1) | 1 ; PG, WP, MP, PE
    mov cr0, eax
    lgdt [boot_gdt64_ptr]
    jmp 0x08:start64

.no_multiboot:
    mov esi, msg_no_mb
    jmp .fail
.no_long_mode:
    mov esi, msg_no_lm
.fail:                                      ; polled COM1, then halt
    mov dx, COM1 + 5
.wait:
    in al, dx
    test al, 0x20
    jz .wait
    mov dx, COM1
    lodsb
    test al, al
    jz .halt
    out dx, al
    jmp .fail
.halt:
    hlt
    jmp .halt

bits 64
start64:
    mov ax, 0x10
    mov ds, ax
    mov es, ax
    mov ss, ax
    xor ax, ax
    mov fs, ax
    mov gs, ax
    mov rax, boot_stack_top_ptr             ; higher-half stack from here on
    mov rsp, [rax]
    xor ebp, ebp
    ; rdi = mbi physical address, rsi = magic (System V arguments)
    mov rax, kernel_main64
    call rax
.hang:
    hlt
    jmp .hang

section .boot.data
align 16
boot_gdt64:
    dq 0
    dq 0x00af9a000000ffff                   ; 0x08: 64-bit code
    dq 0x00cf92000000ffff                   ; 0x10: data
boot_gdt64_end:
boot_gdt64_ptr:
    dw boot_gdt64_end - boot_gdt64 - 1
    dq boot_gdt64
msg_no_mb:
    db "hayate: not started by a multiboot2 loader", 13, 10, 0
msg_no_lm:
    db "hayate: this CPU has no 64-bit long mode", 13, 10, 0

section .boot.bss nobits
align 4096
boot_pml4:       resb 4096
boot_pdpt_low:   resb 4096
boot_pdpt_high:  resb 4096
boot_pd:         resb 4 * 4096
boot_tables_end:
boot_stack32:    resb 1024
boot_stack32_top:
