; SPDX-License-Identifier: MIT
; kernel/arch/x86_64/isr.asm: the 256 interrupt entry stubs.
;
; Each stub makes the stack uniform (a zero error code where the CPU pushes
; none; Intel SDM vol. 3, 6.13), pushes its vector and jumps to the common
; path, which saves every register as struct trap_frame, saves the vector
; state (the kernel is compiled with SSE, and any code may use AVX): XSAVE of
; every component in XCR0 once kernel/arch/x86_64/fpu.c has enabled it,
; FXSAVE before that or on a CPU without XSAVE; then calls
; trap_dispatch(frame).
;
; XSAVE writes only XSTATE_BV of the 64-byte XSAVE header, while XRSTOR
; faults on a non-zero XCOMP_BV or reserved byte, so the header is zeroed
; first (Intel SDM vol. 1, 13.4.2, 13.7, 13.8).

extern trap_dispatch
extern fpu_use_xsave
extern fpu_area_bytes
global isr_table

section .text
bits 64

%macro STUB 1
isr_%1:
%if %1 == 8 || %1 == 10 || %1 == 11 || %1 == 12 || %1 == 13 || %1 == 14 || %1 == 17 || %1 == 21 || %1 == 29 || %1 == 30
%else
    push 0
%endif
    push %1
    jmp isr_common
%endmacro

%assign i 0
%rep 256
STUB i
%assign i i + 1
%endrep

isr_common:
    push rax
    push rbx
    push rcx
    push rdx
    push rsi
    push rdi
    push rbp
    push r8
    push r9
    push r10
    push r11
    push r12
    push r13
    push r14
    push r15
    cld
    mov rbx, rsp
    and rsp, -64
    mov eax, [fpu_area_bytes]
    sub rsp, rax
    cmp byte [fpu_use_xsave], 0
    je .fxsave
    xor eax, eax
%assign off 512
%rep 8
    mov [rsp + off], rax
%assign off off + 8
%endrep
    mov eax, -1                             ; every component XCR0 enables
    mov edx, -1
    xsave64 [rsp]
    mov rdi, rbx
    call trap_dispatch
    mov eax, -1
    mov edx, -1
    xrstor64 [rsp]
    jmp .restored
.fxsave:
    fxsave64 [rsp]
    mov rdi, rbx
    call trap_dispatch
    fxrstor64 [rsp]
.restored:
    mov rsp, rbx
    pop r15
    pop r14
    pop r13
    pop r12
    pop r11
    pop r10
    pop r9
    pop r8
    pop rbp
    pop rdi
    pop rsi
    pop rdx
    pop rcx
    pop rbx
    pop rax
    add rsp, 16                             ; vector, error code
    iretq

section .rodata
align 8
isr_table:
%assign i 0
%rep 256
    dq isr_ %+ i
%assign i i + 1
%endrep
