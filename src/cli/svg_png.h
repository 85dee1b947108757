/*
** svg_png.h — an SVG file converted to PNG by rsvg-convert, a child
** process: the command line's job (`ripsim tables fig1`), since library
** code never forks.
*/
#ifndef RIPSIM_SVG_PNG_H
#define RIPSIM_SVG_PNG_H

#include <stdio.h>

#include "layer.h"
#include "status.h"

/* Convert the SVG file svg_path to PNG with rsvg-convert, written to png
** (the tool's standard output, so it makes no file of its own; png is
** flushed first and left open).  RIP_OK; RIP_S_UNAVAILABLE when
** rsvg-convert is not installed; RIP_S_IO when it fails; err says which. */
rip_status rip_svg_to_png(const char *svg_path, FILE *png, char err[RIP_ERR_LEN]);

#endif
