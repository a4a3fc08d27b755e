/* SPDX-License-Identifier: MIT */
/* kernel/netsvc/xconnect.h: `xconnect ethX ethY`, an L2 cross-connect. */
#ifndef KERNEL_NETSVC_XCONNECT_H
#define KERNEL_NETSVC_XCONNECT_H

void xconnect_init(void); /* registers the configuration statement */

#endif
