/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tools/common/num.h - numbers as ubctl and ubbench read and write them:
 * a decimal number on the command line, a size in bytes in binary units.
 */
#ifndef UBFAB_TOOLS_NUM_H
#define UBFAB_TOOLS_NUM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

bool tool_parse_uint(const char *s, unsigned long long max,
		     unsigned long long *v);
const char *tool_fmt_size(char *buf, size_t len, uint64_t bytes,
			  const char *sep);

#endif /* UBFAB_TOOLS_NUM_H */
