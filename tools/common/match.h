/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tools/common/match.h - how ubctl and ubbench take a word of their
 * command line: the name it spells, or the one name it begins.
 */
#ifndef UBFAB_TOOLS_MATCH_H
#define UBFAB_TOOLS_MATCH_H

#include <stddef.h>

#define TOOL_MATCH_UNKNOWN	(-1)
#define TOOL_MATCH_AMBIGUOUS	(-2)

int tool_match(const char *arg, const char *const *names, size_t n,
	       char *candidates, size_t size);

#endif /* UBFAB_TOOLS_MATCH_H */
