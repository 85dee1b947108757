/*
** finite_fmt.c — printf that refuses a non-finite number (finite_fmt.h).
*/
#include "finite_fmt.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>
#include <wchar.h>

/* The length modifier of a conversion. */
typedef enum { LEN_NONE, LEN_HH, LEN_H, LEN_L, LEN_LL, LEN_J, LEN_Z, LEN_T, LEN_BIG_L } len_mod;

/* Skip the digits at *p, or read a '*' width or precision from ap. */
static void skip_count(const char **p, va_list *ap)
{
    if (**p == '*') {
        (void)va_arg(*ap, int);
        (*p)++;
        return;
    }
    while (isdigit((unsigned char)**p))
        (*p)++;
}

static len_mod read_len(const char **p)
{
    const char *s = *p;
    len_mod m = LEN_NONE;
    switch (*s) {
    case 'h': m = s[1] == 'h' ? LEN_HH : LEN_H; break;
    case 'l': m = s[1] == 'l' ? LEN_LL : LEN_L; break;
    case 'j': m = LEN_J; break;
    case 'z': m = LEN_Z; break;
    case 't': m = LEN_T; break;
    case 'L': m = LEN_BIG_L; break;
    default: return LEN_NONE;
    }
    *p = s + (m == LEN_HH || m == LEN_LL ? 2 : 1);
    return m;
}

/* Read one integer argument of conversion c (d i: signed; o u x X: unsigned) and length m. */
static void skip_int(char c, len_mod m, va_list *ap)
{
    bool sign = c == 'd' || c == 'i';
    switch (m) {
    case LEN_L: sign ? (void)va_arg(*ap, long) : (void)va_arg(*ap, unsigned long); break;
    case LEN_LL: sign ? (void)va_arg(*ap, long long) : (void)va_arg(*ap, unsigned long long); break;
    case LEN_J: sign ? (void)va_arg(*ap, intmax_t) : (void)va_arg(*ap, uintmax_t); break;
    case LEN_Z: (void)va_arg(*ap, size_t); break;
    case LEN_T: (void)va_arg(*ap, ptrdiff_t); break;
    default: sign ? (void)va_arg(*ap, int) : (void)va_arg(*ap, unsigned int); break;   /* char, short promoted */
    }
}

/*
** Walk fmt reading its arguments from *ap in printf's order; false at the
** first floating-point argument that is not finite, or at a conversion
** the walk cannot read (then it cannot know which argument comes next).
*/
static bool walk(const char *fmt, va_list *ap)
{
    for (const char *p = fmt; *p; p++) {
        if (*p != '%')
            continue;
        p++;
        if (*p == '%')
            continue;
        while (*p && strchr("-+ #0'", *p))
            p++;
        skip_count(&p, ap);
        if (*p == '.') {
            p++;
            skip_count(&p, ap);
        }
        len_mod m = read_len(&p);
        switch (*p) {
        case 'd': case 'i': case 'o': case 'u': case 'x': case 'X':
            skip_int(*p, m, ap);
            break;
        case 'c':
            m == LEN_L ? (void)va_arg(*ap, wint_t) : (void)va_arg(*ap, int);
            break;
        case 's':
            m == LEN_L ? (void)va_arg(*ap, const wchar_t *) : (void)va_arg(*ap, const char *);
            break;
        case 'p':
            (void)va_arg(*ap, void *);
            break;
        case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': case 'a': case 'A':
            if (m == LEN_BIG_L ? !isfinite(va_arg(*ap, long double)) : !isfinite(va_arg(*ap, double)))
                return false;
            break;
        default:   /* %n, %1$d, an unknown conversion, or fmt ends inside one */
            return false;
        }
    }
    return true;
}

bool rip_fmt_args_finite(const char *fmt, va_list ap)
{
    va_list copy;
    va_copy(copy, ap);
    bool ok = walk(fmt, &copy);
    va_end(copy);
    return ok;
}

int rip_fmt_vsnprintf(char *buf, size_t n, const char *fmt, va_list ap)
{
    if (!rip_fmt_args_finite(fmt, ap)) {
        if (n > 0)
            buf[0] = '\0';
        return RIP_FMT_NONFINITE;
    }
    return vsnprintf(buf, n, fmt, ap);
}

int rip_fmt_snprintf(char *buf, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = rip_fmt_vsnprintf(buf, n, fmt, ap);
    va_end(ap);
    return r;
}

int rip_fmt_fprintf(FILE *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = rip_fmt_args_finite(fmt, ap) ? vfprintf(f, fmt, ap) : RIP_FMT_NONFINITE;
    va_end(ap);
    return r;
}

bool rip_fmt_text_nonfinite(const char *s)
{
    static const char *const words[] = {"nan", "inf", "infinity"};
    const char *p = s;
    while (*p) {
        if (!isalpha((unsigned char)*p)) {
            p++;
            continue;
        }
        const char *w = p;
        while (isalpha((unsigned char)*p))
            p++;
        for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
            if ((size_t)(p - w) == strlen(words[i]) && strncasecmp(w, words[i], (size_t)(p - w)) == 0)
                return true;
    }
    return false;
}
