// SPDX-License-Identifier: GPL-2.0
/*
 * The entity device's ioctls (ioctl.h): the typed commands every family
 * adds, drawn by their weights and found by number; the size-prefix
 * defects every typed command gets; and what a raw command must give.
 */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>

#include <linux/fiemap.h>
#include <linux/fs.h>

#include "family.h"
#include "ioctl.h"

unsigned int fuzz_ioctl_pick(struct rng *r)
{
	const struct fuzz_family *f;
	unsigned int i, j, total = 0, pick;

	for (i = 0; i < fuzz_nr_families; i++) {
		f = fuzz_families[i];
		for (j = 0; j < f->nr_ioctls; j++)
			total += f->ioctls[j].weight;
	}
	pick = rng_below(r, total);
	for (i = 0; i < fuzz_nr_families; i++) {
		f = fuzz_families[i];
		for (j = 0; j < f->nr_ioctls; j++) {
			if (pick < f->ioctls[j].weight)
				return f->ioctls[j].cmd;
			pick -= f->ioctls[j].weight;
		}
	}
	return 0;
}

const struct fuzz_ioctl *fuzz_ioctl_find(unsigned int cmd)
{
	const struct fuzz_family *f;
	unsigned int i, j;

	for (i = 0; i < fuzz_nr_families; i++) {
		f = fuzz_families[i];
		for (j = 0; j < f->nr_ioctls; j++) {
			if (f->ioctls[j].cmd == cmd)
				return &f->ioctls[j];
		}
	}
	return NULL;
}

bool vfs_ioctl_cmd(unsigned int cmd)
{
	static const unsigned int vfs[] = {
		FIOCLEX, FIONCLEX, FIONBIO, FIOASYNC, FIOQSIZE, FIFREEZE,
		FITHAW, FS_IOC_FIEMAP, FIGETBSZ, FICLONE, FICLONERANGE,
		FIDEDUPERANGE, FIONREAD, FS_IOC_GETFLAGS, FS_IOC_SETFLAGS,
		FS_IOC_FSGETXATTR, FS_IOC_FSSETXATTR, _IOR(0x15, 0, char[16]),
		_IOR(0x15, 1, char[129]),	/* GETFSUUID, GETFSSYSFSPATH */
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(vfs); i++) {
		if (cmd == vfs[i])
			return true;
	}
	return false;
}

/*
 * The size-prefix defects (a[1], below 32): 28 below the first version's
 * size, 29 a larger structure with a zero tail (accepted), 30 one with a
 * nonzero tail, 31 a pointer that faults. Returns the argument pointer.
 */
static void *typed_defect(struct worker *w, const struct fuzz_ioctl *t,
			  const struct op *op, uint8_t *arg, int *set)
{
	uint32_t *size = (uint32_t *)arg;

	switch (op->a[1]) {
	case 28:
		*size = op->a[2] % 2 ? 0 : t->min_size - 1;
		SET(set, EINVAL);
		break;
	case 29:
		*size = t->size + 8 * (1 + op->a[2]);
		break;
	case 30:
		*size = t->size + 8 * (1 + op->a[2]);
		arg[*size - 1] = 0x5a;
		SET(set, E2BIG);
		break;
	case 31:
		SET(set, EFAULT);
		return fuzz_arg_pointer(w, op->a[2] ? ARG_FAULT : ARG_KERNEL,
					0);
	default:
		break;
	}
	return arg;
}

static void run_typed(struct worker *w, const struct slot *s,
		      const struct op *op, const struct fuzz_ioctl *t)
{
	uint8_t *arg = fuzz_iobuf;
	int set[8];
	void *p;
	long ret;

	memset(arg, 0, 512);
	*(uint32_t *)arg = t->size;
	t->build(w, s, op, arg, set);
	p = typed_defect(w, t, op, arg, set);
	ret = ioctl(s->fd, t->cmd, p);
	if (fuzz_expect_set(w, t->name, ret, errno, set) && !ret && t->done)
		t->done(w, s, arg);
}

void fuzz_ioctl_run(struct worker *w, const struct slot *s,
		    const struct op *op)
{
	static const int fioasync[] = { FUZZ_OK, ENOTTY, EFAULT, 0 };
	unsigned int cmd = op->a[0];
	const struct fuzz_ioctl *typed = fuzz_ioctl_find(cmd);
	void *arg = fuzz_arg_pointer(w, op->a[1] % NR_ARGS, op->a[2]);
	int fd = slot_fd(s), want;
	long ret;

	if (s->kind == SLOT_NL)
		return fuzz_skip(w);
	if (fd < 0 || s->kind == SLOT_PATH) {
		ret = ioctl(fd, cmd, arg);
		fuzz_expect(w, "ioctl", ret, errno, EBADF);
		return;
	}
	if (typed)
		return run_typed(w, s, op, typed);
	memset(fuzz_iobuf, (int)op->a[2] * 0x55, 512);
	if (cmd == FIONBIO)
		*(int *)fuzz_iobuf = 1;	/* reads must never block */
	ret = ioctl(fd, cmd, arg);
	switch (cmd) {
	case FIOCLEX:
	case FIONCLEX:
		want = 0;
		break;
	case FIONBIO:
		want = arg == fuzz_iobuf ? 0 : EFAULT;
		break;
	case FIOASYNC:
		fuzz_expect_set(w, "ioctl FIOASYNC", ret, errno, fioasync);
		return;
	default:
		want = ENOTTY;	/* no command of the driver's */
		break;
	}
	fuzz_expect(w, "ioctl", ret, errno, want);
}
