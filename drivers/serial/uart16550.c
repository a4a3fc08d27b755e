/* SPDX-License-Identifier: MIT */
/* drivers/serial/uart16550.c: polled 16550A UART, 8N1, FIFOs on.
 * Register map: PC16550D datasheet, table 2 (offsets from the base port). */
#include "uart16550.h"

#include "kernel/arch/x86_64/cpu.h"

enum {
    UART_DATA = 0, /* RBR/THR; DLL when DLAB=1 */
    UART_IER = 1,  /* DLM when DLAB=1 */
    UART_FCR = 2,
    UART_LCR = 3,
    UART_MCR = 4,
    UART_LSR = 5,
    LSR_DATA_READY = 0x01,
    LSR_THR_EMPTY = 0x20,
    LCR_DLAB = 0x80,
    LCR_8N1 = 0x03,
    UART_CLOCK = 115200, /* 1.8432 MHz / 16 */
    TX_SPIN_LIMIT = 100000,
};

void uart_init(uint16_t port, uint32_t baud)
{
    uint16_t div = (uint16_t)(UART_CLOCK / baud);
    outb(port + UART_IER, 0);          /* polled: no interrupts */
    outb(port + UART_LCR, LCR_DLAB);
    outb(port + UART_DATA, (uint8_t)div);
    outb(port + UART_IER, (uint8_t)(div >> 8));
    outb(port + UART_LCR, LCR_8N1);
    outb(port + UART_FCR, 0xc7);       /* enable + clear FIFOs, 14-byte trigger */
    outb(port + UART_MCR, 0x03);       /* DTR, RTS */
}

void uart_putc(uint16_t port, char c)
{
    /* Bounded wait: a missing UART must not hang the kernel. */
    for (int i = 0; i < TX_SPIN_LIMIT && !(inb(port + UART_LSR) & LSR_THR_EMPTY); i++)
        cpu_pause();
    outb(port + UART_DATA, (uint8_t)c);
}

int uart_getc(uint16_t port)
{
    if (!(inb(port + UART_LSR) & LSR_DATA_READY))
        return -1;
    return inb(port + UART_DATA);
}
