// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libubshmem's start and end: ubshmem_init() reads ubrun's environment,
 * opens the PE's entity, makes its heap, staging buffer and queue,
 * exchanges the heaps' handles and tokens with every PE and imports
 * them; ubshmem_finalize() undoes it. Also who this PE is.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <unistd.h>

#include "internal.h"

#define RWA	(UBFAB_SEG_READ | UBFAB_SEG_WRITE | UBFAB_SEG_ATOMIC)

struct shm_state *shm;

/* A size in bytes, with an optional K, M or G; 0 when malformed. */
static uint64_t parse_size(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);

	switch (*end) {
	case 'G':
		v <<= 10;
		/* fall through */
	case 'M':
		v <<= 10;
		/* fall through */
	case 'K':
		v <<= 10;
		end++;
		break;
	}
	return end == s || *end ? 0 : v;
}

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

static void teardown(struct shm_state *s)
{
	shm_heap_unmap_peers(s);
	if (s->heap)
		ubfab_unmap(s->heap, s->heap_len);
	if (s->stage)
		ubfab_unmap(s->stage, UBSHMEM_STAGING);
	ubfab_queue_destroy(s->q);
	/* frees the heap, revoking its segment, and drops the imports */
	ubfab_dev_close(s->dev);
	if (s->sock >= 0)
		close(s->sock);
	shm_teams_free(s);
	free(s->peers);
	free(s->imps);
	free(s->maps);
	free(s->outs);
	free(s->blocks);
	free(s);
}

/* This PE's record: its entity, node and heap, exported. */
static int make_heap(struct shm_state *s, struct shm_peer *rec)
{
	struct ubfab_queue_attr qa = UBFAB_QUEUE_ATTR_INIT;
	struct ubfab_entity_info ent;
	struct ubfab_nl *nl;
	void *addr;
	int err;

	err = ubfab_nl_open(&nl);
	if (err)
		return err;
	err = ubfab_entity_get_by_name(nl, ubfab_dev_name(s->dev), &ent);
	ubfab_nl_close(nl);
	if (err)
		return err;
	snprintf(rec->entity, sizeof(rec->entity), "%s",
		 ubfab_dev_name(s->dev));
	rec->eid = ent.eid;
	rec->node = ent.node;
	rec->heap_len = s->heap_len;
	if (getrandom(&rec->token_value, sizeof(rec->token_value), 0) < 0)
		return -errno;

	err = ubfab_dev_alloc(s->dev, s->heap_len, &s->heap_off);
	if (!err)
		err = ubfab_dev_map(s->dev, s->heap_off, s->heap_len,
				    PROT_READ | PROT_WRITE, &addr);
	if (err)
		return err;
	s->heap = addr;
	err = ubfab_dev_export(s->dev, s->heap_off, s->heap_len, RWA,
			       rec->token_value, &s->token_id);
	if (err)
		return err;
	rec->token_id = s->token_id;

	err = ubfab_dev_alloc(s->dev, UBSHMEM_STAGING, &s->stage_off);
	if (!err)
		err = ubfab_dev_map(s->dev, s->stage_off, UBSHMEM_STAGING,
				    PROT_READ | PROT_WRITE, &addr);
	if (err)
		return err;
	s->stage = addr;

	qa.sq_entries = SHM_QDEPTH;
	return ubfab_queue_create(s->dev, &qa, &s->q);
}

/* Every PE's record, then every heap imported. */
static int join(struct shm_state *s, const struct shm_peer *rec)
{
	int pe, err;

	s->peers = calloc(s->n, sizeof(*s->peers));
	s->imps = calloc(s->n, sizeof(*s->imps));
	s->maps = calloc(s->n, sizeof(*s->maps));
	if (!s->peers || !s->imps || !s->maps)
		return -ENOMEM;
	if (s->sock < 0) {
		s->peers[0] = *rec;
	} else {
		err = shm_boot_allgather(s->sock, s->me, s->n, rec,
					 sizeof(*rec), s->peers);
		if (err)
			return err;
	}
	for (pe = 0; pe < s->n; pe++) {
		const struct shm_peer *p = &s->peers[pe];

		if (p->heap_len != s->heap_len)
			return -EPROTO;
		err = ubfab_dev_import(s->dev, p->eid, p->token_id,
				       p->token_value, RWA, &s->imps[pe]);
		if (err)
			return err;
	}
	return 0;
}

int ubshmem_init(void)
{
	const char *entity = getenv("UBRUN_ENTITY");
	const char *sock = getenv("UBRUN_SOCK");
	const char *heap = getenv("UBSHMEM_HEAP_SIZE");
	long page = sysconf(_SC_PAGESIZE);
	struct shm_peer rec = { 0 };
	struct shm_state *s;
	int err;

	if (shm)
		return -EALREADY;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->sock = -1;
	s->heap_len = heap ? parse_size(heap) : SHM_HEAP_DEFAULT;
	s->heap_len = (s->heap_len + page - 1) / page * page;
	err = s->heap_len > SHM_HEAP_RESERVED ? 0 : -EINVAL;
	if (!err && sock) {
		err = env_int("UBRUN_SIZE", 1, 1, 1 << 20, &s->n);
		if (!err)
			err = env_int("UBRUN_RANK", 0, 0, s->n - 1, &s->me);
	} else {
		s->n = 1;
	}
	if (!err)
		err = ubfab_dev_open(entity ? entity : "npu0", &s->dev);
	if (!err)
		err = make_heap(s, &rec);
	if (!err && sock) {
		s->sock = shm_boot_connect(sock);
		err = s->sock < 0 ? s->sock : 0;
	}
	if (!err)
		err = join(s, &rec);
	if (!err)
		err = shm_teams_init(s);
	if (!err)
		err = shm_heap_init(s);
	/* every PE has imported every heap */
	if (!err && s->sock >= 0)
		err = shm_boot_allgather(s->sock, s->me, s->n, NULL, 0, NULL);
	if (err) {
		teardown(s);
		return err;
	}
	shm = s;
	return 0;
}

int ubshmem_finalize(void)
{
	int err;

	if (!shm)
		return -EINVAL;
	err = ubshmem_barrier_all();
	teardown(shm);
	shm = NULL;
	return err;
}

int ubshmem_my_pe(void)
{
	return shm ? shm->me : -1;
}

int ubshmem_n_pes(void)
{
	return shm ? shm->n : 0;
}

const char *ubshmem_entity(void)
{
	return shm ? shm->peers[shm->me].entity : "";
}
