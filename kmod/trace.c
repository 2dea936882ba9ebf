// SPDX-License-Identifier: GPL-2.0
/*
 * ubfab tracepoints: creates the events trace.h defines (trace system
 * "ubfab"); nothing else. The engine, netlink.c and segment.c fire them.
 */
#define CREATE_TRACE_POINTS
#include "trace.h"
