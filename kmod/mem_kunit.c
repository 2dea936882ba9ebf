// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the entity memory allocator in mem.c: the first fit over
 * an entity's sorted allocations, at the start, between and after them,
 * at the end of the entity's memory and when nothing fits. Built into
 * ubfab.ko when the kernel has KUnit; the suite runs when the module
 * loads.
 */
#include <kunit/test.h>

#include "mem.h"

#define UBFAB_KUNIT_ALLOCS	4

/* An entity of @pages pages holding the allocations [first, first + n). */
struct ubfab_kunit_mem {
	struct ubfab_entity entity;
	struct ubfab_alloc allocs[UBFAB_KUNIT_ALLOCS];
	struct ubfab_window wins[UBFAB_KUNIT_ALLOCS];
};

static struct ubfab_kunit_mem *ubfab_kunit_mem(struct kunit *test,
					       pgoff_t pages,
					       const pgoff_t (*ranges)[2],
					       unsigned int nr)
{
	struct ubfab_kunit_mem *m = kunit_kzalloc(test, sizeof(*m),
						   GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, m);
	KUNIT_ASSERT_LE(test, nr, UBFAB_KUNIT_ALLOCS);
	m->entity.mem_size = (u64)pages << PAGE_SHIFT;
	INIT_LIST_HEAD(&m->entity.allocs);
	for (i = 0; i < nr; i++) {
		m->wins[i].first = ranges[i][0];
		m->wins[i].npages = ranges[i][1];
		m->allocs[i].win = &m->wins[i];
		list_add_tail(&m->allocs[i].entity_node, &m->entity.allocs);
	}
	return m;
}

/* The gap found for @npages: its first page and the allocation after it. */
static void ubfab_kunit_expect_gap(struct kunit *test,
				   struct ubfab_kunit_mem *m, pgoff_t npages,
				   pgoff_t want_first, int want_before)
{
	struct list_head *next = NULL;
	pgoff_t first = ~0UL;

	KUNIT_ASSERT_EQ(test, ubfab_mem_find_gap(&m->entity, npages, &first,
						 &next), 0);
	KUNIT_EXPECT_EQ_MSG(test, first, want_first, "%lu pages", npages);
	if (want_before < 0)
		KUNIT_EXPECT_PTR_EQ(test, next, &m->entity.allocs);
	else
		KUNIT_EXPECT_PTR_EQ(test, next,
				    &m->allocs[want_before].entity_node);
}

/* No free range holds @npages pages. */
static void ubfab_kunit_expect_nospc(struct kunit *test,
				     struct ubfab_kunit_mem *m, pgoff_t npages)
{
	struct list_head *next;
	pgoff_t first;

	KUNIT_EXPECT_EQ_MSG(test, ubfab_mem_find_gap(&m->entity, npages,
						     &first, &next),
			    -ENOSPC, "%lu pages", npages);
}

static void ubfab_kunit_gap_empty(struct kunit *test)
{
	struct ubfab_kunit_mem *m = ubfab_kunit_mem(test, 16, NULL, 0);

	ubfab_kunit_expect_gap(test, m, 1, 0, -1);
	ubfab_kunit_expect_gap(test, m, 16, 0, -1);
	ubfab_kunit_expect_nospc(test, m, 17);
}

static void ubfab_kunit_gap_first_fit(struct kunit *test)
{
	/* used: 2-3, 6-9, 12-13 of 16; free: 0-1, 4-5, 10-11, 14-15 */
	static const pgoff_t used[][2] = { { 2, 2 }, { 6, 4 }, { 12, 2 } };
	struct ubfab_kunit_mem *m = ubfab_kunit_mem(test, 16, used, 3);

	ubfab_kunit_expect_gap(test, m, 1, 0, 0);
	ubfab_kunit_expect_gap(test, m, 2, 0, 0);
	ubfab_kunit_expect_nospc(test, m, 3);
}

static void ubfab_kunit_gap_between_and_end(struct kunit *test)
{
	/* used: 0-3, 5-7, 10-12 of 16; free: 4, 8-9, 13-15 */
	static const pgoff_t used[][2] = { { 0, 4 }, { 5, 3 }, { 10, 3 } };
	struct ubfab_kunit_mem *m = ubfab_kunit_mem(test, 16, used, 3);

	ubfab_kunit_expect_gap(test, m, 1, 4, 1);
	ubfab_kunit_expect_gap(test, m, 2, 8, 2);
	ubfab_kunit_expect_gap(test, m, 3, 13, -1);
	ubfab_kunit_expect_nospc(test, m, 4);
}

static void ubfab_kunit_gap_full(struct kunit *test)
{
	/* adjacent allocations up to the very end: nothing is free */
	static const pgoff_t used[][2] = { { 0, 8 }, { 8, 8 } };
	struct ubfab_kunit_mem *m = ubfab_kunit_mem(test, 16, used, 2);

	ubfab_kunit_expect_nospc(test, m, 1);
}

static struct kunit_case ubfab_mem_cases[] = {
	KUNIT_CASE(ubfab_kunit_gap_empty),
	KUNIT_CASE(ubfab_kunit_gap_first_fit),
	KUNIT_CASE(ubfab_kunit_gap_between_and_end),
	KUNIT_CASE(ubfab_kunit_gap_full),
	{}
};

static struct kunit_suite ubfab_mem_suite = {
	.name = "ubfab-mem",
	.test_cases = ubfab_mem_cases,
};

kunit_test_suite(ubfab_mem_suite);
