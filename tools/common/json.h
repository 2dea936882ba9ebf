/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tools/common/json.h - the JSON writer of ubctl and ubbench: streams one
 * JSON value (objects, arrays, strings, numbers, true, false, null) to a
 * FILE, with commas, white space and string escaping handled here. The
 * style (enum json_style) places the white space as each tool always has:
 * ubctl's -j and -p output and ubbench's --json file are what they were
 * before the two tools shared this writer.
 */
#ifndef UBFAB_TOOLS_JSON_H
#define UBFAB_TOOLS_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/**
 * enum json_style - where a document's white space goes
 * @JSON_COMPACT: nowhere: "," between values, ":" after names (ubctl -j,
 *	whose monitor writes a document a line)
 * @JSON_PRETTY: every value on a line of its own, ": " after names; a
 *	non-empty object or array closes on a line of its own (ubctl -p)
 * @JSON_SPACED: ", " between values and ": " after names, on one line
 *	except where the caller breaks it with json_break() (ubbench's
 *	file, a line per group of figures)
 *
 * A line is indented two spaces for each open object or array that a line
 * broke in (each of them when pretty, so two spaces a level); the line
 * that closes one is indented as the line that opened it.
 */
enum json_style {
	JSON_COMPACT,
	JSON_PRETTY,
	JSON_SPACED,
};

/**
 * struct json - state of one JSON document being written
 * @f: where it goes
 * @style: where the white space goes
 * @depth: number of open objects and arrays
 * @first: nothing written yet in the innermost open object or array
 * @brk: JSON_SPACED: json_break() came since the last value
 * @broken: bit d - 1: a line broke in the open object or array at depth d
 *	(the first JSON_INDENT_MAX levels, which are all that indent)
 */
struct json {
	FILE *f;
	enum json_style style;
	unsigned int depth;
	bool first;
	bool brk;
	uint64_t broken;
};

#define JSON_INDENT_MAX	64

void json_init(struct json *j, FILE *f, enum json_style style);

/*
 * JSON_SPACED: the next value, or the close of the innermost object or
 * array if it is not empty, starts a new line. The other styles ignore
 * it. A value at the top level never starts a line.
 */
void json_break(struct json *j);

/*
 * Every value takes a key: the member name inside an object, NULL inside
 * an array or for the top-level value. Closing the top-level value ends
 * the document with a newline.
 */
void json_object_begin(struct json *j, const char *key);
void json_object_end(struct json *j);
void json_array_begin(struct json *j, const char *key);
void json_array_end(struct json *j);
void json_string(struct json *j, const char *key, const char *s);
void json_uint(struct json *j, const char *key, uint64_t v);
/*
 * A double: to six significant digits, as printf's "%.6g" writes it
 * (0.95, 1.5e+07); or, json_fixed(), with @decimals digits after the
 * point, as "%.*f" (1.0000). An infinity or a NaN, which JSON has no
 * number for, is written null.
 */
void json_double(struct json *j, const char *key, double v);
void json_fixed(struct json *j, const char *key, double v, int decimals);
void json_bool(struct json *j, const char *key, bool v);
void json_null(struct json *j, const char *key);

#endif /* UBFAB_TOOLS_JSON_H */
