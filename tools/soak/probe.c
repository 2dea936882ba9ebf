// SPDX-License-Identifier: GPL-2.0-only
/*
 * tools/soak/probe.c - the soak run's latency probe: a process acting as
 * two NPU dies on different nodes, which every SOAK_PROBE_MS posts one
 * 64-byte WRITE from one to the other on a doorbell queue and records,
 * per minute of the run, how long it took from submit to completion
 * (wall time, microseconds). Probes a fault made fail (NO_ROUTE while a
 * plane is down) are counted, not timed. The fault process leaves the
 * probe's entities alone; plane flaps reach it.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "soak.h"

#define LEN	64
#define TOKEN	0x9e0be5u

int soak_probe(struct soak_shared *sh, const struct ubfab_fabric_info *fab)
{
	struct soak_slot *s = soak_probe_slot(sh);
	struct ubfab_dev *tgt = NULL, *ini = NULL;
	struct ubfab_queue *q = NULL;
	struct ubfab_import imp;
	struct ubfab_cqe *cqe, c;
	char name[UBFAB_NAME_MAX];
	uint64_t toff, ioff, t0;
	uint32_t tid, min;
	int err;

	snprintf(name, sizeof(name), "npu%u", fab->npus / 2 + 1);
	err = ubfab_dev_open(name, &tgt) ?: ubfab_dev_open("npu1", &ini) ?:
	      ubfab_queue_create(ini, NULL, &q) ?:
	      ubfab_dev_alloc(tgt, 4096, &toff) ?:
	      ubfab_dev_alloc(ini, 4096, &ioff) ?:
	      ubfab_dev_export(tgt, toff, 4096, UBFAB_SEG_WRITE, TOKEN, &tid) ?:
	      ubfab_dev_import(ini, ubfab_dev_eid(tgt), tid, TOKEN,
			       UBFAB_SEG_WRITE, &imp);
	if (err) {
		snprintf(s->err, sizeof(s->err), "probe setup: %s",
			 strerror(-err));
		s->setup_failures++;
		return 3;
	}
	s->eid[0] = ubfab_dev_eid(tgt);
	s->eid[1] = ubfab_dev_eid(ini);
	while (!sh->stop) {
		soak_sleep_ms(SOAK_PROBE_MS);
		min = (soak_now_ns() - sh->start_ns) / 60000000000ULL;
		if (min >= SOAK_MAX_MINUTES)
			break;
		ubfab_prep_write(ubfab_queue_get_sqe(q), ioff,
				 ubfab_import_addr(&imp, 0), LEN);
		s->inflight_bytes += LEN;
		t0 = soak_now_ns();
		ubfab_queue_submit(q);
		do {
			err = ubfab_queue_wait_cqe(q, &cqe, SOAK_WAIT_MS);
		} while (err == -EINTR);
		if (err) {
			s->hangs++;
			return 3;
		}
		c = *cqe;
		ubfab_queue_cqe_seen(q);
		s->ops[SOP_PROBE][soak_status(c.status)]++;
		s->sent_bytes += c.bytes;
		s->inflight_bytes -= LEN;
		if (c.status != UBFAB_CQE_OK) {
			sh->probe_fail[min]++;
			ubfab_queue_reset(q);
			continue;
		}
		if (sh->probe_n[min] < SOAK_PROBE_PER_MIN)
			sh->probe_us[min][sh->probe_n[min]++] =
				(soak_now_ns() - t0) / 1000;
	}
	ubfab_queue_destroy(q);
	ubfab_dev_close(ini);
	ubfab_dev_close(tgt);
	return 0;
}
