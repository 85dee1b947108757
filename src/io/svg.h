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

/* ---- what figures share: arrowheads, axes with ticks, colour scales ---- */

/* An arrowhead marker with id `id` filled with `fill`, in a <defs>; a line
** or polyline drawn with marker-end="url(#id)" ends in it. */
void rip_svg_arrow_marker(rip_svg *s, const char *id, const char *fill);

/* The sides an axis is drawn on: its tick marks point away from the plot. */
typedef enum rip_svg_side { RIP_SVG_BOTTOM, RIP_SVG_LEFT, RIP_SVG_RIGHT } rip_svg_side;

/* An axis: values lo..hi at pixels a..b along the line at `at` (a y for
** BOTTOM, an x for LEFT and RIGHT); a log axis maps log10 of the value
** (lo, hi > 0).  grid > 0: a light line of that length into the plot at
** every labelled tick. */
typedef struct rip_svg_axis {
    rip_svg_side side;
    double at, a, b;
    double lo, hi;
    bool log;
    double grid;
} rip_svg_axis;

/* The pixel of value v on ax (v <= 0 on a log axis: the pixel of lo). */
double rip_svg_axis_pos(const rip_svg_axis *ax, double v);

/* The smallest step of 1, 2 or 5 times a power of ten that cuts span into
** at most n steps (span > 0, n >= 1); 1 otherwise. */
double rip_svg_nice_step(double span, int n);

/* The line of ax alone, and one tick at value v: 4 px with its label (and
** grid line), or 3 px without (label NULL); for an axis whose ticks the
** figure chooses. */
void rip_svg_axis_line(rip_svg *s, const rip_svg_axis *ax);
void rip_svg_axis_tick(rip_svg *s, const rip_svg_axis *ax, double v, const char *label);

/* A linear axis: its line, and a 4 px tick labelled in the canvas's number
** format followed by suffix (may be NULL) at every multiple of step in
** [lo, hi]. */
void rip_svg_axis_linear(rip_svg *s, const rip_svg_axis *ax, double step, const char *suffix);

/* A log axis: its line, a labelled 5 px tick at every power of ten in
** [lo, hi] ("1", "10", "100", then "10³" ... in superscript digits) and a
** 3 px unlabelled tick at 2..9 times each. */
void rip_svg_axis_log(rip_svg *s, const rip_svg_axis *ax);

/* The title of ax, offset px from its line: centred below a BOTTOM axis,
** turned a quarter (reading up) beside a LEFT or RIGHT one. */
void rip_svg_axis_title(rip_svg *s, const rip_svg_axis *ax, double offset, const char *title);

/* fill="rgb(r,g,b)" into buf for t in [0, 1] (clamped) on the straight ramp
** from colour lo to colour hi (0xRRGGBB), each channel rounded. */
void rip_svg_ramp_fill(char buf[48], double t, unsigned lo, unsigned hi);

/* A colour bar: a w x h rectangle at (x, y) of n bands on the ramp lo..hi,
** t = 0 at the bottom, 1 at the top, outlined; label it with an axis. */
void rip_svg_colorbar(rip_svg *s, double x, double y, double w, double h, int n, unsigned lo, unsigned hi);

/* A legend entry: a 10 x 10 square in fill (an attribute string such as
** fill="red") with its top left at (x, y - 9), the label 14 px right. */
void rip_svg_swatch(rip_svg *s, double x, double y, const char *fill, const char *label);

/*
** Close the drawing (</svg>).  RIP_OK; RIP_S_INTERNAL when a number was
** not finite, RIP_S_IO when a write failed, with err naming `what`.
*/
rip_status rip_svg_end(rip_svg *s, const char *what, char err[RIP_ERR_LEN]);

#endif
