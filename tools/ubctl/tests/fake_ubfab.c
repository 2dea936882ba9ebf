// SPDX-License-Identifier: GPL-2.0-only
/*
 * A stand-in libubfab.so.1 for testing ubctl on a host without ubfab.ko.
 * It answers the public API from a made-up fabric instead of netlink:
 * UBFAB_FAKE_PROFILE=small (default) or cm384 picks the shape, =none acts
 * as if the module were not loaded. Port npu5/plane 3 is down at a
 * quarter of the bandwidth, port npu5/plane 4 has added latency and link
 * errors, counters are made-up, and asking for plane 100 or above fails
 * with -EINVAL and an extended-ack message, to exercise ubctl's error
 * paths. The small fabric has three segments (two of npu0, one of cpu1)
 * and npu5 two refused imports; cm384 plays an older module, which
 * reports neither auth failures nor fault knobs nor segments nor events
 * nor a model. The model has four parameters of the real table, at their
 * defaults (profile cm384).
 *
 * The set and reset calls change nothing: they check their arguments as
 * the kernel does (a model set's unknown profile or name, and a model
 * parameter or a port's knob out of range, with an extack message; the
 * older module refuses knobs), fail with -EPERM (no extack message) when
 * UBFAB_FAKE_EPERM is set, and append a line per call ("port_set EID
 * PLANE NAME=VALUE...", NAME state, bw, delay or errors; "plane_set ID
 * STATE", "reset EID", "model_set PROFILE NAME=VALUE...", PROFILE "-" for
 * none) to the file UBFAB_FAKE_LOG names. A subscribed session has a pipe
 * for its socket, holding one byte per event of a fixed script: npu5's
 * port into plane 3 down, events lost (-ENOBUFS), plane 2 down, cpu1
 * reset, the port of an unknown EID 99 into plane 0 up, npu5's port into
 * plane 4 with added latency and link errors, the model with hop-ps at
 * 250000 (profile custom); then no event comes again. The links of the
 * model carry made-up traffic that grows by the same amount at every dump
 * (ubfab_link_dump()), and so do its three queues' (ubfab_queue_dump());
 * npu1 has two jetties (ubfab_jetty_dump()); the older module reports
 * none of these.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libubfab.h"

#define GIB		(1ULL << 30)
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/*
 * ubctl binds to the 1.1 versions of the entity calls and the 1.4
 * versions of the port calls and of ubfab_nl_event_read (lib/topo.c).
 */
#define VERSION_1_1(sym)	__attribute__((symver(#sym "@@UBFAB_1.1")))
#define VERSION_1_4(sym)	__attribute__((symver(#sym "@@UBFAB_1.4")))

static const struct ubfab_fabric_info shapes[] = {
	{
		.profile = "small", .nodes = 2, .chips_per_node = 8,
		.dies_per_chip = 2, .cpus_per_node = 4, .planes = 7,
		.l2_per_plane = 16, .npus = 32, .cpus = 8,
		.npu_mem = 64 * GIB, .cpu_mem = 256 * GIB,
		.setup_ns = 1834250,
	},
	{
		.profile = "cm384", .nodes = 48, .chips_per_node = 8,
		.dies_per_chip = 2, .cpus_per_node = 4, .planes = 7,
		.l2_per_plane = 16, .npus = 768, .cpus = 192,
		.npu_mem = 64 * GIB, .cpu_mem = 256 * GIB,
		.setup_ns = 41200917,
	},
};

static const struct ubfab_seg_info segs[] = {
	{ .eid = 0, .token_id = 1, .rights = UBFAB_SEG_READ | UBFAB_SEG_WRITE,
	  .imports = 2, .pid = 812, .offset = 0, .length = 2 << 20 },
	{ .eid = 0, .token_id = 7, .rights = UBFAB_SEG_READ, .pid = 812,
	  .offset = 0x200000, .length = 16384 },
	{ .eid = 33, .token_id = 1, .rights = UBFAB_SEG_RIGHTS, .imports = 1,
	  .pid = 900, .offset = 64ULL << 30, .length = 4096 },
};

struct ubfab_nl {
	const struct ubfab_fabric_info *f;
	char errmsg[64];
	int events[2];		/* the pipe of a subscribed session, or -1 */
	unsigned int next;	/* the next event of the script */
	unsigned int dumps;	/* link dumps so far */
	unsigned int qdumps;	/* queue dumps so far */
};

static bool old_module(const struct ubfab_nl *nl)
{
	return nl->f == &shapes[1];
}

int ubfab_nl_open(struct ubfab_nl **nlp)
{
	const char *profile = getenv("UBFAB_FAKE_PROFILE");
	size_t i;

	if (profile && !strcmp(profile, "none"))
		return -ENOENT;
	for (i = 0; i < ARRAY_SIZE(shapes); i++) {
		if (!profile || !strcmp(profile, shapes[i].profile)) {
			*nlp = calloc(1, sizeof(**nlp));
			if (!*nlp)
				return -ENOMEM;
			(*nlp)->f = &shapes[i];
			(*nlp)->events[0] = -1;
			(*nlp)->events[1] = -1;
			return 0;
		}
	}
	return -ENOENT;
}

void ubfab_nl_close(struct ubfab_nl *nl)
{
	if (!nl)
		return;
	if (nl->events[0] >= 0) {
		close(nl->events[0]);
		close(nl->events[1]);
	}
	free(nl);
}

const char *ubfab_nl_errmsg(const struct ubfab_nl *nl)
{
	return nl ? nl->errmsg : "";
}

int ubfab_fabric_get(struct ubfab_nl *nl, struct ubfab_fabric_info *out)
{
	*out = *nl->f;
	return 0;
}

static uint32_t entities(const struct ubfab_nl *nl)
{
	return nl->f->npus + nl->f->cpus;
}

VERSION_1_1(ubfab_entity_get)
int fake_entity_get(struct ubfab_nl *nl, uint32_t eid,
		    struct ubfab_entity_info *e)
{
	const struct ubfab_fabric_info *f = nl->f;
	uint32_t per_node = f->chips_per_node * f->dies_per_chip, cpu;

	if (eid >= entities(nl))
		return -ENODEV;
	*e = (struct ubfab_entity_info){ .eid = eid, .ports = f->planes };
	e->auth_failures = old_module(nl) ? UBFAB_COUNT_NONE : 2 * (eid == 5);
	if (eid < f->npus) {
		e->kind = UBFAB_ENTITY_NPU;
		e->node = eid / per_node;
		e->chip = eid % per_node / f->dies_per_chip;
		e->die = eid % f->dies_per_chip;
		e->socket = UBFAB_FIELD_NONE;
		e->mem_size = f->npu_mem;
		snprintf(e->name, sizeof(e->name), "npu%u", eid);
		return 0;
	}
	cpu = eid - f->npus;
	e->kind = UBFAB_ENTITY_CPU;
	e->node = cpu / f->cpus_per_node;
	e->chip = UBFAB_FIELD_NONE;
	e->die = UBFAB_FIELD_NONE;
	e->socket = cpu % f->cpus_per_node;
	e->mem_size = f->cpu_mem;
	snprintf(e->name, sizeof(e->name), "cpu%u", cpu);
	return 0;
}

VERSION_1_1(ubfab_entity_get_by_name)
int fake_entity_get_by_name(struct ubfab_nl *nl, const char *name,
			    struct ubfab_entity_info *out)
{
	uint32_t eid;

	for (eid = 0; eid < entities(nl); eid++)
		if (!fake_entity_get(nl, eid, out) && !strcmp(out->name, name))
			return 0;
	return -ENODEV;
}

VERSION_1_1(ubfab_entity_dump)
int fake_entity_dump(struct ubfab_nl *nl, ubfab_entity_cb cb, void *arg)
{
	struct ubfab_entity_info e;
	uint32_t eid;
	int ret;

	for (eid = 0; eid < entities(nl); eid++) {
		fake_entity_get(nl, eid, &e);
		ret = cb(&e, arg);
		if (ret)
			return ret;
	}
	return 0;
}

VERSION_1_4(ubfab_port_get)
int fake_port_get(struct ubfab_nl *nl, uint32_t eid, uint32_t plane,
		  struct ubfab_port_info *p)
{
	uint64_t ops = (eid % 5) * 1000 + plane;

	if (eid >= entities(nl) || plane >= nl->f->planes)
		return -ENODEV;
	*p = (struct ubfab_port_info){
		.eid = eid,
		.plane = plane,
		.state = eid == 5 && plane == 3 ? UBFAB_STATE_DOWN :
						  UBFAB_STATE_UP,
		.stats = {
			.tx_bytes = ops * 512, .rx_bytes = ops * 256,
			.tx_ops = ops, .rx_ops = ops / 2, .errors = eid == 5,
		},
		.bw_permille = eid == 5 && plane == 3 ? 250 :
							UBFAB_PORT_BW_FULL,
		.delay_ps = eid == 5 && plane == 4 ? 1500000 : 0,
		.error_ppm = eid == 5 && plane == 4 ? 100 : 0,
	};
	if (old_module(nl)) {
		p->bw_permille = UBFAB_FIELD_NONE;
		p->delay_ps = UBFAB_COUNT_NONE;
		p->error_ppm = UBFAB_FIELD_NONE;
	}
	return 0;
}

VERSION_1_4(ubfab_port_dump)
int fake_port_dump(struct ubfab_nl *nl, uint32_t eid, ubfab_port_cb cb,
		   void *arg)
{
	struct ubfab_port_info p;
	uint32_t e, plane;
	int ret;

	if (eid != UBFAB_EID_ANY && eid >= entities(nl))
		return -ENODEV;
	for (e = 0; e < entities(nl); e++) {
		for (plane = 0; eid == UBFAB_EID_ANY || e == eid; plane++) {
			if (fake_port_get(nl, e, plane, &p))
				break;
			ret = cb(&p, arg);
			if (ret)
				return ret;
		}
	}
	return 0;
}

int ubfab_plane_get(struct ubfab_nl *nl, uint32_t id,
		    struct ubfab_plane_info *out)
{
	struct ubfab_port_info p;
	uint32_t eid;

	if (id >= 100) {
		snprintf(nl->errmsg, sizeof(nl->errmsg),
			 "plane id out of range");
		return -EINVAL;
	}
	if (id >= nl->f->planes)
		return -ENODEV;
	*out = (struct ubfab_plane_info){
		.id = id, .state = UBFAB_STATE_UP,
		.l1_switches = nl->f->nodes, .l2_switches = nl->f->l2_per_plane,
	};
	for (eid = 0; eid < entities(nl); eid++) {
		fake_port_get(nl, eid, id, &p);
		out->ports++;
		out->ports_up += p.state == UBFAB_STATE_UP;
		out->stats.tx_bytes += p.stats.tx_bytes;
		out->stats.rx_bytes += p.stats.rx_bytes;
		out->stats.tx_ops += p.stats.tx_ops;
		out->stats.rx_ops += p.stats.rx_ops;
		out->stats.errors += p.stats.errors;
	}
	return 0;
}

int ubfab_plane_dump(struct ubfab_nl *nl, ubfab_plane_cb cb, void *arg)
{
	struct ubfab_plane_info p;
	uint32_t id;
	int ret;

	for (id = 0; id < nl->f->planes; id++) {
		ubfab_plane_get(nl, id, &p);
		ret = cb(&p, arg);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * The links of the model. Each dump is a modeled millisecond later than
 * the session's last (end_ps = 10^9 ps per dump): a port of NPU eid
 * e carried (e % 5) * 1 MB per dump, on the planes below 3 only, held
 * 36 ps a byte, idle the rest of the time; an L1-L2 link of node 0 up to
 * l2 2 carried 5 MB per dump, likewise; every other link nothing, never
 * held.
 */
int ubfab_link_dump(struct ubfab_nl *nl, uint32_t plane, ubfab_link_cb cb,
		    void *arg)
{
	uint32_t p, i, ports = 2 * entities(nl), sw = 2 * nl->f->nodes *
						     nl->f->l2_per_plane;
	struct ubfab_link_info l;
	uint64_t per;
	int ret;

	if (old_module(nl))
		return -EOPNOTSUPP;
	if (plane != UBFAB_PLANE_ANY && plane >= nl->f->planes)
		return -ENODEV;
	nl->dumps++;
	for (p = 0; p < nl->f->planes; p++) {
		if (plane != UBFAB_PLANE_ANY && p != plane)
			continue;
		for (i = 0; i < ports + sw; i++) {
			l = (struct ubfab_link_info){ .plane = p,
						      .end_ps = nl->dumps * 1000000000ULL };
			if (i < ports) {
				l.kind = i % 2 ? UBFAB_LINK_PORT_RX :
						 UBFAB_LINK_PORT_TX;
				l.eid = i / 2;
				l.node = l.l2 = UBFAB_FIELD_NONE;
				per = p < 3 && l.eid < nl->f->npus ?
				      (l.eid % 5) * 1000000 : 0;
			} else {
				l.kind = (i - ports) % 2 ? UBFAB_LINK_L2_DOWN :
							   UBFAB_LINK_L1_UP;
				l.eid = UBFAB_FIELD_NONE;
				l.node = (i - ports) / 2 / nl->f->l2_per_plane;
				l.l2 = (i - ports) / 2 % nl->f->l2_per_plane;
				per = l.node == 0 && l.l2 == 2 &&
				      l.kind == UBFAB_LINK_L1_UP ? 5000000 : 0;
			}
			l.bytes = per * nl->dumps;
			l.busy_ps = l.bytes * 36;
			l.idle_ps = per ? l.end_ps - l.busy_ps : 0;
			ret = cb(&l, arg);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/*
 * What a dump of the queues, jetties or segments of @eid (or of every
 * entity) gets before anything: -EOPNOTSUPP from the older module,
 * -ENODEV for no such entity, else 0.
 */
static int dump_check(struct ubfab_nl *nl, uint32_t eid)
{
	if (old_module(nl))
		return -EOPNOTSUPP;
	if (eid != UBFAB_EID_ANY && eid >= entities(nl))
		return -ENODEV;
	return 0;
}

/*
 * The queues: npu1's 0 (pid 812, poll) runs 1000 entries and a modeled ms
 * per dump, npu1's 1 (pid 812, timing and ordered) none, cpu1's 0 (pid
 * 900) 50 entries and 2 modeled us per dump.
 */
int ubfab_queue_dump(struct ubfab_nl *nl, uint32_t eid,
		     ubfab_queue_info_cb cb, void *arg)
{
	const struct ubfab_queue_info queues[] = {
		{ .eid = 1, .id = 0, .pid = 812, .flags = UBFAB_QUEUE_POLL,
		  .sq_entries = 128, .cq_entries = 256, .entries = 1000,
		  .clock_ns = 1000000 },
		{ .eid = 1, .id = 1, .pid = 812,
		  .flags = UBFAB_QUEUE_TIMING | UBFAB_QUEUE_ORDERED,
		  .sq_entries = 64, .cq_entries = 64 },
		{ .eid = 33, .id = 0, .pid = 900, .sq_entries = 32,
		  .cq_entries = 32, .entries = 50, .clock_ns = 2000 },
	};
	struct ubfab_queue_info q;
	size_t i;
	int ret;

	ret = dump_check(nl, eid);
	if (ret)
		return ret;
	nl->qdumps++;
	for (i = 0; i < ARRAY_SIZE(queues); i++) {
		if (eid != UBFAB_EID_ANY && queues[i].eid != eid)
			continue;
		q = queues[i];
		q.entries *= nl->qdumps;
		q.clock_ns *= nl->qdumps;
		ret = cb(&q, arg);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * The jetties: npu1's 0 (queue 0, receive queue 0) ready, npu1's 1 (queue
 * 1, receive queue 2) in the error state after a send ran out of retries.
 */
int ubfab_jetty_dump(struct ubfab_nl *nl, uint32_t eid,
		     ubfab_jetty_info_cb cb, void *arg)
{
	const struct ubfab_jetty_info jetties[] = {
		{ .eid = 1, .id = 0, .pid = 812, .sq = 0, .rq = 0,
		  .state = UBFAB_JETTY_READY, .sends = 1000, .receives = 998,
		  .events = 12 },
		{ .eid = 1, .id = 1, .pid = 812, .sq = 1, .rq = 2,
		  .state = UBFAB_JETTY_ERROR, .sends = 3, .rnr_naks = 8,
		  .rnr_exc = 1, .errors = 1 },
	};
	size_t i;
	int ret;

	ret = dump_check(nl, eid);
	if (ret)
		return ret;
	for (i = 0; i < ARRAY_SIZE(jetties); i++) {
		if (eid != UBFAB_EID_ANY && jetties[i].eid != eid)
			continue;
		ret = cb(&jetties[i], arg);
		if (ret)
			return ret;
	}
	return 0;
}

int ubfab_seg_dump(struct ubfab_nl *nl, uint32_t eid, ubfab_seg_cb cb,
		   void *arg)
{
	size_t i;
	int ret;

	ret = dump_check(nl, eid);
	if (ret)
		return ret;
	for (i = 0; i < ARRAY_SIZE(segs); i++) {
		if (eid != UBFAB_EID_ANY && segs[i].eid != eid)
			continue;
		ret = cb(&segs[i], arg);
		if (ret)
			return ret;
	}
	return 0;
}

/* Log a call to $UBFAB_FAKE_LOG; -EPERM if $UBFAB_FAKE_EPERM is set. */
__attribute__((format(printf, 1, 2)))
static int admin_call(const char *fmt, ...)
{
	const char *path = getenv("UBFAB_FAKE_LOG");
	va_list ap;
	FILE *f;

	if (getenv("UBFAB_FAKE_EPERM"))
		return -EPERM;
	if (!path)
		return 0;
	f = fopen(path, "a");
	if (!f)
		return -errno;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	return fclose(f) ? -errno : 0;
}

int ubfab_port_set_faults(struct ubfab_nl *nl, uint32_t eid, uint32_t plane,
			  const struct ubfab_port_faults *f)
{
	const struct {
		uint32_t bit;
		const char *name;
		uint64_t value, min, max;
	} members[] = {
		{ UBFAB_PORT_FAULT_STATE, "state", f->state, 0, 1 },
		{ UBFAB_PORT_FAULT_BW, "bw", f->bw_permille, 1, 1000 },
		{ UBFAB_PORT_FAULT_DELAY, "delay", f->delay_ps, 0,
		  1000000000000ULL },
		{ UBFAB_PORT_FAULT_ERRORS, "errors", f->error_ppm, 0, 1000000 },
	};
	char line[256] = "";
	size_t i, len = 0;

	if (eid >= entities(nl) || plane >= nl->f->planes)
		return -ENODEV;
	if (!f->mask || ((f->mask & UBFAB_PORT_FAULT_STATE) &&
			 f->state != UBFAB_STATE_UP &&
			 f->state != UBFAB_STATE_DOWN))
		return -EINVAL;
	if (old_module(nl) && (f->mask & ~UBFAB_PORT_FAULT_STATE)) {
		snprintf(nl->errmsg, sizeof(nl->errmsg),
			 "Unknown attribute type");
		return -EINVAL;
	}
	for (i = 0; i < ARRAY_SIZE(members); i++) {
		if (!(f->mask & members[i].bit))
			continue;
		if (members[i].value < members[i].min ||
		    members[i].value > members[i].max) {
			snprintf(nl->errmsg, sizeof(nl->errmsg),
				 "value out of range");
			return -ERANGE;
		}
		len += snprintf(line + len, sizeof(line) - len, " %s=%llu",
				members[i].name,
				(unsigned long long)members[i].value);
	}
	return admin_call("port_set %u %u%s\n", eid, plane, line);
}

int ubfab_plane_set_state(struct ubfab_nl *nl, uint32_t id, uint32_t state)
{
	if (id >= nl->f->planes)
		return -ENODEV;
	if (state != UBFAB_STATE_UP && state != UBFAB_STATE_DOWN)
		return -EINVAL;
	return admin_call("plane_set %u %u\n", id, state);
}

int ubfab_entity_reset(struct ubfab_nl *nl, uint32_t eid)
{
	if (eid >= entities(nl))
		return -ENODEV;
	return admin_call("reset %u\n", eid);
}

/* The model's parameters, at their cm384 values. */
static struct ubfab_model_param params[] = {
	{ .name = "issue-ps", .unit = "ps", .value = 200000,
	  .maximum = 1000000000000ULL, .default_value = 200000 },
	{ .name = "hop-ps", .unit = "ps", .value = 187500,
	  .maximum = 1000000000000ULL, .default_value = 187500 },
	{ .name = "link-mbps", .unit = "MB/s", .value = 28000, .minimum = 1,
	  .maximum = 1000000000, .default_value = 28000 },
	{ .name = "eff-write-npu-permille", .unit = "permille", .value = 699,
	  .minimum = 1, .maximum = 1000, .default_value = 699 },
};

static const struct ubfab_model cm384 = {
	.profile = "cm384", .nparams = ARRAY_SIZE(params), .params = params,
};

/* The model as the library allocates it, with hop-ps at @hop. */
static struct ubfab_model *model_new(const char *profile, uint64_t hop)
{
	struct ubfab_model *m = malloc(sizeof(*m) + sizeof(params));

	if (!m)
		return NULL;
	snprintf(m->profile, sizeof(m->profile), "%s", profile);
	m->nparams = ARRAY_SIZE(params);
	m->params = (struct ubfab_model_param *)(m + 1);
	memcpy(m->params, params, sizeof(params));
	m->params[1].value = hop;
	m->mem = (struct ubfab_model_mem) {
		.links = 64, .links_bytes = 1024, .queues = 2,
		.queue_bytes = 432, .stamps = 3000, .stamp_bytes = 27648,
		.other_bytes = 72, .total_bytes = 29176,
	};
	return m;
}

int ubfab_model_get(struct ubfab_nl *nl, struct ubfab_model **modelp)
{
	if (old_module(nl))
		return -EOPNOTSUPP;
	*modelp = model_new("cm384", params[1].default_value);
	return *modelp ? 0 : -ENOMEM;
}

int ubfab_model_set(struct ubfab_nl *nl, const char *profile,
		    const struct ubfab_model_value *values, size_t n)
{
	const struct ubfab_model_param *p;
	char line[1024] = "";
	size_t i, len = 0;

	if (old_module(nl))
		return -EOPNOTSUPP;
	if (profile && strcmp(profile, "cm384")) {
		snprintf(nl->errmsg, sizeof(nl->errmsg), "unknown profile");
		return -ENOENT;
	}
	for (i = 0; i < n; i++) {
		p = ubfab_model_find(&cm384, values[i].name);
		if (!p) {
			snprintf(nl->errmsg, sizeof(nl->errmsg),
				 "unknown parameter");
			return -ENOENT;
		}
		if (values[i].value < p->minimum ||
		    values[i].value > p->maximum) {
			snprintf(nl->errmsg, sizeof(nl->errmsg),
				 "value out of the parameter's range");
			return -ERANGE;
		}
		len += snprintf(line + len, sizeof(line) - len, " %s=%llu",
				p->name, (unsigned long long)values[i].value);
		if (len >= sizeof(line))
			return -E2BIG;
	}
	return admin_call("model_set %s%s\n", profile ? profile : "-", line);
}

/* The events of a subscribed session: an event, or an error to return. */
static const struct {
	int err;
	struct ubfab_nl_event ev;
} script[] = {
	{ .ev = { .cmd = UBFAB_CMD_PORT_NTF,
		  .port = { .eid = 5, .plane = 3, .state = UBFAB_STATE_DOWN,
			    .bw_permille = 250 } } },
	{ .err = -ENOBUFS },
	{ .ev = { .cmd = UBFAB_CMD_PLANE_NTF,
		  .plane = { .id = 2, .state = UBFAB_STATE_DOWN, .ports = 40,
			     .ports_up = 39 } } },
	{ .ev = { .cmd = UBFAB_CMD_ENTITY_RESET_NTF,
		  .entity = { .eid = 33, .name = "cpu1",
			      .kind = UBFAB_ENTITY_CPU } } },
	{ .ev = { .cmd = UBFAB_CMD_PORT_NTF,
		  .port = { .eid = 99, .plane = 0, .state = UBFAB_STATE_UP,
			    .bw_permille = UBFAB_PORT_BW_FULL } } },
	{ .ev = { .cmd = UBFAB_CMD_PORT_NTF,
		  .port = { .eid = 5, .plane = 4, .state = UBFAB_STATE_UP,
			    .bw_permille = UBFAB_PORT_BW_FULL,
			    .delay_ps = 1500000, .error_ppm = 100 } } },
	{ .ev = { .cmd = UBFAB_CMD_MODEL_NTF } },
};

int ubfab_nl_subscribe(struct ubfab_nl *nl)
{
	static const char bytes[ARRAY_SIZE(script)];

	if (old_module(nl))
		return -EOPNOTSUPP;
	if (nl->events[0] >= 0)
		return 0;
	if (pipe(nl->events))
		return -errno;
	if (write(nl->events[1], bytes, sizeof(bytes)) != sizeof(bytes))
		return -EIO;
	return 0;
}

int ubfab_nl_fd(const struct ubfab_nl *nl)
{
	return nl->events[0];
}

VERSION_1_4(ubfab_nl_event_read)
int fake_nl_event_read(struct ubfab_nl *nl, struct ubfab_nl_event *ev)
{
	ssize_t n;
	char byte;

	n = read(nl->events[0], &byte, 1);
	if (n < 0)
		return -errno;
	if (!n)
		return -EIO;
	*ev = script[nl->next].ev;
	if (ev->cmd == UBFAB_CMD_MODEL_NTF) {
		ev->model = model_new("custom", 250000);
		if (!ev->model)
			return -ENOMEM;
	}
	return script[nl->next++].err;
}
