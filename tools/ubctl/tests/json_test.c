// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit test of ubctl's JSON writer: layout (compact and pretty, empty
 * containers, nesting) and string escaping (quotes, backslashes, control
 * characters, valid and invalid UTF-8). Prints a "# " line per failed case
 * and exits 1 if any failed.
 */
#include <stdlib.h>
#include <string.h>

#include "json.h"

static int failures;

/* Write a document with @write into memory and compare it to @want. */
static void check(const char *name, bool pretty,
		  void (*write)(struct json *j), const char *want)
{
	struct json j;
	char *got = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&got, &len);

	if (!f) {
		printf("# %s: open_memstream failed\n", name);
		failures++;
		return;
	}
	json_init(&j, f, pretty);
	write(&j);
	fclose(f);
	if (strcmp(got, want)) {
		printf("# %s: got      %s# %s: expected %s", name, got, name,
		       want);
		failures++;
	}
	free(got);
}

static void write_nested(struct json *j)
{
	json_object_begin(j, NULL);
	json_uint(j, "a", 1);
	json_string(j, "s", "x");
	json_array_begin(j, "list");
	json_uint(j, NULL, 18446744073709551615ULL);
	json_string(j, NULL, "two");
	json_object_begin(j, NULL);
	json_object_end(j);
	json_array_end(j);
	json_array_begin(j, "empty");
	json_array_end(j);
	json_object_end(j);
}

static void write_empty_array(struct json *j)
{
	json_array_begin(j, NULL);
	json_array_end(j);
}

static void write_escapes(struct json *j)
{
	json_object_begin(j, NULL);
	json_string(j, "quote\"key", "a\"b\\c/d");
	json_string(j, "control", "\n\t\r\b\f\x01\x1f\x7f");
	json_object_end(j);
}

static void write_utf8(struct json *j)
{
	json_array_begin(j, NULL);
	json_string(j, NULL, "caf\xc3\xa9 \xe4\xb8\xad \xf0\x9f\x98\x80");
	json_string(j, NULL, "\xff");			/* never valid */
	json_string(j, NULL, "a\xc3");			/* cut short */
	json_string(j, NULL, "\xc0\xaf");		/* overlong '/' */
	json_string(j, NULL, "\xed\xa0\x80");		/* surrogate */
	json_string(j, NULL, "\xf4\x90\x80\x80");	/* past U+10FFFF */
	json_array_end(j);
}

int main(void)
{
	check("compact", false, write_nested,
	      "{\"a\":1,\"s\":\"x\",\"list\":[18446744073709551615,\"two\",{}],"
	      "\"empty\":[]}\n");
	check("pretty", true, write_nested,
	      "{\n"
	      "  \"a\": 1,\n"
	      "  \"s\": \"x\",\n"
	      "  \"list\": [\n"
	      "    18446744073709551615,\n"
	      "    \"two\",\n"
	      "    {}\n"
	      "  ],\n"
	      "  \"empty\": []\n"
	      "}\n");
	check("empty array", true, write_empty_array, "[]\n");
	check("escapes", false, write_escapes,
	      "{\"quote\\\"key\":\"a\\\"b\\\\c/d\","
	      "\"control\":\"\\n\\t\\r\\u0008\\u000c\\u0001\\u001f\x7f\"}\n");
	check("utf-8", false, write_utf8,
	      "[\"caf\xc3\xa9 \xe4\xb8\xad \xf0\x9f\x98\x80\","
	      "\"\\ufffd\",\"a\\ufffd\",\"\\ufffd\\ufffd\","
	      "\"\\ufffd\\ufffd\\ufffd\",\"\\ufffd\\ufffd\\ufffd\\ufffd\"]\n");
	return failures ? EXIT_FAILURE : EXIT_SUCCESS;
}
