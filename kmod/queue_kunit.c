// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the queue engine's arithmetic (queue.c, queue.h): which
 * SQ tails user space may publish and when a ring has room, across the
 * 2^32 wrap of the free-running indices, and the checks and defaults of
 * UBFAB_IOCTL_QUEUE_CREATE's argument. Built into ubfab.ko when the
 * kernel has KUnit; the suite runs when the module loads.
 */
#include <kunit/test.h>

#include "queue.h"

static void ubfab_kunit_ring_tail(struct kunit *test)
{
	/* 0 .. entries ahead, also across the wrap */
	KUNIT_EXPECT_TRUE(test, ubfab_ring_tail_ok(0, 0, 1));
	KUNIT_EXPECT_TRUE(test, ubfab_ring_tail_ok(1, 0, 1));
	KUNIT_EXPECT_FALSE(test, ubfab_ring_tail_ok(2, 0, 1));
	KUNIT_EXPECT_TRUE(test, ubfab_ring_tail_ok(32768, 0, 32768));
	KUNIT_EXPECT_FALSE(test, ubfab_ring_tail_ok(32769, 0, 32768));
	KUNIT_EXPECT_TRUE(test, ubfab_ring_tail_ok(5, U32_MAX - 2, 8));
	KUNIT_EXPECT_TRUE(test, ubfab_ring_tail_ok(0, U32_MAX, 1));
	KUNIT_EXPECT_FALSE(test, ubfab_ring_tail_ok(6, U32_MAX - 2, 8));
	/* a tail behind the head is far ahead, not "negative" */
	KUNIT_EXPECT_FALSE(test, ubfab_ring_tail_ok(9, 10, 32768));
	KUNIT_EXPECT_FALSE(test, ubfab_ring_tail_ok(U32_MAX, 0, 32768));
	KUNIT_EXPECT_FALSE(test, ubfab_ring_tail_ok(0x80000000U, 0, 32768));
}

static void ubfab_kunit_ring_room(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, ubfab_ring_has_room(0, 0, 1));
	KUNIT_EXPECT_FALSE(test, ubfab_ring_has_room(1, 0, 1));
	KUNIT_EXPECT_TRUE(test, ubfab_ring_has_room(65535, 0, 65536));
	KUNIT_EXPECT_FALSE(test, ubfab_ring_has_room(65536, 0, 65536));
	/* full and not full across the wrap */
	KUNIT_EXPECT_TRUE(test, ubfab_ring_has_room(2, U32_MAX - 4, 8));
	KUNIT_EXPECT_FALSE(test, ubfab_ring_has_room(3, U32_MAX - 4, 8));
	/* slots wrap with the indices: no slot is skipped at 2^32 */
	KUNIT_EXPECT_EQ(test, U32_MAX & 7, 7U);
	KUNIT_EXPECT_EQ(test, (u32)(U32_MAX + 1U) & 7, 0U);
}

/* The CQ depth and idle time @arg resolves to, or its error. */
static void ubfab_kunit_expect_create(struct kunit *test, u32 flags,
				      u32 sq, u32 cq, u32 idle, int err,
				      u32 want_cq, u32 want_idle)
{
	struct ubfab_queue_create arg = {
		.size = sizeof(arg), .flags = flags, .sq_entries = sq,
		.cq_entries = cq, .eventfd = -1, .idle_us = idle,
	};
	u32 cq_entries = 0, idle_us = 0;
	int ret = ubfab_queue_check_create(&arg, &cq_entries, &idle_us);

	KUNIT_EXPECT_EQ_MSG(test, ret, err, "flags %#x sq %u cq %u idle %u",
			    flags, sq, cq, idle);
	if (ret || err)
		return;
	KUNIT_EXPECT_EQ(test, cq_entries, want_cq);
	KUNIT_EXPECT_EQ(test, idle_us, want_idle);
}

static void ubfab_kunit_create_args(struct kunit *test)
{
	const u32 max = UBFAB_QUEUE_MAX_ENTRIES;
	const u32 max_cq = UBFAB_QUEUE_MAX_CQ_ENTRIES;
	const u32 poll = UBFAB_QUEUE_POLL;

	/* depths: powers of two within the limits; the CQ defaults to 2x */
	ubfab_kunit_expect_create(test, 0, 1, 0, 0, 0, 2, 0);
	ubfab_kunit_expect_create(test, 0, max, 0, 0, 0, 2 * max, 0);
	ubfab_kunit_expect_create(test, 0, 64, 1, 0, 0, 1, 0);
	ubfab_kunit_expect_create(test, 0, 64, max_cq, 0, 0, max_cq, 0);
	ubfab_kunit_expect_create(test, 0, 0, 0, 0, -EINVAL, 0, 0);
	ubfab_kunit_expect_create(test, 0, 3, 0, 0, -EINVAL, 0, 0);
	ubfab_kunit_expect_create(test, 0, 2 * max, 0, 0, -EINVAL, 0, 0);
	ubfab_kunit_expect_create(test, 0, U32_MAX, 0, 0, -EINVAL, 0, 0);
	ubfab_kunit_expect_create(test, 0, 0x80000000U, 0, 0, -EINVAL, 0, 0);
	ubfab_kunit_expect_create(test, 0, 64, 96, 0, -EINVAL, 0, 0);
	ubfab_kunit_expect_create(test, 0, 64, 2 * max_cq, 0, -EINVAL, 0, 0);
	/* flags and the idle time, which only a polling queue has */
	ubfab_kunit_expect_create(test, (u32)~UBFAB_QUEUE_FLAGS, 64, 0, 0,
				  -EINVAL, 0, 0);
	ubfab_kunit_expect_create(test, 0, 64, 0, 5, -EINVAL, 0, 0);
	ubfab_kunit_expect_create(test, poll, 64, 0, 0, 0, 128,
				  UBFAB_QUEUE_IDLE_US);
	ubfab_kunit_expect_create(test, poll, 64, 0, 1, 0, 128, 1);
	ubfab_kunit_expect_create(test, poll, 64, 0, UBFAB_QUEUE_IDLE_US_MAX,
				  0, 128, UBFAB_QUEUE_IDLE_US_MAX);
	ubfab_kunit_expect_create(test, poll, 64, 0,
				  UBFAB_QUEUE_IDLE_US_MAX + 1, -EINVAL, 0, 0);
}

static struct kunit_case ubfab_queue_cases[] = {
	KUNIT_CASE(ubfab_kunit_ring_tail),
	KUNIT_CASE(ubfab_kunit_ring_room),
	KUNIT_CASE(ubfab_kunit_create_args),
	{}
};

static struct kunit_suite ubfab_queue_suite = {
	.name = "ubfab-queue",
	.test_cases = ubfab_queue_cases,
};

kunit_test_suite(ubfab_queue_suite);
