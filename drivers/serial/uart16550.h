/* SPDX-License-Identifier: MIT */
/* drivers/serial/uart16550.h: polled 16550 UART (COM1). */
#ifndef DRIVERS_SERIAL_UART16550_H
#define DRIVERS_SERIAL_UART16550_H

#include <stdbool.h>
#include <stdint.h>

#define COM1_PORT 0x3f8

void uart_init(uint16_t port, uint32_t baud);
void uart_putc(uint16_t port, char c);
/* Non-blocking: returns -1 when nothing is waiting. */
int uart_getc(uint16_t port);

#endif
