// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libubshmem's remote memory access: put and get, blocking and not, and
 * put with signal, as WRITE, READ, WRITE_NOTIFY and ATOMIC entries of the
 * PE's queue. A buffer outside the heap goes through the staging buffer
 * (queue.c), so no entry is longer than UBSHMEM_STAGING bytes.
 */
#include <errno.h>
#include <string.h>

#include "internal.h"

static size_t chunk(size_t left)
{
	return left < UBSHMEM_STAGING ? left : UBSHMEM_STAGING;
}

/*
 * WRITE entries of @nbytes from @src to byte @doff of @pe's heap; with
 * @notify, the last is a WRITE_NOTIFY adding @add to that remote word.
 */
static void put_entries(uint64_t doff, const char *src, size_t nbytes,
			int pe, const uint64_t *notify, uint64_t add)
{
	uint64_t soff, local;
	int in_heap = !shm_heap_offset(src, nbytes, &soff);
	struct ubfab_sqe *sqe;

	while (nbytes) {
		size_t len = chunk(nbytes);

		if (in_heap)
			local = shm->heap_off + soff;
		else
			memcpy(shm_stage(len, &local), src, len);
		sqe = shm_sqe();
		if (notify && len == nbytes)
			ubfab_prep_write_notify(sqe, local, shm_remote(pe, doff),
						len, *notify, add);
		else
			ubfab_prep_write(sqe, local, shm_remote(pe, doff), len);
		shm_post(sqe);
		src += len;
		soff += len;
		doff += len;
		nbytes -= len;
	}
}

int ubshmem_put_nbi(void *dest, const void *src, size_t nbytes, int pe)
{
	uint64_t doff;

	if (shm_check_pe(pe) || shm_heap_offset(dest, nbytes, &doff) ||
	    (!src && nbytes))
		return -EINVAL;
	put_entries(doff, src, nbytes, pe, NULL, 0);
	return 0;
}

int ubshmem_get_nbi(void *dest, const void *src, size_t nbytes, int pe)
{
	uint64_t soff, doff, local;
	int in_heap, err;
	char *d = dest;
	struct ubfab_sqe *sqe;

	if (shm_check_pe(pe) || shm_heap_offset(src, nbytes, &soff) ||
	    (!dest && nbytes))
		return -EINVAL;
	in_heap = !shm_heap_offset(dest, nbytes, &doff);
	while (nbytes) {
		size_t len = chunk(nbytes);

		if (in_heap) {
			local = shm->heap_off + doff;
		} else {
			err = shm_copyout_add(d, shm_stage(len, &local), len);
			if (err)
				return err;
		}
		sqe = shm_sqe();
		ubfab_prep_read(sqe, local, shm_remote(pe, soff), len);
		shm_post(sqe);
		d += len;
		doff += len;
		soff += len;
		nbytes -= len;
	}
	return 0;
}

int ubshmem_put(void *dest, const void *src, size_t nbytes, int pe)
{
	int err = ubshmem_put_nbi(dest, src, nbytes, pe);

	return err ? err : ubshmem_quiet();
}

int ubshmem_get(void *dest, const void *src, size_t nbytes, int pe)
{
	int err = ubshmem_get_nbi(dest, src, nbytes, pe);

	return err ? err : ubshmem_quiet();
}

int ubshmem_put_signal(void *dest, const void *src, size_t nbytes,
		       uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
{
	uint64_t doff, soff, sig;
	struct ubfab_sqe *sqe;

	if (shm_check_pe(pe) || shm_heap_offset(dest, nbytes, &doff) ||
	    (!src && nbytes) || shm_heap_offset(sig_addr, 8, &soff) ||
	    soff % 8 ||
	    (sig_op != UBSHMEM_SIGNAL_SET && sig_op != UBSHMEM_SIGNAL_ADD))
		return -EINVAL;
	sig = shm_remote(pe, soff);
	if (sig_op == UBSHMEM_SIGNAL_ADD && nbytes) {
		put_entries(doff, src, nbytes, pe, &sig, signal);
	} else {
		/* the queue runs the atomic once every WRITE has completed */
		put_entries(doff, src, nbytes, pe, NULL, 0);
		sqe = shm_sqe();
		ubfab_prep_atomic(sqe, sig_op == UBSHMEM_SIGNAL_ADD ?
				  UBFAB_ATOMIC_FETCH_ADD : UBFAB_ATOMIC_SWAP,
				  sig, signal, 0);
		shm_post(sqe);
	}
	return shm_drain(0, NULL);
}
