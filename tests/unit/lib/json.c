/* SPDX-License-Identifier: MIT */
/* tests/unit/lib/json.c: the JSON writer (lib/json.c). */
#include "lib/json.h"
#include "tests/unit/check.h"

static char out[512];
static size_t out_len;
static void sink(void *ctx, char c)
{
    if (out_len + 1 < sizeof out)
        out[out_len++] = c;
    out[out_len] = 0;
}

TEST(json_nesting_commas_and_escapes)
{
    struct json j;
    out_len = 0;
    json_init(&j, sink, 0);
    json_obj_begin(&j, 0);
    json_str(&j, "name", "a\"b\\c\n\x01");
    json_u64(&j, "big", 18446744073709551615ull);
    json_i64(&j, "neg", -5);
    json_bool(&j, "up", true);
    json_null(&j, "none");
    json_fixed(&j, "ratio", 12345, 3);
    json_arr_begin(&j, "list");
    json_u64(&j, 0, 1);
    json_obj_begin(&j, 0);
    json_obj_end(&j);
    json_arr_end(&j);
    json_obj_end(&j);
    CHECK_STR(out, "{\"name\":\"a\\\"b\\\\c\\u000a\\u0001\",\"big\":18446744073709551615,"
                   "\"neg\":-5,\"up\":true,\"none\":null,\"ratio\":12.345,\"list\":[1,{}]}");
}
