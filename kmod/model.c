// SPDX-License-Identifier: GPL-2.0
/*
 * ubfab fabric model: the cost of each queue entry in modeled time, and
 * each queue's modeled clock. The parameters are model_param.c's.
 *
 * Every
 * queue has a clock (struct ubfab_model_clock, engine state under
 * run_lock, 0 when the queue is made). Its entries run in order: each
 * starts at the clock and ends at start + its cost, the clock moves to
 * the end, and the completion's model_ns is the end in nanoseconds. The
 * cost is a pure function of the parameters in force, the entry (its
 * opcode and class), where its entity and the peer sit, the planes its
 * chunks took and the bytes it moved; route.h notes
 * the last two for every chunk (ubfab_model_note()), and the engine
 * charges the entry when it completes (ubfab_model_charge(), model.h),
 * which prices a small message like the queue's last one from memory, so
 * that the fast path's per-entry model work is a few compares and an
 * add. A wait ends no earlier than the modeled arrival of the write, or
 * the modeled time of the EVENT_RECORD, that satisfied it (model_sync.c).
 * Transfers contend for their initiator's DMA engines and vector-core
 * paths, and those over the planes for the links they cross too
 * (ubfab_model_contend()): first come, first served in the host's order.
 * Documentation/model.rst has the equations.
 *
 * Time is integer picoseconds (u64, about 213 days; the clock saturates
 * there); the only divisions are one per entry, at completion, and for
 * one over several planes one for each plane.
 */
#include <linux/hash.h>
#include <linux/rcupdate.h>
/* after what gives it cpu_relax(), which it does not include */
#include <linux/bit_spinlock.h>
#include <linux/uaccess.h>

#include "engine.h"
#include "model.h"
#include "trace.h"

/* Picoseconds a byte takes at 1 MB/s. */
#define UBFAB_MODEL_PS_MBPS	1000000ULL

/*
 * The entity whose place @loc is (never a place of anything else): its
 * links are the model's to write, whoever looks at the entity.
 */
static __always_inline struct ubfab_entity *
ubfab_model_entity(const struct ubfab_loc *loc)
{
	return container_of((struct ubfab_loc *)loc, struct ubfab_entity, loc);
}

/**
 * ubfab_model_path() - how far a transfer from @self to @peer goes
 * @self: the initiator's place
 * @peer: the other end's place
 *
 * Return: enum ubfab_model_path.
 */
enum ubfab_model_path ubfab_model_path(const struct ubfab_loc *self,
				       const struct ubfab_loc *peer)
{
	bool npus = self->kind == UBFAB_ENTITY_NPU &&
		    peer->kind == UBFAB_ENTITY_NPU;

	if (self->node != peer->node)
		return UBFAB_MODEL_OTHER_NODE;
	/* ubfab_topo_locate() leaves the fields that do not apply 0 */
	if (self->kind == peer->kind && self->chip == peer->chip &&
	    self->die == peer->die && self->socket == peer->socket)
		return UBFAB_MODEL_SAME_DIE;
	if (npus && self->chip == peer->chip)
		return UBFAB_MODEL_OTHER_DIE;
	return UBFAB_MODEL_SAME_NODE;
}

/* Time to move @bytes through the memory of the entity at @loc. */
static u64 ubfab_model_mem_ps(const struct ubfab_model_params *p,
			      const struct ubfab_loc *loc, u64 bytes)
{
	u32 mbps = loc->kind == UBFAB_ENTITY_NPU ? p->hbm_mbps : p->dram_mbps;

	return DIV64_U64_ROUND_UP(bytes * UBFAB_MODEL_PS_MBPS, mbps);
}

/* One way from @self to @peer: over its own port, the die link or hops. */
static u64 ubfab_model_lat_ps(const struct ubfab_model_params *p,
			      const struct ubfab_loc *self,
			      const struct ubfab_loc *peer)
{
	switch (ubfab_model_path(self, peer)) {
	case UBFAB_MODEL_SAME_DIE:
		return p->loopback_ps;
	case UBFAB_MODEL_OTHER_DIE:
		return p->die_ps;
	case UBFAB_MODEL_SAME_NODE:
		return p->node_hops * p->hop_ps;
	default:
		return p->remote_hops * p->hop_ps;
	}
}

/*
 * @bytes serialized at @rate, a link's MB/s times the efficiency per
 * mille of the transfer's kind, and @bw per mille of that (a degraded
 * port); saturated.
 */
static u64 ubfab_model_ser_ps(u64 bytes, u64 rate, u32 bw)
{
	/* <= 2^30 bytes x 10^9, the parameters' ranges: no overflow */
	u64 ps = DIV64_U64_ROUND_UP(bytes * UBFAB_MODEL_PS_MBPS *
				    UBFAB_MODEL_PER_MILLE, rate);

	if (bw >= UBFAB_MODEL_PER_MILLE)
		return ps;
	return ps > U64_MAX / UBFAB_MODEL_PER_MILLE ? U64_MAX :
	       DIV_ROUND_UP_ULL(ps * UBFAB_MODEL_PER_MILLE, bw);
}

/* A transfer's class: enum ubfab_model_class. */
static unsigned int ubfab_model_class(const struct ubfab_exec *ex)
{
	return ex->sqe.flags & UBFAB_SQE_MEMSEM ? UBFAB_MODEL_MEMSEM :
						  UBFAB_MODEL_DMA;
}

/* A transfer's issue overhead and the start-up of its class. */
static u64 ubfab_model_off_ps(const struct ubfab_model_params *p,
			      const struct ubfab_exec *ex)
{
	return p->issue_ps + (ex->sqe.flags & UBFAB_SQE_MEMSEM ?
			      p->memsem_ps : p->dma_ps);
}

/*
 * A transfer's bytes through one initiator resource of its class (a DMA
 * engine or a vector-core path), at its bandwidth.
 */
static u64 ubfab_model_eng_ps(const struct ubfab_model_params *p,
			      const struct ubfab_exec *ex)
{
	return DIV64_U64_ROUND_UP(ex->bytes * UBFAB_MODEL_PS_MBPS,
				  p->engine_mbps[ubfab_model_class(ex)]);
}

/*
 * The bytes of a transfer of @bytes that the @k-th (from 0) of the @u
 * planes it crossed carried, as the data path deals its chunks
 * (route.h): n chunks of UBFAB_PLANE_CHUNK, round-robin from the first
 * plane, the last one, maybe short, on the ((n - 1) mod @u)-th; so the
 * first carries the most, ceil(n / @u) chunks. Integer arithmetic, no
 * loop over the chunks. A plane past the n-th carried none of them (the
 * notify add of a WRITE_NOTIFY of fewer chunks than planes: it travels
 * behind the data, not charged apart).
 */
static u32 ubfab_model_share(u32 bytes, u32 u, u32 k)
{
	u32 n, chunks;

	if (u == 1)
		return bytes;
	n = DIV_ROUND_UP(bytes, UBFAB_PLANE_CHUNK);
	if (k >= n)
		return 0;
	chunks = (n - 1 - k) / u + 1;
	if (k == (n - 1) % u)
		return bytes - (n - chunks) * UBFAB_PLANE_CHUNK;
	return chunks * UBFAB_PLANE_CHUNK;
}

/*
 * Whether @ex is a transfer (it crossed to a peer), and then in @x what
 * its cost and contention need of it: its way one way, over its die's own
 * port (loopback), the die-to-die link or the switch hops to the peer
 * (the ports' added latency @f too, over the planes); its bytes'
 * serialization through the peer's memory (loopback), over the die-to-die
 * link, or over the planes that of its most loaded plane's share of them
 * (ubfab_model_share()) on one link, at the payload efficiency of its
 * kind, slowed by the ports' fault knobs @f (or none);
 * and its bytes through the initiator resource of its class that queue
 * number @qid uses, which it holds for that long or its class's issue
 * cost there, whichever is more.
 */
static bool ubfab_model_xfer(const struct ubfab_model_params *p,
			     const struct ubfab_loc *self,
			     const struct ubfab_exec *ex,
			     const struct ubfab_model_faults *f,
			     u32 qid, struct ubfab_model_xfer *x)
{
	unsigned int class = ubfab_model_class(ex);
	const struct ubfab_loc *peer = ex->peer;
	bool read = ex->sqe.opcode == UBFAB_OP_READ;
	bool cpu;

	if (!peer)
		return false;
	cpu = peer->kind == UBFAB_ENTITY_CPU;
	x->lat_ps = ubfab_model_lat_ps(p, self, peer);
	switch (ubfab_model_path(self, peer)) {
	case UBFAB_MODEL_SAME_DIE:
		x->links = false;
		x->dur_ps = ubfab_model_mem_ps(p, peer, ex->bytes);
		break;
	case UBFAB_MODEL_OTHER_DIE:
		x->links = false;
		x->dur_ps = ubfab_model_ser_ps(ex->bytes, p->die_mbps *
					       p->efficiency[read][cpu],
					       UBFAB_MODEL_PER_MILLE);
		break;
	default:
		/* the data path notes a plane with the peer (model.h) */
		if (!ex->plane_mask)
			return false;
		x->links = true;
		x->lat_ps += f ? f->delay_ps : 0;
		x->rate = p->link_mbps * p->efficiency[read][cpu];
		x->bw_permille = f ? f->bw_permille : UBFAB_MODEL_PER_MILLE;
		x->dur_ps = ubfab_model_ser_ps(ubfab_model_share(ex->bytes,
								 hweight32(ex->plane_mask),
								 0),
					       x->rate, x->bw_permille);
		break;
	}
	x->off_ps = ubfab_model_off_ps(p, ex);
	/* a READ's data leaves once its request is there and served */
	if (read)
		x->off_ps += x->lat_ps + p->target_ps[1][cpu];
	x->eng_ps = ubfab_model_eng_ps(p, ex);
	x->hold_ps = max(x->eng_ps, p->gap_ps[class]);
	x->engine = class * UBFAB_MODEL_MAX_ENGINES +
		    qid % (u32)p->engines[class];
	x->users = NULL;
	return true;
}

/*
 * A transfer's time from its start-up to its completion
 * (ubfab_model_xfer()): a round trip (the request there, the
 * acknowledgment or the response back); the target's part; and its
 * bytes' serialization, where over the planes a link error costs
 * @p->retry_ps and one chunk sent again; or their time through the
 * initiator's resource of its class (one DMA engine, one vector-core
 * path), when that is slower.
 */
static u64 ubfab_model_xfer_ps(const struct ubfab_model_params *p,
			       const struct ubfab_loc *self,
			       const struct ubfab_exec *ex,
			       const struct ubfab_model_faults *f)
{
	bool read = ex->sqe.opcode == UBFAB_OP_READ;
	bool cpu = ex->peer->kind == UBFAB_ENTITY_CPU;
	struct ubfab_model_xfer x;
	u64 retry = 0;

	ubfab_model_xfer(p, self, ex, f, 0, &x);
	if (x.links && f && f->retry)
		retry = p->retry_ps +
			ubfab_model_ser_ps(min_t(u64, ex->bytes,
						 UBFAB_PLANE_CHUNK),
					   x.rate, f->bw_permille);
	return 2 * x.lat_ps + p->target_ps[read][cpu] + retry +
	       max(x.dur_ps, x.eng_ps);
}

/* @ns in picoseconds, saturated. */
static u64 ubfab_model_ps(u64 ns)
{
	return ns > U64_MAX / UBFAB_MODEL_PS_PER_NS ? U64_MAX :
	       ns * UBFAB_MODEL_PS_PER_NS;
}

/**
 * ubfab_model_cost_ps() - what an entry costs on its queue's clock
 * @p: the parameters
 * @self: where the queue's entity sits
 * @ex: the entry, run: its opcode, @status, @bytes, and for a transfer
 *	the peer's place and the planes its chunks took (ubfab_model_note())
 * @f: the fault knobs of the ports it used, or NULL for none
 *
 * COMPUTE costs its @value in nanoseconds; every other entry (and a
 * COMPUTE that failed) the issue overhead, plus for COPY and FILL the
 * time of its bytes through the entity's memory (read and written for
 * COPY), and for a transfer that crossed a link the start-up of its
 * class (DMA, or memory semantics with UBFAB_SQE_MEMSEM) and its time
 * (ubfab_model_xfer_ps()).
 *
 * Return: picoseconds.
 */
u64 ubfab_model_cost_ps(const struct ubfab_model_params *p,
			const struct ubfab_loc *self,
			const struct ubfab_exec *ex,
			const struct ubfab_model_faults *f)
{
	switch (ex->sqe.opcode) {
	case UBFAB_OP_COMPUTE:
		/* one refused (BAD_ENTRY) is charged as any other */
		if (ex->status == UBFAB_CQE_OK)
			return ubfab_model_ps(ex->sqe.value);
		break;
	case UBFAB_OP_COPY:
		return p->issue_ps + ubfab_model_mem_ps(p, self, 2ULL * ex->bytes);
	case UBFAB_OP_FILL:
		return p->issue_ps + ubfab_model_mem_ps(p, self, ex->bytes);
	}
	/* a transfer that failed before its first chunk crossed nothing */
	if (!ex->peer)
		return p->issue_ps;
	return ubfab_model_off_ps(p, ex) + ubfab_model_xfer_ps(p, self, ex, f);
}

/*
 * The fault knobs of the ports at both ends of each plane @ex used, into
 * @f, and with @c whether it hits a link error, rolled from @c's seed and
 * entry count (the same in every run of the same program). NULL when no
 * port has knobs set or @ex crossed no plane. @self and @ex->peer must be
 * the places of entities (container_of()), as the engine's always are.
 */
static const struct ubfab_model_faults *
ubfab_model_faults(const struct ubfab_model_clock *c,
		   const struct ubfab_loc *self, const struct ubfab_exec *ex,
		   struct ubfab_model_faults *f)
{
	unsigned long mask = ex->plane_mask;
	const struct ubfab_entity *a, *b;
	const struct ubfab_port *pa, *pb;
	unsigned int plane;
	u32 roll;

	if (!atomic_read(&ubfab_model_faulty) || !ex->peer || !mask)
		return NULL;
	a = container_of(self, struct ubfab_entity, loc);
	b = container_of(ex->peer, struct ubfab_entity, loc);
	*f = (struct ubfab_model_faults) {
		.bw_permille = UBFAB_MODEL_PER_MILLE,
	};
	for_each_set_bit(plane, &mask, UBFAB_MAX_PLANES) {
		pa = &a->ports[plane];
		pb = &b->ports[plane];
		f->bw_permille = min3(f->bw_permille,
				      READ_ONCE(pa->bw_permille),
				      READ_ONCE(pb->bw_permille));
		f->error_ppm = max(f->error_ppm,
				   min(READ_ONCE(pa->error_ppm) +
				       READ_ONCE(pb->error_ppm),
				       UBFAB_MODEL_PER_MILLION));
		f->delay_ps = max(f->delay_ps, READ_ONCE(pa->delay_ps) +
					       READ_ONCE(pb->delay_ps));
	}
	if (c && f->error_ppm) {
		roll = hash_64((u64)c->seed << 32 ^ c->entries, 32);
		f->retry = roll % UBFAB_MODEL_PER_MILLION < f->error_ppm;
	}
	return f;
}

/* @a + @b, saturated. */
static u64 ubfab_model_sum(u64 a, u64 b)
{
	u64 sum;

	return check_add_overflow(a, b, &sum) ? U64_MAX : sum;
}

/*
 * Each link (and each initiator resource, kept as a link) keeps its time
 * line (struct ubfab_link): busy up to its end but in the idle gaps it
 * keeps before that, at most UBFAB_LINK_GAPS. A transfer that comes at
 * or after the end holds the link from then, keeping the gap before it;
 * one that comes before the end takes the first gap from its time on that
 * has room for it (its time there split off the gap), or waits for the
 * end: transfers earlier in modeled time than work already reserved go
 * in between it and see each other, so queues whose clocks drift apart
 * do not use more than the link's bandwidth together. When the link
 * keeps all the gaps it can, a new one makes it merge neighbours that
 * are close together, with the busy time between them
 * (ubfab_model_gaps_compact()), and a gap it would split becomes one
 * merged: of a merged gap only the idle time is known, taken as spread
 * evenly over it, and a transfer there takes its hold out of that idle
 * time (ubfab_model_place()). So older history still caps what transfers
 * get of the link over each merged gap, without saying where in it they
 * went; long idle stretches and the recent history stay exact.
 * The time line changes under the link's bit spinlock (zero is unlocked,
 * so links need no init), held for a few compares and stores and never
 * with another; what contention reads without it (a run looking at the
 * end, ubfab_model_run_free()) it checks again or tolerates.
 */

/*
 * Left to right, merge each two neighbours of @l's gaps whose span (from
 * the first's start to the second's end) is @limit at most, the busy
 * time between them in the merged gap, its idle time theirs added up.
 * Context: @l's lock held.
 */
static void ubfab_model_gaps_join(struct ubfab_link *l, u64 limit)
{
	struct ubfab_link_gap *g = l->gaps;
	unsigned int i, n = 0;

	for (i = 0; i < l->nr_gaps; n++) {
		if (i + 1 < l->nr_gaps && g[i + 1].to_ps - g[i].from_ps <= limit) {
			g[n] = (struct ubfab_link_gap) {
				.from_ps = g[i].from_ps,
				.to_ps = g[i + 1].to_ps,
				.idle_ps = g[i].idle_ps + g[i + 1].idle_ps,
			};
			i += 2;
		} else {
			g[n] = g[i++];
		}
	}
	l->nr_gaps = n;
}

/* The least span of two neighbours of @l's gaps; it keeps two at least. */
static u64 ubfab_model_gaps_least(const struct ubfab_link *l)
{
	const struct ubfab_link_gap *g = l->gaps;
	u64 least = U64_MAX;
	unsigned int i;

	for (i = 0; i + 1 < l->nr_gaps; i++)
		least = min(least, g[i + 1].to_ps - g[i].from_ps);
	return least;
}

/* @limit doubled, saturated. */
static u64 ubfab_model_gaps_double(u64 limit)
{
	return limit > U64_MAX / 2 ? U64_MAX : 2 * limit;
}

/*
 * Make room in @l, which keeps all the gaps it can: merge neighbours
 * closest together (ubfab_model_gaps_join()), those of twice the least
 * span of any two at most, then of twice that, and so on, until it keeps
 * half as many, so that the next few gaps cost no merging and long idle
 * stretches stay gaps of their own. A limit below the least span left
 * would merge nothing: it is doubled past that at once, without a pass
 * over the gaps. Context: @l's lock held.
 */
static noinline void ubfab_model_gaps_compact(struct ubfab_link *l)
{
	u64 limit = ubfab_model_gaps_least(l), least;

	do {
		limit = ubfab_model_gaps_double(limit);
		least = ubfab_model_gaps_least(l);
		while (limit < least)
			limit = ubfab_model_gaps_double(limit);
		ubfab_model_gaps_join(l, limit);
	} while (l->nr_gaps > UBFAB_LINK_GAPS / 2);
}

/*
 * A busy stretch a UBFAB_MODEL_GAP_MERGE-th of each gap beside it, or
 * less, between the latest gap and a new one joins them at once.
 */
#define UBFAB_MODEL_GAP_MERGE	8

/*
 * Keep @from to @to as @l's latest gap: merged with the latest it keeps
 * when the busy time between the two is short beside each (a stream of
 * small transfers far apart keeps one gap, not one each, and costs no
 * merging), else as a new one, making room when it keeps all it can.
 * Context: @l's lock held.
 */
static __always_inline void ubfab_model_gap_add(struct ubfab_link *l,
						u64 from, u64 to)
{
	struct ubfab_link_gap *g;

	if (l->nr_gaps) {
		g = &l->gaps[l->nr_gaps - 1];
		if (from - g->to_ps <= min(to - from, g->idle_ps) /
				       UBFAB_MODEL_GAP_MERGE) {
			g->idle_ps += to - from;
			g->to_ps = to;
			return;
		}
	}
	if (unlikely(l->nr_gaps == UBFAB_LINK_GAPS))
		ubfab_model_gaps_compact(l);
	g = &l->gaps[l->nr_gaps++];
	g->from_ps = from;
	g->to_ps = to;
	g->idle_ps = to - from;
}

/*
 * Hold @dur (not 0) from @s out of gap @i of @l, which is idle throughout
 * (not merged) and has room for it: what is left of the gap before and
 * after stays, as two gaps when there is room for one more, else as the
 * gap merged, its idle time less @dur. Context: @l's lock held.
 */
static void ubfab_model_gap_take(struct ubfab_link *l, unsigned int i, u64 s,
				 u64 dur)
{
	struct ubfab_link_gap *g = &l->gaps[i];
	u64 e = s + dur, to = g->to_ps;
	unsigned int j;

	if (s > g->from_ps && e < to) {
		if (l->nr_gaps == UBFAB_LINK_GAPS) {
			g->idle_ps -= dur;
			return;
		}
		g->to_ps = s;
		g->idle_ps = s - g->from_ps;
		for (j = l->nr_gaps; j > i + 1; j--)
			l->gaps[j] = l->gaps[j - 1];
		l->gaps[i + 1] = (struct ubfab_link_gap) {
			.from_ps = e, .to_ps = to, .idle_ps = to - e,
		};
		l->nr_gaps++;
	} else if (s > g->from_ps) {
		g->to_ps = s;
		g->idle_ps = s - g->from_ps;
	} else if (e < to) {
		g->from_ps = e;
		g->idle_ps = to - e;
	} else {
		/* filled exactly */
		for (j = i; j + 1 < l->nr_gaps; j++)
			l->gaps[j] = l->gaps[j + 1];
		l->nr_gaps--;
	}
}

/* Whether gap @g is merged: of it only its idle time is known. */
static __always_inline bool ubfab_model_gap_merged(const struct ubfab_link_gap *g)
{
	return g->idle_ps < g->to_ps - g->from_ps;
}

/*
 * Whether merged gap @g has room for @dur from @s on, within it: its idle
 * time, spread evenly over it, is @dur from @s on.
 */
static __always_inline bool ubfab_model_gap_room(const struct ubfab_link_gap *g,
						 u64 s, u64 dur)
{
	return mul_u64_u64_div_u64(g->idle_ps, g->to_ps - s,
				   g->to_ps - g->from_ps) >= dur;
}

/*
 * When a transfer that comes to link @l at @t and holds it for @dur gets
 * it: at @t when that is at or after the link's end, else at the first
 * time from @t on that a gap has room for it, else at the end. A merged
 * gap has room from @s on when its idle time, spread evenly over it, is
 * @dur from @s on. Unless @dry, it holds the link from then. Context:
 * @l's lock held.
 */
static u64 ubfab_model_place(struct ubfab_link *l, u64 t, u64 dur, bool dry)
{
	u64 end = l->end_ps, s;
	struct ubfab_link_gap *g;
	unsigned int i;

	if (t < end) {
		for (i = 0; i < l->nr_gaps; i++) {
			g = &l->gaps[i];
			s = max(t, g->from_ps);
			if (s >= g->to_ps)
				continue;
			if (ubfab_model_gap_merged(g)) {
				if (!ubfab_model_gap_room(g, s, dur))
					continue;
				if (!dry)
					g->idle_ps -= dur;
				return s;
			}
			if (g->to_ps - s >= dur) {
				if (!dry && dur)
					ubfab_model_gap_take(l, i, s, dur);
				return s;
			}
		}
		t = end;
	}
	if (!dry) {
		if (t > end)
			ubfab_model_gap_add(l, end, t);
		/* (an end past 2^64 ps wraps: the clock has saturated by then) */
		WRITE_ONCE(l->end_ps, t + dur);
	}
	return t;
}

/*
 * Reserve @dur of link @l from modeled time @t, first come, first served
 * in the order the host runs transfers (ubfab_model_place()): when the
 * transfer gets it. @dry: only say when it would.
 */
static __always_inline u64 ubfab_model_reserve(struct ubfab_link *l, u64 t,
					       u64 dur, bool dry)
{
	u64 s;

	bit_spin_lock(0, &l->lock);
	s = ubfab_model_place(l, t, dur, dry);
	__bit_spin_unlock(0, &l->lock);
	return s;
}

/*
 * Link @l carried @bytes for @dur, its end moved (or a gap taken) before:
 * its counters grow after (struct ubfab_link's ordering).
 */
static __always_inline void ubfab_model_count(struct ubfab_link *l, u64 bytes,
					      u64 dur)
{
	/* pairs with ubfab_model_link_idle_ps()'s smp_rmb() */
	smp_wmb();
	atomic64_add(bytes, &l->bytes);
	atomic64_add(dur, &l->busy_ps);
}

/*
 * Hold link @l, which is @kind (enum ubfab_link_kind) of @plane at @where
 * (the entity of a port, the node of an L1 or L2 link; @l2 the L2 switch
 * of one), for @dur from @t for @bytes of @ex, which the entity @ini
 * runs: when it gets it (ubfab_model_reserve()). Unless @dry, the link's
 * counters grow and tracepoint ubfab_link fires.
 */
static __always_inline u64
ubfab_model_take(struct ubfab_link *l, u64 t, u64 dur, u32 bytes, bool dry,
		 const struct ubfab_entity *ini, const struct ubfab_exec *ex,
		 u8 kind, u32 plane, u32 where, u32 l2)
{
	u64 s = ubfab_model_reserve(l, t, dur, dry);

	if (dry)
		return s;
	ubfab_model_count(l, bytes, dur);
	trace_ubfab_link(ini, ex, kind, plane, where, l2, s, dur, bytes);
	return s;
}

/*
 * Reserve @dur of link @l from @t when @t is after its end, or in its
 * latest gap, merged, with room for it: what ubfab_model_reserve() does
 * then (no wait; the gap before kept, or @dur taken out of the gap's
 * idle time), without its other cases (a queue that lags behind others'
 * reservations of a link usually finds the latest gap so). Return: false,
 * reserving nothing, when neither holds.
 */
static __always_inline bool ubfab_model_free(struct ubfab_link *l, u64 t,
					     u64 dur)
{
	struct ubfab_link_gap *g;
	bool free;

	bit_spin_lock(0, &l->lock);
	free = t > l->end_ps;
	if (free) {
		ubfab_model_gap_add(l, l->end_ps, t);
		WRITE_ONCE(l->end_ps, t + dur);
	} else if (l->nr_gaps) {
		/* in the latest gap, merged, with room: as place() takes it */
		g = &l->gaps[l->nr_gaps - 1];
		free = t >= g->from_ps && t < g->to_ps &&
		       ubfab_model_gap_merged(g) &&
		       ubfab_model_gap_room(g, t, dur);
		if (free)
			g->idle_ps -= dur;
	}
	__bit_spin_unlock(0, &l->lock);
	return free;
}

/* Make @l idle, its gaps gone; its counters stay, its end going to its base. */
static void ubfab_model_link_idle(struct ubfab_link *l)
{
	bit_spin_lock(0, &l->lock);
	WRITE_ONCE(l->base_ps, l->base_ps + l->end_ps);
	WRITE_ONCE(l->end_ps, 0);
	l->nr_gaps = 0;
	__bit_spin_unlock(0, &l->lock);
}

/**
 * ubfab_model_link_idle_ps() - how long a link has stood idle between
 *	busy periods, from 0 before the first
 * @l: the link
 * @busy_ps: its busy time, read before
 *
 * Context: any; exact when nothing reserves it meanwhile, never less than
 * 0. Return: modeled picoseconds.
 */
u64 ubfab_model_link_idle_ps(const struct ubfab_link *l, u64 busy_ps)
{
	u64 seen;

	/* pairs with ubfab_model_count()'s smp_wmb() */
	smp_rmb();
	seen = READ_ONCE(l->base_ps) + READ_ONCE(l->end_ps);
	return seen > busy_ps ? seen - busy_ps : 0;
}

/**
 * ubfab_model_links_reset() - make every link of @fabric idle, and every
 *	entity's DMA engines and vector-core paths
 * @fabric: the fabric
 *
 * For the ordered domain, when its first queue joins: a run starts on
 * idle links and engines. A transfer of another queue that reserves one
 * meanwhile may see it idle or not. What the links have carried stays
 * counted.
 */
void ubfab_model_links_reset(struct ubfab_fabric *fabric)
{
	struct ubfab_plane *pl;
	struct ubfab_port *port;
	size_t j;
	u32 eid, i;

	for (eid = 0; eid < fabric->nr_entities; eid++) {
		for (i = 0; i < UBFAB_MODEL_ENGINES; i++)
			ubfab_model_link_idle(&fabric->entities[eid]->engines[i]);
		for (i = 0; i < fabric->entities[eid]->nr_ports; i++) {
			port = &fabric->entities[eid]->ports[i];
			ubfab_model_link_idle(&port->tx);
			ubfab_model_link_idle(&port->rx);
		}
	}
	for (i = 0; i < fabric->topo.planes; i++) {
		pl = &fabric->planes[i];
		for (j = 0; j < ubfab_plane_nr_links(pl); j++)
			ubfab_model_link_idle(&pl->links[j]);
	}
}

/**
 * ubfab_model_queue_users() - count a queue in or out of the users of the
 *	initiator resources its transfers take
 * @entity: its entity
 * @qid: its number there
 * @delta: 1 when it is made, -1 when it goes
 *
 * For every number of resources a class can have, the one its number
 * picks (struct ubfab_entity's @engine_users); then prices remembered
 * are stale (ubfab_model_touch()), so that a queue that held nothing
 * alone looks again. Context: process; takes the entity's queues' lock,
 * then the model's.
 */
void ubfab_model_queue_users(struct ubfab_entity *entity, u32 qid,
			     int delta)
{
	u32 *users, m;

	xa_lock(&entity->queues);
	for (m = 1; m <= UBFAB_MODEL_MAX_ENGINES; m++) {
		users = &entity->engine_users[m - 1][qid % m];
		WRITE_ONCE(*users, *users + delta);
	}
	xa_unlock(&entity->queues);
	/* what a queue priced alone may hold now */
	ubfab_model_touch();
}

/*
 * The count of @x's initiator resource's users for ubfab_model_alone(),
 * @x a transfer of @ex from @self (an entity's place) on queue number
 * @qid that costs @cost_ps on its own: NULL when its hold there is
 * longer than its cost less its offset (a parameter set so), as the
 * next transfer of its queue could then wait for it; otherwise, the
 * queue's next transfer gets there after it is let go.
 */
static const u32 *ubfab_model_users(const struct ubfab_model_params *p,
				    const struct ubfab_loc *self,
				    const struct ubfab_exec *ex, u32 qid,
				    const struct ubfab_model_xfer *x,
				    u64 cost_ps)
{
	const struct ubfab_entity *e = ubfab_model_entity(self);
	u32 m = p->engines[ubfab_model_class(ex)];

	if (x->hold_ps > cost_ps - x->off_ps)
		return NULL;
	return &e->engine_users[m - 1][qid % m];
}

/*
 * Whether a transfer of @x, its data due to leave at @t0, need not hold
 * its initiator resource @engine: its queue is the only one that uses it
 * (@x->users) and every hold kept there ended by @t0, so nothing would
 * wait for it but the queue's own transfers, which never do. Its use is
 * then not kept: a queue that comes to share the resource later finds
 * it idle before. Read without the resource's lock.
 */
static __always_inline bool
ubfab_model_alone(const struct ubfab_model_xfer *x,
		  const struct ubfab_link *engine, u64 t0)
{
	return x->users && READ_ONCE(*x->users) == 1 &&
	       t0 >= READ_ONCE(engine->end_ps);
}

/*
 * The L2 switch of plane @pl that transfers from @src to another node's
 * @dst go through: a fixed hash of the two and the plane, spread over
 * the switches by its high bits (its low bits would follow @dst's alone).
 */
static u32 ubfab_model_l2(const struct ubfab_plane *pl,
			  const struct ubfab_entity *src,
			  const struct ubfab_entity *dst)
{
	return reciprocal_scale(hash_32(src->eid << 16 ^ dst->eid ^
					pl->id << 28, 32), pl->nr_l2);
}

/*
 * The links a transfer's share on @plane crosses from @src to @dst, in
 * @hops, @lat_ps one way: the entity's port into the plane, for another
 * node the L1's uplink to an L2 switch and that switch's downlink to the
 * other L1 (the L2 picked by a fixed hash of the two entities and the
 * plane), then the port out to @dst; each reached a third of the way
 * after the last for another node, at the end of it within one, on idle
 * links (cut-through). Return: how many, at most UBFAB_MODEL_HOPS.
 */
static unsigned int ubfab_model_hops(struct ubfab_entity *src,
				     struct ubfab_entity *dst,
				     unsigned int plane, u64 lat_ps,
				     struct ubfab_model_hop *hops)
{
	struct ubfab_plane *pl = &src->fabric->planes[plane];
	u32 j, n = 0, a = src->loc.node, b = dst->loc.node;

	hops[n++] = (struct ubfab_model_hop) {
		.link = &src->ports[plane].tx, .where = src->eid,
		.kind = UBFAB_LINK_PORT_TX,
	};
	if (a != b) {
		j = ubfab_model_l2(pl, src, dst);
		hops[n++] = (struct ubfab_model_hop) {
			.link = &pl->links[(a * pl->nr_l2 + j) * 2],
			.at_ps = lat_ps / 3, .where = a, .l2 = j,
			.kind = UBFAB_LINK_L1_UP,
		};
		hops[n++] = (struct ubfab_model_hop) {
			.link = &pl->links[(b * pl->nr_l2 + j) * 2 + 1],
			.at_ps = lat_ps / 3 * 2, .where = b, .l2 = j,
			.kind = UBFAB_LINK_L2_DOWN,
		};
	}
	hops[n++] = (struct ubfab_model_hop) {
		.link = &dst->ports[plane].rx, .at_ps = lat_ps,
		.where = dst->eid, .kind = UBFAB_LINK_PORT_RX,
	};
	return n;
}

/*
 * A plane's share of @bytes of @ex, which @ini runs, leaving at @t over
 * the @n links @hops of @plane, each taken when the share gets there
 * after it took the last, for @dur; reserved, or with @dry only looked
 * at. Return: when its last byte arrives.
 */
static __always_inline u64
ubfab_model_cross(const struct ubfab_entity *ini, const struct ubfab_exec *ex,
		  const struct ubfab_model_hop *hops, unsigned int n,
		  unsigned int plane, u64 t, u64 dur, u32 bytes, bool dry)
{
	const struct ubfab_model_hop *h;
	unsigned int i;
	u64 at = 0;

	for (i = 0; i < n; at = h->at_ps, i++) {
		h = &hops[i];
		t = ubfab_model_take(h->link, ubfab_model_sum(t, h->at_ps - at),
				     dur, bytes, dry, ini, ex, h->kind, plane,
				     h->where, h->l2);
	}
	return ubfab_model_sum(t, dur);
}

/*
 * Each plane's share of @ex, from @src to @dst, leaving at @t0, in @x,
 * over the links of its path (ubfab_model_hops(), ubfab_model_cross()),
 * each held for its own share's time and counting its bytes: the chunks
 * the data path dealt it (ubfab_model_share()), from the first plane of
 * @ex->plane_mask at or after @ex->plane, where the deal started (the
 * planes that were up did not change during it). @ini runs it.
 * Return: when its last byte arrives.
 */
static u64 ubfab_model_walk(const struct ubfab_entity *ini,
			    const struct ubfab_exec *ex,
			    struct ubfab_entity *src, struct ubfab_entity *dst,
			    u64 t0, const struct ubfab_model_xfer *x, bool dry)
{
	unsigned long mask = ex->plane_mask;
	u32 u = hweight32(ex->plane_mask), bytes = ex->bytes, i = 0, first = 0;
	struct ubfab_model_hop hops[UBFAB_MODEL_HOPS];
	u64 arrive = 0, dur = x->dur_ps;
	unsigned int plane, n;

	/* the planes of the mask below the deal's start come last */
	if (u > 1)
		first = hweight32(ex->plane_mask & (BIT(ex->plane) - 1));
	for_each_set_bit(plane, &mask, UBFAB_MAX_PLANES) {
		if (u > 1) {
			bytes = ubfab_model_share(ex->bytes, u,
						  i >= first ? i - first :
							       i + u - first);
			i++;
			if (!bytes)
				continue;
			dur = ubfab_model_ser_ps(bytes, x->rate,
						 x->bw_permille);
		}
		n = ubfab_model_hops(src, dst, plane, x->lat_ps, hops);
		arrive = max(arrive, ubfab_model_cross(ini, ex, hops, n, plane,
						       t0, dur, bytes, dry));
	}
	return arrive;
}

/*
 * How much later than on idle links and an idle engine the last byte of
 * @ex arrives, its data due to leave at @before plus its offset
 * @x->off_ps: the initiator's resource of its class it uses (a DMA engine
 * or a vector-core path) and each link it crosses over the planes (none
 * over the die-to-die link or a loopback) reserved for it, or with @dry
 * only looked at; those of @w, when @ex is alike the transfer
 * that @w was found for. Its data leaves when it gets that resource, and
 * goes from the initiator at @self to the peer (from the peer for READ),
 * at the pace of the links or of the resource, the slower.
 */
static __always_inline u64 ubfab_model_delay(const struct ubfab_loc *self,
					     const struct ubfab_exec *ex,
					     u64 before,
					     const struct ubfab_model_xfer *x,
					     const struct ubfab_model_way *w,
					     bool dry)
{
	struct ubfab_entity *a = ubfab_model_entity(self);
	struct ubfab_entity *b = ubfab_model_entity(ex->peer);
	u64 t0 = ubfab_model_sum(before, x->off_ps), arrive, idle, s;
	const struct ubfab_entity *ini = a;
	const struct ubfab_model_hop *h;
	struct ubfab_link *engine;
	unsigned int i = 0;
	bool alone;

	/*
	 * The way of a transfer alike: while the engine and each link are
	 * free when it gets there, as the queue's own last transfer usually
	 * left them, each is held from then (what ubfab_model_take() does
	 * then, in fewer steps); from the first that is not, as below.
	 */
	engine = w ? w->engine : &a->engines[x->engine];
	alone = ubfab_model_alone(x, engine, t0);
	if (w && !dry && t0 < w->free_below && !trace_ubfab_link_enabled() &&
	    (alone || ubfab_model_free(engine, t0, x->hold_ps))) {
		for (; i < w->nr_hops; i++) {
			h = &w->hops[i];
			if (!ubfab_model_free(h->link, t0 + h->at_ps,
					      x->dur_ps))
				break;
			ubfab_model_count(h->link, ex->bytes, x->dur_ps);
		}
		if (i == w->nr_hops)
			return 0;
		s = t0;
	} else {
		/* the engine's use is not counted */
		s = alone ? t0 : ubfab_model_reserve(engine, t0, x->hold_ps,
						     dry);
	}
	idle = ubfab_model_sum(t0, ubfab_model_sum(x->lat_ps,
						   max(x->dur_ps, x->eng_ps)));
	if (!x->links) {
		/* over the die-to-die link or a loopback, no link held */
		arrive = ubfab_model_sum(s, ubfab_model_sum(x->lat_ps,
							    x->dur_ps));
	} else if (w) {
		arrive = ubfab_model_cross(ini, ex, w->hops + i,
					   w->nr_hops - i, w->plane, s,
					   x->dur_ps, ex->bytes, dry);
	} else {
		if (ex->sqe.opcode == UBFAB_OP_READ)
			swap(a, b);
		arrive = ubfab_model_walk(ini, ex, a, b, s, x, dry);
	}
	arrive = max(arrive, ubfab_model_sum(s, ubfab_model_sum(x->lat_ps,
								x->eng_ps)));
	return arrive > idle ? arrive - idle : 0;
}

/**
 * ubfab_model_contend() - what a transfer waits for the links and the
 *	initiator's resources other transfers hold
 * @c: its queue's clock, already moved on by its cost alone
 * @self: where the queue's entity sits: an entity's place
 * @ex: the transfer; @ex->peer an entity's place
 * @before: the clock before the transfer
 * @x: how it goes (ubfab_model_xfer())
 *
 * The DMA engine or vector-core path it uses and each link it crosses are
 * reserved for it, and the clock moves on by how much later than on idle
 * ones its last byte arrives.
 * Context: the queue's run_lock held.
 */
void ubfab_model_contend(struct ubfab_model_clock *c,
			 const struct ubfab_loc *self,
			 const struct ubfab_exec *ex, u64 before,
			 const struct ubfab_model_xfer *x)
{
	u64 delay = ubfab_model_delay(self, ex, before, x, NULL, false);

	ubfab_model_advance(c, delay);
}

/*
 * Whether a run of transfers, the first of which takes link @l at @t and
 * the last of which lets it go at @to, holding it for @need in all, can
 * hold it at once (ubfab_model_hold()): @t is after its end, so that,
 * each ending its hold before the next gets there (struct
 * ubfab_model_way's @runs), none would wait one by one; or the run lies
 * in its latest gap, merged, which has room for @need from @t on (where
 * a queue that lags behind others' reservations of the link usually
 * finds it), so that each of them would take its hold out of that gap's
 * idle time. The end is read without the link's lock, and
 * ubfab_model_hold() takes what it finds.
 */
static __always_inline bool ubfab_model_run_free(struct ubfab_link *l,
						 u64 t, u64 to, u64 need)
{
	const struct ubfab_link_gap *g;
	bool free;

	if (t > READ_ONCE(l->end_ps))
		return true;
	bit_spin_lock(0, &l->lock);
	g = &l->gaps[l->nr_gaps ? l->nr_gaps - 1 : 0];
	free = l->nr_gaps && t >= g->from_ps && to <= g->to_ps &&
	       ubfab_model_gap_merged(g) && ubfab_model_gap_room(g, t, need);
	__bit_spin_unlock(0, &l->lock);
	return free;
}

/*
 * Reserve link @l for @dur from each of @n times, @first and each @step
 * after the last, which ubfab_model_run_free() found it free for: after
 * its end, with the gaps before each as one by one, or out of its latest
 * gap's idle time. Another CPU's transfer may have taken it since, at a
 * time the run needs: both then hold it.
 */
static void ubfab_model_hold(struct ubfab_link *l, u64 first, u64 step,
			     unsigned int n, u64 dur)
{
	struct ubfab_link_gap *g;
	unsigned int j;
	u64 end, t;

	bit_spin_lock(0, &l->lock);
	end = l->end_ps;
	if (first <= end && l->nr_gaps) {
		g = &l->gaps[l->nr_gaps - 1];
		g->idle_ps -= min(g->idle_ps, n * dur);
		goto unlock;
	}
	for (j = 0, t = first; j < n; j++, t += step) {
		if (t > end)
			ubfab_model_gap_add(l, end, t);
		end = max(end, t + dur);
	}
	WRITE_ONCE(l->end_ps, end);
unlock:
	__bit_spin_unlock(0, &l->lock);
}

/* ubfab_model_way() the first time: find the way and keep it. */
static noinline struct ubfab_model_way *
ubfab_model_way_find(struct ubfab_model_clock *c, const struct ubfab_loc *self,
		     const struct ubfab_exec *ex, unsigned int plane)
{
	const struct ubfab_model_xfer *x = &c->last_x;
	struct ubfab_model_way *w = &c->ways[plane];
	struct ubfab_entity *a = ubfab_model_entity(self);
	struct ubfab_entity *b = ubfab_model_entity(ex->peer);

	c->ways_found |= BIT(plane);
	w->engine = &a->engines[x->engine];
	if (ex->sqe.opcode == UBFAB_OP_READ)
		swap(a, b);
	w->plane = plane;
	w->nr_hops = x->links ? ubfab_model_hops(a, b, plane, x->lat_ps,
						 w->hops) : 0;
	w->runs = c->last_ps > max(x->hold_ps, x->dur_ps);
	w->free_below = U64_MAX - ubfab_model_sum(x->lat_ps,
						  max(x->hold_ps, x->dur_ps));
	return w;
}

/*
 * What @ex, a transfer alike the last one @c remembers, holds for
 * @plane, the one its chunk took: @c's way there, found
 * when the first such transfer takes it.
 */
static __always_inline struct ubfab_model_way *
ubfab_model_way(struct ubfab_model_clock *c, const struct ubfab_loc *self,
		const struct ubfab_exec *ex, unsigned int plane)
{
	if (likely(c->ways_found & BIT(plane)))
		return &c->ways[plane];
	return ubfab_model_way_find(c, self, ex, plane);
}

/* ubfab_model_run() keeps a bit for each hop of each plane in a u64 */
static_assert(UBFAB_MAX_PLANES * UBFAB_MODEL_HOPS <= 64);

/*
 * Reserve at once what a run of @k transfers alike the last one @c
 * remembers holds, @ex the first, starting at @before on @c and each
 * @c->last_ps after the last, when each of them would come after the
 * end of the engine and of each link it takes (ubfab_model_run_free()):
 * as they would one by one, with nothing else reserving meanwhile. The
 * engine, which all of them take, and each link of a plane they take end
 * up held by the last that took it, with the gaps before each kept
 * (ubfab_model_hold()), and such a link counts the bytes of all that took
 * its plane (the fast path gives the planes out in turn: the transfers on
 * one plane are a few apart, evenly, each ending its hold before the
 * next gets there, as @runs of struct ubfab_model_way says).
 * Return: false, reserving nothing, when one would not come after the
 * end, the transfers on a plane are not evenly apart, or a time would
 * pass the clock's end.
 */
static bool ubfab_model_run(struct ubfab_model_clock *c,
			    const struct ubfab_loc *self,
			    const struct ubfab_exec *ex, u64 before,
			    unsigned int k)
{
	u64 first[UBFAB_MAX_PLANES], last[UBFAB_MAX_PLANES];
	u64 step[UBFAB_MAX_PLANES], t0, span, t;
	const struct ubfab_model_xfer *x = &c->last_x;
	unsigned int n[UBFAB_MAX_PLANES], i, plane;
	const struct ubfab_model_way *w = NULL;
	const struct ubfab_model_hop *h;
	unsigned long planes = 0;
	bool alone;

	if (check_add_overflow(before, x->off_ps, &t0) ||
	    check_mul_overflow((u64)k - 1, c->last_ps, &span) ||
	    check_add_overflow(t0, span, &t) ||
	    check_add_overflow(t, x->lat_ps + x->dur_ps + x->hold_ps, &t))
		return false;
	/* each plane's first transfer's time, how far apart, and how many */
	for (i = 0, t = t0; i < k; i++, t += c->last_ps) {
		plane = __ffs(ex[i].plane_mask);
		if (!(planes & BIT(plane))) {
			planes |= BIT(plane);
			first[plane] = t;
			step[plane] = 0;
			n[plane] = 0;
		} else if (n[plane] == 1) {
			step[plane] = t - last[plane];
		} else if (t - last[plane] != step[plane]) {
			return false;
		}
		last[plane] = t;
		n[plane]++;
	}
	for_each_set_bit(plane, &planes, UBFAB_MAX_PLANES) {
		w = ubfab_model_way(c, self, ex, plane);
		for (i = 0; i < w->nr_hops; i++) {
			h = &w->hops[i];
			if (!ubfab_model_run_free(h->link,
						  first[plane] + h->at_ps,
						  last[plane] + h->at_ps +
						  x->dur_ps,
						  n[plane] * x->dur_ps))
				return false;
		}
	}
	alone = ubfab_model_alone(x, w->engine, t0);
	if (!alone && !ubfab_model_run_free(w->engine, t0,
					    t - c->last_ps + x->hold_ps,
					    k * x->hold_ps))
		return false;
	/* the engine's use is not counted */
	if (!alone)
		ubfab_model_hold(w->engine, t0, c->last_ps, k, x->hold_ps);
	for_each_set_bit(plane, &planes, UBFAB_MAX_PLANES) {
		w = &c->ways[plane];
		for (i = 0; i < w->nr_hops; i++) {
			h = &w->hops[i];
			ubfab_model_hold(h->link, first[plane] + h->at_ps,
					 step[plane], n[plane], x->dur_ps);
			ubfab_model_count(h->link, (u64)n[plane] * ex->bytes,
					  n[plane] * x->dur_ps);
		}
	}
	return true;
}

/**
 * ubfab_model_contend_alike() - ubfab_model_contend() for a transfer
 *	alike the last its queue charged
 * @c: its queue's clock, already moved on by its cost alone
 * @self: where the queue's entity sits: an entity's place
 * @ex: the transfer, which @ahead entries of its burst, already run,
 *	follow (all to its peer, each having moved its length:
 *	ubfab_model_key())
 * @before: the clock before it
 * @ahead: see @ex
 *
 * With the entries alike that follow it in its burst, a run, it reserves
 * at once what they hold (ubfab_model_run()) when none of them would
 * wait, and leaves them in @c->run_left, which they are charged against;
 * otherwise each of them contends alone (@c->run_lone). Not with
 * tracepoint ubfab_link on, whose events come transfer by transfer.
 * Context: the queue's run_lock held.
 */
void ubfab_model_contend_alike(struct ubfab_model_clock *c,
			       const struct ubfab_loc *self,
			       const struct ubfab_exec *ex, u64 before,
			       unsigned int ahead)
{
	const struct ubfab_exec *e = ex + 1, *end = e + ahead;
	const struct ubfab_model_xfer *x = &c->last_x;
	struct ubfab_model_way *w = ubfab_model_way(c, self, ex,
						    __ffs(ex->plane_mask));
	unsigned int k;
	u64 key;

	if (c->run_lone) {
		c->run_lone--;
	} else if (ahead && w->runs && !trace_ubfab_link_enabled()) {
		/* @ex is alike the last, and so is each after it of the same key */
		key = ubfab_model_key(&ex->sqe);
		while (e < end && ubfab_model_key(&e->sqe) == key)
			e++;
		k = e - ex;
		if (k > 1 && ubfab_model_run(c, self, ex, before, k)) {
			c->run_left = k - 1;
			return;
		}
		c->run_lone = k - 1;
	}
	ubfab_model_advance(c, ubfab_model_delay(self, ex, before, x, w,
						 false));
}

/**
 * ubfab_model_charge_new() - charge an entry ubfab_model_charge() could
 *	not price from the last one
 * @c: the queue's clock
 * @self: where the queue's entity sits
 * @ex: the entry
 *
 * Prices it with the parameters in force, remembers a transfer over one
 * plane for the next one alike, and ends a wait no earlier than what
 * satisfied it (@ex->after_ps). Context: the queue's run_lock held.
 */
void ubfab_model_charge_new(struct ubfab_model_clock *c,
			    const struct ubfab_loc *self,
			    const struct ubfab_exec *ex)
{
	u64 gen = READ_ONCE(ubfab_model_gen), cost, before = c->now_ps;
	const struct ubfab_model_params *p;
	const struct ubfab_model_faults *fp;
	struct ubfab_model_faults f;
	struct ubfab_model_xfer x;
	bool contends;

	/* the table and the knobs are as new as @gen says */
	smp_rmb();
	fp = ubfab_model_faults(c, self, ex, &f);
	rcu_read_lock();
	p = ubfab_model_params();
	cost = ubfab_model_cost_ps(p, self, ex, fp);
	contends = ubfab_model_xfer(p, self, ex, fp, c->qid, &x);
	if (contends)
		x.users = ubfab_model_users(p, self, ex, c->qid, &x, cost);
	rcu_read_unlock();
	/*
	 * No link, and its engine its queue's alone: it holds nothing, nor
	 * will those alike after it while ubfab_model_gen stays (a queue
	 * that comes or goes bumps it) and their data leaves later
	 */
	if (contends && !x.links &&
	    ubfab_model_alone(&x, &ubfab_model_entity(self)->engines[x.engine],
			      ubfab_model_sum(before, x.off_ps)))
		contends = false;
	/*
	 * One chunk over one plane; and no fault knobs, which differ from
	 * port to port and roll link errors entry by entry
	 */
	if (ex->peer && ex->bytes <= UBFAB_PLANE_CHUNK &&
	    hweight32(ex->plane_mask) == 1 && !fp) {
		c->last_peer = ex->peer;
		c->last_ps = cost;
		c->last_gen = gen;
		c->last_bytes = ex->bytes;
		c->last_kind = ubfab_model_kind(&ex->sqe);
		c->last_contends = contends;
		c->last_x = x;
		c->ways_found = 0;
	}
	ubfab_model_advance(c, cost);
	if (contends)
		ubfab_model_contend(c, self, ex, before, &x);
	/* a wait ends no earlier than what satisfied it */
	c->now_ps = max(c->now_ps, ex->after_ps);
}

/*
 * When @ex would end if it were charged now (no link error rolled), and
 * in *@back the way back of its acknowledgment or response; with
 * @contend, what it would wait for the links as they stand too.
 */
static u64 ubfab_model_price(const struct ubfab_model_clock *c,
			     const struct ubfab_loc *self,
			     const struct ubfab_exec *ex, u64 *back,
			     bool contend)
{
	const struct ubfab_model_params *p;
	const struct ubfab_model_faults *fp;
	struct ubfab_model_faults f;
	struct ubfab_model_xfer x;
	u64 end;

	fp = ubfab_model_faults(NULL, self, ex, &f);
	rcu_read_lock();
	p = ubfab_model_params();
	end = ubfab_model_cost_ps(p, self, ex, fp);
	*back = ex->peer ? ubfab_model_lat_ps(p, self, ex->peer) : 0;
	contend = contend && ubfab_model_xfer(p, self, ex, fp, c->qid,
						    &x);
	if (contend)
		x.users = ubfab_model_users(p, self, ex, c->qid, &x, end);
	rcu_read_unlock();
	if (fp)
		*back += fp->delay_ps;
	end = ubfab_model_sum(end, c->now_ps);
	if (contend)
		end = ubfab_model_sum(end, ubfab_model_delay(self, ex,
							     c->now_ps, &x,
							     NULL, true));
	return end;
}

/**
 * ubfab_model_end_ps() - when an entry would end if it were charged now
 * @c: its queue's clock
 * @self: where the queue's entity sits
 * @ex: the entry, as it stands
 *
 * Context: the queue's run_lock held. Return: picoseconds, saturated.
 */
u64 ubfab_model_end_ps(const struct ubfab_model_clock *c,
		       const struct ubfab_loc *self,
		       const struct ubfab_exec *ex)
{
	u64 back;

	return ubfab_model_price(c, self, ex, &back, false);
}

/**
 * ubfab_model_arrival_ps() - when a transfer's last bytes reach the peer
 * @c: its queue's clock
 * @self: where the queue's entity sits
 * @ex: the transfer, its last chunk noted (ubfab_model_note())
 *
 * Its end, were it charged now, less the way back of the acknowledgment
 * or the response; after what it would wait for its initiator's
 * resource and the links as other transfers hold them now (their reservation is made
 * when it is charged). Context: the queue's run_lock held.
 * Return: picoseconds, saturated.
 */
u64 ubfab_model_arrival_ps(const struct ubfab_model_clock *c,
			   const struct ubfab_loc *self,
			   const struct ubfab_exec *ex)
{
	u64 back, end = ubfab_model_price(c, self, ex, &back, true);

	return end == U64_MAX ? end : end - back;
}

/**
 * ubfab_model_arrival_ns() - when a transfer of @q reaches its peer
 * @q: the queue running it
 * @ex: the transfer, its last chunk noted, not yet charged
 *
 * What a receive completion says of a message: its arrival as
 * ubfab_model_arrival_ps() prices it, or @q's clock when it crossed no
 * link; 0 with the model off. Context: @q's run_lock held.
 * Return: nanoseconds.
 */
u64 ubfab_model_arrival_ns(struct ubfab_queue *q, const struct ubfab_exec *ex)
{
	if (!static_branch_likely(&ubfab_model_on))
		return 0;
	if (!ex->peer)
		return ubfab_model_now_ns(&q->model);
	return ubfab_model_ns(ubfab_model_arrival_ps(&q->model,
						     &q->file->entity->loc,
						     ex));
}

/**
 * ubfab_model_rnr_wait() - a queue waits @ns modeled nanoseconds (a
 *	receiver-not-ready retry): its clock moves on, with the model on
 * @c: the queue's clock
 * @ns: nanoseconds
 *
 * Context: the queue's run_lock held.
 */
void ubfab_model_rnr_wait(struct ubfab_model_clock *c, u64 ns)
{
	if (static_branch_likely(&ubfab_model_on))
		ubfab_model_advance(c, ubfab_model_ps(ns));
}

/**
 * ubfab_model_clock() - UBFAB_IOCTL_QUEUE_CLOCK: advance @q's clock by
 *	advance_ns and read it; with UBFAB_CLOCK_PARK, park an ordered queue
 * @q: the queue
 * @uarg: the user's struct ubfab_queue_clock
 *
 * Return: 0, -EINVAL (flags or size), -E2BIG (unknown trailing fields not
 * 0), -EFAULT, or -EINTR when killed waiting for the queue.
 */
long ubfab_model_clock(struct ubfab_queue *q, void __user *uarg)
{
	struct ubfab_queue_clock arg;
	u32 usize;
	int ret;

	ret = ubfab_ioctl_copy_in(&arg, sizeof(arg),
				  offsetofend(struct ubfab_queue_clock, now_ns),
				  uarg, &usize);
	if (ret)
		return ret;
	if (arg.flags & ~UBFAB_CLOCK_FLAGS)
		return -EINVAL;
	ret = mutex_lock_killable(&q->run_lock);
	if (ret)
		return ret;
	ubfab_model_advance(&q->model, ubfab_model_ps(arg.advance_ns));
	arg.now_ns = ubfab_model_now_ns(&q->model);
	if (arg.flags & UBFAB_CLOCK_PARK && q->flags & UBFAB_QUEUE_ORDERED)
		ubfab_order_park(q);
	mutex_unlock(&q->run_lock);
	if (copy_to_user(uarg, &arg, min_t(u32, usize, sizeof(arg))))
		return -EFAULT;
	return 0;
}
