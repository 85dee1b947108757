/*
** json_mini.h — a small JSON reader for tests: parses a whole document
** (RFC 8259: objects, arrays, strings with every escape, numbers, true,
** false, null) into a tree the test walks.  Header-only, no dependency.
**
** It is the test's own reader of other tools' output (flatc's JSON dump of
** a model, tests/test_tflite.c), so it shares no code with ripsim.  Numbers
** keep their double value and, when the text is an integer, its exact
** int64 value.  Errors: jm_parse returns NULL with a message (byte offset
** and what was expected).
*/
#ifndef RIPSIM_TEST_JSON_MINI_H
#define RIPSIM_TEST_JSON_MINI_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { JM_NULL, JM_BOOL, JM_NUM, JM_STR, JM_ARR, JM_OBJ } jm_kind;

typedef struct jm {
    jm_kind kind;
    bool b;                  /* JM_BOOL */
    double num;              /* JM_NUM */
    bool is_int;             /* JM_NUM written as an integer that fits int64 */
    long long i;             /* its value */
    char *str;               /* JM_STR: decoded, NUL-terminated (may hold NULs: len) */
    size_t len;
    struct jm *items;        /* JM_ARR, JM_OBJ: n values */
    char **keys;             /* JM_OBJ: n keys */
    size_t n;
} jm;

typedef struct jm_parser {
    const char *s, *end;
    char err[160];
    int depth;
} jm_parser;

static void jm_free_value(jm *v)
{
    if (v->kind == JM_STR)
        free(v->str);
    if (v->kind == JM_ARR || v->kind == JM_OBJ) {
        for (size_t i = 0; i < v->n; i++) {
            jm_free_value(&v->items[i]);
            if (v->keys)
                free(v->keys[i]);
        }
        free(v->items);
        free(v->keys);
    }
}

static void jm_free(jm *v)
{
    if (v) {
        jm_free_value(v);
        free(v);
    }
}

static bool jm_fail(jm_parser *p, const char *start, const char *what)
{
    if (!p->err[0])
        snprintf(p->err, sizeof p->err, "byte %ld: %s", (long)(p->s - start), what);
    return false;
}

static void jm_ws(jm_parser *p)
{
    while (p->s < p->end && (*p->s == ' ' || *p->s == '\t' || *p->s == '\n' || *p->s == '\r'))
        p->s++;
}

static bool jm_value(jm_parser *p, const char *start, jm *out);

/* Append the UTF-8 encoding of code point cp to buf at *n. */
static void jm_utf8(char *buf, size_t *n, unsigned long cp)
{
    if (cp < 0x80)
        buf[(*n)++] = (char)cp;
    else if (cp < 0x800) {
        buf[(*n)++] = (char)(0xc0 | cp >> 6);
        buf[(*n)++] = (char)(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
        buf[(*n)++] = (char)(0xe0 | cp >> 12);
        buf[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
        buf[(*n)++] = (char)(0x80 | (cp & 0x3f));
    } else {
        buf[(*n)++] = (char)(0xf0 | cp >> 18);
        buf[(*n)++] = (char)(0x80 | ((cp >> 12) & 0x3f));
        buf[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
        buf[(*n)++] = (char)(0x80 | (cp & 0x3f));
    }
}

static bool jm_hex4(jm_parser *p, const char *start, unsigned long *v)
{
    *v = 0;
    for (int k = 0; k < 4; k++, p->s++) {
        if (p->s >= p->end)
            return jm_fail(p, start, "\\u escape cut short");
        char c = *p->s;
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0)
            return jm_fail(p, start, "bad hex digit in \\u escape");
        *v = *v << 4 | (unsigned long)d;
    }
    return true;
}

/* A string at p->s (the opening quote), decoded into a new buffer. */
static bool jm_string(jm_parser *p, const char *start, char **out, size_t *len)
{
    p->s++;
    const char *q = p->s;
    while (q < p->end && *q != '"')
        q += *q == '\\' ? 2 : 1;
    if (q >= p->end)
        return jm_fail(p, start, "unterminated string");
    char *buf = malloc((size_t)(q - p->s) + 1);
    size_t n = 0;
    if (!buf)
        return jm_fail(p, start, "out of memory");
    while (*p->s != '"') {
        unsigned char c = (unsigned char)*p->s++;
        if (c < 0x20) {
            free(buf);
            return jm_fail(p, start, "control byte in a string");
        }
        if (c != '\\') {
            buf[n++] = (char)c;
            continue;
        }
        char e = *p->s++;
        unsigned long cp, lo;
        switch (e) {
        case '"': buf[n++] = '"'; break;
        case '\\': buf[n++] = '\\'; break;
        case '/': buf[n++] = '/'; break;
        case 'b': buf[n++] = '\b'; break;
        case 'f': buf[n++] = '\f'; break;
        case 'n': buf[n++] = '\n'; break;
        case 'r': buf[n++] = '\r'; break;
        case 't': buf[n++] = '\t'; break;
        case 'u':
            if (!jm_hex4(p, start, &cp)) {
                free(buf);
                return false;
            }
            /* a surrogate pair is two escapes; each escape's 6 bytes hold its UTF-8 (at most 4) */
            if (cp >= 0xd800 && cp <= 0xdbff && p->end - p->s >= 6 && p->s[0] == '\\' && p->s[1] == 'u') {
                p->s += 2;
                if (!jm_hex4(p, start, &lo)) {
                    free(buf);
                    return false;
                }
                if (lo >= 0xdc00 && lo <= 0xdfff)
                    cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                else {
                    jm_utf8(buf, &n, cp);
                    cp = lo;
                }
            }
            jm_utf8(buf, &n, cp);
            break;
        default:
            free(buf);
            return jm_fail(p, start, "bad escape in a string");
        }
    }
    p->s++;
    buf[n] = '\0';
    *out = buf;
    *len = n;
    return true;
}

static bool jm_number(jm_parser *p, const char *start, jm *out)
{
    const char *q = p->s;
    if (q < p->end && *q == '-')
        q++;
    if (q >= p->end || *q < '0' || *q > '9')
        return jm_fail(p, start, "expected a value");
    while (q < p->end && *q >= '0' && *q <= '9')
        q++;
    bool integral = true;
    if (q < p->end && *q == '.') {
        integral = false;
        for (q++; q < p->end && *q >= '0' && *q <= '9'; q++)
            ;
    }
    if (q < p->end && (*q == 'e' || *q == 'E')) {
        integral = false;
        q++;
        if (q < p->end && (*q == '+' || *q == '-'))
            q++;
        while (q < p->end && *q >= '0' && *q <= '9')
            q++;
    }
    char tmp[64];
    size_t len = (size_t)(q - p->s);
    if (len >= sizeof tmp)
        return jm_fail(p, start, "number too long");
    memcpy(tmp, p->s, len);
    tmp[len] = '\0';
    out->kind = JM_NUM;
    out->num = strtod(tmp, NULL);
    if (integral) {
        char *e;
        errno = 0;
        long long v = strtoll(tmp, &e, 10);
        out->is_int = errno == 0 && *e == '\0';
        out->i = v;
    }
    p->s = q;
    return true;
}

/* A list of values (array) or key: value pairs (object) up to `close`. */
static bool jm_list(jm_parser *p, const char *start, jm *out, bool object)
{
    char close = object ? '}' : ']';
    size_t cap = 0;
    out->kind = object ? JM_OBJ : JM_ARR;
    p->s++;
    jm_ws(p);
    if (p->s < p->end && *p->s == close) {
        p->s++;
        return true;
    }
    for (;;) {
        if (out->n == cap) {
            cap = cap ? cap * 2 : 4;
            jm *items = realloc(out->items, cap * sizeof *items);
            char **keys = object ? realloc(out->keys, cap * sizeof *keys) : NULL;
            if (items)
                out->items = items;
            if (keys)
                out->keys = keys;
            if (!items || (object && !keys))
                return jm_fail(p, start, "out of memory");
        }
        jm_ws(p);
        if (object) {
            size_t klen;
            if (p->s >= p->end || *p->s != '"')
                return jm_fail(p, start, "expected a key");
            if (!jm_string(p, start, &out->keys[out->n], &klen))
                return false;
            jm_ws(p);
            if (p->s >= p->end || *p->s != ':') {
                free(out->keys[out->n]);
                return jm_fail(p, start, "expected ':'");
            }
            p->s++;
        }
        memset(&out->items[out->n], 0, sizeof out->items[0]);
        if (!jm_value(p, start, &out->items[out->n])) {
            jm_free_value(&out->items[out->n]);
            if (object)
                free(out->keys[out->n]);
            return false;
        }
        out->n++;
        jm_ws(p);
        if (p->s < p->end && *p->s == ',') {
            p->s++;
            continue;
        }
        if (p->s < p->end && *p->s == close) {
            p->s++;
            return true;
        }
        return jm_fail(p, start, object ? "expected ',' or '}'" : "expected ',' or ']'");
    }
}

static bool jm_word(jm_parser *p, const char *w)
{
    size_t n = strlen(w);
    if ((size_t)(p->end - p->s) < n || memcmp(p->s, w, n) != 0)
        return false;
    p->s += n;
    return true;
}

static bool jm_value(jm_parser *p, const char *start, jm *out)
{
    jm_ws(p);
    if (p->s >= p->end)
        return jm_fail(p, start, "expected a value, found the end");
    if (++p->depth > 200)
        return jm_fail(p, start, "nested too deep");
    bool ok;
    switch (*p->s) {
    case '{': ok = jm_list(p, start, out, true); break;
    case '[': ok = jm_list(p, start, out, false); break;
    case '"':
        out->kind = JM_STR;
        ok = jm_string(p, start, &out->str, &out->len);
        if (!ok)
            out->kind = JM_NULL;
        break;
    case 't': out->kind = JM_BOOL; out->b = true; ok = jm_word(p, "true") || jm_fail(p, start, "bad word"); break;
    case 'f': out->kind = JM_BOOL; out->b = false; ok = jm_word(p, "false") || jm_fail(p, start, "bad word"); break;
    case 'n': out->kind = JM_NULL; ok = jm_word(p, "null") || jm_fail(p, start, "bad word"); break;
    default: ok = jm_number(p, start, out);
    }
    p->depth--;
    return ok;
}

/* Parse len bytes of text; NULL with err (room for 160 bytes) on any error. */
static jm *jm_parse(const char *text, size_t len, char *err, size_t err_len)
{
    jm_parser p = {.s = text, .end = text + len};
    jm *v = calloc(1, sizeof *v);
    if (!v) {
        snprintf(err, err_len, "out of memory");
        return NULL;
    }
    if (jm_value(&p, text, v)) {
        jm_ws(&p);
        if (p.s == p.end)
            return v;
        jm_fail(&p, text, "text after the value");
    }
    snprintf(err, err_len, "%s", p.err);
    jm_free(v);
    return NULL;
}

/* The value of key in an object, or NULL (also when o is not an object). */
static const jm *jm_get(const jm *o, const char *key)
{
    if (!o || o->kind != JM_OBJ)
        return NULL;
    for (size_t i = 0; i < o->n; i++)
        if (strcmp(o->keys[i], key) == 0)
            return &o->items[i];
    return NULL;
}

#endif
