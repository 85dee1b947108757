/*
** svg.c — the SVG canvas (svg.h): one number format, escaping, the
** sticky error of a non-finite number or a failed write, and what figures
** share: arrowhead markers, linear and log axes with ticks, colour bars.
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

/* ---- arrowheads, axes, colour scales ---- */

void rip_svg_arrow_marker(rip_svg *s, const char *id, const char *fill)
{
    put(s, "<defs><marker id=\"%s\" viewBox=\"0 0 10 10\" refX=\"7\" refY=\"5\" markerWidth=\"4\" markerHeight=\"4\" "
           "orient=\"auto\"><path d=\"M0,0L10,5L0,10z\" fill=\"%s\"/></marker></defs>\n", id, fill);
}

double rip_svg_axis_pos(const rip_svg_axis *ax, double v)
{
    double lo = ax->lo, hi = ax->hi;
    if (ax->log) {
        v = log10(v > 0 ? v : lo);
        lo = log10(lo);
        hi = log10(hi);
    }
    return hi != lo ? ax->a + (ax->b - ax->a) * (v - lo) / (hi - lo) : ax->a;
}

double rip_svg_nice_step(double span, int n)
{
    if (!(span > 0) || !isfinite(span) || n < 1)
        return 1;
    double p = 1;
    while (span / p > 10.0 * n)
        p *= 10;
    while (span / p <= n && p > 1e-12)
        p /= 10;
    /* now span / p > n: the first of p, 2p, 5p, 10p ... with span / step <= n */
    static const double m[3] = {1, 2, 5};
    for (;; p *= 10)
        for (int i = 0; i < 3; i++)
            if (span / (m[i] * p) <= n + 1e-9)
                return m[i] * p;
}

/* One tick of ax at value v, len px long, labelled label (NULL: none). */
static void tick(rip_svg *s, const rip_svg_axis *ax, double v, double len, const char *label)
{
    const double p = rip_svg_axis_pos(ax, v), t = ax->at;
    const char *stroke = "stroke=\"#333\"", *grid = "stroke=\"#e4e4e4\"";
    if (ax->side == RIP_SVG_BOTTOM) {
        if (label && ax->grid > 0)
            rip_svg_line(s, p, t, p, t - ax->grid, grid);
        rip_svg_line(s, p, t, p, t + len, stroke);
        if (label)
            rip_svg_text(s, p, t + len + 11, "text-anchor=\"middle\" font-size=\"10\"", "%s", label);
    } else {
        const double d = ax->side == RIP_SVG_LEFT ? -1 : 1;
        if (label && ax->grid > 0)
            rip_svg_line(s, t, p, t - d * ax->grid, p, grid);
        rip_svg_line(s, t, p, t + d * len, p, stroke);
        if (label)
            rip_svg_text(s, t + d * (len + 2), p + 3.5,
                         d < 0 ? "text-anchor=\"end\" font-size=\"10\"" : "font-size=\"10\"", "%s", label);
    }
}

void rip_svg_axis_line(rip_svg *s, const rip_svg_axis *ax)
{
    if (ax->side == RIP_SVG_BOTTOM)
        rip_svg_line(s, ax->a, ax->at, ax->b, ax->at, "stroke=\"#333\"");
    else
        rip_svg_line(s, ax->at, ax->a, ax->at, ax->b, "stroke=\"#333\"");
}

void rip_svg_axis_tick(rip_svg *s, const rip_svg_axis *ax, double v, const char *label)
{
    tick(s, ax, v, label ? 4 : 3, label);
}

void rip_svg_axis_linear(rip_svg *s, const rip_svg_axis *ax, double step, const char *suffix)
{
    rip_svg_axis_line(s, ax);
    if (!(step > 0) || !isfinite(step) || !isfinite(ax->lo) || !isfinite(ax->hi)) {
        s->nonfinite = true;
        return;
    }
    const double k0 = ceil(ax->lo / step - 1e-9), k1 = floor(ax->hi / step + 1e-9);
    for (double k = k0; k <= k1 && k - k0 < 1000; k++) {
        char n[32], label[96];
        num(s, n, k * step);
        snprintf(label, sizeof label, "%s%s", n, suffix ? suffix : "");
        tick(s, ax, k * step, 4, label);
    }
}

/* "1", "10", "100", then 10 with the exponent in superscript digits. */
static void decade_label(char buf[32], int e)
{
    /* UTF-8 superscript digits and minus, as bytes (no execution charset involved) */
    static const char *const sup[10] = {"\xe2\x81\xb0", "\xc2\xb9", "\xc2\xb2", "\xc2\xb3", "\xe2\x81\xb4",
                                        "\xe2\x81\xb5", "\xe2\x81\xb6", "\xe2\x81\xb7", "\xe2\x81\xb8",
                                        "\xe2\x81\xb9"};
    if (e >= 0 && e <= 2) {
        snprintf(buf, 32, "%s", e == 0 ? "1" : e == 1 ? "10" : "100");
        return;
    }
    char digits[12];
    snprintf(digits, sizeof digits, "%d", e < 0 ? -e : e);
    size_t at = (size_t)snprintf(buf, 32, "10%s", e < 0 ? "\xe2\x81\xbb" : "");
    for (const char *d = digits; *d && at + 4 < 32; d++)
        at += (size_t)snprintf(buf + at, 32 - at, "%s", sup[*d - '0']);
}

void rip_svg_axis_log(rip_svg *s, const rip_svg_axis *ax)
{
    rip_svg_axis_line(s, ax);
    if (!(ax->lo > 0) || !(ax->hi >= ax->lo) || !isfinite(ax->hi)) {
        s->nonfinite = true;
        return;
    }
    const int e0 = (int)floor(log10(ax->lo) + 1e-9), e1 = (int)floor(log10(ax->hi) + 1e-9);
    double p = 1;   /* 10^e0 by multiplication: exact for the decades a figure has */
    for (int e = 0; e < e0; e++)
        p *= 10;
    for (int e = 0; e > e0; e--)
        p /= 10;
    for (int e = e0; e <= e1 && e - e0 < 400; e++, p *= 10)
        for (int m = 1; m <= 9; m++) {
            const double v = m * p;
            if (v < ax->lo * (1 - 1e-9) || v > ax->hi * (1 + 1e-9))
                continue;
            char label[32];
            if (m == 1)
                decade_label(label, e);
            tick(s, ax, v, m == 1 ? 5 : 3, m == 1 ? label : NULL);
        }
}

void rip_svg_axis_title(rip_svg *s, const rip_svg_axis *ax, double offset, const char *title)
{
    const double mid = (ax->a + ax->b) / 2;
    if (ax->side == RIP_SVG_BOTTOM) {
        rip_svg_text(s, mid, ax->at + offset, "text-anchor=\"middle\"", "%s", title);
        return;
    }
    const double x = ax->side == RIP_SVG_LEFT ? ax->at - offset : ax->at + offset;
    char a[32], b[32], rot[128];
    snprintf(rot, sizeof rot, "transform=\"rotate(-90 %s %s)\" text-anchor=\"middle\"", num(s, a, x), num(s, b, mid));
    rip_svg_text(s, x, mid, rot, "%s", title);
}

void rip_svg_ramp_fill(char buf[48], double t, unsigned lo, unsigned hi)
{
    t = !(t > 0) ? 0 : t > 1 ? 1 : t;
    int c[3];
    for (int k = 0; k < 3; k++) {
        const double l = (double)(lo >> (16 - 8 * k) & 0xffu), h = (double)(hi >> (16 - 8 * k) & 0xffu);
        c[k] = (int)lround(l + (h - l) * t);
    }
    snprintf(buf, 48, "fill=\"rgb(%d,%d,%d)\"", c[0], c[1], c[2]);
}

void rip_svg_colorbar(rip_svg *s, double x, double y, double w, double h, int n, unsigned lo, unsigned hi)
{
    for (int i = 0; i < n; i++) {
        char fill[48];
        rip_svg_ramp_fill(fill, n > 1 ? (double)i / (n - 1) : 1, lo, hi);
        rip_svg_rect(s, x, y + h - h * (i + 1) / n, w, h / n, fill);
    }
    rip_svg_rect(s, x, y, w, h, "fill=\"none\" stroke=\"#333\"");
}

void rip_svg_swatch(rip_svg *s, double x, double y, const char *fill, const char *label)
{
    rip_svg_rect(s, x, y - 9, 10, 10, fill);
    rip_svg_text(s, x + 14, y, NULL, "%s", label);
}
