// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libubshmem's MoE expert-parallel dispatch and combine (ubshmem_ep.h):
 * the context and its symmetric buffers, the dispatch (WRITEs of each
 * token into its experts' PEs, a FETCH_ADD on a per-peer flag carrying
 * the counts, WAIT_VALUEs on this PE's flags) and the combine (a
 * WRITE_NOTIFY adding 1 per expert output to a counter of the token's
 * home, a WAIT_VALUE on this PE's counter, the weighted sums). Every
 * WRITE, WRITE_NOTIFY and ATOMIC is of the memory-semantics class
 * (UBFAB_SQE_MEMSEM: the vector cores' direct stores, as the serving
 * stack does it), so a record or an output is at most 64 KiB, and they
 * are spread over the context's own queues (lanes), whose clocks start
 * at the PE queue's and end it (in the ordered domain through events,
 * order.c). A context is over a team: its PEs are numbered by their
 * index in it, expert e on index e / experts_per_pe. The protocol is in
 * Documentation/shmem.rst "MoE dispatch and combine".
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "ubshmem_ep.h"

/*
 * The queues a PE's transfers are spread over, as the vector cores of a
 * die store at once: each runs its entries one after the other, each a
 * write's round trip, so one queue would add every latency up.
 */
#define EP_LANES	16
#define EP_LANE_DEPTH	64
/*
 * In the ordered domain a lane that fills would be waited for on the
 * host while the PE's other lanes may stand idle, holding the domain
 * back: deep enough for a call's entries, up to this.
 */
#define EP_LANE_DEPTH_ORDERED	1024U

/* A flag: (1 << 48) | pairs << 24 | tokens, added by the sender. */
#define FLAG_SET	(1ULL << 48)
#define FLAG_FIELD	0xffffffULL

/*
 * The symmetric buffers, each twice (step & 1 picks one):
 *  flags[b][s]:        PE s's flag for this PE (s: an index in the team);
 *  counter[b]:         the combine's counter, added 1 per expert output;
 *  recv[b][s][c]:      tokens from PE s, capacity records each;
 *  back[b][t][k]:      the output of expert k of token t, home here;
 * and once: send[t], this PE's tokens as records, and out[p], the
 * outputs of this PE's experts, one per pair of a received token and
 * a local expert of it.
 */
struct ubshmem_ep {
	struct ubshmem_ep_attr a;
	int n;				/* PEs of the team */
	int me;				/* this PE's index in it */
	int *pes;			/* their PE numbers, by index */
	size_t rec;			/* a token's record, bytes */
	size_t row;			/* a BF16 output, bytes */
	uint64_t *flags[2];
	uint64_t *counter[2];
	char *recv[2];
	char *back[2];
	char *send;
	char *out;
	uint64_t expected[2];		/* counter value awaited, cumulated */
	/* the last dispatch */
	uint64_t step;			/* dispatches begun */
	uint64_t combined;		/* the step last combined */
	unsigned int ntokens;
	unsigned int *count;		/* tokens from each PE */
	unsigned int *pairs;		/* their pairs of (token, local expert) */
	unsigned int nrecv;
	unsigned int *first;		/* received token i: its first output */
	unsigned int *src_token;	/* PE s's first received token */
	unsigned int *src_pair;		/* and its first output */
	uint8_t *lost;			/* [t][k]: not sent, over capacity */
	unsigned int sent_pairs;	/* outputs that will come home */
	int timing;			/* the PE's queue is timing-only */
	struct shm_queue lane[EP_LANES];
	struct shm_gang gang;		/* the lanes' events, if ordered */
	uint64_t dispatch_ns, combine_ns;
};

static size_t rec_size(const struct ubshmem_ep_attr *a)
{
	size_t len = sizeof(struct ubshmem_ep_token) + a->hidden +
		     a->hidden / UBSHMEM_EP_GROUP * sizeof(float);

	return (len + UBSHMEM_EP_ALIGN - 1) / UBSHMEM_EP_ALIGN *
	       UBSHMEM_EP_ALIGN;
}

static unsigned int capacity(const struct ubshmem_ep_attr *a)
{
	return a->capacity ? a->capacity : a->max_tokens;
}

/* Outputs a PE computes for one peer's tokens of a step, at most. */
static unsigned int max_pairs(const struct ubshmem_ep_attr *a)
{
	unsigned int per = a->top_k < a->experts_per_pe ? a->top_k :
			   a->experts_per_pe;

	return capacity(a) * per;
}

static int attr_ok(const struct ubshmem_ep_attr *a, int n)
{
	return a && n > 0 && a->max_tokens && a->max_tokens <= FLAG_FIELD &&
	       a->hidden && a->hidden % UBSHMEM_EP_GROUP == 0 &&
	       /* an output, the larger, in one memory-semantics entry */
	       a->hidden * sizeof(uint16_t) <= UBFAB_SQE_MEMSEM_MAX_LENGTH &&
	       a->top_k &&
	       a->top_k <= UBSHMEM_EP_MAX_TOPK && a->experts_per_pe &&
	       a->experts_per_pe <= UINT16_MAX + 1U &&
	       a->capacity <= a->max_tokens &&
	       (uint64_t)a->experts_per_pe * n <= INT32_MAX &&
	       (uint64_t)max_pairs(a) <= FLAG_FIELD;
}

/* The bytes of each buffer, in the order ubshmem_ep_create() takes them. */
static void sizes(const struct ubshmem_ep_attr *a, int n, uint64_t len[6])
{
	uint64_t rec = rec_size(a), row = a->hidden * sizeof(uint16_t);

	len[0] = n * sizeof(uint64_t);				/* flags */
	len[1] = sizeof(uint64_t);				/* counter */
	len[2] = (uint64_t)n * capacity(a) * rec;		/* recv */
	len[3] = (uint64_t)a->max_tokens * a->top_k * row;	/* back */
	len[4] = a->max_tokens * rec;				/* send */
	len[5] = (uint64_t)n * max_pairs(a) * row;		/* out */
}

uint64_t ubshmem_ep_heap_size(const struct ubshmem_ep_attr *attr, int n_pes)
{
	uint64_t len[6], sum = 0;
	int i;

	if (!attr_ok(attr, n_pes))
		return 0;
	sizes(attr, n_pes, len);
	/* ubshmem_malloc() rounds each block up to SHM_ALIGN */
	for (i = 0; i < 6; i++)
		sum += (i < 4 ? 2 : 1) *
		       ((len[i] + SHM_ALIGN - 1) & ~(SHM_ALIGN - 1));
	/* and the part of the heap the library keeps */
	return sum + SHM_RESERVED(n_pes);
}

/*
 * A lane's depth: in the ordered domain a power of two that holds a
 * call's entries (its peers' tokens or outputs and a flag each, and
 * the two events of order.c), at most EP_LANE_DEPTH_ORDERED.
 */
static unsigned int lane_depth(const struct ubshmem_ep *ep)
{
	uint64_t need = (uint64_t)(ep->n + EP_LANES - 1) / EP_LANES *
			(max_pairs(&ep->a) + 1) + 3;
	unsigned int d = EP_LANE_DEPTH;

	if (!shm_is_ordered())
		return d;
	while (d < need && d < EP_LANE_DEPTH_ORDERED)
		d <<= 1;
	return d;
}

void ubshmem_ep_destroy(struct ubshmem_ep *ep)
{
	int b;

	if (!ep)
		return;
	for (b = 0; b < EP_LANES; b++)
		ubfab_queue_destroy(ep->lane[b].q);
	shm_gang_free(&ep->gang);
	ubshmem_free(ep->out);
	ubshmem_free(ep->send);
	for (b = 1; b >= 0; b--) {
		ubshmem_free(ep->back[b]);
		ubshmem_free(ep->recv[b]);
		ubshmem_free(ep->counter[b]);
		ubshmem_free(ep->flags[b]);
	}
	free(ep->count);
	free(ep->pairs);
	free(ep->first);
	free(ep->src_token);
	free(ep->src_pair);
	free(ep->lost);
	free(ep->pes);
	free(ep);
}

/*
 * The most PEs a team of the contexts being made has, into @max: every PE
 * of the job calls ubshmem_ep_create_team(), each with its team of @n,
 * and tells the others @n in a round of the bootstrap (not over the
 * fabric, where a timing-only PE moves no payload).
 */
static int largest_team(int n, int *max)
{
	int32_t mine = n, *all = calloc(shm->n, sizeof(*all));
	int err = all ? shm_boot_allgather(shm, &mine, sizeof(mine), all) :
		  -ENOMEM;
	int pe;

	for (pe = 0, *max = 0; !err && pe < shm->n; pe++)
		*max = all[pe] > *max ? all[pe] : *max;
	free(all);
	return err;
}

int ubshmem_ep_create_team(const struct ubshmem_team *team,
			   const struct ubshmem_ep_attr *attr,
			   struct ubshmem_ep **epp)
{
	struct ubfab_queue_attr qa = UBFAB_QUEUE_ATTR_INIT;
	struct ubshmem_ep *ep;
	uint64_t len[6];
	int b, n, max, err = 0;

	/* the same in every PE: each returns before the collective calls */
	if (!shm || !epp || !attr_ok(attr, 1))
		return -EINVAL;
	if (team && team->me < 0)
		return -EINVAL;
	n = team ? team->n : 1;
	err = largest_team(n, &max);
	if (err)
		return err;
	if (!attr_ok(attr, max))
		return -EINVAL;
	ep = calloc(1, sizeof(*ep));
	if (!ep)
		return -ENOMEM;
	ep->a = *attr;
	ep->n = n;
	ep->me = team ? team->me : 0;
	ep->pes = calloc(n, sizeof(*ep->pes));
	if (ep->pes)
		memcpy(ep->pes, team ? team->pes : &shm->me,
		       n * sizeof(*ep->pes));
	ep->rec = rec_size(attr);
	ep->row = attr->hidden * sizeof(uint16_t);
	ep->timing = !!(shm->main.q->flags & UBFAB_QUEUE_TIMING);
	ep->count = calloc(n, sizeof(*ep->count));
	ep->pairs = calloc(n, sizeof(*ep->pairs));
	ep->first = calloc((size_t)n * capacity(attr) + 1, sizeof(*ep->first));
	ep->src_token = calloc(n, sizeof(*ep->src_token));
	ep->src_pair = calloc(n, sizeof(*ep->src_pair));
	ep->lost = calloc((size_t)attr->max_tokens * attr->top_k, 1);
	/* the same blocks in every PE: for the largest team */
	sizes(attr, max, len);
	/* every PE makes the same calls, even once one has failed */
	for (b = 0; b < 2; b++) {
		ep->flags[b] = ubshmem_malloc(len[0]);
		ep->counter[b] = ubshmem_malloc(len[1]);
		ep->recv[b] = ubshmem_malloc(len[2]);
		ep->back[b] = ubshmem_malloc(len[3]);
	}
	ep->send = ubshmem_malloc(len[4]);
	ep->out = ubshmem_malloc(len[5]);
	qa.flags = shm_queue_flags();
	qa.sq_entries = lane_depth(ep);
	for (b = 0; b < EP_LANES && !err; b++) {
		ep->lane[b].depth = qa.sq_entries;
		err = ubfab_queue_create(shm->dev, &qa, &ep->lane[b].q);
	}
	if (!err && shm_is_ordered())
		err = shm_gang_init(&ep->gang, ep->lane, EP_LANES);
	for (b = 0; b < 2; b++)
		if (!ep->flags[b] || !ep->counter[b] || !ep->recv[b] ||
		    !ep->back[b])
			break;
	if (err || b < 2 || !ep->send || !ep->out || !ep->pes || !ep->count ||
	    !ep->pairs || !ep->first || !ep->src_token || !ep->src_pair ||
	    !ep->lost) {
		ubshmem_ep_destroy(ep);
		return err ? err : -ENOMEM;
	}
	*epp = ep;
	return 0;
}

int ubshmem_ep_create(const struct ubshmem_ep_attr *attr,
		      struct ubshmem_ep **epp)
{
	return ubshmem_ep_create_team(ubshmem_team_world(), attr, epp);
}

static char *record(const struct ubshmem_ep *ep, int b, int s,
		    unsigned int c)
{
	return ep->recv[b] + ((size_t)s * capacity(&ep->a) + c) * ep->rec;
}

/* How many of a token's top-k @experts are on the PE of index @pe. */
static unsigned int on_pe(const struct ubshmem_ep *ep, const int32_t *experts,
			  int pe)
{
	unsigned int k, n = 0;

	for (k = 0; k < ep->a.top_k; k++)
		n += experts[k] / (int32_t)ep->a.experts_per_pe == pe;
	return n;
}

static int check_routing(const struct ubshmem_ep *ep, unsigned int ntokens,
			 const int32_t *experts)
{
	int32_t nexp = (int32_t)ep->a.experts_per_pe * ep->n;
	unsigned int t, k, j;

	for (t = 0; t < ntokens; t++) {
		const int32_t *e = experts + (size_t)t * ep->a.top_k;

		for (k = 0; k < ep->a.top_k; k++) {
			if (e[k] < 0 || e[k] >= nexp)
				return -EINVAL;
			for (j = 0; j < k; j++)
				if (e[j] == e[k])
					return -EINVAL;
		}
	}
	return 0;
}

/* Token @t into its record of the send buffer: header, payload, scales. */
static void pack(struct ubshmem_ep *ep, unsigned int t, const int8_t *x,
		 const float *scales, const int32_t *experts)
{
	struct ubshmem_ep_token *tok = (void *)(ep->send + t * ep->rec);
	unsigned int groups = ep->a.hidden / UBSHMEM_EP_GROUP;

	memset(tok, 0, sizeof(*tok));
	tok->src_pe = ep->me;
	tok->src_token = t;
	tok->hidden = ep->a.hidden;
	tok->top_k = ep->a.top_k;
	memcpy(tok->expert, experts + (size_t)t * ep->a.top_k,
	       ep->a.top_k * sizeof(*experts));
	memcpy(tok + 1, x + (size_t)t * ep->a.hidden, ep->a.hidden);
	memcpy((char *)(tok + 1) + ep->a.hidden, scales + (size_t)t * groups,
	       groups * sizeof(float));
}

/*
 * Every lane's clock moved on to the PE queue's, where the call starts
 * (in the ordered domain, started by the PE queue's event: order.c).
 */
static int lanes_start(struct ubshmem_ep *ep)
{
	uint64_t now, t;
	int l, err;

	if (ep->gang.help) {
		shm_gang_start(&ep->gang);
		return 0;
	}
	err = ubfab_queue_clock(shm->main.q, 0, &now);
	for (l = 0; !err && l < EP_LANES; l++) {
		err = ubfab_queue_clock(ep->lane[l].q, 0, &t);
		if (!err && t < now)
			err = ubfab_queue_clock(ep->lane[l].q, now - t, NULL);
	}
	return err;
}

/*
 * Every lane's entries reaped; the PE queue's clock moved on to the
 * latest lane's, where this PE's own transfers ended.
 */
static int lanes_end(struct ubshmem_ep *ep)
{
	uint64_t now, t, end = 0;
	int l, err = 0, err2;

	if (ep->gang.help)
		return shm_gang_end(&ep->gang);
	for (l = 0; l < EP_LANES; l++) {
		err2 = shm_queue_drain(&ep->lane[l], 0, NULL);
		if (!err2)
			err2 = ubfab_queue_clock(ep->lane[l].q, 0, &t);
		if (!err2 && t > end)
			end = t;
		err = err ? err : err2;
	}
	err2 = ubfab_queue_clock(shm->main.q, 0, &now);
	if (!err2 && end > now)
		err2 = ubfab_queue_clock(shm->main.q, end - now, NULL);
	return err ? err : err2;
}

/*
 * To the PE of index @pe: a WRITE of each of this PE's tokens that goes
 * there, then the FETCH_ADD of its flag, which the queue runs after them.
 * Returns -ENOSPC when they are more than the capacity: then none is
 * sent, and the flag says how many there were.
 */
static int send_to(struct ubshmem_ep *ep, struct shm_queue *lane, int b,
		   int pe, const int32_t *experts)
{
	unsigned int t, k, slot = 0, tokens = 0, pairs = 0, nl;
	struct ubfab_sqe *sqe;
	uint64_t off, roff;
	int err = 0;

	for (t = 0; t < ep->ntokens; t++) {
		nl = on_pe(ep, experts + (size_t)t * ep->a.top_k, pe);
		tokens += !!nl;
		pairs += nl;
	}
	if (tokens > capacity(&ep->a))
		err = -ENOSPC;
	else
		ep->sent_pairs += pairs;
	for (t = 0; err && t < ep->ntokens; t++)
		for (k = 0; k < ep->a.top_k; k++)
			if (experts[t * ep->a.top_k + k] /
			    (int32_t)ep->a.experts_per_pe == pe)
				ep->lost[t * ep->a.top_k + k] = 1;
	for (t = 0; !err && t < ep->ntokens; t++) {
		if (!on_pe(ep, experts + (size_t)t * ep->a.top_k, pe))
			continue;
		shm_heap_offset(ep->send + t * ep->rec, ep->rec, &off);
		shm_heap_offset(record(ep, b, ep->me, slot++), ep->rec,
				&roff);
		sqe = shm_queue_sqe(lane);
		ubfab_prep_write(sqe, shm->heap_off + off,
				 shm_remote(ep->pes[pe], roff), ep->rec);
		sqe->flags |= UBFAB_SQE_MEMSEM;
		shm_queue_post(lane, sqe);
	}
	shm_heap_offset(&ep->flags[b][ep->me], 8, &off);
	sqe = shm_queue_sqe(lane);
	ubfab_prep_atomic(sqe, UBFAB_ATOMIC_FETCH_ADD,
			  shm_remote(ep->pes[pe], off),
			  FLAG_SET | (uint64_t)pairs << 24 | tokens, 0);
	sqe->flags |= UBFAB_SQE_MEMSEM;
	shm_queue_post(lane, sqe);
	return err;
}

/*
 * Wait for every peer's flag of buffer @b (WAIT_VALUEs, all posted, then
 * reaped), take the counts and clear the flags for the step after next.
 */
static int receive(struct ubshmem_ep *ep, int b)
{
	unsigned int cap = capacity(&ep->a), c, i = 0;
	struct ubfab_sqe *sqe;
	uint64_t off, f;
	int s, err, over = 0;

	for (s = 0; s < ep->n; s++) {
		shm_heap_offset(&ep->flags[b][s], 8, &off);
		sqe = shm_sqe();
		ubfab_prep_wait_value(sqe, shm->heap_off + off, UBFAB_WAIT_GE,
				      FLAG_SET, 0);
		shm_post(sqe);
	}
	err = shm_drain(0, NULL);
	if (err)
		return err;
	ep->first[0] = 0;
	for (s = 0; s < ep->n; s++) {
		ep->src_token[s] = i;
		ep->src_pair[s] = ep->timing ? (s ? ep->src_pair[s - 1] +
						ep->pairs[s - 1] : 0) :
				  ep->first[i];
		f = __atomic_load_n(&ep->flags[b][s], __ATOMIC_ACQUIRE);
		ep->flags[b][s] = 0;
		ep->count[s] = f & FLAG_FIELD;
		ep->pairs[s] = f >> 24 & FLAG_FIELD;
		if (ep->count[s] > cap) {
			over = 1;
			ep->count[s] = ep->pairs[s] = 0;
		}
		for (c = 0; c < ep->count[s]; c++, i++) {
			const struct ubshmem_ep_token *tok =
				(const void *)record(ep, b, s, c);

			ep->first[i + 1] = ep->first[i] + (ep->timing ? 0 :
				on_pe(ep, tok->expert, ep->me));
		}
	}
	ep->nrecv = i;
	return over ? -ENOSPC : 0;
}

int ubshmem_ep_dispatch(struct ubshmem_ep *ep, unsigned int ntokens,
			const int8_t *x, const float *scales,
			const int32_t *experts)
{
	uint64_t t0 = ubshmem_model_ns();
	int b, i, err = 0, err2;

	if (!shm || !ep || ntokens > ep->a.max_tokens ||
	    (ntokens && (!x || !scales || !experts)) ||
	    check_routing(ep, ntokens, experts))
		return -EINVAL;
	b = ep->step++ & 1;
	ep->ntokens = ntokens;
	ep->sent_pairs = 0;
	memset(ep->lost, 0, (size_t)ep->a.max_tokens * ep->a.top_k);
	for (i = 0; !ep->timing && i < (int)ntokens; i++)
		pack(ep, i, x, scales, experts);
	/*
	 * Each PE starts with its right neighbour: not all on one target;
	 * a peer's tokens and then its flag on one lane, in that order.
	 */
	err = lanes_start(ep);
	for (i = 1; i <= ep->n; i++) {
		err2 = send_to(ep, &ep->lane[(i - 1) % EP_LANES], b,
			       (ep->me + i) % ep->n, experts);
		err = err ? err : err2;
	}
	err2 = lanes_end(ep);
	err = err ? err : err2;
	err2 = receive(ep, b);
	err = err ? err : err2;
	ep->dispatch_ns = ubshmem_model_ns() - t0;
	return err;
}

unsigned int ubshmem_ep_recv_count(const struct ubshmem_ep *ep)
{
	return ep ? ep->nrecv : 0;
}

const struct ubshmem_ep_token *
ubshmem_ep_recv_token(const struct ubshmem_ep *ep, unsigned int i)
{
	int s;

	for (s = 0; ep && i < ep->nrecv && s < ep->n; s++) {
		if (i < ep->count[s])
			return (const void *)record(ep, (ep->step - 1) & 1, s,
						    i);
		i -= ep->count[s];
	}
	return NULL;
}

const int8_t *ubshmem_ep_token_data(const struct ubshmem_ep_token *tok)
{
	return (const int8_t *)(tok + 1);
}

const float *ubshmem_ep_token_scales(const struct ubshmem_ep_token *tok)
{
	return (const float *)(ubshmem_ep_token_data(tok) + tok->hidden);
}

uint16_t *ubshmem_ep_expert_out(struct ubshmem_ep *ep, unsigned int i,
				unsigned int j)
{
	if (!ep || i >= ep->nrecv || j >= ep->first[i + 1] - ep->first[i])
		return NULL;
	return (uint16_t *)(ep->out + (size_t)(ep->first[i] + j) * ep->row);
}

/* A WRITE_NOTIFY of output @p to slot @slot of buffer @b of index @pe. */
static void send_back(struct ubshmem_ep *ep, struct shm_queue *lane, int b,
		      int pe, unsigned int p, unsigned int slot)
{
	struct ubfab_sqe *sqe;
	uint64_t off, roff, coff;

	shm_heap_offset(ep->out + (size_t)p * ep->row, ep->row, &off);
	shm_heap_offset(ep->back[b] + (size_t)slot * ep->row, ep->row, &roff);
	shm_heap_offset(ep->counter[b], 8, &coff);
	sqe = shm_queue_sqe(lane);
	ubfab_prep_write_notify(sqe, shm->heap_off + off,
				shm_remote(ep->pes[pe], roff), ep->row,
				shm_remote(ep->pes[pe], coff), 1);
	sqe->flags |= UBFAB_SQE_MEMSEM;
	shm_queue_post(lane, sqe);
}

/* Every output of the tokens received from index @s home, one per pair. */
static void send_home(struct ubshmem_ep *ep, struct shm_queue *lane, int b,
		      int s)
{
	unsigned int c, k, j, i = ep->src_token[s], p = ep->src_pair[s];
	const struct ubshmem_ep_token *tok;

	if (ep->timing) {
		/* no headers arrived: the same WRITEs, to slots in turn */
		for (j = 0; j < ep->pairs[s]; j++)
			send_back(ep, lane, b, s, p + j, j);
		return;
	}
	for (c = 0; c < ep->count[s]; c++, i++) {
		tok = (const void *)record(ep, b, s, c);
		for (k = 0, j = 0; k < ep->a.top_k; k++)
			if (tok->expert[k] / (int32_t)ep->a.experts_per_pe ==
			    ep->me)
				send_back(ep, lane, b, s, ep->first[i] + j++,
					  tok->src_token * ep->a.top_k + k);
	}
}

/* out[t] = the weighted sum of the outputs in buffer @b, k in order. */
static void weighted_sums(const struct ubshmem_ep *ep, int b,
			  const float *weights, uint16_t *out)
{
	unsigned int t, k, h, K = ep->a.top_k, H = ep->a.hidden;
	const uint16_t *y;
	float acc, w;

	for (t = 0; t < ep->ntokens; t++) {
		for (h = 0; h < H; h++) {
			acc = 0.0f;
			for (k = 0; k < K; k++) {
				if (ep->lost[t * K + k])
					continue;
				y = (const uint16_t *)(ep->back[b] +
					((size_t)t * K + k) * ep->row);
				w = weights[t * K + k];
				acc += w * shm_bf16_float(y[h]);
			}
			out[(size_t)t * H + h] = shm_float_bf16(acc);
		}
	}
}

int ubshmem_ep_combine(struct ubshmem_ep *ep, const float *weights,
		       uint16_t *out)
{
	uint64_t t0 = ubshmem_model_ns(), off;
	struct ubfab_sqe *sqe;
	int b, s, err, err2;

	if (!shm || !ep || ep->combined == ep->step ||
	    (ep->ntokens && (!weights || !out)))
		return -EINVAL;
	ep->combined = ep->step;
	b = (ep->step - 1) & 1;
	/* as the dispatch: right neighbour first, a peer's on one lane */
	err = lanes_start(ep);
	for (s = 1; s <= ep->n; s++)
		send_home(ep, &ep->lane[(s - 1) % EP_LANES], b,
			  (ep->me + s) % ep->n);
	err2 = lanes_end(ep);
	err = err ? err : err2;
	ep->expected[b] += ep->sent_pairs;
	shm_heap_offset(ep->counter[b], 8, &off);
	sqe = shm_sqe();
	ubfab_prep_wait_value(sqe, shm->heap_off + off, UBFAB_WAIT_GE,
			      ep->expected[b], 0);
	shm_post(sqe);
	err2 = shm_drain(0, NULL);
	err = err ? err : err2;
	if (!err && !ep->timing)
		weighted_sums(ep, b, weights, out);
	ep->combine_ns = ubshmem_model_ns() - t0;
	return err;
}

uint64_t ubshmem_ep_dispatch_ns(const struct ubshmem_ep *ep)
{
	return ep ? ep->dispatch_ns : 0;
}

uint64_t ubshmem_ep_combine_ns(const struct ubshmem_ep *ep)
{
	return ep ? ep->combine_ns : 0;
}
