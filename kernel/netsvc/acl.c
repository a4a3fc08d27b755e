/* SPDX-License-Identifier: MIT */
/* kernel/netsvc/acl.c: access lists (net/acl/acl.h) by name. `acl NAME
 * permit|deny ...` adds a rule to NAME's end; `interface ethN acl in|out
 * NAME` applies it to what is forwarded in at or out of a port, `acl
 * control NAME` to what comes for the router itself. The configuration's
 * lists are compiled once, when the service starts; a rule added at the
 * console later compiles its list again, and each core takes the new one
 * (and its counters, the old ones carried over) in its own loop through a
 * message, after which the old list is freed: no core is then inside it.
 * Every core counts its own hits; `show acl` adds them up. */
#include "netsvc_impl.h"

#include "kernel/console/cli.h"
#include "kernel/console/config.h"
#include "kernel/console/console.h"
#include "kernel/lib.h"
#include "kernel/mem/heap.h"
#include "kernel/mem/kalloc.h"
#include "kernel/platform/percpu.h"
#include "kernel/ports.h"

#define ACL_DEFS 32

struct acl_def {
    char name[ACL_NAME_MAX];
    uint32_t n;
    struct acl_rule *rules;      /* ACL_RULES_MAX of them, from the first rule on */
    struct acl *built;           /* what the cores use; NULL until the service starts */
    uint64_t *hits[64];          /* each core's, built's rules + 1 (the implicit deny) */
};

static struct {
    struct acl_def def[ACL_DEFS];
    uint32_t ndef;
    int in[NET_MAX_PORTS], out[NET_MAX_PORTS], control; /* def + 1; 0: none */
} acls;

static void *mem_alloc(void *ctx, size_t size) { return heap_alloc(size); }
static void mem_free(void *ctx, void *p, size_t size) { heap_free(p, size); }
static const struct acl_mem mem = {mem_alloc, mem_free, 0};

static struct acl_def *find(const char *name)
{
    for (uint32_t i = 0; i < acls.ndef; i++)
        if (strcmp(acls.def[i].name, name) == 0)
            return &acls.def[i];
    return NULL;
}

static struct acl_use use_of(int ref, unsigned cpu)
{
    struct acl_def *d = ref ? &acls.def[ref - 1] : NULL;
    /* an empty list (every rule deleted) guards nothing: not the implicit deny alone */
    return d && d->built && d->n ? (struct acl_use){d->built, d->hits[cpu]} : (struct acl_use){0};
}

/* The core's stack takes the lists as they are now (on that core). */
static void apply_core(struct netsvc_core *rc)
{
    for (int p = 0; p < NET_MAX_PORTS; p++) {
        rc->stack.iface[p].acl_in = use_of(acls.in[p], rc->cpu);
        rc->stack.iface[p].acl_out = use_of(acls.out[p], rc->cpu);
    }
    rc->stack.acl_control = use_of(acls.control, rc->cpu);
}

static uint64_t *hits_alloc(uint32_t n)
{
    uint64_t *h = heap_alloc((n + 1) * sizeof(uint64_t));
    if (h)
        memset(h, 0, (n + 1) * sizeof(uint64_t));
    return h;
}

void netsvc_acl_core(struct netsvc_core *rc)
{
    for (uint32_t i = 0; i < acls.ndef; i++) {
        struct acl_def *d = &acls.def[i];
        if (d->built && (d->hits[rc->cpu] = hits_alloc(d->n)) == NULL)
            panic("acl: no memory for %s's counters", d->name);
    }
    apply_core(rc);
}

void netsvc_acl_start(void)
{
    for (uint32_t i = 0; i < acls.ndef; i++) {
        struct acl_def *d = &acls.def[i];
        char err[96];
        d->built = acl_build(d->name, d->rules, d->n, &mem, err, sizeof err);
        if (d->built)
            kprintf("acl: %s: %u rules, %lu KiB of tables\n", d->name, d->n, (unsigned long)acl_bytes(d->built) / 1024);
        else
            kprintf("acl: %s: %s: not applied, what it guards passes\n", d->name, err);
    }
}

/* A list compiled again while the cores run: each takes it in turn. */
struct swap {
    struct acl_def *d;
    struct acl *built;
    uint64_t *hits[64];
    uint32_t had;                /* rules the old list had (their counters carry over) */
    uint32_t gone;               /* the one deleted (its counter goes with it); had: none */
};

static void swap_on_core(void *arg)
{
    struct swap *w = arg;
    struct netsvc_core *rc = netsvc.core[cpu_index()];
    uint64_t *old = w->d->hits[rc->cpu];
    if (old) {
        for (uint32_t i = 0, j = 0; i < w->had; i++)
            if (i != w->gone)
                w->hits[rc->cpu][j++] = old[i];
        w->hits[rc->cpu][w->d->n] = old[w->had]; /* the implicit deny's */
    }
    w->d->hits[rc->cpu] = w->hits[rc->cpu];
    w->hits[rc->cpu] = old;
    apply_core(rc);
    fwd_sync(&rc->fwd, &rc->stack);
}

/* d's rules compiled again, and taken by every core: had rules before,
 * gone the one deleted (had when one was added at the end). */
static int rebuild(struct acl_def *d, uint32_t had, uint32_t gone, char *err, size_t errlen)
{
    static struct swap w;
    memset(&w, 0, sizeof w);
    w.d = d;
    w.had = had;
    w.gone = gone;
    if ((w.built = acl_build(d->name, d->rules, d->n, &mem, err, errlen)) == NULL)
        return -1;
    for (unsigned c = 0; c < netsvc.ncores; c++)
        if (netsvc.core[c] && (w.hits[c] = hits_alloc(d->n)) == NULL) {
            fmt_snprintf(err, errlen, "no memory for the counters");
            goto undo;
        }
    struct acl *old = d->built;
    d->built = w.built;
    for (unsigned c = 0; c < netsvc.ncores; c++)
        if (netsvc.core[c] && netsvc_on_core(c, swap_on_core, &w) != 0) {
            /* That core may take it later: nothing can be freed. */
            fmt_snprintf(err, errlen, "core %u did not answer: the old list stays allocated", c);
            return -1;
        }
    acl_free(old, &mem);
    for (unsigned c = 0; c < netsvc.ncores; c++)
        if (w.hits[c])
            heap_free(w.hits[c], (had + 1) * sizeof(uint64_t));
    return 0;
undo:
    for (unsigned c = 0; c < netsvc.ncores; c++)
        if (w.hits[c])
            heap_free(w.hits[c], (d->n + 1) * sizeof(uint64_t));
    acl_free(w.built, &mem);
    return -1;
}

/* `acl NAME delete N`: rule N (from 1, as `show acl` numbers them) out. */
static int delete_rule(const char *name, const char *num, char *err, size_t errlen)
{
    struct acl_def *d = find(name);
    unsigned long k;
    if (d == NULL || config_parse_u32(num, d->n, &k) != 0 || k == 0) {
        fmt_snprintf(err, errlen, "no rule %s in access list %s", num, name);
        return -1;
    }
    struct acl_rule r = d->rules[k - 1];
    memmove(&d->rules[k - 1], &d->rules[k], (d->n - k) * sizeof(struct acl_rule));
    d->n--;
    if (!netsvc.started || rebuild(d, d->n + 1, (uint32_t)k - 1, err, errlen) == 0)
        return 0;
    memmove(&d->rules[k], &d->rules[k - 1], (d->n - (k - 1)) * sizeof(struct acl_rule)); /* as it was */
    d->rules[k - 1] = r;
    d->n++;
    return -1;
}

/* `acl NAME permit|deny ...`, `acl NAME delete N` and `acl control NAME`. */
static int stmt_acl(int argc, char **argv, char *err, size_t errlen)
{
    if (argc < 3) {
        fmt_snprintf(err, errlen, "usage: acl NAME permit|deny [proto P] [src PREFIX] [dst PREFIX] [sport N[-M]] "
                                  "[dport N[-M]], or acl control NAME");
        return -1;
    }
    if (strcmp(argv[1], "control") == 0 && argc == 3)
        return netsvc_acl_bind(-1, "control", argv[2], err, errlen);
    if (argc == 4 && strcmp(argv[2], "delete") == 0)
        return delete_rule(argv[1], argv[3], err, errlen);
    if (strcmp(argv[1], "control") == 0 || strlen(argv[1]) >= ACL_NAME_MAX) {
        fmt_snprintf(err, errlen, "bad access list name '%s' (not control, under %u characters)", argv[1],
                     ACL_NAME_MAX);
        return -1;
    }
    struct acl_rule r;
    if (acl_rule_parse(&r, argc - 2, argv + 2, err, errlen) != 0)
        return -1;
    struct acl_def *d = find(argv[1]);
    if (d == NULL) {
        if (acls.ndef == ACL_DEFS) {
            fmt_snprintf(err, errlen, "at most %u access lists", ACL_DEFS);
            return -1;
        }
        d = &acls.def[acls.ndef++];
        memcpy(d->name, argv[1], strlen(argv[1]) + 1);
    }
    if (d->n == ACL_RULES_MAX) {
        fmt_snprintf(err, errlen, "%s has %u rules already", d->name, ACL_RULES_MAX);
        return -1;
    }
    if (d->rules == NULL)
        d->rules = kalloc(ACL_RULES_MAX * sizeof(struct acl_rule));
    d->rules[d->n++] = r;
    if (!netsvc.started)
        return 0; /* compiled once, at the start */
    if (rebuild(d, d->n - 1, d->n - 1, err, errlen) != 0) {
        d->n--;
        return -1;
    }
    return 0;
}

int netsvc_acl_bind(int port, const char *dir, const char *name, char *err, size_t errlen)
{
    struct acl_def *d = find(name);
    if (d == NULL) {
        fmt_snprintf(err, errlen, "no access list '%s' (its rules come first)", name);
        return -1;
    }
    int ref = (int)(d - acls.def) + 1;
    if (port < 0)
        acls.control = ref;
    else if (strcmp(dir, "in") == 0)
        acls.in[port] = ref;
    else if (strcmp(dir, "out") == 0)
        acls.out[port] = ref;
    else {
        fmt_snprintf(err, errlen, "usage: interface PORT acl in|out NAME");
        return -1;
    }
    return 0;
}

static void where(struct json *j, const struct cli_args *a, int ref, const int *at, const char *key)
{
    if (a->json)
        json_arr_begin(j, key);
    for (int p = 0; p < NET_MAX_PORTS; p++) {
        if (at[p] != ref || netsvc_port_dev(p) == NULL)
            continue;
        if (a->json)
            json_str(j, NULL, netsvc_port_name(p));
        else
            kprintf(" %s %s", key, netsvc_port_name(p));
    }
    if (a->json)
        json_arr_end(j);
}

static uint64_t hits(const struct acl_def *d, uint32_t rule)
{
    uint64_t v = 0;
    for (unsigned c = 0; c < netsvc.ncores; c++)
        if (d->built && d->hits[c])
            v += d->hits[c][rule];
    return v;
}

static void cmd_show_acl(const struct cli_args *a)
{
    struct json j;
    if (a->json)
        netsvc_list_begin(&j, "acls");
    else if (acls.ndef == 0)
        kprintf("no access lists\n");
    for (uint32_t i = 0; i < acls.ndef; i++) {
        const struct acl_def *d = &acls.def[i];
        int ref = (int)i + 1;
        if (a->json) {
            json_obj_begin(&j, 0);
            json_str(&j, "name", d->name);
            json_bool(&j, "compiled", d->built != NULL);
            json_u64(&j, "bytes", d->built ? acl_bytes(d->built) : 0);
            json_bool(&j, "control", acls.control == ref);
        } else {
            kprintf("acl %s: %u rules%s", d->name, d->n, d->built ? "" : ", not compiled");
        }
        where(&j, a, ref, acls.in, "in");
        where(&j, a, ref, acls.out, "out");
        if (a->json)
            json_arr_begin(&j, "rules");
        else
            kprintf("%s\n", acls.control == ref ? " control" : "");
        for (uint32_t r = 0; r <= d->n; r++) {
            char text[160] = "(implicit deny)";
            if (r < d->n)
                acl_rule_format(&d->rules[r], text, sizeof text);
            if (a->json) {
                json_obj_begin(&j, 0);
                json_str(&j, "rule", text);
                json_u64(&j, "hits", hits(d, r));
                json_obj_end(&j);
            } else {
                kprintf("  %4u %-60s %lu\n", r + 1, text, (unsigned long)hits(d, r));
            }
        }
        if (a->json) {
            json_arr_end(&j);
            json_obj_end(&j);
        }
    }
    if (a->json)
        netsvc_list_end(&j);
}

static void apply_on_core(void *arg)
{
    struct netsvc_core *rc = netsvc.core[cpu_index()];
    apply_core(rc);
    fwd_sync(&rc->fwd, &rc->stack);
}

static void cmd_acl(const struct cli_args *a)
{
    char err[128], *argv[CONFIG_MAX_WORDS + 1] = {"acl"};
    int argc = 1;
    for (int i = 0; i < a->argc && argc <= CONFIG_MAX_WORDS; i++)
        argv[argc++] = a->argv[i];
    if (stmt_acl(argc, argv, err, sizeof err) != 0) {
        kprintf("acl: %s\n", err);
        return;
    }
    if (netsvc.started && strcmp(argv[1], "control") == 0) /* a binding: every core takes it */
        for (unsigned c = 0; c < netsvc.ncores; c++)
            if (netsvc.core[c] && netsvc_on_core(c, apply_on_core, NULL) != 0)
                kprintf("acl: core %u did not answer\n", c);
}

void netsvc_acl_init(void)
{
    config_register("acl", stmt_acl);
    cli_register("show acl", "show acl [json]", "access lists, where they apply, each rule's hits", cmd_show_acl);
    cli_register("acl",
                 "acl NAME permit|deny [proto P] [src PREFIX] [dst PREFIX] [sport N[-M]] [dport N[-M]] | "
                 "acl NAME delete N | acl control NAME",
                 "add a rule to an access list's end, delete one, or guard the router with one (applied at once)",
                 cmd_acl);
}
