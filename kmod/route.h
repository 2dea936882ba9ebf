/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ubfab routing: which plane each chunk of a queue entry takes, and the
 * one point where a chunk crosses a link.
 *
 * Planes. A plane is usable between two entities while the plane and both
 * entities' ports into it are up. A remote entry (an opcode with
 * UBFAB_OPF_FABRIC) starts at the queue's plane cursor, which every remote
 * entry moves on by one, failed or not; each chunk of it goes over the
 * first usable plane from where its walk stands, round-robin, as read at
 * the start of that chunk (a state change mid-transfer affects the chunks
 * after it; the first data chunk takes the reading of the entry's route
 * check). So chunks are dealt over the planes that are up, and a plane
 * going down leaves its share to the others.
 *
 * The link crossing point. Every byte that crosses a port and a plane, on
 * every path of the data path (chunk copies, the bounce path, the fast
 * path, atomics and WRITE_NOTIFY's add), is accounted by
 * ubfab_route_cross(), which has the queue, the entry, the plane and the
 * peer in hand: it counts the traffic on both ports and notes the plane
 * and the peer in the entry for the fabric model (model.h). COPY and FILL
 * cross no link. A failed remote entry counts one error on the port of the
 * plane it started from (ubfab_route_error()).
 *
 * Everything here runs under the queue's run_lock, which guards its
 * plane cursor; the data path's helpers are __always_inline (xfer.c says
 * why).
 */
#ifndef _UBFAB_ROUTE_H
#define _UBFAB_ROUTE_H

#include <linux/bitops.h>
#include <linux/minmax.h>

#include "engine.h"
#include "model.h"

/* No plane connects the two entities. */
#define UBFAB_NO_PLANE	U32_MAX

/* Planes that connect @a and @b now: each plane and both ports up. */
static __always_inline u32 ubfab_route_usable(const struct ubfab_fabric *fabric,
					      const struct ubfab_entity *a,
					      const struct ubfab_entity *b)
{
	BUILD_BUG_ON(UBFAB_MAX_PLANES > 32);
	return READ_ONCE(fabric->planes_up) & READ_ONCE(a->ports_up) &
	       READ_ONCE(b->ports_up);
}

/**
 * ubfab_route_pick_plane() - the plane the next chunk of a transfer takes
 * @usable: bit p set when plane p may carry it
 * @nr_planes: planes in the fabric; bits of @usable at or above it are
 *	ignored
 * @next: where the round-robin stands, taken modulo @nr_planes; moved past
 *	the plane picked
 *
 * Return: the first usable plane at or after *@next, wrapping around, or
 * UBFAB_NO_PLANE (*@next unchanged).
 */
static __always_inline u32
ubfab_route_pick_plane(u32 usable, u32 nr_planes, u32 *next)
{
	u32 from = *next, p, later;

	/* the data path keeps its positions in range: no division there */
	if (unlikely(from >= nr_planes))
		from %= nr_planes;
	/* the common case, all that a queue's fast path pays for */
	if (likely(usable & BIT(from))) {
		p = from;
		goto out;
	}
	usable &= GENMASK(nr_planes - 1, 0);
	if (!usable)
		return UBFAB_NO_PLANE;
	later = usable & GENMASK(nr_planes - 1, from);
	p = __ffs(later ? later : usable);
out:
	*next = p + 1 < nr_planes ? p + 1 : 0;
	return p;
}

/**
 * ubfab_route_chunk_len() - the length of the next chunk of a transfer
 * @length: bytes in the transfer
 * @done: bytes already sent, below @length
 *
 * Return: UBFAB_PLANE_CHUNK, or what is left when that is less.
 */
static __always_inline u32 ubfab_route_chunk_len(u32 length, u32 done)
{
	return min_t(u32, length - done, UBFAB_PLANE_CHUNK);
}

/* The plane cursor's next position after @start, of @planes. */
static __always_inline u32 ubfab_route_cursor_next(u32 start, u32 planes)
{
	return start + 1 < planes ? start + 1 : 0;
}

/* Where @q's plane cursor stands, kept below the fabric's plane count. */
static __always_inline u32 ubfab_route_cursor(const struct ubfab_queue *q)
{
	u32 planes = q->file->entity->fabric->topo.planes;

	return q->plane_cursor < planes ? q->plane_cursor : 0;
}

/*
 * A remote entry starts: the plane its walk starts from, the queue's
 * cursor, which moves on by one.
 */
static __always_inline u32 ubfab_route_start(struct ubfab_queue *q)
{
	u32 planes = q->file->entity->fabric->topo.planes;
	u32 start = ubfab_route_cursor(q);

	q->plane_cursor = ubfab_route_cursor_next(start, planes);
	return start;
}

/**
 * struct ubfab_route_walk - the planes one entry's chunks take
 * @fabric: the fabric
 * @from: the initiator
 * @next: round-robin position of the next chunk
 * @usable: the planes to the peer, as the entry's route check read them
 *	just before its first chunk, when @usable_read
 * @usable_read: the first chunk takes @usable instead of reading again
 */
struct ubfab_route_walk {
	const struct ubfab_fabric *fabric;
	const struct ubfab_entity *from;
	u32 next;
	u32 usable;
	bool usable_read;
};

/* Start the walk of @q's entry @ex, from the plane it started at. */
static __always_inline void ubfab_route_walk_init(struct ubfab_route_walk *w,
						  const struct ubfab_queue *q,
						  const struct ubfab_exec *ex)
{
	*w = (struct ubfab_route_walk) {
		.fabric = q->file->entity->fabric,
		.from = q->file->entity,
		.next = ex->plane,
	};
}

/*
 * The entry's route check: whether any plane connects it to @peer now.
 * The first chunk goes by this reading.
 */
static __always_inline bool ubfab_route_check(struct ubfab_route_walk *w,
					      const struct ubfab_entity *peer)
{
	w->usable = ubfab_route_usable(w->fabric, w->from, peer);
	w->usable_read = true;
	return w->usable;
}

/*
 * Choose the plane of the walk's next chunk to @peer and move the
 * round-robin past it. Return: the plane, or UBFAB_NO_PLANE.
 */
static __always_inline u32 ubfab_route_next(struct ubfab_route_walk *w,
					    const struct ubfab_entity *peer)
{
	u32 usable = w->usable;

	if (!w->usable_read)
		usable = ubfab_route_usable(w->fabric, w->from, peer);
	w->usable_read = false;
	return ubfab_route_pick_plane(usable, w->fabric->topo.planes,
				      &w->next);
}

/*
 * The fast path's entry of one chunk from @from to @peer: the plane it
 * takes from *@cursor (a copy of the queue's plane cursor), which moves on
 * by one when there is one. Return: the plane, or UBFAB_NO_PLANE.
 */
static __always_inline u32 ubfab_route_one(const struct ubfab_fabric *fabric,
					   const struct ubfab_entity *from,
					   const struct ubfab_entity *peer,
					   u32 *cursor)
{
	u32 planes = fabric->topo.planes, next = *cursor, plane;

	plane = ubfab_route_pick_plane(ubfab_route_usable(fabric, from, peer),
				       planes, &next);
	if (plane != UBFAB_NO_PLANE)
		*cursor = ubfab_route_cursor_next(*cursor, planes);
	return plane;
}

/**
 * ubfab_route_cross() - a chunk crosses a link: the one point that sees
 *	every byte the data path sends over a port and a plane
 * @q: the queue running the entry
 * @ex: the entry
 * @plane: the plane the chunk takes
 * @peer: the entity at the other end from @q's
 * @bytes: bytes in the chunk
 * @to_peer: the bytes go from @q's entity to @peer (WRITE, atomics,
 *	WRITE_NOTIFY's add), else from @peer to it (READ)
 *
 * Counts the chunk on the sending port (tx) and the receiving one (rx);
 * the plane's counters are the sums of its ports'. The entry notes the
 * plane and the peer for its modeled cost (ubfab_model_note()).
 */
static __always_inline void ubfab_route_cross(struct ubfab_queue *q,
					      struct ubfab_exec *ex,
					      u32 plane,
					      struct ubfab_entity *peer,
					      u32 bytes, bool to_peer)
{
	struct ubfab_entity *self = q->file->entity;
	struct ubfab_stats *txs = &(to_peer ? self : peer)->ports[plane].stats;
	struct ubfab_stats *rxs = &(to_peer ? peer : self)->ports[plane].stats;

	atomic64_add(bytes, &txs->tx_bytes);
	atomic64_inc(&txs->tx_ops);
	atomic64_add(bytes, &rxs->rx_bytes);
	atomic64_inc(&rxs->rx_ops);
	ubfab_model_note(ex, plane, peer);
}

/*
 * A remote entry of @q failed: one error on the entity's port into the
 * plane it started from, which is also the plane's (its counts are its
 * ports').
 */
static inline void ubfab_route_error(struct ubfab_queue *q, u32 plane)
{
	atomic64_inc(&q->file->entity->ports[plane].stats.errors);
}

#endif /* _UBFAB_ROUTE_H */
