/* SPDX-License-Identifier: MIT */
/* lib/json.h: a small streaming JSON writer for `show ... json`
 * (RFC 8259). Output goes to a fmt_sink; keys and strings are escaped.
 * Portable (host-tested). */
#ifndef LIB_JSON_H
#define LIB_JSON_H

#include <stdbool.h>
#include <stdint.h>

#include "fmt.h"

#define JSON_MAX_DEPTH 16

struct json {
    fmt_sink sink;
    void *ctx;
    int depth;
    bool first[JSON_MAX_DEPTH]; /* no value written yet at this depth */
};

void json_init(struct json *j, fmt_sink sink, void *ctx);
/* key is NULL inside arrays and at the top level. */
void json_obj_begin(struct json *j, const char *key);
void json_obj_end(struct json *j);
void json_arr_begin(struct json *j, const char *key);
void json_arr_end(struct json *j);
void json_str(struct json *j, const char *key, const char *v);
void json_u64(struct json *j, const char *key, uint64_t v);
void json_i64(struct json *j, const char *key, int64_t v);
void json_bool(struct json *j, const char *key, bool v);
void json_null(struct json *j, const char *key); /* a value not measured */
/* A number with a fixed number of decimals: value / 10^decimals. */
void json_fixed(struct json *j, const char *key, uint64_t value, int decimals);

#endif
