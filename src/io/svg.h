/*
** svg.h — the one SVG canvas every figure and plan drawing writes through.
**
** A figure is a sequence of shapes on a white page: rectangles, lines,
** circles, polylines and text, each with the caller's extra attributes
** (fill, stroke, font-size, text-anchor ...) as one string.  The canvas
** owns what every figure needs the same way: the <svg> element and its
** white background, one number format (at most two decimals, trailing
** zeros dropped: 12, 12.5, 12.25), XML escaping of text, and refusing a
** number that is not finite (it would write "nan" into a figure).  The
** output depends only on the calls: no timestamps, no locale (numbers
** are formatted by hand, never with the C locale's decimal point).
**
** Errors are sticky: a non-finite coordinate or a failed write marks the
** canvas, later calls write nothing, and rip_svg_end reports it.
*/
#ifndef RIPSIM_SVG_H
#define RIPSIM_SVG_H

#include <stdbool.h>
#include <stdio.h>

#include "layer.h"
#include "status.h"

typedef struct rip_svg {
    FILE *f;
    bool nonfinite;     /* a number that is not finite was drawn */
    bool failed;        /* a write failed */
    bool points;        /* the open polyline has a point already */
} rip_svg;

/* Start a w x h drawing on f: the <svg> element with font-family family
** and font-size size (0: none given) and the white background. */
void rip_svg_begin(rip_svg *s, FILE *f, double w, double h, const char *family, double size);

/* Shapes; attrs (may be NULL or "") is written inside the element as given. */
void rip_svg_rect(rip_svg *s, double x, double y, double w, double h, const char *attrs);
void rip_svg_line(rip_svg *s, double x1, double y1, double x2, double y2, const char *attrs);
void rip_svg_circle(rip_svg *s, double cx, double cy, double r, const char *attrs);

/* A rectangle with a tooltip: <title>printf(fmt, ...)</title> inside it
** (escaped; a non-finite argument marks the canvas). */
void rip_svg_rect_titled(rip_svg *s, double x, double y, double w, double h, const char *attrs, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));

/* Text at (x, y); the content is printf(fmt, ...) (finite_fmt.h: a
** non-finite argument marks the canvas), escaped for XML. */
void rip_svg_text(rip_svg *s, double x, double y, const char *attrs, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* A polyline: begin, one point per vertex, end. */
void rip_svg_polyline_begin(rip_svg *s, const char *attrs);
void rip_svg_point(rip_svg *s, double x, double y);
void rip_svg_polyline_end(rip_svg *s);

/* A number in the canvas's format into buf (at least 32 bytes), for an
** attribute the caller builds (a transform, say); false when not finite. */
bool rip_svg_num(char buf[32], double v);

/*
** Close the drawing (</svg>).  RIP_OK; RIP_S_INTERNAL when a number was
** not finite, RIP_S_IO when a write failed, with err naming `what`.
*/
rip_status rip_svg_end(rip_svg *s, const char *what, char err[RIP_ERR_LEN]);

#endif
