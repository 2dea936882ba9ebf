// SPDX-License-Identifier: MIT
/*
 * hello: every PE writes a greeting into its right neighbour's symmetric
 * buffer with a signal, waits for the greeting of its left neighbour and
 * prints it with the fabric model's time. Run it with ubrun -n 4 ./hello.
 */
#include <stdio.h>
#include <ubshmem.h>

int main(void)
{
	char text[64], *msg;
	uint64_t *sig;
	int me, n;

	if (ubshmem_init())
		return 1;
	me = ubshmem_my_pe();
	n = ubshmem_n_pes();
	msg = ubshmem_malloc(sizeof(text));	/* collective: same offset everywhere */
	sig = ubshmem_malloc(sizeof(*sig));
	snprintf(text, sizeof(text), "hello from PE %d on %s", me, ubshmem_entity());
	ubshmem_put_signal(msg, text, sizeof(text), sig, 1, UBSHMEM_SIGNAL_SET,
			   (me + 1) % n);
	ubshmem_signal_wait_until(sig, UBSHMEM_CMP_EQ, 1, NULL);
	printf("PE %d of %d got \"%s\" at %llu ns of modeled time\n", me, n, msg,
	       (unsigned long long)ubshmem_model_ns());
	ubshmem_free(sig);
	ubshmem_free(msg);
	return ubshmem_finalize() ? 1 : 0;
}
