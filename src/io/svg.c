/*
** svg.c — the SVG canvas (svg.h): one number format, escaping, and the
** sticky error of a non-finite number or a failed write.
*/
#include "svg.h"

#include "finite_fmt.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>

bool rip_svg_num(char buf[32], double v)
{
    if (!isfinite(v) || fabs(v) >= 1e15) {
        snprintf(buf, 32, "0");
        return false;
    }
    /* hundredths, rounded half away from zero, printed with integers only:
    ** no locale, and -0.001 is "0", never "-0" */
    long long c = llround(v * 100.0);
    bool neg = c < 0;
    unsigned long long a = neg ? (unsigned long long)(-c) : (unsigned long long)c;
    unsigned long long whole = a / 100, frac = a % 100;
    if (frac == 0)
        snprintf(buf, 32, "%s%llu", neg ? "-" : "", whole);
    else if (frac % 10 == 0)
        snprintf(buf, 32, "%s%llu.%llu", neg ? "-" : "", whole, frac / 10);
    else
        snprintf(buf, 32, "%s%llu.%02llu", neg ? "-" : "", whole, frac);
    return true;
}

/* The number v for the canvas: its text, or "0" and the canvas marked. */
static const char *num(rip_svg *s, char buf[32], double v)
{
    if (!rip_svg_num(buf, v))
        s->nonfinite = true;
    return buf;
}

static bool live(const rip_svg *s)
{
    return !s->nonfinite && !s->failed;
}

static void put(rip_svg *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(rip_svg *s, const char *fmt, ...)
{
    if (!live(s))
        return;
    va_list ap;
    va_start(ap, fmt);
    if (vfprintf(s->f, fmt, ap) < 0)
        s->failed = true;
    va_end(ap);
}

/* text with &, < and > escaped (quotes need none outside attributes) */
static void put_escaped(rip_svg *s, const char *t)
{
    for (; live(s) && *t; t++) {
        int rc = *t == '&' ? fputs("&amp;", s->f) : *t == '<' ? fputs("&lt;", s->f)
                 : *t == '>' ? fputs("&gt;", s->f) : fputc(*t, s->f);
        if (rc == EOF)
            s->failed = true;
    }
}

static const char *sp(const char *attrs)
{
    return attrs && *attrs ? " " : "";
}

static const char *at(const char *attrs)
{
    return attrs ? attrs : "";
}

void rip_svg_begin(rip_svg *s, FILE *f, double w, double h, const char *family, double size)
{
    char a[32], b[32], c[32];
    s->f = f;
    s->nonfinite = s->failed = s->points = false;
    num(s, a, w);
    num(s, b, h);
    put(s, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%s\" height=\"%s\" viewBox=\"0 0 %s %s\"", a, b, a, b);
    if (family)
        put(s, " font-family=\"%s\"", family);
    if (size > 0)
        put(s, " font-size=\"%s\"", num(s, c, size));
    put(s, ">\n<rect width=\"%s\" height=\"%s\" fill=\"white\"/>\n", a, b);
}

void rip_svg_rect(rip_svg *s, double x, double y, double w, double h, const char *attrs)
{
    char a[32], b[32], c[32], d[32];
    put(s, "<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\"%s%s/>\n", num(s, a, x), num(s, b, y), num(s, c, w),
        num(s, d, h), sp(attrs), at(attrs));
}

/* printf(fmt, ap) into t, marking the canvas when an argument is not finite */
static void format(rip_svg *s, char *t, size_t n, const char *fmt, va_list ap)
{
    if (rip_fmt_vsnprintf(t, n, fmt, ap) == RIP_FMT_NONFINITE)
        s->nonfinite = true;
}

void rip_svg_rect_titled(rip_svg *s, double x, double y, double w, double h, const char *attrs, const char *fmt, ...)
{
    char a[32], b[32], c[32], d[32], t[512];
    va_list ap;
    va_start(ap, fmt);
    format(s, t, sizeof t, fmt, ap);
    va_end(ap);
    put(s, "<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\"%s%s><title>", num(s, a, x), num(s, b, y),
        num(s, c, w), num(s, d, h), sp(attrs), at(attrs));
    put_escaped(s, t);
    put(s, "</title></rect>\n");
}

void rip_svg_line(rip_svg *s, double x1, double y1, double x2, double y2, const char *attrs)
{
    char a[32], b[32], c[32], d[32];
    put(s, "<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\"%s%s/>\n", num(s, a, x1), num(s, b, y1), num(s, c, x2),
        num(s, d, y2), sp(attrs), at(attrs));
}

void rip_svg_circle(rip_svg *s, double cx, double cy, double r, const char *attrs)
{
    char a[32], b[32], c[32];
    put(s, "<circle cx=\"%s\" cy=\"%s\" r=\"%s\"%s%s/>\n", num(s, a, cx), num(s, b, cy), num(s, c, r), sp(attrs),
        at(attrs));
}

void rip_svg_text(rip_svg *s, double x, double y, const char *attrs, const char *fmt, ...)
{
    char a[32], b[32], t[1024];
    va_list ap;
    va_start(ap, fmt);
    format(s, t, sizeof t, fmt, ap);
    va_end(ap);
    put(s, "<text x=\"%s\" y=\"%s\"%s%s>", num(s, a, x), num(s, b, y), sp(attrs), at(attrs));
    put_escaped(s, t);
    put(s, "</text>\n");
}

void rip_svg_polyline_begin(rip_svg *s, const char *attrs)
{
    s->points = false;
    put(s, "<polyline%s%s points=\"", sp(attrs), at(attrs));
}

void rip_svg_point(rip_svg *s, double x, double y)
{
    char a[32], b[32];
    put(s, "%s%s,%s", s->points ? " " : "", num(s, a, x), num(s, b, y));
    s->points = true;
}

void rip_svg_polyline_end(rip_svg *s)
{
    put(s, "\"/>\n");
}

rip_status rip_svg_end(rip_svg *s, const char *what, char err[RIP_ERR_LEN])
{
    put(s, "</svg>\n");
    if (s->nonfinite) {
        snprintf(err, RIP_ERR_LEN, "%s: a coordinate is not a finite number", what);
        return RIP_S_INTERNAL;
    }
    if (s->failed || ferror(s->f)) {
        snprintf(err, RIP_ERR_LEN, "%s: cannot write the drawing", what);
        return RIP_S_IO;
    }
    return RIP_OK;
}
