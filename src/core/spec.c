/*
** spec.c — parser and printer of the layer SPEC (see spec.h).
**
** The parser is strict on purpose: a typo in a research sweep must stop the
** run with the field named, not silently become a default.
*/
#include "spec.h"
#include "status.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { K_CIN, K_COUT, K_H, K_W, K_K, K_S, K_D, K_P, K_PT, K_PB, K_PL, K_PR, K_COUNT };

static const struct { const char *key; bool pair; } keys[K_COUNT] = {
    [K_CIN] = {"cin", false}, [K_COUT] = {"cout", false},
    [K_H] = {"h", false},     [K_W] = {"w", false},
    [K_K] = {"k", true},      [K_S] = {"s", true},
    [K_D] = {"d", true},      [K_P] = {"p", true},
    [K_PT] = {"pt", false},   [K_PB] = {"pb", false},
    [K_PL] = {"pl", false},   [K_PR] = {"pr", false},
};

/* Parse a decimal int64 occupying exactly [s, end).  0 on success, -1 not
** a number, -2 out of range.  s is inside a NUL-terminated SPEC and *end
** is ',', 'x' or the NUL, none of which continues a number, so strtoll
** stops exactly at end for a well-formed value of any length (leading
** zeros included). */
static int parse_int(const char *s, const char *end, int64_t *v)
{
    if (s == end || !((*s >= '0' && *s <= '9') || *s == '-' || *s == '+'))
        return -1;
    char *stop;
    errno = 0;
    long long x = strtoll(s, &stop, 10);
    if (stop != end)
        return -1;
    if (errno == ERANGE)
        return -2;
    *v = (int64_t)x;
    return 0;
}

static int bad_value(char err[RIP_ERR_LEN], const char *key, const char *s, const char *end, int rc, bool pair)
{
    int n = (int)(end - s);
    if (n > 40)
        n = 40;
    if (rc == -2)
        snprintf(err, RIP_ERR_LEN, "%s: number out of range '%.*s'", key, n, s);
    else
        snprintf(err, RIP_ERR_LEN, "%s: expected %s, got '%.*s'", key,
                 pair ? "an integer A or AxB" : "an integer", n, s);
    return -1;
}

/* rip_spec_parse without the clean-up of its message. */
static int parse(const char *spec, rip_layer *L, char err[RIP_ERR_LEN])
{
    int64_t a[K_COUNT] = {0}, b[K_COUNT] = {0};
    bool seen[K_COUNT] = {false};

    if (spec == NULL || *spec == '\0') {
        snprintf(err, RIP_ERR_LEN, "spec: empty layer SPEC");
        return -1;
    }
    const char *item = spec;
    for (;;) {
        const char *comma = strchr(item, ',');
        const char *end = comma ? comma : item + strlen(item);
        const char *eq = memchr(item, '=', (size_t)(end - item));
        int klen = (int)((eq ? eq : end) - item);
        int id = -1;
        for (int i = 0; i < K_COUNT; i++)
            if ((int)strlen(keys[i].key) == klen && strncmp(item, keys[i].key, (size_t)klen) == 0)
                id = i;
        if (id < 0) {
            if (klen == 0)
                snprintf(err, RIP_ERR_LEN, "spec: empty item in '%.60s'", spec);
            else
                snprintf(err, RIP_ERR_LEN,
                         "%.*s: unknown key (known: cin cout h w k s d p pt pb pl pr)",
                         klen > 40 ? 40 : klen, item);
            return -1;
        }
        const char *key = keys[id].key;
        if (eq == NULL) {
            snprintf(err, RIP_ERR_LEN, "%s: missing '=value'", key);
            return -1;
        }
        if (seen[id]) {
            snprintf(err, RIP_ERR_LEN, "%s: given twice", key);
            return -1;
        }
        seen[id] = true;
        const char *v = eq + 1;
        const char *x = keys[id].pair ? memchr(v, 'x', (size_t)(end - v)) : NULL;
        int rc = parse_int(v, x ? x : end, &a[id]);
        if (rc == 0 && x)
            rc = parse_int(x + 1, end, &b[id]);
        else if (rc == 0)
            b[id] = a[id];
        if (rc != 0)
            return bad_value(err, key, v, end, rc, keys[id].pair);
        if (!comma)
            break;
        item = comma + 1;
    }

    static const int required[] = {K_CIN, K_COUT, K_H, K_K};
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
        if (!seen[required[i]]) {
            snprintf(err, RIP_ERR_LEN, "%s: required key missing", keys[required[i]].key);
            return -1;
        }

    rip_layer l = {0};
    l.cin = a[K_CIN];
    l.cout = a[K_COUT];
    l.h_in = a[K_H];
    l.w_in = seen[K_W] ? a[K_W] : a[K_H];
    l.k_h = a[K_K];
    l.k_w = b[K_K];
    l.s_h = seen[K_S] ? a[K_S] : 1;
    l.s_w = seen[K_S] ? b[K_S] : 1;
    l.d_h = seen[K_D] ? a[K_D] : 1;
    l.d_w = seen[K_D] ? b[K_D] : 1;
    l.p_top = l.p_bottom = seen[K_P] ? a[K_P] : 0;
    l.p_left = l.p_right = seen[K_P] ? b[K_P] : 0;
    if (seen[K_PT]) l.p_top = a[K_PT];
    if (seen[K_PB]) l.p_bottom = a[K_PB];
    if (seen[K_PL]) l.p_left = a[K_PL];
    if (seen[K_PR]) l.p_right = a[K_PR];

    if (rip_layer_derive(&l, err) != 0)
        return -1;
    *L = l;
    return 0;
}

int rip_spec_parse(const char *spec, rip_layer *L, char err[RIP_ERR_LEN])
{
    int rc = parse(spec, L, err);
    /* Messages quote the user's text, and a shell word may hold a newline or
    ** other control bytes: the message must stay one printable line (found by
    ** tests/fuzz/fuzz_spec). */
    if (rc != 0)
        rip_err_one_line(err);
    return rc;
}

static void pair(char *buf, size_t len, int64_t x, int64_t y)
{
    if (x == y)
        snprintf(buf, len, "%lld", (long long)x);
    else
        snprintf(buf, len, "%lldx%lld", (long long)x, (long long)y);
}

void rip_spec_format(const rip_layer *L, char *buf, size_t len)
{
    char k[48], s[48], d[48], p[64];
    pair(k, sizeof k, L->k_h, L->k_w);
    pair(s, sizeof s, L->s_h, L->s_w);
    pair(d, sizeof d, L->d_h, L->d_w);
    if (L->p_top == L->p_bottom && L->p_left == L->p_right) {
        memcpy(p, "p=", 3);
        pair(p + 2, sizeof p - 2, L->p_top, L->p_left);
    }
    else
        snprintf(p, sizeof p, "pt=%lld,pb=%lld,pl=%lld,pr=%lld", (long long)L->p_top,
                 (long long)L->p_bottom, (long long)L->p_left, (long long)L->p_right);
    snprintf(buf, len, "cin=%lld,cout=%lld,h=%lld,w=%lld,k=%s,s=%s,d=%s,%s",
             (long long)L->cin, (long long)L->cout, (long long)L->h_in, (long long)L->w_in,
             k, s, d, p);
}
