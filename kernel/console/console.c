/* SPDX-License-Identifier: MIT */
/* kernel/console/console.c: kprintf and panic over the polled COM1 UART.
 * "\n" goes out as "\r\n" so any terminal shows lines. */
#include "console.h"

#include "drivers/serial/uart16550.h"
#include "kernel/arch/x86_64/cpu.h"
#include "lib/fmt.h"
#include "kernel/arch/x86_64/trap.h"

void console_init(void) { uart_init(COM1_PORT, 115200); }

void console_putc(char c)
{
    if (c == '\n')
        uart_putc(COM1_PORT, '\r');
    uart_putc(COM1_PORT, c);
}

void console_write(const char *s)
{
    while (*s)
        console_putc(*s++);
}

int console_getc(void) { return uart_getc(COM1_PORT); }

static void console_sink(void *ctx, char c) { console_putc(c); }

int kvprintf(const char *fmt, va_list ap) { return fmt_vformat(console_sink, 0, fmt, ap); }

int kprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = kvprintf(fmt, ap);
    va_end(ap);
    return n;
}

void panic(const char *fmt, ...)
{
    va_list ap;
    cpu_cli();
    console_write("\npanic: ");
    va_start(ap, fmt);
    kvprintf(fmt, ap);
    va_end(ap);
    console_write("\n");
    trap_print_backtrace(__builtin_frame_address(0));
    console_write("system halted\n");
    cpu_halt_forever();
}
