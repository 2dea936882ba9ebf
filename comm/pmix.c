// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libubshmem's bootstrap under Open MPI's mpirun: the rank and the job's
 * size from PMIx, and each all-gather round as a PMIx put of the part, a
 * fence that collects the job's data and a get of every rank's part.
 * libpmix is opened at run time (dlopen), so that programs started by
 * ubrun neither need it nor load it; only its header is needed to build.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

#include <pmix.h>

#include "internal.h"

#define PMIX_LIB "libpmix.so.2"

static struct {
	pmix_proc_t me;
	unsigned int round;
	__typeof__(PMIx_Init) *init;
	__typeof__(PMIx_Finalize) *finalize;
	__typeof__(PMIx_Put) *put;
	__typeof__(PMIx_Commit) *commit;
	__typeof__(PMIx_Fence) *fence;
	__typeof__(PMIx_Get) *get;
	__typeof__(PMIx_Value_destruct) *value_destruct;
	__typeof__(PMIx_Error_string) *error_string;
} px;

/* @rc of PMIx's @call as an errno, said on standard error if it failed. */
static int px_err(const char *call, pmix_status_t rc)
{
	if (rc == PMIX_SUCCESS)
		return 0;
	fprintf(stderr, "ubshmem: %s: %s\n", call, px.error_string(rc));
	return -EPROTO;
}

static void px_release(pmix_value_t *v)
{
	px.value_destruct(v);
	free(v);
}

/* Load libpmix and find its functions. */
static int px_load(void)
{
	void *lib;

	/* no program interpreter: static, where dlopen() of libpmix crashes */
	if (!getauxval(AT_BASE)) {
		fprintf(stderr, "ubshmem: started by mpirun, but a statically linked program cannot load %s: link libubshmem dynamically\n",
			PMIX_LIB);
		return -ENOTSUP;
	}
	lib = dlopen(PMIX_LIB, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		fprintf(stderr, "ubshmem: started by mpirun: %s\n", dlerror());
		return -ENOTSUP;
	}
	/* libpmix stays loaded: its threads and handlers outlive finalize */
	px.init = dlsym(lib, "PMIx_Init");
	px.finalize = dlsym(lib, "PMIx_Finalize");
	px.put = dlsym(lib, "PMIx_Put");
	px.commit = dlsym(lib, "PMIx_Commit");
	px.fence = dlsym(lib, "PMIx_Fence");
	px.get = dlsym(lib, "PMIx_Get");
	px.value_destruct = dlsym(lib, "PMIx_Value_destruct");
	px.error_string = dlsym(lib, "PMIx_Error_string");
	if (!px.init || !px.finalize || !px.put || !px.commit || !px.fence ||
	    !px.get || !px.value_destruct || !px.error_string) {
		fprintf(stderr, "ubshmem: %s lacks a PMIx function\n",
			PMIX_LIB);
		return -ENOTSUP;
	}
	return 0;
}

int shm_pmix_start(int *rank, int *n)
{
	pmix_proc_t job;
	pmix_value_t *v;
	int err;

	err = px_load();
	if (!err)
		err = px_err("PMIx_Init", px.init(&px.me, NULL, 0));
	if (err)
		return err;
	job = px.me;
	job.rank = PMIX_RANK_WILDCARD;
	err = px_err("PMIx_Get(" PMIX_JOB_SIZE ")",
		     px.get(&job, PMIX_JOB_SIZE, NULL, 0, &v));
	if (err)
		goto fail;
	if (v->type != PMIX_UINT32 || !v->data.uint32 ||
	    v->data.uint32 > 1 << 20 || px.me.rank >= v->data.uint32)
		err = -EPROTO;
	*n = v->data.uint32;
	*rank = px.me.rank;
	px_release(v);
	if (!err)
		return 0;
fail:
	px.finalize(NULL, 0);
	return err;
}

int shm_pmix_allgather(int n, const void *part, uint32_t len, void *all)
{
	pmix_value_t val = { .type = PMIX_BYTE_OBJECT }, *got;
	pmix_info_t collect;
	pmix_proc_t peer = px.me;
	char key[PMIX_MAX_KEYLEN + 1];
	int err = 0;

	/* a key per round: a round's parts never mix with another's */
	snprintf(key, sizeof(key), "ubshmem.round.%u", px.round++);
	if (len) {
		val.data.bo.bytes = (char *)part;
		val.data.bo.size = len;
		err = px_err("PMIx_Put", px.put(PMIX_GLOBAL, key, &val));
		if (!err)
			err = px_err("PMIx_Commit", px.commit());
		if (err)
			return err;
	}
	memset(&collect, 0, sizeof(collect));
	snprintf(collect.key, sizeof(collect.key), "%s", PMIX_COLLECT_DATA);
	collect.value.type = PMIX_BOOL;
	collect.value.data.flag = len != 0;
	/* no procs: every rank of this job */
	err = px_err("PMIx_Fence", px.fence(NULL, 0, &collect, 1));
	for (peer.rank = 0; !err && len && peer.rank < (pmix_rank_t)n;
	     peer.rank++) {
		err = px_err("PMIx_Get", px.get(&peer, key, NULL, 0, &got));
		if (err)
			break;
		if (got->type == PMIX_BYTE_OBJECT && got->data.bo.size == len)
			memcpy((char *)all + (size_t)peer.rank * len,
			       got->data.bo.bytes, len);
		else
			err = -EPROTO;
		px_release(got);
	}
	return err;
}

void shm_pmix_end(void)
{
	px.finalize(NULL, 0);
}
