// SPDX-License-Identifier: GPL-2.0-only
/*
 * tools/common/tests/json_test.c - unit test of the JSON writer of ubctl
 * and ubbench (tools/common/json.c) on the kselftest harness: layout in
 * each style (compact, pretty, spaced with the caller's line breaks;
 * empty containers, nesting), numbers, true, false and null, and string
 * escaping (quotes, backslashes, control characters, valid and invalid
 * UTF-8).
 */
#include <math.h>
#include <stdlib.h>

#include "kselftest_harness.h"
#include "json.h"

/*
 * The document @write writes with a writer of @style, in memory; NULL if
 * open_memstream() fails. The caller frees it.
 */
static char *doc(enum json_style style, void (*write)(struct json *j))
{
	struct json j;
	char *got = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&got, &len);

	if (!f)
		return NULL;
	json_init(&j, f, style);
	write(&j);
	fclose(f);
	return got;
}

/* Check that the document @write writes with @style is @want. */
#define EXPECT_DOC(style, write, want) do {				\
	char *got = doc(style, write);					\
									\
	ASSERT_NE(NULL, got);						\
	EXPECT_STREQ(want, got);					\
	free(got);							\
} while (0)

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

/*
 * Values on one line and values broken over lines, as ubbench writes its
 * file: a break before a value, before the close of an object or array
 * that has values, and before the close of an empty one (ignored); lines
 * in an array opened on the line of an object it is in, which a line did
 * not break in.
 */
static void write_broken(struct json *j)
{
	json_object_begin(j, NULL);
	json_break(j);
	json_string(j, "tool", "t");
	json_break(j);
	json_object_begin(j, "inline");
	json_uint(j, "a", 1);
	json_array_begin(j, "samples");
	json_double(j, NULL, 0.5);
	json_double(j, NULL, 2);
	json_array_end(j);
	json_object_end(j);
	json_break(j);
	json_object_begin(j, "group");
	json_break(j);
	json_uint(j, "b", 2);
	json_uint(j, "c", 3);
	json_break(j);
	json_array_begin(j, "rows");
	json_break(j);
	json_object_begin(j, NULL);
	json_uint(j, "d", 4);
	json_object_end(j);
	json_break(j);
	json_object_begin(j, NULL);
	json_object_end(j);
	json_break(j);
	json_array_end(j);
	json_array_begin(j, "none");
	json_break(j);
	json_array_end(j);
	json_object_begin(j, "table");
	json_array_begin(j, "rows");
	json_break(j);
	json_uint(j, NULL, 5);
	json_break(j);
	json_uint(j, NULL, 6);
	json_break(j);
	json_array_end(j);
	json_object_end(j);
	json_object_end(j);
	json_break(j);
	json_object_end(j);
}

static void write_numbers(struct json *j)
{
	json_array_begin(j, NULL);
	json_double(j, NULL, 0.95);
	json_double(j, NULL, 1.5e7);
	json_double(j, NULL, 123456789);
	json_double(j, NULL, 0.000123456789);
	json_double(j, NULL, 3);
	json_fixed(j, NULL, 1, 4);
	json_fixed(j, NULL, 0.9, 2);
	json_double(j, NULL, INFINITY);
	json_fixed(j, NULL, NAN, 2);
	json_bool(j, NULL, true);
	json_bool(j, NULL, false);
	json_null(j, NULL);
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

TEST(compact)
{
	EXPECT_DOC(JSON_COMPACT, write_nested,
		   "{\"a\":1,\"s\":\"x\",\"list\":[18446744073709551615,"
		   "\"two\",{}],\"empty\":[]}\n");
}

TEST(pretty)
{
	EXPECT_DOC(JSON_PRETTY, write_nested,
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
}

TEST(empty_array)
{
	EXPECT_DOC(JSON_PRETTY, write_empty_array, "[]\n");
}

TEST(spaced)
{
	EXPECT_DOC(JSON_SPACED, write_broken,
		   "{\n"
		   "  \"tool\": \"t\",\n"
		   "  \"inline\": {\"a\": 1, \"samples\": [0.5, 2]},\n"
		   "  \"group\": {\n"
		   "    \"b\": 2, \"c\": 3,\n"
		   "    \"rows\": [\n"
		   "      {\"d\": 4},\n"
		   "      {}\n"
		   "    ], \"none\": [], \"table\": {\"rows\": [\n"
		   "      5,\n"
		   "      6\n"
		   "    ]}}\n"
		   "}\n");
}

/* The styles that place their lines themselves ignore json_break(). */
TEST(breaks_ignored)
{
	EXPECT_DOC(JSON_COMPACT, write_broken,
		   "{\"tool\":\"t\",\"inline\":{\"a\":1,\"samples\":[0.5,2]},"
		   "\"group\":{\"b\":2,\"c\":3,\"rows\":[{\"d\":4},{}],"
		   "\"none\":[],\"table\":{\"rows\":[5,6]}}}\n");
	EXPECT_DOC(JSON_PRETTY, write_broken,
		   "{\n"
		   "  \"tool\": \"t\",\n"
		   "  \"inline\": {\n"
		   "    \"a\": 1,\n"
		   "    \"samples\": [\n"
		   "      0.5,\n"
		   "      2\n"
		   "    ]\n"
		   "  },\n"
		   "  \"group\": {\n"
		   "    \"b\": 2,\n"
		   "    \"c\": 3,\n"
		   "    \"rows\": [\n"
		   "      {\n"
		   "        \"d\": 4\n"
		   "      },\n"
		   "      {}\n"
		   "    ],\n"
		   "    \"none\": [],\n"
		   "    \"table\": {\n"
		   "      \"rows\": [\n"
		   "        5,\n"
		   "        6\n"
		   "      ]\n"
		   "    }\n"
		   "  }\n"
		   "}\n");
}

/* As printf writes them; null where JSON has no number. */
TEST(numbers)
{
	EXPECT_DOC(JSON_SPACED, write_numbers,
		   "[0.95, 1.5e+07, 1.23457e+08, 0.000123457, 3, 1.0000, 0.90, "
		   "null, null, true, false, null]\n");
}

TEST(escapes)
{
	EXPECT_DOC(JSON_COMPACT, write_escapes,
		   "{\"quote\\\"key\":\"a\\\"b\\\\c/d\","
		   "\"control\":\"\\n\\t\\r\\u0008\\u000c\\u0001\\u001f\x7f\"}\n");
}

TEST(utf8)
{
	EXPECT_DOC(JSON_COMPACT, write_utf8,
		   "[\"caf\xc3\xa9 \xe4\xb8\xad \xf0\x9f\x98\x80\","
		   "\"\\ufffd\",\"a\\ufffd\",\"\\ufffd\\ufffd\","
		   "\"\\ufffd\\ufffd\\ufffd\",\"\\ufffd\\ufffd\\ufffd\\ufffd\"]\n");
}

TEST_HARNESS_MAIN
