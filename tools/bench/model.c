// SPDX-License-Identifier: GPL-2.0-only
/*
 * ubbench model: the fabric model against the published figures. The
 * importer (an NPU die) READs from and WRITEs to four peers found by
 * topology (an NPU die of another chip of its node, an NPU die of another
 * node, a CPU of its node, a CPU of another node) and takes the modeled
 * times its completions report: the latency of a 512-byte entry and the
 * one-way bandwidth of large ones on as many queues together as the die
 * has DMA engines, the 16 cells of the CloudMatrix384 table, each beside the published figure (tools/common/published.h)
 * with its error; their table and their JSON, and the "model" object of
 * the JSON, which spread.c's figures join.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "published.h"
#include "ubbench.h"

/* Latency: one LAT_BYTES entry on each of LAT_QUEUES fresh queues. */
#define LAT_BYTES	512
#define LAT_QUEUES	3
/*
 * Bandwidth: BW_OPS entries of BW_BYTES on each of BW_QUEUES fresh
 * queues, posted together: one queue has one of the die's DMA engines
 * (dma-engines, 4 in profile cm384), which cannot fill its 7 links.
 */
#define BW_BYTES	(16 * MiB)
#define BW_OPS		1
#define BW_QUEUES	4
/* The initiator's range and each peer's segment. */
#define MREGION		BW_BYTES
/* How long a completion may take to come, in real time. */
#define WAIT_MS		20000

static const char *const target_names[NR_TARGETS] = { "NPU", "CPU" };
static const char *const target_keys[NR_TARGETS] = { "npu", "cpu" };
static const char *const op_keys[NR_MODEL_OPS] = { "read", "write" };
static const uint8_t op_codes[NR_MODEL_OPS] = {
	UBFAB_OP_READ, UBFAB_OP_WRITE,
};

static const char *const node_keys[NR_NODES] = { "same", "other" };
static const char *const figure_keys[NR_MODEL_FIGS] = {
	"latency", "bandwidth",
};

static const char *const figure_units[NR_MODEL_FIGS] = { "ns", "GB/s" };

/* A peer: the entity, and the importer's import of its segment. */
struct peer {
	struct ubfab_entity_info info;
	bool found;
	struct ubfab_dev *dev;
	struct ubfab_import imp;
};

/* One cell: the modeled figure, its error against the published one. */
struct cell {
	double model;		/* ns or GB/s */
	uint64_t model_ns;	/* bandwidth: modeled time of the stream */
	double error_pct;
	bool within;
};

struct model_bench {
	char profile[UBFAB_NAME_MAX];		/* the parameters' profile */
	struct ubfab_entity_info self;		/* the importer */
	uint64_t loc_off;			/* its range */
	struct peer peers[NR_TARGETS][NR_NODES];
	struct cell cells[NR_MODEL_FIGS][NR_TARGETS][NR_MODEL_OPS][NR_NODES];
	unsigned int missed;			/* cells beyond the tolerance */
	uint64_t epoch_ns;			/* the next run's start */
};

/*
 * Modeled ns between one run's end and the next one's start: the links
 * the model reserved for the one are idle again, so that no run waits
 * for another's (contention, Documentation/model.rst).
 */
#define EPOCH_GAP_NS	1000000

/*
 * ubfab_entity_dump() callback: the first entity, in EID order, of each
 * kind of peer. The NPU die of the same node is on another chip than the
 * importer, so that the path crosses the L1 switch, not the die-to-die
 * link.
 */
static int peer_match(const struct ubfab_entity_info *e, void *arg)
{
	struct model_bench *mb = arg;
	enum model_target t;
	enum model_node n;
	struct peer *p;

	if (e->kind == UBFAB_ENTITY_NPU)
		t = TARGET_NPU;
	else if (e->kind == UBFAB_ENTITY_CPU)
		t = TARGET_CPU;
	else
		return 0;
	n = e->node == mb->self.node ? NODE_SAME : NODE_OTHER;
	if (t == TARGET_NPU && n == NODE_SAME && e->chip == mb->self.chip)
		return 0;
	p = &mb->peers[t][n];
	if (!p->found) {
		p->info = *e;
		p->found = true;
	}
	return 0;
}

/*
 * The model's profile: "cm384", "custom" (a parameter was set), or
 * "unknown" from a module without parameters at run time.
 */
static int model_profile(struct ubfab_nl *nl, struct model_bench *mb)
{
	struct ubfab_model *m;
	int err = ubfab_model_get(nl, &m);

	if (err == -EOPNOTSUPP) {
		snprintf(mb->profile, sizeof(mb->profile), "unknown");
		return 0;
	}
	if (err) {
		fail("the model's parameters", err);
		return err;
	}
	snprintf(mb->profile, sizeof(mb->profile), "%s", m->profile);
	ubfab_model_free(m);
	return 0;
}

/* The importer, which must be an NPU die, and its four peers. */
static int find_peers(struct ubfab_nl *nl, struct bench *b)
{
	static const char *const wanted[NR_TARGETS][NR_NODES] = {
		{ "NPU die on another chip of its node",
		  "NPU die on another node" },
		{ "CPU on its node", "CPU on another node" },
	};
	struct model_bench *mb = b->model;
	unsigned int t, n;
	int err;

	err = ubfab_entity_get(nl, ubfab_dev_eid(b->importer), &mb->self);
	if (err) {
		fail("the importer's topology", err);
		return err;
	}
	if (mb->self.kind != UBFAB_ENTITY_NPU) {
		fprintf(stderr, "ubbench: model: the importer %s is not an NPU die: the published table is an NPU's\n",
			mb->self.name);
		return -EINVAL;
	}
	err = entities_dump(nl, peer_match, mb);
	if (err)
		return err;
	for (t = 0; t < NR_TARGETS; t++) {
		for (n = 0; n < NR_NODES; n++) {
			if (mb->peers[t][n].found)
				continue;
			fprintf(stderr, "ubbench: model: %s: the topology has no %s\n",
				mb->self.name, wanted[t][n]);
			err = -ENODEV;
		}
	}
	return err;
}

/*
 * @p's device, a segment of MREGION bytes it exports, and the importer's
 * import of it.
 */
static int peer_setup(struct bench *b, struct peer *p)
{
	const char *what = "open";
	uint32_t token_id;
	uint64_t off;
	int err;

	err = ubfab_dev_open(p->info.name, &p->dev);
	if (!err) {
		what = "alloc on";
		err = ubfab_dev_alloc(p->dev, MREGION, &off);
	}
	if (!err) {
		what = "export on";
		err = ubfab_dev_export(p->dev, off, MREGION, RIGHTS_RW,
				       TOKEN_VALUE, &token_id);
	}
	if (!err) {
		what = "import of";
		err = ubfab_dev_import(b->importer, p->info.eid, token_id,
				       TOKEN_VALUE, RIGHTS_RW, &p->imp);
	}
	if (err)
		fprintf(stderr, "ubbench: model: %s %s: %s\n", what,
			p->info.name, strerror(-err));
	return err;
}

/*
 * The model's profile, the peers, the importer's range, each peer's
 * segment and its import.
 */
static int model_setup(struct bench *b)
{
	struct model_bench *mb = b->model;
	struct ubfab_nl *nl;
	unsigned int t, n;
	int err;

	err = nl_open(&nl);
	if (err)
		return err;
	err = model_profile(nl, mb);
	if (!err)
		err = find_peers(nl, b);
	ubfab_nl_close(nl);
	if (err)
		return err;
	err = ubfab_dev_alloc(b->importer, MREGION, &mb->loc_off);
	if (err) {
		fail("alloc of the importer's range", err);
		return err;
	}
	for (t = 0; !err && t < NR_TARGETS; t++)
		for (n = 0; !err && n < NR_NODES; n++)
			err = peer_setup(b, &mb->peers[t][n]);
	return err;
}

/*
 * Posts @ops entries of @opcode, @length bytes each, from the importer's
 * range to the start of @p's segment (or back), on @q, whose clock it
 * first moves to the run's start; *start: that start. 0 or -errno
 * (printed).
 */
static int post_entries(struct bench *b, const struct peer *p,
			struct ubfab_queue *q, uint8_t opcode, uint32_t length,
			unsigned int ops, uint64_t *start)
{
	unsigned int i;
	int err;

	err = ubfab_queue_clock(q, b->model->epoch_ns, start);
	if (err) {
		fprintf(stderr, "ubbench: model: reading a queue's modeled clock: %s%s\n",
			strerror(-err),
			err == -ENOTTY ? " (a module without the model?)" : "");
		return err;
	}
	for (i = 0; i < ops; i++) {
		ubfab_prep_entry(ubfab_queue_get_sqe(q), opcode, length,
				 b->model->loc_off,
				 ubfab_import_addr(&p->imp, 0), 0);
	}
	err = ubfab_queue_submit(q);
	if (err < 0) {
		fail("queue submission", err);
		return err;
	}
	return 0;
}

/*
 * Waits for @ops entries to @p on @q, of @length bytes each; *end: the
 * last one's model_ns. 0 or -errno (printed).
 */
static int reap_entries(const struct peer *p, struct ubfab_queue *q,
			uint32_t length, unsigned int ops, uint64_t *end)
{
	struct ubfab_cqe *cqe;
	unsigned int i;
	int err;

	for (i = 0; i < ops; i++) {
		err = ubfab_queue_wait_cqe(q, &cqe, WAIT_MS);
		if (err) {
			fail("waiting for a completion", err);
			return err;
		}
		if (cqe->status != UBFAB_CQE_OK || cqe->bytes != length) {
			fprintf(stderr, "ubbench: model: an entry to %s completed with status %u, %u of %u bytes\n",
				p->info.name, cqe->status, cqe->bytes, length);
			return -EIO;
		}
		*end = cqe->model_ns;
		ubfab_queue_cqe_seen(q);
	}
	return 0;
}

/*
 * Runs @ops entries of @opcode, @length bytes each, from the importer's
 * range to the start of @p's segment (or back), on each of @queues fresh
 * queues, all posted before any is waited for, their clocks starting
 * together after every earlier run; *ns: the modeled nanoseconds from
 * that start to the last completion (model_ns). 0 or -errno (printed).
 */
static int run_entries(struct bench *b, const struct peer *p, uint8_t opcode,
		       uint32_t length, unsigned int queues, unsigned int ops,
		       uint64_t *ns)
{
	struct ubfab_queue *q[BW_QUEUES] = {};
	uint64_t start = 0, end, last = 0;
	unsigned int i;
	int err = 0;

	for (i = 0; !err && i < queues; i++) {
		err = ubfab_queue_create(b->importer, NULL, &q[i]);
		if (err)
			fail("creating a queue", err);
		else
			err = post_entries(b, p, q[i], opcode, length, ops,
					   &start);
	}
	for (i = 0; !err && i < queues; i++) {
		err = reap_entries(p, q[i], length, ops, &end);
		if (end > last)
			last = end;
	}
	if (!err) {
		*ns = last - start;
		b->model->epoch_ns = last + EPOCH_GAP_NS;
	}
	for (i = 0; i < queues; i++)
		if (q[i])
			ubfab_queue_destroy(q[i]);
	return err;
}

/* The error of @c against @pub, and whether it is within @tolerance %. */
static void judge(struct model_bench *mb, struct cell *c, unsigned int pub,
		  unsigned int tolerance)
{
	c->error_pct = (c->model - pub) * 100 / pub;
	c->within = c->error_pct <= tolerance && -c->error_pct <= tolerance;
	mb->missed += !c->within;
}

/*
 * The two cells of @t, @op, @n: the latency of one LAT_BYTES entry on a
 * fresh queue, the same on each of LAT_QUEUES queues (the model is
 * deterministic); the bandwidth of BW_OPS entries of BW_BYTES on each of
 * BW_QUEUES queues together.
 */
static int measure_cells(struct bench *b, enum model_target t,
			 enum model_op op, enum model_node n)
{
	struct model_bench *mb = b->model;
	const struct peer *p = &mb->peers[t][n];
	struct cell *lat = &mb->cells[FIG_LATENCY][t][op][n];
	struct cell *bw = &mb->cells[FIG_BANDWIDTH][t][op][n];
	uint64_t ns[LAT_QUEUES];
	unsigned int i;
	int err;

	for (i = 0; i < LAT_QUEUES; i++) {
		err = run_entries(b, p, op_codes[op], LAT_BYTES, 1, 1, &ns[i]);
		if (err)
			return err;
		if (ns[i] == ns[0])
			continue;
		fprintf(stderr, "ubbench: model: a %d-byte %s to %s took %llu modeled ns on one fresh queue and %llu on another\n",
			LAT_BYTES, op_keys[op], p->info.name,
			(unsigned long long)ns[0], (unsigned long long)ns[i]);
		return -EIO;
	}
	lat->model = ns[0];
	err = run_entries(b, p, op_codes[op], BW_BYTES, BW_QUEUES, BW_OPS,
			  &bw->model_ns);
	if (err)
		return err;
	if (!bw->model_ns) {
		fprintf(stderr, "ubbench: model: %d entries of %lu MiB to %s took no modeled time\n",
			BW_QUEUES * BW_OPS, BW_BYTES / MiB, p->info.name);
		return -EIO;
	}
	/* Bytes per nanosecond are GB/s. */
	bw->model = (double)BW_QUEUES * BW_OPS * BW_BYTES / bw->model_ns;
	judge(mb, lat, published[FIG_LATENCY][t][op][n], b->tolerance);
	judge(mb, bw, published[FIG_BANDWIDTH][t][op][n], b->tolerance);
	return 0;
}

int model_run(struct bench *b)
{
	unsigned int t, op, n;
	int err;

	b->model = calloc(1, sizeof(*b->model));
	if (!b->model) {
		fail("allocating the model figures", -ENOMEM);
		return -ENOMEM;
	}
	err = model_setup(b);
	for (t = 0; !err && t < NR_TARGETS; t++)
		for (op = 0; !err && op < NR_MODEL_OPS; op++)
			for (n = 0; !err && n < NR_NODES; n++)
				err = measure_cells(b, t, op, n);
	if (err)
		fprintf(stderr, "ubbench: model: measurement failed\n");
	return err;
}

unsigned int model_missed(const struct bench *b)
{
	return b->model ? b->model->missed : 0;
}

static void print_figure(const struct bench *b, enum model_figure fig)
{
	const struct model_bench *mb = b->model;
	const char *unit = figure_units[fig];
	const struct cell *c;
	unsigned int t, op, n;
	char model[24], pub[24];

	snprintf(model, sizeof(model), "model %s", unit);
	snprintf(pub, sizeof(pub), "published %s", unit);
	printf("  %-10s %-5s %-5s %-7s %15s %15s %8s  within %u%%\n", "path",
	       "op", "node", "peer", model, pub, "error %", b->tolerance);
	for (t = 0; t < NR_TARGETS; t++) {
		for (op = 0; op < NR_MODEL_OPS; op++) {
			for (n = 0; n < NR_NODES; n++) {
				c = &mb->cells[fig][t][op][n];
				printf("  NPU -> %s %-5s %-5s %-7s %15.*f %15u %+8.1f  %s\n",
				       target_names[t], op_keys[op],
				       node_keys[n],
				       mb->peers[t][n].info.name,
				       fig == FIG_LATENCY ? 0 : 1, c->model,
				       published[fig][t][op][n],
				       c->error_pct, pass_miss(c->within));
			}
		}
	}
}

void model_print(const struct bench *b)
{
	const struct model_bench *mb = b->model;
	unsigned int fig, t, op, n;

	printf("model: modeled times of %s's queues (node %u, chip %u, die %u; DMA class), model profile %s, against the published CloudMatrix384 table\n",
	       mb->self.name, mb->self.node, mb->self.chip, mb->self.die,
	       mb->profile);
	printf("\nlatency: one %d-byte entry on a fresh queue, its completion's model_ns less the queue's clock before it (%d queues, all equal)\n",
	       LAT_BYTES, LAT_QUEUES);
	print_figure(b, FIG_LATENCY);
	printf("\nbandwidth, one way per die: %d entry of %lu MiB on each of %d fresh queues (one per DMA engine of the die), posted together, %lu MiB over the modeled ns from the clocks before them to the last model_ns (GB/s: 10^9 bytes/s)\n",
	       BW_OPS, BW_BYTES / MiB, BW_QUEUES,
	       BW_QUEUES * BW_OPS * BW_BYTES / MiB);
	print_figure(b, FIG_BANDWIDTH);

	printf("\n%d cells, %u within %u%% of the published figure%s\n",
	       NR_MODEL_FIGS * NR_TARGETS * NR_MODEL_OPS * NR_NODES,
	       NR_MODEL_FIGS * NR_TARGETS * NR_MODEL_OPS * NR_NODES -
	       mb->missed, b->tolerance, mb->missed ? "; beyond it:" : "");
	for (fig = 0; fig < NR_MODEL_FIGS; fig++)
		for (t = 0; t < NR_TARGETS; t++)
			for (op = 0; op < NR_MODEL_OPS; op++)
				for (n = 0; n < NR_NODES; n++)
					if (!mb->cells[fig][t][op][n].within)
						printf("  %s NPU -> %s %s, %s node: %+.1f%%\n",
						       figure_keys[fig],
						       target_names[t],
						       op_keys[op],
						       node_keys[n],
						       mb->cells[fig][t][op][n].error_pct);
}

/* One cell, on one line. */
static void json_cell(const struct bench *b, struct json *j,
		      enum model_figure fig, enum model_target t,
		      enum model_op op, enum model_node n)
{
	const struct model_bench *mb = b->model;
	const struct cell *c = &mb->cells[fig][t][op][n];

	json_break(j);
	json_object_begin(j, NULL);
	json_string(j, "figure", figure_keys[fig]);
	json_string(j, "target", target_keys[t]);
	json_string(j, "op", op_keys[op]);
	json_string(j, "node", node_keys[n]);
	json_string(j, "peer", mb->peers[t][n].info.name);
	json_uint(j, "peer_eid", mb->peers[t][n].info.eid);
	if (fig == FIG_LATENCY) {
		json_uint(j, "model", c->model);
	} else {
		json_double(j, "model", c->model);
		json_uint(j, "model_ns", c->model_ns);
	}
	json_uint(j, "published", published[fig][t][op][n]);
	json_fixed(j, "error_pct", c->error_pct, 2);
	json_bool(j, "within", c->within);
	json_object_end(j);
}

/* The table's members of the "model" object. */
static void table_json(const struct bench *b, struct json *j)
{
	unsigned int fig, t, op, n;

	json_break(j);
	json_string(j, "profile", b->model->profile);
	json_uint(j, "tolerance_pct", b->tolerance);
	json_uint(j, "missed", b->model->missed);
	/* How each figure was measured. */
	for (fig = 0; fig < NR_MODEL_FIGS; fig++) {
		json_break(j);
		json_object_begin(j, figure_keys[fig]);
		json_string(j, "unit", figure_units[fig]);
		json_uint(j, "bytes", fig == FIG_LATENCY ? LAT_BYTES : BW_BYTES);
		json_uint(j, "queues",
			  fig == FIG_LATENCY ? LAT_QUEUES : BW_QUEUES);
		if (fig == FIG_BANDWIDTH)
			json_uint(j, "ops", BW_OPS);
		json_object_end(j);
	}
	json_break(j);
	json_array_begin(j, "cells");
	for (fig = 0; fig < NR_MODEL_FIGS; fig++)
		for (t = 0; t < NR_TARGETS; t++)
			for (op = 0; op < NR_MODEL_OPS; op++)
				for (n = 0; n < NR_NODES; n++)
					json_cell(b, j, fig, t, op, n);
	json_break(j);
	json_array_end(j);
}

void model_json(const struct bench *b, struct json *j)
{
	json_break(j);
	json_object_begin(j, "model");
	if (b->model)
		table_json(b, j);
	if (b->spread)
		spread_json(b, j);
	json_break(j);
	json_object_end(j);
}
