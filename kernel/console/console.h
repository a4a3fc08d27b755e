/* SPDX-License-Identifier: MIT */
/* kernel/console/console.h: kernel output on the serial console (COM1). */
#ifndef KERNEL_CONSOLE_H
#define KERNEL_CONSOLE_H

#include <stdarg.h>

void console_init(void);
void console_putc(char c);
void console_write(const char *s);
int console_getc(void); /* -1 when nothing is waiting */
int kprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int kvprintf(const char *fmt, va_list ap);

__attribute__((noreturn, format(printf, 1, 2))) void panic(const char *fmt, ...);

#endif
