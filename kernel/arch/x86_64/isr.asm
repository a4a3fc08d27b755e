; kernel/arch/x86_64/isr.asm: the 256 interrupt entry stubs.
;
; Each stub makes the stack uniform (a zero error code where the CPU pushes
; none; Intel SDM vol. 3, 6.13), pushes its vector and jumps to the common
; path, which saves every register as struct trap_frame, saves the SSE state
; (the kernel is compiled with SSE), and calls trap_dispatch(frame).

extern trap_dispatch
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
    mov rdi, rsp
    mov rbx, rsp
    and rsp, -16
    sub rsp, 512
    fxsave64 [rsp]
    call trap_dispatch
    fxrstor64 [rsp]
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
