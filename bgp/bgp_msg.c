/* SPDX-License-Identifier: MIT */
/* bgp/bgp_msg.c: the BGP messages other than UPDATE: framing (RFC 4271
 * 4.1, 6.1), OPEN and its capabilities (RFC 4271 4.2, 6.2; RFC 5492;
 * RFC 9072), KEEPALIVE, NOTIFICATION, ROUTE-REFRESH (RFC 2918), and the
 * names of the errors a NOTIFICATION carries. */
#include "bgp_wire.h"

static void set_err(struct bgp_error *e, uint8_t code, uint8_t subcode, const uint8_t *data, size_t n)
{
    if (!e)
        return;
    e->code = code;
    e->subcode = subcode;
    if (n > BGP_ERR_DATA_MAX)
        n = BGP_ERR_DATA_MAX;
    e->data_len = (uint16_t)n;
    if (n)
        __builtin_memcpy(e->data, data, n);
}

void bgpw_header(uint8_t *out, uint16_t len, uint8_t type)
{
    __builtin_memset(out, 0xff, 16);
    bgpw_put16(out + 16, len);
    out[18] = type;
}

int bgp_msg_frame(const uint8_t *buf, size_t avail, uint16_t *len, uint8_t *type, struct bgp_error *err)
{
    if (avail < BGP_HDR_LEN)
        return 1;
    for (int i = 0; i < 16; i++)
        if (buf[i] != 0xff) { /* RFC 4271 6.1: Connection Not Synchronized */
            set_err(err, BGP_ERR_HEADER, 1, 0, 0);
            return -1;
        }
    uint16_t n = bgpw_get16(buf + 16);
    uint8_t t = buf[18];
    if (n < BGP_HDR_LEN || n > BGP_MSG_MAX) { /* 6.1: Bad Message Length, data the length field */
        set_err(err, BGP_ERR_HEADER, 2, buf + 16, 2);
        return -1;
    }
    bool ok;
    switch (t) {
    case BGP_OPEN: ok = n >= 29; break;
    case BGP_UPDATE: ok = n >= 23; break;
    case BGP_NOTIFICATION: ok = n >= 21; break;
    case BGP_KEEPALIVE: ok = n == 19; break;
    case BGP_ROUTE_REFRESH: ok = n == 23; break; /* RFC 2918 3: AFI, reserved, SAFI */
    default: /* 6.1: Bad Message Type, data the type */
        set_err(err, BGP_ERR_HEADER, 3, buf + 18, 1);
        return -1;
    }
    if (!ok) {
        set_err(err, BGP_ERR_HEADER, 2, buf + 16, 2);
        return -1;
    }
    if (avail < n)
        return 1;
    *len = n;
    *type = t;
    return 0;
}

/* RFC 5492 4: one Capabilities parameter's value, a list of code, length,
 * value. Unknown or malformed capabilities are ignored (5492 5). */
static int open_caps(const uint8_t *p, size_t n, struct bgp_open *o, struct bgp_error *err)
{
    o->caps = true;
    while (n) {
        if (n < 2 || (size_t)p[1] + 2 > n) {
            set_err(err, BGP_ERR_OPEN, 0, 0, 0);
            return -1;
        }
        uint8_t code = p[0], cl = p[1];
        const uint8_t *v = p + 2;
        if (code == 1 && cl == 4 && bgpw_get16(v) == BGP_AFI_IPV4 && v[3] == BGP_SAFI_UNICAST)
            o->cap_mp_v4 = true; /* RFC 4760 8: AFI, reserved, SAFI */
        else if (code == 1 && cl == 4 && bgpw_get16(v) == BGP_AFI_IPV6 && v[3] == BGP_SAFI_UNICAST)
            o->cap_mp_v6 = true;
        else if (code == 2 && cl == 0) /* RFC 2918 2 */
            o->cap_route_refresh = true;
        else if (code == 65 && cl == 4) { /* RFC 6793 3 */
            uint32_t as = bgpw_get32(v);
            if (as == 0) { /* RFC 7607 2: AS 0 is Bad Peer AS */
                set_err(err, BGP_ERR_OPEN, 2, 0, 0);
                return -1;
            }
            o->cap_as4 = true;
            o->as = as;
        }
        p += 2 + cl;
        n -= 2u + cl;
    }
    return 0;
}

int bgp_open_parse(const uint8_t *msg, uint16_t len, struct bgp_open *o, struct bgp_error *err)
{
    __builtin_memset(o, 0, sizeof *o);
    if (len < 29) {
        uint8_t l[2];
        bgpw_put16(l, len);
        set_err(err, BGP_ERR_HEADER, 2, l, 2);
        return -1;
    }
    const uint8_t *b = msg + BGP_HDR_LEN;
    size_t blen = len - BGP_HDR_LEN;
    o->version = b[0];
    uint16_t my_as = bgpw_get16(b + 1);
    o->hold = bgpw_get16(b + 3);
    o->id = bgpw_get32(b + 5);
    if (o->version != 4) { /* RFC 4271 6.2: data the largest version we speak */
        static const uint8_t v4[2] = {0, 4};
        set_err(err, BGP_ERR_OPEN, 1, v4, 2);
        return -1;
    }
    if (my_as == 0) { /* RFC 7607 2 */
        set_err(err, BGP_ERR_OPEN, 2, 0, 0);
        return -1;
    }
    if (o->hold == 1 || o->hold == 2) { /* 6.2: Unacceptable Hold Time */
        set_err(err, BGP_ERR_OPEN, 6, 0, 0);
        return -1;
    }
    if (o->id == 0) { /* 6.2 (RFC 6286 2.2: any nonzero value) */
        set_err(err, BGP_ERR_OPEN, 3, 0, 0);
        return -1;
    }
    o->as = my_as;
    size_t optlen = b[9];
    const uint8_t *p = b + 10;
    size_t n = blen - 10;
    bool ext = false;
    /* RFC 9072 2: Non-Ext OP Len and Type both 255, then a 2-byte length
     * and parameters with 2-byte lengths. */
    if (optlen == 255 && n >= 3 && p[0] == 255) {
        ext = true;
        optlen = bgpw_get16(p + 1);
        p += 3;
        n -= 3;
    }
    if (optlen != n) {
        set_err(err, BGP_ERR_OPEN, 0, 0, 0);
        return -1;
    }
    size_t hl = ext ? 3 : 2;
    while (n) {
        size_t pl = n < hl ? 0 : ext ? bgpw_get16(p + 1) : p[1];
        if (n < hl || pl + hl > n) {
            set_err(err, BGP_ERR_OPEN, 0, 0, 0);
            return -1;
        }
        if (p[0] != 2) { /* RFC 5492 4: Capabilities is the only one */
            set_err(err, BGP_ERR_OPEN, 4, 0, 0);
            return -1;
        }
        if (open_caps(p + hl, pl, o, err) != 0)
            return -1;
        p += hl + pl;
        n -= hl + pl;
    }
    return 0;
}

static uint8_t *put_cap(uint8_t *p, uint8_t code, const uint8_t *v, uint8_t n)
{
    p[0] = code;
    p[1] = n;
    if (n)
        __builtin_memcpy(p + 2, v, n);
    return p + 2 + n;
}

size_t bgp_open_encode(uint8_t *out, size_t cap, const struct bgp_open *o)
{
    /* 29 + one parameter header + MP v4, MP v6 (6 each), RR (2), AS4 (6) */
    if (cap < 64)
        return 0;
    uint8_t *b = out + BGP_HDR_LEN;
    b[0] = 4;
    bgpw_put16(b + 1, o->as < 65536 ? (uint16_t)o->as : BGP_AS_TRANS); /* RFC 6793 4.1 */
    bgpw_put16(b + 3, o->hold);
    bgpw_put32(b + 5, o->id);
    uint8_t *caps = b + 12, *p = caps;
    static const uint8_t mp4[4] = {0, BGP_AFI_IPV4, 0, BGP_SAFI_UNICAST};
    static const uint8_t mp6[4] = {0, BGP_AFI_IPV6, 0, BGP_SAFI_UNICAST};
    if (o->cap_mp_v4)
        p = put_cap(p, 1, mp4, 4);
    if (o->cap_mp_v6)
        p = put_cap(p, 1, mp6, 4);
    if (o->cap_route_refresh)
        p = put_cap(p, 2, 0, 0);
    if (o->cap_as4) {
        uint8_t as[4];
        bgpw_put32(as, o->as);
        p = put_cap(p, 65, as, 4);
    }
    uint8_t cl = (uint8_t)(p - caps);
    if (cl) { /* RFC 5492 4: one Capabilities parameter holding them all */
        b[10] = 2;
        b[11] = cl;
        b[9] = (uint8_t)(cl + 2);
    } else {
        b[9] = 0;
    }
    uint16_t len = (uint16_t)(29 + b[9]);
    bgpw_header(out, len, BGP_OPEN);
    return len;
}

size_t bgp_keepalive_encode(uint8_t *out)
{
    bgpw_header(out, BGP_HDR_LEN, BGP_KEEPALIVE);
    return BGP_HDR_LEN;
}

size_t bgp_notification_encode(uint8_t *out, size_t cap, const struct bgp_error *e)
{
    size_t n = e->data_len > BGP_ERR_DATA_MAX ? BGP_ERR_DATA_MAX : e->data_len;
    if (cap < 21 + n)
        return 0;
    out[19] = e->code;
    out[20] = e->subcode;
    if (n)
        __builtin_memcpy(out + 21, e->data, n);
    bgpw_header(out, (uint16_t)(21 + n), BGP_NOTIFICATION);
    return 21 + n;
}

int bgp_notification_parse(const uint8_t *msg, uint16_t len, struct bgp_error *e)
{
    __builtin_memset(e, 0, sizeof *e);
    if (len < 21)
        return -1;
    set_err(e, msg[19], msg[20], msg + 21, len - 21u);
    return 0;
}

size_t bgp_route_refresh_encode(uint8_t *out, uint16_t afi, uint8_t safi)
{
    bgpw_put16(out + 19, afi);
    out[21] = 0;
    out[22] = safi;
    bgpw_header(out, 23, BGP_ROUTE_REFRESH);
    return 23;
}

int bgp_route_refresh_parse(const uint8_t *msg, uint16_t len, uint16_t *afi, uint8_t *safi, struct bgp_error *err)
{
    if (len != 23) {
        uint8_t l[2];
        bgpw_put16(l, len);
        set_err(err, BGP_ERR_HEADER, 2, l, 2);
        return -1;
    }
    *afi = bgpw_get16(msg + 19);
    *safi = msg[22];
    return 0;
}

/* RFC 4271 4.5 and 6, RFC 5492 3, RFC 6608 3, RFC 4486 3 (RFC 8538 5,
 * RFC 9384 3), RFC 7313 5, RFC 9234 4.2. */
static const char *const err_names[8][12] = {
    [BGP_ERR_HEADER] = {"header", "header/connection not synchronized", "header/bad message length",
                        "header/bad message type"},
    [BGP_ERR_OPEN] = {"open", "open/unsupported version", "open/bad peer AS", "open/bad BGP identifier",
                      "open/unsupported optional parameter", "open/authentication failure",
                      "open/unacceptable hold time", "open/unsupported capability", 0, 0, 0, "open/role mismatch"},
    [BGP_ERR_UPDATE] = {"update", "update/malformed attribute list", "update/unrecognized well-known attribute",
                        "update/missing well-known attribute", "update/attribute flags error",
                        "update/attribute length error", "update/invalid ORIGIN", "update/AS routing loop",
                        "update/invalid NEXT_HOP", "update/optional attribute error", "update/invalid network field",
                        "update/malformed AS_PATH"},
    [BGP_ERR_HOLD] = {"hold timer expired"},
    [BGP_ERR_FSM] = {"fsm", "fsm/unexpected message in OpenSent", "fsm/unexpected message in OpenConfirm",
                     "fsm/unexpected message in Established"},
    [BGP_ERR_CEASE] = {"cease", "cease/maximum prefixes reached", "cease/administrative shutdown",
                       "cease/peer de-configured", "cease/administrative reset", "cease/connection rejected",
                       "cease/other configuration change", "cease/connection collision resolution",
                       "cease/out of resources", "cease/hard reset", "cease/BFD down"},
    [BGP_ERR_ROUTE_REFRESH] = {"route refresh", "route refresh/invalid message length"},
};

const char *bgp_error_name(uint8_t code, uint8_t subcode)
{
    if (code == 0 || code >= 8)
        return "unknown error";
    const char *s = subcode < 12 ? err_names[code][subcode] : 0;
    return s ? s : err_names[code][0];
}
