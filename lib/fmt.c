/* SPDX-License-Identifier: MIT */
/* lib/fmt.c: the printf-style formatter behind kprintf and fmt_snprintf.
 * Portable C: also built into the host unit tests (tests/unit/lib/fmt.c),
 * which hold it against the host's snprintf. */
#include "fmt.h"

#include <stdbool.h>
#include <stdint.h>

struct spec {
    bool left, zero, plus, space;
    int width, prec; /* prec < 0: none */
};

static int emit(fmt_sink sink, void *ctx, char c, int n)
{
    for (int i = 0; i < n; i++)
        sink(ctx, c);
    return n > 0 ? n : 0;
}

static int emit_str(fmt_sink sink, void *ctx, const char *s, int len, const struct spec *sp)
{
    int pad = sp->width - len, out = 0;
    if (!sp->left)
        out += emit(sink, ctx, ' ', pad);
    for (int i = 0; i < len; i++)
        sink(ctx, s[i]);
    out += len;
    if (sp->left)
        out += emit(sink, ctx, ' ', pad);
    return out;
}

static int emit_num(fmt_sink sink, void *ctx, uint64_t v, bool neg, unsigned base, bool upper,
                    const char *prefix, const struct spec *sp)
{
    const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    char buf[24];
    int len = 0;
    if (v == 0 && sp->prec != 0)
        buf[len++] = '0';
    while (v) {
        buf[len++] = digits[v % base];
        v /= base;
    }
    char sign = neg ? '-' : sp->plus ? '+' : sp->space ? ' ' : 0;
    int plen = 0;
    while (prefix[plen])
        plen++;
    int zeros = sp->prec > len ? sp->prec - len : 0;
    int body = len + zeros + plen + (sign ? 1 : 0);
    int pad = sp->width > body ? sp->width - body : 0;
    if (sp->zero && !sp->left && sp->prec < 0) {
        zeros += pad;
        pad = 0;
    }
    int out = 0;
    if (!sp->left)
        out += emit(sink, ctx, ' ', pad);
    if (sign)
        out += emit(sink, ctx, sign, 1);
    for (int i = 0; i < plen; i++)
        out += emit(sink, ctx, prefix[i], 1);
    out += emit(sink, ctx, '0', zeros);
    while (len)
        out += emit(sink, ctx, buf[--len], 1);
    if (sp->left)
        out += emit(sink, ctx, ' ', pad);
    return out;
}

static const char *parse_spec(const char *f, struct spec *sp, va_list *ap)
{
    *sp = (struct spec){.prec = -1};
    for (;; f++) {
        if (*f == '-')
            sp->left = true;
        else if (*f == '0')
            sp->zero = true;
        else if (*f == '+')
            sp->plus = true;
        else if (*f == ' ')
            sp->space = true;
        else
            break;
    }
    if (*f == '*') {
        sp->width = va_arg(*ap, int);
        if (sp->width < 0) {
            sp->left = true;
            sp->width = -sp->width;
        }
        f++;
    }
    while (*f >= '0' && *f <= '9')
        sp->width = sp->width * 10 + (*f++ - '0');
    if (*f == '.') {
        f++;
        sp->prec = 0;
        if (*f == '*') {
            sp->prec = va_arg(*ap, int);
            f++;
        }
        while (*f >= '0' && *f <= '9')
            sp->prec = sp->prec * 10 + (*f++ - '0');
    }
    return f;
}

int fmt_vformat(fmt_sink sink, void *ctx, const char *f, va_list ap_in)
{
    va_list ap;
    va_copy(ap, ap_in);
    int out = 0;
    while (*f) {
        if (*f != '%') {
            sink(ctx, *f++);
            out++;
            continue;
        }
        struct spec sp;
        f = parse_spec(f + 1, &sp, &ap);
        int lng = 0; /* 0 int, 1 long, 2 long long, -1 short, -2 char */
        for (;; f++) {
            if (*f == 'l' || *f == 'z' || *f == 'j' || *f == 't')
                lng = lng >= 1 ? 2 : 1;
            else if (*f == 'h')
                lng = lng <= -1 ? -2 : -1;
            else
                break;
        }
        char c = *f ? *f++ : 0;
        uint64_t u;
        int64_t s;
        switch (c) {
        case 'd':
        case 'i':
            s = lng >= 2 ? va_arg(ap, long long) : lng == 1 ? va_arg(ap, long) : va_arg(ap, int);
            if (lng == -1)
                s = (short)s;
            else if (lng == -2)
                s = (signed char)s;
            u = s < 0 ? 0 - (uint64_t)s : (uint64_t)s;
            out += emit_num(sink, ctx, u, s < 0, 10, false, "", &sp);
            break;
        case 'u':
        case 'x':
        case 'X':
        case 'o':
            u = lng >= 2 ? va_arg(ap, unsigned long long) : lng == 1 ? va_arg(ap, unsigned long) : va_arg(ap, unsigned);
            if (lng == -1)
                u = (unsigned short)u;
            else if (lng == -2)
                u = (unsigned char)u;
            out += emit_num(sink, ctx, u, false, c == 'u' ? 10 : c == 'o' ? 8 : 16, c == 'X', "", &sp);
            break;
        case 'p':
            u = (uint64_t)(uintptr_t)va_arg(ap, void *);
            out += emit_num(sink, ctx, u, false, 16, false, "0x", &sp);
            break;
        case 'c': {
            char ch = (char)va_arg(ap, int);
            out += emit_str(sink, ctx, &ch, 1, &sp);
            break;
        }
        case 's': {
            const char *str = va_arg(ap, const char *);
            if (!str)
                str = "(null)";
            int len = 0;
            while (str[len] && (sp.prec < 0 || len < sp.prec))
                len++;
            out += emit_str(sink, ctx, str, len, &sp);
            break;
        }
        case '%':
            sink(ctx, '%');
            out++;
            break;
        default: /* unknown or truncated conversion: show it */
            sink(ctx, '%');
            out++;
            if (c) {
                sink(ctx, c);
                out++;
            }
            break;
        }
    }
    va_end(ap);
    return out;
}

struct buf_ctx {
    char *buf;
    size_t size, pos;
};

static void buf_sink(void *ctx, char c)
{
    struct buf_ctx *b = ctx;
    if (b->pos + 1 < b->size)
        b->buf[b->pos] = c;
    b->pos++;
}

int fmt_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
    struct buf_ctx b = {buf, size, 0};
    int n = fmt_vformat(buf_sink, &b, fmt, ap);
    if (size)
        buf[b.pos < size ? b.pos : size - 1] = 0;
    return n;
}

int fmt_snprintf(char *buf, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = fmt_vsnprintf(buf, size, fmt, ap);
    va_end(ap);
    return n;
}
