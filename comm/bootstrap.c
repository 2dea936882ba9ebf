// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libubshmem's bootstrap: who this PE is, which entity it acts as, and
 * rounds of an all-gather of small parts with the other PEs of its job.
 * Started by ubrun (UBRUN_SOCK), it reads ubrun's environment and is the
 * rank's side of the rendezvous over ubrun's Unix socket (bootstrap.h has
 * the protocol); started by mpirun (PMIX_RANK and PMIX_NAMESPACE), it
 * leaves the rounds to PMIx (pmix.c) and takes its entity from the
 * placement UBSHMEM_PLACEMENT names (place.c); otherwise the PE is alone.
 * ubshmem_init() exchanges the heaps' handles and tokens over it and
 * meets the other ranks there.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "bootstrap.h"
#include "internal.h"
#include "place.h"

/* An integer variable of the environment in [lo, hi], or @def if unset. */
static int env_int(const char *name, int def, int lo, int hi, int *out)
{
	const char *v = getenv(name);
	char *end;
	long x;

	if (!v) {
		*out = def;
		return 0;
	}
	x = strtol(v, &end, 10);
	if (end == v || *end || x < lo || x > hi)
		return -EINVAL;
	*out = x;
	return 0;
}

static int boot_connect(const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sun.sun_path))
		return -ENAMETOOLONG;
	strcpy(sun.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		/* ubrun may have closed it: an error, not SIGPIPE */
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EPROTO;
		p += n;
		len -= n;
	}
	return 0;
}

static int read_all(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t n = read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)	/* ubrun closed: a rank broke the job */
			return n < 0 ? -errno : -EPROTO;
		p += n;
		len -= n;
	}
	return 0;
}

/* One round with ubrun, as shm_boot_allgather(). */
static int ubrun_allgather(int sock, int rank, int n, const void *part,
			   uint32_t len, void *all)
{
	struct ubrun_msg m = { UBRUN_MAGIC, rank, len };
	int err;

	err = write_all(sock, &m, sizeof(m));
	if (!err && len)
		err = write_all(sock, part, len);
	if (!err)
		err = read_all(sock, &m, sizeof(m));
	if (err)
		return err;
	if (m.magic != UBRUN_MAGIC || m.rank != (uint32_t)n || m.len != len)
		return -EPROTO;
	return len ? read_all(sock, all, (size_t)n * len) : 0;
}

/* This PE's entity under mpirun: its slot of the job's placement. */
static int mpirun_entity(const struct shm_state *s, char *entity)
{
	const char *placement = getenv("UBSHMEM_PLACEMENT");
	struct shm_slot *slots = calloc(s->n, sizeof(*slots));
	int err;

	if (!slots)
		return -ENOMEM;
	err = shm_place("ubshmem: UBSHMEM_PLACEMENT", placement ? placement :
			"pack", NULL, s->n, slots) ? -EINVAL : 0;
	if (!err)
		memcpy(entity, slots[s->me].entity, UBFAB_NAME_MAX);
	free(slots);
	return err;
}

int shm_boot_start(struct shm_state *s, char *entity)
{
	const char *sock = getenv("UBRUN_SOCK");
	const char *ubrun_entity = getenv("UBRUN_ENTITY");
	int err;

	if (!sock && getenv("PMIX_RANK") && getenv("PMIX_NAMESPACE")) {
		err = shm_pmix_start(&s->me, &s->n);
		if (err)
			return err;
		s->pmix = 1;
		return mpirun_entity(s, entity);
	}
	snprintf(entity, UBFAB_NAME_MAX, "%s",
		 ubrun_entity ? ubrun_entity : "npu0");
	if (!sock) {
		s->me = 0;
		s->n = 1;
		return 0;
	}
	err = env_int("UBRUN_SIZE", 1, 1, 1 << 20, &s->n);
	if (!err)
		err = env_int("UBRUN_RANK", 0, 0, s->n - 1, &s->me);
	if (!err) {
		s->sock = boot_connect(sock);
		err = s->sock < 0 ? s->sock : 0;
	}
	return err;
}

int shm_boot_allgather(struct shm_state *s, const void *part, uint32_t len,
		       void *all)
{
	if (len > UBRUN_PART_MAX)
		return -EMSGSIZE;
	if (s->pmix)
		return shm_pmix_allgather(s->n, part, len, all);
	if (s->sock >= 0)
		return ubrun_allgather(s->sock, s->me, s->n, part, len, all);
	if (len)
		memcpy(all, part, len);
	return 0;
}

void shm_boot_end(struct shm_state *s, int failed)
{
	if (s->sock >= 0)
		close(s->sock);
	if (s->pmix && !failed)
		shm_pmix_end();
}
