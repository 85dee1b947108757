/*
** args.c — the table-driven option parser and help generator (args.h).
*/
#include "args.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define MAX_OPTS 64

bool rip_arg_int(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
    if (s == NULL || *s == '\0')
        return false;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (*end != '\0' || errno == ERANGE || v < lo || v > hi)
        return false;
    *out = (int64_t)v;
    return true;
}

int rip_args_db(const rip_cmd *c, const char **db, const char *pos)
{
    if (pos == NULL)
        return 0;
    if (*db && strcmp(*db, pos) != 0)
        return rip_args_usage(c, "the database is given twice (--db %s and %s)", *db, pos);
    *db = pos;
    return 0;
}

/* A decimal number in [lo, hi], finite, the whole word. */
static bool arg_real(const char *s, double lo, double hi, double *out)
{
    if (s == NULL || *s == '\0')
        return false;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (*end != '\0' || errno == ERANGE || !isfinite(v) || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

/* Print the one-line usage error; returns 64. */
static int verror(const rip_cmd *c, FILE *err, const char *fmt, va_list ap)
{
    fprintf(err, "ripsim %s: ", c->name);
    vfprintf(err, fmt, ap);
    fprintf(err, " (see 'ripsim %s --help')\n", c->name);
    return RIP_EX_USAGE;
}

static int error(const rip_cmd *c, FILE *err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int error(const rip_cmd *c, FILE *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = verror(c, err, fmt, ap);
    va_end(ap);
    return rc;
}

int rip_args_usage(const rip_cmd *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = verror(c, stderr, fmt, ap);
    va_end(ap);
    return rc;
}

/* "a, b or c" of an enum's choices. */
static void choice_list(const char *const *ch, char *buf, size_t n)
{
    size_t k = 0, used = 0;
    while (ch[k])
        k++;
    buf[0] = '\0';
    for (size_t i = 0; i < k; i++) {
        int w = snprintf(buf + used, n - used, "%s%s", i == 0 ? "" : i + 1 == k ? " or " : ", ", ch[i]);
        if (w < 0 || (size_t)w >= n - used)
            return;
        used += (size_t)w;
    }
}

/* What an option takes, for messages: "a whole number from 1 to 64". */
static void takes(const rip_opt *o, char *buf, size_t n)
{
    switch (o->kind) {
    case RIP_OPT_INT:
        /* An option whose range the command checks itself (execute's --gap:
        ** its bounds depend on the layer) takes any 64-bit whole number. */
        if (o->lo == INT64_MIN && o->hi == INT64_MAX)
            snprintf(buf, n, "a 64-bit whole number");
        else if (o->lo == INT64_MIN)
            snprintf(buf, n, "a whole number <= %lld", (long long)o->hi);
        else if (o->hi == INT64_MAX)
            snprintf(buf, n, "a whole number >= %lld", (long long)o->lo);
        else
            snprintf(buf, n, "a whole number from %lld to %lld", (long long)o->lo, (long long)o->hi);
        return;
    case RIP_OPT_REAL:
        if (o->hi == INT64_MAX)
            snprintf(buf, n, "a number >= %lld", (long long)o->lo);
        else
            snprintf(buf, n, "a number from %lld to %lld", (long long)o->lo, (long long)o->hi);
        return;
    case RIP_OPT_ENUM:
        choice_list(o->choices, buf, n);
        return;
    default:
        snprintf(buf, n, "%s", o->metavar ? o->metavar : "a value");
        return;
    }
}

/* Store value v for option o.  0, or 64 after the message. */
static int store(const rip_cmd *c, const rip_opt *o, const char *v, FILE *err)
{
    char what[256], why[256] = "";
    switch (o->kind) {
    case RIP_OPT_FLAG:
        *(bool *)o->dest = o->flag_value;
        return 0;
    case RIP_OPT_INT:
        if (rip_arg_int(v, o->lo, o->hi, (int64_t *)o->dest))
            return 0;
        break;
    case RIP_OPT_REAL:
        if (arg_real(v, (double)o->lo, (double)o->hi, (double *)o->dest))
            return 0;
        break;
    case RIP_OPT_STR:
        if (*v != '\0') {
            *(const char **)o->dest = v;
            return 0;
        }
        return error(c, err, "%s needs a non-empty %s", o->name, o->metavar ? o->metavar : "value");
    case RIP_OPT_ENUM:
        for (int i = 0; o->choices[i]; i++)
            if (strcmp(v, o->choices[i]) == 0) {
                *(int *)o->dest = i;
                return 0;
            }
        break;
    case RIP_OPT_CUSTOM:
        if (o->parse(v, o->dest, why, sizeof why))
            return 0;
        return error(c, err, "%s takes %s, not '%s'", o->name, why, v);
    }
    takes(o, what, sizeof what);
    return error(c, err, "%s takes %s, not '%s'", o->name, what, v);
}

/* The short forms every command shares: each stands for its long option
** in the commands that have that option (-n is sweep's --n, -o any --out). */
static const struct {
    char letter;
    const char *name, *dash;
} shorts[] = {{'n', "--n", "-n"}, {'j', "--jobs", "-j"}, {'o', "--out", "-o"}, {'q', "--quiet", "-q"}};

static const char *short_of(const char *long_name)
{
    for (size_t k = 0; k < sizeof shorts / sizeof shorts[0]; k++)
        if (strcmp(shorts[k].name, long_name) == 0)
            return shorts[k].dash;
    return NULL;
}

/* The unknown-option message, with the closest option when there is one. */
static int unknown_option(const rip_cmd *c, FILE *err, const char *a, size_t len)
{
    const char *names[MAX_OPTS + 1];
    size_t n = 0;
    for (size_t k = 0; k < c->n_opts && n < MAX_OPTS; k++)
        names[n++] = c->opts[k].name;
    names[n++] = "--help";
    const char *near = a[1] == '-' ? rip_args_closest(a, len, names, n) : NULL;
    if (near)
        return error(c, err, "unknown option '%.*s' (did you mean '%s'?)", (int)len, a, near);
    return error(c, err, "unknown option '%.*s'", (int)len, a);
}

static const rip_opt *find(const rip_cmd *c, const char *word, size_t len)
{
    for (size_t k = 0; k < c->n_opts; k++)
        if (strlen(c->opts[k].name) == len && strncmp(c->opts[k].name, word, len) == 0)
            return &c->opts[k];
    return NULL;
}

int rip_args_parse(const rip_cmd *c, int argc, char **argv, FILE *out, FILE *err)
{
    const char *seen[MAX_OPTS] = {0};  /* value of each value option, to refuse a second one */
    size_t n_pos = 0;
    bool opts_done = false;
    if (c->n_opts > MAX_OPTS)
        return error(c, err, "internal error: too many options");

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (opts_done || a[0] != '-' || a[1] == '\0') {
            if (n_pos >= c->max_pos)
                return error(c, err, "unexpected argument '%s'", a);
            c->pos[n_pos++] = a;
            continue;
        }
        if (strcmp(a, "--") == 0) {
            opts_done = true;
            continue;
        }
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            rip_args_help(c, out);
            if (fflush(out) != 0 || ferror(out)) {
                fprintf(err, "ripsim %s: cannot write the help: %s\n", c->name, strerror(errno));
                return RIP_EX_IOERR;
            }
            return RIP_EX_OK;
        }
        const char *eq = a[1] == '-' ? strchr(a, '=') : NULL;
        size_t len = eq ? (size_t)(eq - a) : strlen(a);
        const rip_opt *o = NULL;
        const char *attached = NULL; /* -j4: the value after a short option's letter */
        if (a[1] == '-') {
            o = find(c, a, len);
        } else {
            for (size_t k = 0; k < sizeof shorts / sizeof shorts[0] && !o; k++)
                if (a[1] == shorts[k].letter)
                    o = find(c, shorts[k].name, strlen(shorts[k].name));
            len = 2;
            if (o && a[2] != '\0') {
                if (o->kind == RIP_OPT_FLAG)
                    return error(c, err, "%s takes no value (got '%s')", o->name, a);
                attached = a + 2;
            }
        }
        if (o == NULL)
            return unknown_option(c, err, a, len);
        const char *v = NULL;
        if (o->kind == RIP_OPT_FLAG) {
            if (eq)
                return error(c, err, "%s takes no value (got '%s')", o->name, a);
        } else if (eq) {
            v = eq + 1;
        } else if (attached) {
            v = attached;
        } else if (i + 1 < argc) {
            v = argv[++i];
        } else {
            char what[256];
            takes(o, what, sizeof what);
            return error(c, err, "%s needs a value (%s)", o->name, what);
        }
        size_t k = (size_t)(o - c->opts);
        if (o->kind != RIP_OPT_FLAG && !o->repeat) {
            if (seen[k])
                return error(c, err, "%s given twice ('%s' and '%s')", o->name, seen[k], v);
            seen[k] = v;
        }
        int rc = store(c, o, v, err);
        if (rc != 0)
            return rc;
        if (o->given)
            *o->given = true;
    }
    if (n_pos < c->min_pos)
        return error(c, err, "%s", c->missing ? c->missing : "missing argument");
    if (c->n_pos)
        *c->n_pos = n_pos;
    return RIP_ARGS_CONTINUE;
}

/* Lines of text, each indented by `indent` spaces after the first which follows a prefix. */
static void indented(FILE *out, const char *text, int indent)
{
    for (const char *s = text; *s;) {
        const char *nl = strchr(s, '\n');
        size_t len = nl ? (size_t)(nl - s) : strlen(s);
        fprintf(out, "%.*s\n", (int)len, s);
        if (!nl || nl[1] == '\0')
            break;
        s = nl + 1;
        fprintf(out, "%*s", indent, "");
    }
}

void rip_args_help(const rip_cmd *c, FILE *out)
{
    /* synopsis: one line per form */
    const char *s = c->synopsis ? c->synopsis : "";
    for (int first = 1;; first = 0) {
        const char *nl = strchr(s, '\n');
        size_t len = nl ? (size_t)(nl - s) : strlen(s);
        fprintf(out, "%s ripsim %s %.*s\n", first ? "usage:" : "      ", c->name, (int)len, s);
        if (!nl)
            break;
        s = nl + 1;
    }
    if (c->about)
        fprintf(out, "\n%s", c->about);

    int col = 14;
    for (size_t k = 0; k < c->n_opts; k++) {
        const rip_opt *o = &c->opts[k];
        int w = (int)strlen(o->name) + (o->kind == RIP_OPT_FLAG || !o->metavar ? 0 : 1 + (int)strlen(o->metavar)) +
                (short_of(o->name) ? 4 : 0);
        if (w + 2 > col)
            col = w + 2;
    }
    fprintf(out, "\noptions:\n");
    for (size_t k = 0; k < c->n_opts; k++) {
        const rip_opt *o = &c->opts[k];
        char head[128];
        const char *sh = short_of(o->name);
        if (o->kind == RIP_OPT_FLAG || !o->metavar)
            snprintf(head, sizeof head, "%s%s%s", sh ? sh : "", sh ? ", " : "", o->name);
        else
            snprintf(head, sizeof head, "%s%s%s %s", sh ? sh : "", sh ? ", " : "", o->name, o->metavar);
        fprintf(out, "  %-*s", col, head);
        indented(out, o->help ? o->help : "", col + 2);
    }
    fprintf(out, "  %-*s%s\n", col, "-h, --help", "this help");
    if (c->notes)
        fprintf(out, "\n%s", c->notes);
    fprintf(out, "\nexit status:\n");
    for (size_t k = 0; k < c->n_exits; k++)
        fprintf(out, "  %-4d %s\n", c->exits[k].code, c->exits[k].meaning);
    if (c->example)
        fprintf(out, "\nexample: %s\n", c->example);
}
