/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tools/common/json.h - the tools' JSON writer: streams one JSON value
 * (objects, arrays, strings, unsigned numbers) to a FILE, compact or
 * pretty-printed, with commas, indentation and string escaping handled
 * here.
 */
#ifndef UBFAB_TOOLS_JSON_H
#define UBFAB_TOOLS_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/**
 * struct json - state of one JSON document being written
 * @f: where it goes
 * @pretty: one member per line, indented by two spaces per level
 * @depth: number of open objects and arrays
 * @first: nothing written yet in the innermost open object or array
 */
struct json {
	FILE *f;
	bool pretty;
	unsigned int depth;
	bool first;
};

void json_init(struct json *j, FILE *f, bool pretty);

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

#endif /* UBFAB_TOOLS_JSON_H */
