/* SPDX-License-Identifier: MIT */
/* net/core/core.h: the core room's public header: packet buffers and
 * their pools (pkt.h), the netdev interface drivers implement (netdev.h),
 * checksums (csum.h), the stack's counters (counter.h), wire formats and
 * byte order (wire.h), and what the embedder provides (env.h). */
#ifndef NET_CORE_H
#define NET_CORE_H

#include "counter.h"
#include "csum.h"
#include "env.h"
#include "netdev.h"
#include "pkt.h"
#include "text.h"
#include "wire.h"

#endif
