/* SPDX-License-Identifier: MIT */
/* kernel/ports.c: port discovery and `show interfaces` (kernel/ports.h).
 * Every PCI function is offered to the drivers of drivers/nic_drivers.c in
 * turn; the kernel knows a driver by its table entry alone, a port by its
 * struct netdev. Link state and device status are polled from core 0's
 * loop every STATUS_PERIOD_NS: slow-path register reads never touch the
 * data path. */
#include "ports.h"

#include "drivers/driver.h"
#include "drivers/pci/pci.h"
#include "kernel/console/cli.h"
#include "kernel/console/config.h"
#include "kernel/console/console.h"
#include "lib/fmt.h"
#include "kernel/lib.h"
#include "kernel/loop.h"
#include "kernel/mem/pktmem.h"

#define STATUS_PERIOD_NS 100000000ull

_Static_assert(PORTS_MAX <= DRIVER_PORTS_MAX, "a driver keeps track of every port it may claim");

static struct netdev *ports[PORTS_MAX];
static const struct nic_driver *port_driver[PORTS_MAX]; /* which one claimed the port */
static int nports;
static uint8_t sriov_vfs[PORTS_MAX]; /* `sriov ethN vfs K`: VFs port N's PF is to offer */
static struct loop_timer status_timer;
static void (*describe)(int port, enum ports_describe what, char *buf, size_t n);

void ports_set_describe(void (*fn)(int port, enum ports_describe what, char *buf, size_t n)) { describe = fn; }

static const char *address_of(int port, enum ports_describe what, char *buf, size_t n)
{
    buf[0] = 0;
    if (describe)
        describe(port, what, buf, n);
    return buf;
}

int ports_count(void) { return nports; }
struct netdev *ports_get(int i) { return i >= 0 && i < nports ? ports[i] : 0; }

struct netdev *ports_find(const char *name)
{
    for (int i = 0; i < nports; i++)
        if (strcmp(ports[i]->name, name) == 0)
            return ports[i];
    return 0;
}

static const char *holder[PORTS_MAX];
const char *ports_holder(const struct netdev *dev) { return holder[dev->index]; }
void ports_claim(const struct netdev *dev, const char *who) { holder[dev->index] = who; }

int ports_claim_pair(const char *who, const char *holder_name, const char *a, const char *b, struct netdev **pa,
                     struct netdev **pb, char *err, size_t errlen)
{
    struct netdev *da = ports_find(a), *db = ports_find(b);
    if (!da || !db || da == db) {
        fmt_snprintf(err, errlen, "%s: no such port pair '%s' '%s'", who, a, b);
        return -1;
    }
    const char *ha = ports_holder(da), *hb = ports_holder(db);
    if (ha || hb) {
        fmt_snprintf(err, errlen, "%s: %s is %s's", who, ha ? da->name : db->name, ha ? ha : hb);
        return -1;
    }
    ports_claim(da, holder_name);
    ports_claim(db, holder_name);
    struct netdev *ends[2] = {da, db};
    for (int i = 0; i < 2; i++)
        if (!netdev_promiscuous(ends[i]))
            kprintf("%s: %s (%s) takes only frames to its own MAC: others will not cross\n", who, ends[i]->name,
                    ends[i]->driver);
    *pa = da;
    *pb = db;
    return 0;
}

void ports_totals(const struct netdev *dev, struct netdev_qstats *sum)
{
    memset(sum, 0, sizeof *sum);
    const uint64_t *in;
    uint64_t *out = (uint64_t *)sum;
    for (uint16_t q = 0; q < NETDEV_MAX_QUEUES; q++) {
        in = (const uint64_t *)&dev->stats[q];
        for (size_t k = 0; k < sizeof *sum / sizeof(uint64_t); k++)
            out[k] += in[k];
    }
}

static void poll_status(void *arg, uint64_t now_ns)
{
    for (int i = 0; i < nports; i++)
        if (ports[i]->ops->poll_status)
            ports[i]->ops->poll_status(ports[i]);
    loop_timer_arm(&status_timer, now_ns + STATUS_PERIOD_NS);
}

static void print_counters_json(struct json *j, const struct netdev_qstats *s)
{
    json_u64(j, "rx-packets", s->rx_packets);
    json_u64(j, "rx-bytes", s->rx_bytes);
    json_u64(j, "tx-packets", s->tx_packets);
    json_u64(j, "tx-bytes", s->tx_bytes);
    json_u64(j, "rx-no-buf", s->rx_no_buf);
    json_u64(j, "rx-miss", s->rx_miss);
    json_u64(j, "rx-error", s->rx_error);
    json_u64(j, "tx-full", s->tx_full);
    json_u64(j, "tx-error", s->tx_error);
    json_u64(j, "rx-doorbells", s->rx_doorbells);
    json_u64(j, "tx-doorbells", s->tx_doorbells);
    json_u64(j, "rx-batches", s->rx_batches);
    json_u64(j, "tx-batches", s->tx_batches);
    json_arr_begin(j, "rx-batch-histogram");
    for (int b = 0; b < NETDEV_BATCH_HIST; b++)
        json_u64(j, 0, s->batch_hist[b]);
    json_arr_end(j);
}

/* What the driver adds to `show interfaces` (netdev_ops.info). */
static struct netdev_info info_of(const struct netdev *d)
{
    struct netdev_info info = {.note = ""};
    if (d->ops->info)
        d->ops->info(d, &info);
    if (!info.note)
        info.note = "";
    if (info.nfields > NETDEV_INFO_FIELDS)
        info.nfields = NETDEV_INFO_FIELDS;
    return info;
}

static void show_json(void)
{
    struct json j;
    char mac[18], addr[256];
    cli_json_begin(&j);
    json_obj_begin(&j, 0);
    json_arr_begin(&j, "interfaces");
    for (int i = 0; i < nports; i++) {
        struct netdev *d = ports[i];
        struct netdev_qstats t;
        ports_totals(d, &t);
        fmt_snprintf(mac, sizeof mac, "%02x:%02x:%02x:%02x:%02x:%02x", d->mac[0], d->mac[1], d->mac[2], d->mac[3],
                     d->mac[4], d->mac[5]);
        json_obj_begin(&j, 0);
        json_str(&j, "name", d->name);
        json_str(&j, "driver", d->driver);
        json_str(&j, "mac", mac);
        json_str(&j, "address", address_of(i, PORTS_ADDR4, addr, sizeof addr));
        json_str(&j, "address6", address_of(i, PORTS_ADDR6, addr, sizeof addr));
        json_str(&j, "vlan", address_of(i, PORTS_VLAN, addr, sizeof addr));
        json_str(&j, "subinterfaces", address_of(i, PORTS_SUBIFS, addr, sizeof addr));
        json_bool(&j, "link", d->link_up);
        json_u64(&j, "mtu", d->mtu);
        json_u64(&j, "max-mtu", netdev_max_mtu(d)); /* jumbo frames: what the driver takes */
        json_u64(&j, "queues", d->nqueues);
        struct netdev_info info = info_of(d);
        for (int k = 0; k < info.nfields; k++) {
            if (info.field[k].str)
                json_str(&j, info.field[k].key, info.field[k].str);
            else
                json_u64(&j, info.field[k].key, info.field[k].num);
        }
        json_obj_begin(&j, "offloads");
        json_bool(&j, "rx-csum", d->offloads & NETDEV_OFF_RX_CSUM);
        json_bool(&j, "tx-csum", d->offloads & NETDEV_OFF_TX_CSUM);
        json_bool(&j, "tso4", d->offloads & NETDEV_OFF_TSO4);
        json_bool(&j, "tso6", d->offloads & NETDEV_OFF_TSO6);
        json_bool(&j, "rss", d->offloads & NETDEV_OFF_RSS);
        json_obj_end(&j);
        if (d->offloads & NETDEV_OFF_RSS) {
            char key[2 * NETDEV_RSS_KEY_LEN + 1];
            for (int k = 0; k < NETDEV_RSS_KEY_LEN; k++)
                fmt_snprintf(key + 2 * k, 3, "%02x", d->rss_key[k]);
            json_obj_begin(&j, "rss");
            json_str(&j, "key", key);
            json_arr_begin(&j, "reta");
            for (int k = 0; k < NETDEV_RSS_RETA_LEN; k++)
                json_u64(&j, 0, d->rss_reta[k]);
            json_arr_end(&j);
            json_obj_end(&j);
        }
        json_obj_begin(&j, "counters");
        print_counters_json(&j, &t);
        json_obj_end(&j);
        json_arr_begin(&j, "per-queue");
        for (uint16_t q = 0; q < d->nqueues; q++) {
            json_obj_begin(&j, 0);
            json_u64(&j, "queue", q);
            print_counters_json(&j, &d->stats[q]);
            json_obj_end(&j);
        }
        json_arr_end(&j);
        json_obj_end(&j);
    }
    json_arr_end(&j);
    json_obj_end(&j);
    cli_json_end(&j);
}

/* Doorbells per 1,000 packets, for the text view. */
static uint64_t per_mille(uint64_t part, uint64_t whole) { return whole ? part * 1000 / whole : 0; }

static void cmd_show_interfaces(const struct cli_args *a)
{
    if (a->json) {
        show_json();
        return;
    }
    for (int i = 0; i < nports; i++) {
        struct netdev *d = ports[i];
        struct netdev_qstats t;
        char addr[256];
        ports_totals(d, &t);
        for (int v6 = 0; v6 < 2; v6++)
            if (address_of(i, v6 ? PORTS_ADDR6 : PORTS_ADDR4, addr, sizeof addr)[0])
                kprintf("%s: address %s\n", d->name, addr);
        if (address_of(i, PORTS_VLAN, addr, sizeof addr)[0])
            kprintf("%s: vlan %s (802.1Q: tagged frames of this VLAN only)\n", d->name, addr);
        if (address_of(i, PORTS_SUBIFS, addr, sizeof addr)[0])
            kprintf("%s: sub-interfaces %s (show vlans)\n", d->name, addr);
        kprintf("%s: %s%s %02x:%02x:%02x:%02x:%02x:%02x link %s mtu %u (at most %u) queues %u offloads%s%s%s%s%s\n",
                d->name, d->driver, info_of(d).note,
                d->mac[0], d->mac[1], d->mac[2], d->mac[3], d->mac[4], d->mac[5], d->link_up ? "up" : "down", d->mtu,
                netdev_max_mtu(d), d->nqueues, d->offloads & NETDEV_OFF_RX_CSUM ? " rx-csum" : "",
                d->offloads & NETDEV_OFF_TX_CSUM ? " tx-csum" : "", d->offloads & NETDEV_OFF_TSO4 ? " tso4" : "",
                d->offloads & NETDEV_OFF_TSO6 ? " tso6" : "", d->offloads & NETDEV_OFF_RSS ? " rss" : "");
        kprintf("  rx %lu packets %lu bytes, no-buf %lu, miss %lu, error %lu\n", t.rx_packets, t.rx_bytes, t.rx_no_buf,
                t.rx_miss, t.rx_error);
        kprintf("  tx %lu packets %lu bytes, full %lu, error %lu\n", t.tx_packets, t.tx_bytes, t.tx_full, t.tx_error);
        kprintf("  doorbells rx %lu tx %lu (%lu per 1000 tx packets), batches rx %lu tx %lu\n", t.rx_doorbells,
                t.tx_doorbells, per_mille(t.tx_doorbells, t.tx_packets), t.rx_batches, t.tx_batches);
        for (uint16_t q = 0; q < d->nqueues && d->nqueues > 1; q++) { /* how RSS spreads the flows */
            const struct netdev_qstats *s = &d->stats[q];
            kprintf("  queue %u: rx %lu tx %lu, no-buf %lu, miss %lu, error %lu, full %lu\n", q, s->rx_packets,
                    s->tx_packets, s->rx_no_buf, s->rx_miss, s->rx_error, s->tx_full);
        }
    }
    if (nports == 0)
        kprintf("no network ports found\n");
}

/* A driver's command that names a port (nic_driver_cmd.port_fn): the
 * kernel finds the port, and hands it over if that driver claimed it. */
struct bound_cmd {
    const struct nic_driver *drv;
    const struct nic_driver_cmd *cmd;
};
static struct bound_cmd bound[CLI_MAX_CMDS];
static int nbound;

static void run_port_cmd(const struct cli_args *a)
{
    const struct bound_cmd *b = a->ctx;
    int i = 0;
    while (a->argc == 1 && i < nports && strcmp(ports[i]->name, a->argv[0]) != 0)
        i++;
    if (a->argc != 1 || i == nports || port_driver[i] != b->drv || !b->cmd->port_fn(ports[i], a))
        kprintf("usage: %s (%s)\n", b->cmd->usage, b->cmd->port_hint);
}

/* Once per command words: igb and igbvf share `show igb`. */
static void register_cmds(const struct nic_driver *drv)
{
    for (int k = 0; k < drv->ncmds; k++) {
        const struct nic_driver_cmd *c = &drv->cmds[k];
        bool known = false;
        for (int i = 0; i < nbound; i++)
            known |= strcmp(bound[i].cmd->words, c->words) == 0;
        if (known || nbound == CLI_MAX_CMDS)
            continue;
        bound[nbound] = (struct bound_cmd){drv, c};
        if (c->port_fn)
            cli_register_ctx(c->words, c->usage, c->help, run_port_cmd, &bound[nbound]);
        else
            cli_register(c->words, c->usage, c->help, c->fn);
        nbound++;
    }
}

static bool claimed_any(const struct nic_driver *drv)
{
    for (int i = 0; i < nports; i++)
        if (port_driver[i] == drv)
            return true;
    return false;
}

/* A port's link changed (netdev_set_link, from its driver's status poll). */
static void note_link(struct netdev *dev) { kprintf("%s: link %s\n", dev->name, dev->link_up ? "up" : "down"); }

/* The most VFs any driver offers: the limit of `sriov ethN vfs K`. */
static unsigned sriov_max(void)
{
    unsigned most = 0;
    for (int k = 0; k < nic_driver_count; k++)
        most = nic_drivers[k]->sriov_max_vfs > most ? nic_drivers[k]->sriov_max_vfs : most;
    return most;
}

static void sriov_refused(int port)
{
    kprintf("eth%d: sriov: not an", port);
    const char *sep = " ";
    for (int k = 0; k < nic_driver_count; k++)
        if (nic_drivers[k]->sriov_max_vfs) {
            kprintf("%s%s", sep, nic_drivers[k]->name);
            sep = " or ";
        }
    kprintf(" physical function, no VFs\n");
}

/* sriov ethN vfs K: applied before the ports are probed (config_apply_only). */
int ports_sriov_stmt(int argc, char **argv, char *err, size_t errlen)
{
    unsigned long port, vfs;
    if (argc != 4 || strncmp(argv[1], "eth", 3) != 0 || config_parse_u32(argv[1] + 3, PORTS_MAX - 1, &port) != 0 ||
        strcmp(argv[2], "vfs") != 0 || config_parse_u32(argv[3], sriov_max(), &vfs) != 0) {
        fmt_snprintf(err, errlen, "usage: sriov ethN vfs K (K at most %u)", sriov_max());
        return -1;
    }
    sriov_vfs[port] = (uint8_t)vfs;
    return 0;
}

/* The full pass: ports_sriov_stmt has taken these lines already. */
static int stmt_sriov_done(int argc, char **argv, char *err, size_t errlen) { return 0; }

void ports_init(unsigned ncpus)
{
    struct pkt_pool *pools[NETDEV_MAX_QUEUES];
    uint16_t pairs = (uint16_t)(ncpus < NETDEV_MAX_QUEUES ? ncpus : NETDEV_MAX_QUEUES);
    for (uint16_t q = 0; q < pairs; q++)
        pools[q] = pktmem_pool(q);
    for (int i = 0; i < pci_count() && nports < PORTS_MAX; i++) {
        struct pci_dev *pci = pci_at(i);
        struct netdev *dev = 0;
        const struct nic_driver *drv = 0;
        for (int k = 0; k < nic_driver_count && !drv; k++)
            if (nic_drivers[k]->match(pci))
                drv = nic_drivers[k];
        uint8_t vfs = drv && drv->sriov_max_vfs ? sriov_vfs[nports] : 0;
        if (vfs > drv->sriov_max_vfs) { /* `sriov` took the most any driver offers */
            kprintf("eth%d: sriov: %s offers at most %u VFs, %u asked\n", nports, drv->name, drv->sriov_max_vfs, vfs);
            vfs = drv->sriov_max_vfs;
        }
        if (drv)
            dev = drv->probe(pci, pairs, pools, vfs);
        if (!dev)
            continue;
        pci->claimed = true;
        if (sriov_vfs[nports] && !drv->sriov_max_vfs)
            sriov_refused(nports);
        bool first = !claimed_any(drv);
        port_driver[nports] = drv;
        dev->index = (uint16_t)nports;
        fmt_snprintf(dev->name, sizeof dev->name, "eth%d", nports);
        ports[nports++] = dev;
        dev->link_changed = note_link;
        if (first)
            register_cmds(drv);
        kprintf("%s: %s at %02x:%02x.%x, %02x:%02x:%02x:%02x:%02x:%02x, %u queue pair%s, link %s\n", dev->name,
                dev->driver, pci->bus, pci->dev, pci->fn, dev->mac[0], dev->mac[1], dev->mac[2], dev->mac[3],
                dev->mac[4], dev->mac[5], dev->nqueues, dev->nqueues == 1 ? "" : "s", dev->link_up ? "up" : "down");
    }
    config_register("sriov", stmt_sriov_done);
    for (int k = 0; k < nic_driver_count; k++)
        for (int i = 0; i < nic_drivers[k]->nstmts; i++)
            config_register(nic_drivers[k]->stmts[i].keyword, nic_drivers[k]->stmts[i].fn);
    cli_register("show interfaces", "show interfaces [json]", "ports, link, counters, doorbells", cmd_show_interfaces);
    loop_timer_init(&status_timer, poll_status, 0);
}

/* Called on core 0 once its loop runs: the status timer is core-local. */
void ports_start_status_polling(uint64_t now_ns) { loop_timer_arm(&status_timer, now_ns + STATUS_PERIOD_NS); }
