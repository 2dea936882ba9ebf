/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tools/common/num.h - numbers as ubctl and ubbench write them: a size in
 * bytes in binary units.
 */
#ifndef UBFAB_TOOLS_NUM_H
#define UBFAB_TOOLS_NUM_H

#include <stddef.h>
#include <stdint.h>

const char *tool_fmt_size(char *buf, size_t len, uint64_t bytes,
			  const char *sep);

#endif /* UBFAB_TOOLS_NUM_H */
