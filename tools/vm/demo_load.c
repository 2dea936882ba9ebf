// SPDX-License-Identifier: GPL-2.0-only
/*
 * tools/vm/demo_load.c - `make demo`'s load on the fabric model, in the
 * guest: a queue on each of a few NPU dies spread over the cm384
 * supernode, and a page of flag words stamped in each die's memory
 * (ubfab_queue_stamp()), held while a command runs; then all of it goes.
 *
 * Usage: demo_load COMMAND [ARG]...
 * Exit status: the command's; 1 if the load could not be set up.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "libubfab.h"

#define NR_DIES		8
/* Flag words stamped on each die: a page of them. */
#define WORDS		512

/* Two dies of node 0, then one on each of a few other nodes. */
static const char *const dies[NR_DIES] = {
	"npu0", "npu1", "npu16", "npu100", "npu300", "npu500", "npu700",
	"npu767",
};

static struct ubfab_dev *dev[NR_DIES];
static struct ubfab_queue *queue[NR_DIES];

/* Die @i's queue and stamps. Return: 0 or a negative errno. */
static int load(int i)
{
	uint64_t off, now;
	int err, w;

	err = ubfab_dev_open(dies[i], &dev[i]) ?:
	      ubfab_queue_create(dev[i], NULL, &queue[i]) ?:
	      ubfab_dev_alloc(dev[i], WORDS * 8, &off);
	for (w = 0; w < WORDS && !err; w++)
		err = ubfab_queue_stamp(queue[i], off + 8 * w,
					UBFAB_STAMP_LOCAL, &now);
	return err;
}

/* Run @argv, wait for it. Return: its exit status, or 1. */
static int run(char **argv)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		perror("demo_load: fork");
		return 1;
	}
	if (!pid) {
		execvp(argv[0], argv);
		fprintf(stderr, "demo_load: %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0) {
		perror("demo_load: waitpid");
		return 1;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int main(int argc, char **argv)
{
	int i, err = 0, code = 1;

	if (argc < 2) {
		fprintf(stderr, "usage: demo_load COMMAND [ARG]...\n");
		return 2;
	}
	for (i = 0; i < NR_DIES && !err; i++) {
		err = load(i);
		if (err)
			fprintf(stderr, "demo_load: %s: %s\n", dies[i],
				strerror(-err));
	}
	if (!err)
		code = run(argv + 1);
	/* closing a device frees its memory and the stamps in it */
	for (i = 0; i < NR_DIES; i++) {
		ubfab_queue_destroy(queue[i]);
		ubfab_dev_close(dev[i]);
	}
	return code;
}
