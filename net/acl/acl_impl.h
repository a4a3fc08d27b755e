/* SPDX-License-Identifier: MIT */
/* net/acl/acl_impl.h: what the room's two files share: acl_rule.c (rules,
 * their words, a datagram's key, the linear match) and acl.c (the
 * classifier they compile into). */
#ifndef NET_ACL_IMPL_H
#define NET_ACL_IMPL_H

#include "acl.h"

#include "core/wire.h"

/* a then b into err (errlen bytes), cut short where it must. */
static inline void acl_err(char *err, size_t errlen, const char *a, const char *b)
{
    size_t o = 0;
    for (const char *s = a; s && *s && o + 1 < errlen; s++)
        err[o++] = *s;
    for (const char *s = b; s && *s && o + 1 < errlen; s++)
        err[o++] = *s;
    if (errlen)
        err[o] = 0;
}

/* The rule tests a port: only a datagram with ports can match it. */
static inline bool acl_rule_ported(const struct acl_rule *r)
{
    return r->sport_lo || r->sport_hi != 65535 || r->dport_lo || r->dport_hi != 65535;
}

/* The TCP or UDP ports of the IPv4 datagram at ip (len bytes there, its
 * own length read from the header: link padding is no header), when they
 * are there to read: a whole datagram or a first fragment, four bytes of
 * them in it. NULL otherwise. */
static inline const uint8_t *acl_ports4(const uint8_t *ip, uint32_t len)
{
    uint32_t hl = (ip[0] & 15u) * 4, tot = (uint32_t)ip[2] << 8 | ip[3];
    len = tot < len ? tot : len;
    bool there = (ip[9] == IP4_PROTO_TCP || ip[9] == IP4_PROTO_UDP) && ((ip[6] & 0x1fu) | ip[7]) == 0 &&
                 len >= hl + 4;
    return there ? ip + hl : NULL;
}

#endif
