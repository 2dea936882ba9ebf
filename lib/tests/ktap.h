/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the library's host tests share: KTAP result lines and totals, and
 * CHECK() for test cases that return whether they passed.
 */
#ifndef LIBUBFAB_TESTS_KTAP_H
#define LIBUBFAB_TESTS_KTAP_H

#include <stdbool.h>
#include <stdio.h>

static int failures, tests;

static void result(bool ok, const char *name)
{
	tests++;
	failures += !ok;
	printf("%sok %d - %s\n", ok ? "" : "not ", tests, name);
}

static void totals(void)
{
	printf("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:0 error:0\n",
	       tests - failures, failures);
}

/* In a case returning bool: fail it, saying where, unless @cond holds. */
#define CHECK(cond) do {						\
	if (!(cond)) {							\
		printf("# %s:%d: %s\n", __FILE__, __LINE__, #cond);	\
		return false;						\
	}								\
} while (0)

#endif /* LIBUBFAB_TESTS_KTAP_H */
