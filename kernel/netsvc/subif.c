/* SPDX-License-Identifier: MIT */
/* kernel/netsvc/subif.c: VLAN sub-interfaces by name. `interface eth0.100
 * ...` (IEEE 802.1Q) or `interface eth0.300.400` (802.1ad: S-tag 300, C-tag
 * 400) makes a port of its own, numbered from PORTS_MAX up, with its
 * addresses, routes, neighbours, access lists and counters; every core
 * adds it to its stack on top of the device's port (net_subif_add), whose
 * queues carry its frames. `show vlans` lists them. */
#include "netsvc_impl.h"

#include "kernel/console/cli.h"
#include "kernel/console/console.h"
#include "kernel/lib.h"
#include "kernel/ports.h"
#include "net/core/core.h"

static struct {
    bool used;
    uint8_t parent;
    uint16_t outer, vid;
    char name[24];
} sub[NET_MAX_PORTS];

/* s[0..n) a VID: 1 to 4094 (0 is a priority tag, 4095 reserved: 802.1Q 9.6). */
static bool vid_of(const char *s, size_t n, uint16_t *vid)
{
    uint32_t v;
    if (!net_decimal(s, n, 4094, &v) || v == 0)
        return false;
    *vid = (uint16_t)v;
    return true;
}

int netsvc_port_index(const char *name, bool create)
{
    const char *dot = strchr(name, '.');
    if (dot == NULL) {
        struct netdev *d = ports_find(name);
        return d && d->index < PORTS_MAX ? d->index : -1;
    }
    char parent[16];
    size_t plen = (size_t)(dot - name);
    if (plen >= sizeof parent || strlen(name) >= sizeof sub[0].name)
        return -1;
    memcpy(parent, name, plen);
    parent[plen] = 0;
    struct netdev *d = ports_find(parent);
    const char *second = strchr(dot + 1, '.');
    uint16_t outer = 0, vid;
    bool ok = second ? vid_of(dot + 1, (size_t)(second - dot - 1), &outer) &&
                           vid_of(second + 1, strlen(second + 1), &vid)
                     : vid_of(dot + 1, strlen(dot + 1), &vid);
    if (d == NULL || d->index >= PORTS_MAX || !ok)
        return -1;
    int free_slot = -1;
    for (int p = PORTS_MAX; p < NET_MAX_PORTS; p++) {
        if (sub[p].used && sub[p].parent == d->index && sub[p].outer == outer && sub[p].vid == vid)
            return p;
        if (!sub[p].used && free_slot < 0)
            free_slot = p;
    }
    if (!create || free_slot < 0)
        return -1;
    sub[free_slot].used = true;
    sub[free_slot].parent = (uint8_t)d->index;
    sub[free_slot].outer = outer;
    sub[free_slot].vid = vid;
    memcpy(sub[free_slot].name, name, strlen(name) + 1);
    return free_slot;
}

const char *netsvc_port_name(int port)
{
    if (port >= PORTS_MAX && port < NET_MAX_PORTS && sub[port].used)
        return sub[port].name;
    struct netdev *d = port >= 0 && port < PORTS_MAX ? ports_get(port) : NULL;
    return d ? d->name : "?";
}

struct netdev *netsvc_port_dev(int port)
{
    if (port >= PORTS_MAX && port < NET_MAX_PORTS)
        return sub[port].used ? ports_get(sub[port].parent) : NULL;
    return port >= 0 ? ports_get(port) : NULL;
}

bool netsvc_subif_of(int port, int *parent, uint8_t tags[8], unsigned *ntags)
{
    if (port < PORTS_MAX || port >= NET_MAX_PORTS || !sub[port].used)
        return false;
    *parent = sub[port].parent;
    uint8_t *t = tags;
    if (sub[port].outer) {
        *t++ = ETH_TYPE_QINQ >> 8, *t++ = ETH_TYPE_QINQ & 0xff;
        *t++ = (uint8_t)(sub[port].outer >> 8), *t++ = (uint8_t)sub[port].outer;
    }
    *t++ = ETH_TYPE_VLAN >> 8, *t++ = ETH_TYPE_VLAN & 0xff;
    *t++ = (uint8_t)(sub[port].vid >> 8), *t++ = (uint8_t)sub[port].vid;
    *ntags = (unsigned)(t - tags) / 4;
    return true;
}

bool netsvc_port_has_addr(int port)
{
    return port >= 0 && port < NET_MAX_PORTS && (netsvc.addr[port].addr_be || netsvc6_port_has_addr(port));
}

bool netsvc_subifs_have_addr(int parent)
{
    for (int p = PORTS_MAX; p < NET_MAX_PORTS; p++)
        if (sub[p].used && sub[p].parent == parent && netsvc_port_has_addr(p))
            return true;
    return false;
}

void netsvc_subif_names(int parent, char *buf, size_t n)
{
    size_t o = 0;
    buf[0] = 0;
    for (int p = PORTS_MAX; p < NET_MAX_PORTS; p++)
        if (sub[p].used && sub[p].parent == parent && o < n)
            o += (size_t)fmt_snprintf(buf + o, n - o, "%s%s", o ? " " : "", sub[p].name);
}

void netsvc_subif_core(struct netsvc_core *rc)
{
    for (int p = PORTS_MAX; p < NET_MAX_PORTS; p++) {
        if (!sub[p].used || !netsvc_port_has_addr(p) || net_iface_get(&rc->stack, sub[p].parent) == NULL)
            continue;
        if (net_subif_add(&rc->stack, (uint16_t)p, sub[p].parent, sub[p].outer, sub[p].vid, netsvc.addr[p].addr_be,
                          netsvc.addr[p].prefix_len) != 0 && rc->cpu == 0)
            kprintf("router: %s: not made (its port carries `vlan` itself)\n", sub[p].name);
        struct net_iface *ifc = net_iface_get(&rc->stack, (uint16_t)p);
        if (ifc && netsvc.addr[p].mtu && netsvc.addr[p].mtu < ifc->mtu)
            ifc->mtu = netsvc.addr[p].mtu;
    }
}

static void cmd_show_vlans(const struct cli_args *a)
{
    struct json j;
    if (a->json)
        netsvc_list_begin(&j, "vlans");
    unsigned shown = 0;
    for (int p = PORTS_MAX; p < NET_MAX_PORTS; p++) {
        if (!sub[p].used)
            continue;
        uint64_t rx = 0, rxb = 0, tx = 0, txb = 0;
        for (unsigned c = 0; c < netsvc.ncores; c++) {
            const struct net_iface *ifc = netsvc.core[c] ? &netsvc.core[c]->stack.iface[p] : NULL;
            if (ifc && ifc->dev) {
                rx += ifc->sub_rx, rxb += ifc->sub_rx_bytes, tx += ifc->sub_tx, txb += ifc->sub_tx_bytes;
            }
        }
        char addr[20] = "", addr6[48] = "";
        if (netsvc.addr[p].addr_be) {
            fmt_ip(addr, sizeof addr, netsvc.addr[p].addr_be);
            fmt_snprintf(addr + strlen(addr), sizeof addr - strlen(addr), "/%u", netsvc.addr[p].prefix_len);
        }
        uint8_t a6[16], plen6;
        if (netsvc6_port_addr(p, a6, &plen6)) {
            fmt_ip6(addr6, sizeof addr6, a6);
            fmt_snprintf(addr6 + strlen(addr6), sizeof addr6 - strlen(addr6), "/%u", plen6);
        }
        if (a->json) {
            json_obj_begin(&j, 0);
            json_str(&j, "name", sub[p].name);
            json_str(&j, "parent", netsvc_port_name(sub[p].parent));
            json_u64(&j, "outer_vid", sub[p].outer);
            json_u64(&j, "vid", sub[p].vid);
            json_str(&j, "address", addr);
            json_str(&j, "address6", addr6);
            json_u64(&j, "rx_packets", rx);
            json_u64(&j, "rx_bytes", rxb);
            json_u64(&j, "tx_packets", tx);
            json_u64(&j, "tx_bytes", txb);
            json_obj_end(&j);
        } else {
            kprintf("%s: on %s, %s %u%s%s%s%s\n", sub[p].name, netsvc_port_name(sub[p].parent),
                    sub[p].outer ? "802.1ad outer" : "802.1Q vlan", sub[p].outer ? sub[p].outer : sub[p].vid,
                    addr[0] ? ", address " : "", addr, addr6[0] ? ", address " : "", addr6);
            if (sub[p].outer)
                kprintf("  inner vlan %u\n", sub[p].vid);
            kprintf("  rx %lu packets %lu bytes, tx %lu packets %lu bytes\n", rx, rxb, tx, txb);
        }
        shown++;
    }
    if (a->json)
        netsvc_list_end(&j);
    else if (shown == 0)
        kprintf("no VLAN sub-interfaces (interface ethN.VID address ...)\n");
}

void netsvc_subif_init(void)
{
    cli_register("show vlans", "show vlans [json]", "VLAN sub-interfaces: tags, addresses, counters", cmd_show_vlans);
}
