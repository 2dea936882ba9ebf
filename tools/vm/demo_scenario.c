// SPDX-License-Identifier: GPL-2.0-only
/*
 * tools/vm/demo_scenario.c - `make demo`'s short scenario on the cm384
 * fabric, in the guest: from npu0, a 512-byte WRITE and READ to an NPU
 * die of another chip of its node and to one of another node, with their
 * modeled latency; a large WRITE's modeled bandwidth, on as many queues
 * as the die has DMA engines (one queue has one); an 8-to-1 incast;
 * the large WRITE again with a plane down; then the bytes each plane
 * carried. Printed as a table in modeled time with its unit, the
 * published CloudMatrix384 figure beside (tools/common/published.h).
 * Each row runs on fresh queues whose clocks start 1 ms of modeled time
 * after the previous row ended, so that no row waits for the links an
 * earlier one used. The large transfers run on timing-only queues
 * (UBFAB_QUEUE_TIMING): modeled, no payload copied.
 *
 * Usage: demo_scenario
 * Exit status: 0, or 1 if a step failed (printed on stderr).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "libubfab.h"
#include "published.h"

#define MiB		(1024UL * 1024)
#define LAT_BYTES	512
/*
 * The large WRITE: one entry of BIG_BYTES on each of BIG_QUEUES queues,
 * posted together: a queue has one of the die's DMA engines (dma-engines,
 * 4 in profile cm384), which cannot fill its 7 links; the four can.
 */
#define BIG_BYTES	(16 * MiB)
#define BIG_QUEUES	4
#define INCAST		8
/* The plane the scenario takes down for a while. */
#define DOWN_PLANE	3
/* Modeled ns between one row's end and the next row's start. */
#define EPOCH_GAP_NS	1000000
/* How long a completion may take to come, in real time. */
#define WAIT_MS		20000
#define TOKEN		0x64656d6fU	/* "demo" */
#define RIGHTS		(UBFAB_SEG_READ | UBFAB_SEG_WRITE)

/*
 * An entity of the scenario: its device, a BIG_BYTES range of its memory
 * (exported, for the targets), and npu0's or the senders' import of it.
 */
struct ent {
	const char *name;
	struct ubfab_dev *dev;
	struct ubfab_entity_info info;
	uint64_t off;
	uint32_t token_id;
};

/* npu0, the initiator; an NPU die on chip 1 of node 0; one of node 1. */
static struct ent self = { .name = "npu0" };
static struct ent near = { .name = "npu2" };
static struct ent far = { .name = "npu16" };
/* The incast's senders: a die on each of nodes 1 to 8, into npu0. */
static struct ent senders[INCAST] = {
	{ .name = "npu16" }, { .name = "npu32" }, { .name = "npu48" },
	{ .name = "npu64" }, { .name = "npu80" }, { .name = "npu96" },
	{ .name = "npu112" }, { .name = "npu128" },
};

/* Where the next row's queues start their modeled clock. */
static uint64_t epoch_ns;

static int fail(const char *what, const char *name, int err)
{
	fprintf(stderr, "demo_scenario: %s %s: %s\n", what, name,
		strerror(-err));
	return err;
}

/* Open @e, allocate its range and, with @export, export it. */
static int ent_open(struct ubfab_nl *nl, struct ent *e, int export)
{
	int err;

	err = ubfab_dev_open(e->name, &e->dev);
	if (!err)
		err = ubfab_entity_get(nl, ubfab_dev_eid(e->dev), &e->info);
	if (!err)
		err = ubfab_dev_alloc(e->dev, BIG_BYTES, &e->off);
	if (!err && export)
		err = ubfab_dev_export(e->dev, e->off, BIG_BYTES, RIGHTS,
				       TOKEN, &e->token_id);
	return err ? fail("setting up", e->name, err) : 0;
}

/* @from's import of @to's range. */
static int import(const struct ent *from, const struct ent *to,
		  struct ubfab_import *imp)
{
	int err = ubfab_dev_import(from->dev, to->info.eid, to->token_id,
				   TOKEN, RIGHTS, imp);

	return err ? fail("importing the range of", to->name, err) : 0;
}

/* A fresh queue on @from (@flags), its clock moved on to epoch_ns. */
static int fresh_queue(const struct ent *from, uint32_t flags,
		       struct ubfab_queue **qp)
{
	struct ubfab_queue_attr attr = UBFAB_QUEUE_ATTR_INIT;
	int err;

	attr.flags = flags;
	err = ubfab_queue_create(from->dev, &attr, qp);
	if (err)
		return fail("creating a queue on", from->name, err);
	err = ubfab_queue_clock(*qp, epoch_ns, NULL);
	if (err) {
		ubfab_queue_destroy(*qp);
		return fail("moving the modeled clock of a queue on",
			    from->name, err);
	}
	return 0;
}

/*
 * Wait for the next completion of @q, of @len bytes; *end_ns: its
 * model_ns.
 */
static int reap(struct ubfab_queue *q, const char *name, uint32_t len,
		uint64_t *end_ns)
{
	struct ubfab_cqe *cqe;
	int err = ubfab_queue_wait_cqe(q, &cqe, WAIT_MS);

	if (err)
		return fail("waiting for a completion on", name, err);
	if (cqe->status != UBFAB_CQE_OK || cqe->bytes != len) {
		fprintf(stderr, "demo_scenario: an entry of %s completed with status %u, %u of %u bytes\n",
			name, cqe->status, cqe->bytes, len);
		return -EIO;
	}
	*end_ns = cqe->model_ns;
	ubfab_queue_cqe_seen(q);
	return 0;
}

/*
 * One entry of @opcode, @len bytes, between npu0's range and the start of
 * @imp, on each of @queues fresh queues (@flags), all posted before any
 * is waited for; *ns: modeled ns from the queues' start to the last
 * completion.
 */
static int run(const struct ubfab_import *imp, uint8_t opcode, uint32_t len,
	       unsigned int queues, uint32_t flags, uint64_t *ns)
{
	struct ubfab_queue *q[BIG_QUEUES] = { NULL };
	uint64_t end = epoch_ns, last = epoch_ns;
	unsigned int i;
	int err = 0;

	for (i = 0; !err && i < queues; i++) {
		err = fresh_queue(&self, flags, &q[i]);
		if (err)
			break;
		ubfab_prep_entry(ubfab_queue_get_sqe(q[i]), opcode, len,
				 self.off, ubfab_import_addr(imp, 0), 0);
		err = ubfab_queue_submit(q[i]);
		if (err < 0)
			fail("submitting on", self.name, err);
		else
			err = 0;
	}
	for (i = 0; !err && i < queues; i++) {
		err = reap(q[i], self.name, len, &end);
		last = end > last ? end : last;
	}
	for (i = 0; i < queues; i++)
		if (q[i])
			ubfab_queue_destroy(q[i]);
	if (err < 0)
		return err;
	*ns = last - epoch_ns;
	epoch_ns = last + EPOCH_GAP_NS;
	return 0;
}

/* Bytes per modeled nanosecond are GB/s (10^9 bytes/s). */
static double gbps(uint64_t bytes, uint64_t ns)
{
	return ns ? (double)bytes / ns : 0;
}

/* One row: what, the path, the modeled figure and the published one. */
static void row(const char *what, const struct ent *to, const char *model,
		const char *pub)
{
	char path[32];

	snprintf(path, sizeof(path), "%s -> %s", self.name, to->name);
	printf("  %-27s %-21s %-21s %s\n", what, path, model, pub);
}

/* The 512-byte WRITE and READ to @to (@node: same or other node). */
static int latency_rows(const struct ubfab_import *imp, const struct ent *to,
			enum model_node node)
{
	static const char *const where[NR_NODES] = { "intra", "inter" };
	static const char *const op_name[NR_MODEL_OPS] = { "read", "write" };
	static const uint8_t opcode[NR_MODEL_OPS] = {
		UBFAB_OP_READ, UBFAB_OP_WRITE,
	};
	char what[48], model[40], pub[40];
	int op, err;
	uint64_t ns;

	for (op = MODEL_WRITE; op >= MODEL_READ; op--) {
		err = run(imp, opcode[op], LAT_BYTES, 1, 0, &ns);
		if (err)
			return err;
		snprintf(what, sizeof(what), "%s-node %s %d B", where[node],
			 op_name[op], LAT_BYTES);
		snprintf(model, sizeof(model), "%7.2f us", ns / 1e3);
		snprintf(pub, sizeof(pub), "%.1f us",
			 published[FIG_LATENCY][TARGET_NPU][op][node] / 1e3);
		row(what, to, model, pub);
	}
	return 0;
}

/*
 * The 8-to-1 incast: each sender's fresh timing-only queue starts at the
 * same modeled time; one BIG_BYTES WRITE of each, posted in turn, each
 * completed before the next is posted (the host's order is the same in
 * every run). The receiver's ports take them one after another.
 */
static int incast_row(struct ubfab_nl *nl, uint64_t alone_ns)
{
	struct ubfab_queue *q[INCAST] = { NULL };
	struct ubfab_import imp[INCAST];
	uint64_t end, first = UINT64_MAX, last = 0;
	char what[48], model[40], pub[40];
	int i, err = 0;

	for (i = 0; !err && i < INCAST; i++)
		err = ent_open(nl, &senders[i], 0) ?:
		      import(&senders[i], &self, &imp[i]) ?:
		      fresh_queue(&senders[i], UBFAB_QUEUE_TIMING, &q[i]);
	for (i = 0; !err && i < INCAST; i++) {
		ubfab_prep_write(ubfab_queue_get_sqe(q[i]), senders[i].off,
				 ubfab_import_addr(&imp[i], 0), BIG_BYTES);
		err = ubfab_queue_submit(q[i]);
		if (err < 0) {
			fail("submitting on", senders[i].name, err);
			break;
		}
		err = reap(q[i], senders[i].name, BIG_BYTES, &end);
		first = end < first ? end : first;
		last = end > last ? end : last;
	}
	for (i = 0; i < INCAST; i++) {
		ubfab_queue_destroy(q[i]);
		ubfab_dev_close(senders[i].dev);
	}
	if (err < 0)
		return err;
	snprintf(what, sizeof(what), "%d-to-1 incast, %lu MiB each", INCAST,
		 BIG_BYTES / MiB);
	snprintf(model, sizeof(model), "%7.1f us first done",
		 (first - epoch_ns) / 1e3);
	snprintf(pub, sizeof(pub), "(one alone: %.1f us)", alone_ns / 1e3);
	printf("  %-27s %-21s %-21s %s\n", what, "npu16..npu128 -> npu0",
	       model, pub);
	snprintf(model, sizeof(model), "%7.1f us last done",
		 (last - epoch_ns) / 1e3);
	printf("  %-27s %-21s %s\n", "", "", model);
	snprintf(model, sizeof(model), "%7.1f GB/s in all",
		 gbps(INCAST * BIG_BYTES, last - epoch_ns));
	snprintf(pub, sizeof(pub), "%.1f GB/s each, 1/%d",
		 gbps(BIG_BYTES, last - epoch_ns), INCAST);
	printf("  %-27s %-21s %-21s %s\n", "", "", model, pub);
	epoch_ns = last + EPOCH_GAP_NS;
	return 0;
}

/* The large WRITE to @far with plane DOWN_PLANE down, against @up_ns. */
static int plane_down_row(struct ubfab_nl *nl, const struct ubfab_import *imp,
			  uint32_t planes, uint64_t up_ns)
{
	char what[48], model[40], pub[40];
	uint64_t ns;
	int err;

	err = ubfab_plane_set_state(nl, DOWN_PLANE, UBFAB_STATE_DOWN);
	if (err)
		return fail("taking down a plane:", ubfab_nl_errmsg(nl), err);
	err = run(imp, UBFAB_OP_WRITE, BIG_BYTES, BIG_QUEUES,
		  UBFAB_QUEUE_TIMING, &ns);
	if (ubfab_plane_set_state(nl, DOWN_PLANE, UBFAB_STATE_UP))
		fprintf(stderr, "demo_scenario: plane %d stays down\n",
			DOWN_PLANE);
	if (err)
		return err;
	snprintf(what, sizeof(what), "same, plane %d of %u down",
		 DOWN_PLANE, planes);
	snprintf(model, sizeof(model), "%7.1f GB/s (x%.2f)",
		 gbps(BIG_QUEUES * BIG_BYTES, ns), (double)up_ns / ns);
	snprintf(pub, sizeof(pub), "x%u/%u = x%.2f expected", planes - 1,
		 planes, (double)(planes - 1) / planes);
	row(what, &far, model, pub);
	return 0;
}

static int plane_bytes(const struct ubfab_plane_info *p, void *arg)
{
	(void)arg;
	printf("  plane %u  %-4s %10.1f MiB %10.1f MiB %8llu\n", p->id,
	       p->state == UBFAB_STATE_UP ? "up" : "down",
	       (double)p->stats.tx_bytes / MiB,
	       (double)p->stats.rx_bytes / MiB,
	       (unsigned long long)p->stats.tx_ops);
	return 0;
}

static int scenario(struct ubfab_nl *nl)
{
	struct ubfab_fabric_info fab;
	struct ubfab_import near_imp, far_imp;
	char what[48], model[40], pub[40];
	uint64_t bw_ns, alone_ns;
	int err;

	err = ubfab_fabric_get(nl, &fab);
	if (err)
		return fail("reading", "the fabric", err);
	err = ent_open(nl, &self, 1) ?: ent_open(nl, &near, 1) ?:
	      ent_open(nl, &far, 1) ?: import(&self, &near, &near_imp) ?:
	      import(&self, &far, &far_imp);
	if (err)
		return err;

	printf("profile %s: %u nodes, %u NPU dies, %u planes; %s on node %u chip %u die %u; %s on node %u chip %u, %s on node %u\n",
	       fab.profile, fab.nodes, fab.npus, fab.planes, self.name,
	       self.info.node, self.info.chip, self.info.die, near.name,
	       near.info.node, near.info.chip, far.name, far.info.node);
	printf("modeled time (the model's clock, not the VM's), one way, per die\n\n");
	printf("  %-27s %-21s %-21s %s\n", "", "path", "modeled",
	       "published (or yardstick)");
	err = latency_rows(&near_imp, &near, NODE_SAME) ?:
	      latency_rows(&far_imp, &far, NODE_OTHER);
	if (err)
		return err;

	err = run(&far_imp, UBFAB_OP_WRITE, BIG_BYTES, BIG_QUEUES,
		  UBFAB_QUEUE_TIMING, &bw_ns);
	if (err)
		return err;
	snprintf(what, sizeof(what), "%u queues, %lu MiB write each",
		 BIG_QUEUES, BIG_BYTES / MiB);
	snprintf(model, sizeof(model), "%7.1f GB/s",
		 gbps(BIG_QUEUES * BIG_BYTES, bw_ns));
	snprintf(pub, sizeof(pub), "%u GB/s",
		 published[FIG_BANDWIDTH][TARGET_NPU][MODEL_WRITE][NODE_OTHER]);
	row(what, &far, model, pub);

	/* one BIG_BYTES WRITE alone, the incast's yardstick */
	err = run(&far_imp, UBFAB_OP_WRITE, BIG_BYTES, 1, UBFAB_QUEUE_TIMING,
		  &alone_ns) ?:
	      incast_row(nl, alone_ns) ?:
	      plane_down_row(nl, &far_imp, fab.planes, bw_ns);
	if (err)
		return err;

	printf("\nbytes each plane carried (its ports' counters, since the module was loaded)\n");
	printf("  %-13s %14s %14s %8s\n", "", "tx", "rx", "tx ops");
	err = ubfab_plane_dump(nl, plane_bytes, NULL);
	return err ? fail("reading", "the planes", err) : 0;
}

int main(void)
{
	struct ubfab_nl *nl;
	int err;

	err = ubfab_nl_open(&nl);
	if (err)
		return fail("opening", "a netlink session", err), 1;
	err = scenario(nl);
	ubfab_dev_close(self.dev);
	ubfab_dev_close(near.dev);
	ubfab_dev_close(far.dev);
	ubfab_nl_close(nl);
	return err ? 1 : 0;
}
