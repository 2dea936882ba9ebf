/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the ubfab selftests: loading and unloading the module,
 * finding its netlink family, reading sysfs, watching the kernel log,
 * memory cgroups, and the clock; posting to a queue and taking its
 * completions.
 */
#ifndef UBFAB_TEST_H
#define UBFAB_TEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Time limit in seconds for tests that load large shapes: loading cm384 takes
 * tens of seconds on the debug kernel under emulation.
 */
#define UBFAB_TEST_SLOW	300

/* Path of ubfab.ko: $UBFAB_KO, else /lib/modules/$(uname -r)/extra/ubfab.ko */
const char *ubfab_ko_path(void);
/* finit_module() with these parameters: 0 or -errno. */
int ubfab_load(const char *params);
/* delete_module(O_NONBLOCK): 0 or -errno (-ENOENT when not loaded). */
int ubfab_unload(void);
bool ubfab_loaded(void);
/* Unload if loaded, then load: 0 or -errno. */
int ubfab_reload(const char *params);

/* The generic netlink id of the "ubfab" family: >0, or -errno. */
int ubfab_family_id(void);

/* Read a whole small file into buf, without a trailing newline: 0 or -errno. */
int read_text(const char *path, char *buf, size_t len);
/* Read a file holding one unsigned decimal number: 0 or -errno. */
int read_u64(const char *path, uint64_t *val);
/* Write val to the file at path in one write(): 0 or -errno. */
int write_file(const char *path, const char *val);

/* An open /dev/kmsg positioned at its end, or -errno. */
int kmsg_open(void);
/* Whether a record logged since kmsg_open() contains needle. */
bool kmsg_find(int fd, const char *needle);

/*
 * cgroup2 memory controller: cgroup_make() creates an empty cgroup NAME
 * under /sys/fs/cgroup (mounting it if needed): 0, or -1 when the kernel
 * has no cgroup2 memory controller. cgroup_enter() moves pid into it ("" is
 * the root): 0 or -1. cgroup_current() is its memory.current (0 on error).
 */
int cgroup_make(const char *name);
int cgroup_enter(const char *name, pid_t pid);
uint64_t cgroup_current(const char *name);

/* CLOCK_MONOTONIC in milliseconds. */
int64_t now_ms(void);

struct ubfab_queue;
struct ubfab_cqe;
/*
 * The next completion of @q, copied into *@out and consumed, within
 * @timeout_ms (ubfab_queue_wait_cqe()'s): 0 or a negative errno.
 */
int next_cqe(struct ubfab_queue *q, struct ubfab_cqe *out, int timeout_ms);

/*
 * Set the fabric model's dma-engine-mbps to 224000: one DMA engine as
 * fast as the four of a cm384 die together, above what the die's links
 * carry, so that a queue's transfers go at the links' pace (for tests of
 * the links), until the module is reloaded. 0 or a negative errno.
 */
int ubfab_engines_unbounded(void);

struct ubfab_queue;
struct ubfab_cqe;

/* How long a test waits for one completion, under TCG. */
#define UBFAB_TEST_WAIT_MS	20000

/*
 * Submit what was posted to @q (even to a queue in the error state) and
 * take the next @n completions, in order, into @out, waiting up to
 * UBFAB_TEST_WAIT_MS for each. 0 or a negative errno.
 */
int ubfab_test_complete(struct ubfab_queue *q, struct ubfab_cqe *out,
			unsigned int n);

/*
 * The next SQ entry of @q; the test fails if there is none (a test of
 * the kselftest harness, which defines ASSERT_NE).
 */
#define GET_SQE(q) ({							\
	struct ubfab_sqe *__sqe = ubfab_queue_get_sqe(q);		\
	ASSERT_NE(NULL, __sqe);						\
	__sqe;								\
})

#endif
