// SPDX-License-Identifier: GPL-2.0-only
/*
 * tools/common/tests/json_test.c - unit test of the tools' JSON writer
 * (tools/common/json.c) on the kselftest harness: layout (compact and
 * pretty, empty containers, nesting) and string escaping (quotes,
 * backslashes, control characters, valid and invalid UTF-8).
 */
#include <stdlib.h>

#include "kselftest_harness.h"
#include "json.h"

/*
 * The document @write writes with a writer of @pretty, in memory; NULL if
 * open_memstream() fails. The caller frees it.
 */
static char *doc(bool pretty, void (*write)(struct json *j))
{
	struct json j;
	char *got = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&got, &len);

	if (!f)
		return NULL;
	json_init(&j, f, pretty);
	write(&j);
	fclose(f);
	return got;
}

/* Check that the document @write writes with @pretty is @want. */
#define EXPECT_DOC(pretty, write, want) do {				\
	char *got = doc(pretty, write);					\
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
	EXPECT_DOC(false, write_nested,
		   "{\"a\":1,\"s\":\"x\",\"list\":[18446744073709551615,"
		   "\"two\",{}],\"empty\":[]}\n");
}

TEST(pretty)
{
	EXPECT_DOC(true, write_nested,
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
	EXPECT_DOC(true, write_empty_array, "[]\n");
}

TEST(escapes)
{
	EXPECT_DOC(false, write_escapes,
		   "{\"quote\\\"key\":\"a\\\"b\\\\c/d\","
		   "\"control\":\"\\n\\t\\r\\u0008\\u000c\\u0001\\u001f\x7f\"}\n");
}

TEST(utf8)
{
	EXPECT_DOC(false, write_utf8,
		   "[\"caf\xc3\xa9 \xe4\xb8\xad \xf0\x9f\x98\x80\","
		   "\"\\ufffd\",\"a\\ufffd\",\"\\ufffd\\ufffd\","
		   "\"\\ufffd\\ufffd\\ufffd\",\"\\ufffd\\ufffd\\ufffd\\ufffd\"]\n");
}

TEST_HARNESS_MAIN
