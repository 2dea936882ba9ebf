// SPDX-License-Identifier: GPL-2.0-only
/*
 * tools/common/num.c - numbers as ubctl and ubbench read and write them:
 * a decimal number on the command line, a size in bytes in binary units.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "num.h"

/**
 * tool_parse_uint() - the decimal number @s spells
 * @s: the word: digits only (no sign, no white space)
 * @max: the largest number it may be
 * @v: out: the number
 *
 * Return: true, or false (@v untouched) if @s is not such a number.
 */
bool tool_parse_uint(const char *s, unsigned long long max,
		     unsigned long long *v)
{
	unsigned long long n;
	char *end;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	n = strtoull(s, &end, 10);
	if (*end || errno || n > max)
		return false;
	*v = n;
	return true;
}

/**
 * tool_fmt_size() - @bytes in the largest binary unit that leaves at least
 * one: "64GiB", "1.5MiB", "512B"
 * @buf: where to write it
 * @len: bytes at @buf
 * @bytes: the size
 * @sep: between the number and the unit: "" for ubctl ("4KiB"), " " for
 *	ubbench's tables ("4 KiB")
 *
 * A whole number is written without a fraction ("64GiB", not "64.0GiB"),
 * any other with one decimal. ubbench's sizes are all whole numbers of
 * their unit.
 *
 * Return: @buf.
 */
const char *tool_fmt_size(char *buf, size_t len, uint64_t bytes,
			  const char *sep)
{
	static const char *const units[] = {
		"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB",
	};
	double v = bytes;
	size_t i = 0;

	while (v >= 1024 && i + 1 < sizeof(units) / sizeof(units[0])) {
		v /= 1024;
		i++;
	}
	snprintf(buf, len, v == (uint64_t)v ? "%.0f%s%s" : "%.1f%s%s", v, sep,
		 units[i]);
	return buf;
}
