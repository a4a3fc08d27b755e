/* SPDX-License-Identifier: MIT */
/* lib/json.c: the JSON writer (lib/json.h). */
#include "json.h"

static void put(struct json *j, const char *s)
{
    while (*s)
        j->sink(j->ctx, *s++);
}

static void put_escaped(struct json *j, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    j->sink(j->ctx, '"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            j->sink(j->ctx, '\\');
            j->sink(j->ctx, (char)c);
        } else if (c < 0x20 || c == 0x7f) {
            char u[7] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15], 0};
            put(j, u);
        } else {
            j->sink(j->ctx, (char)c);
        }
    }
    j->sink(j->ctx, '"');
}

/* Comma and key before a value. */
static void lead(struct json *j, const char *key)
{
    if (j->depth > 0) {
        if (!j->first[j->depth])
            j->sink(j->ctx, ',');
        j->first[j->depth] = false;
    }
    if (key) {
        put_escaped(j, key);
        j->sink(j->ctx, ':');
    }
}

void json_init(struct json *j, fmt_sink sink, void *ctx)
{
    j->sink = sink;
    j->ctx = ctx;
    j->depth = 0;
}

static void open_container(struct json *j, const char *key, char c)
{
    lead(j, key);
    j->sink(j->ctx, c);
    if (j->depth + 1 < JSON_MAX_DEPTH)
        j->depth++;
    j->first[j->depth] = true;
}

static void close_container(struct json *j, char c)
{
    j->sink(j->ctx, c);
    if (j->depth > 0)
        j->depth--;
}

void json_obj_begin(struct json *j, const char *key) { open_container(j, key, '{'); }
void json_obj_end(struct json *j) { close_container(j, '}'); }
void json_arr_begin(struct json *j, const char *key) { open_container(j, key, '['); }
void json_arr_end(struct json *j) { close_container(j, ']'); }

void json_str(struct json *j, const char *key, const char *v)
{
    lead(j, key);
    put_escaped(j, v ? v : "");
}

void json_u64(struct json *j, const char *key, uint64_t v)
{
    char buf[24];
    lead(j, key);
    fmt_snprintf(buf, sizeof buf, "%llu", (unsigned long long)v);
    put(j, buf);
}

void json_i64(struct json *j, const char *key, int64_t v)
{
    char buf[24];
    lead(j, key);
    fmt_snprintf(buf, sizeof buf, "%lld", (long long)v);
    put(j, buf);
}

void json_bool(struct json *j, const char *key, bool v)
{
    lead(j, key);
    put(j, v ? "true" : "false");
}

void json_null(struct json *j, const char *key)
{
    lead(j, key);
    put(j, "null");
}

void json_fixed(struct json *j, const char *key, uint64_t value, int decimals)
{
    uint64_t scale = 1;
    for (int i = 0; i < decimals; i++)
        scale *= 10;
    char buf[48];
    lead(j, key);
    if (decimals > 0)
        fmt_snprintf(buf, sizeof buf, "%llu.%0*llu", (unsigned long long)(value / scale), decimals,
                     (unsigned long long)(value % scale));
    else
        fmt_snprintf(buf, sizeof buf, "%llu", (unsigned long long)value);
    put(j, buf);
}
