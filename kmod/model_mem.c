// SPDX-License-Identifier: GPL-2.0
/*
 * ubfab fabric model, its memory: what the model adds to the kernel's,
 * which netlink's model-get reports (Documentation/model.rst, "Memory").
 *
 * The links contention keeps are fixed by the fabric's shape: two in
 * every port, each plane's array, and each entity's DMA engines and
 * vector-core paths, which are kept as links are. The queues' model
 * fields go by the fabric's count of live queues (queue.c), the stamps
 * by its counts of stamped words and their bytes (model_sync.c); the
 * xarray nodes that hold
 * the stamps are counted by walking every entity's stamps when asked, so
 * that nothing on the data path pays for it.
 */
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/xarray.h>

#include "engine.h"
#include "model.h"

/* Levels of an xarray indexed by unsigned long, at most. */
#define UBFAB_XA_LEVELS	DIV_ROUND_UP(BITS_PER_LONG, XA_CHUNK_SHIFT)

/*
 * The nodes of @xa: each entry's leaf and the leaf's ancestors, each
 * counted once. Entries come in index order, so a node counted already
 * is the one last seen at its level. Read under RCU, pausing now and
 * then: entries stored or erased meanwhile may be counted or not.
 */
static u64 ubfab_model_xa_nodes(struct xarray *xa)
{
	struct xa_node *seen[UBFAB_XA_LEVELS] = {};
	XA_STATE(xas, xa, 0);
	struct xa_node *node;
	unsigned int n = 0;
	u64 nodes = 0;
	void *entry;

	rcu_read_lock();
	xas_for_each(&xas, entry, ULONG_MAX) {
		if (xas_retry(&xas, entry))
			continue;
		for (node = xas.xa_node; !xas_not_node(node);
		     node = xa_parent(xa, node)) {
			if (seen[node->shift / XA_CHUNK_SHIFT] == node)
				break;
			seen[node->shift / XA_CHUNK_SHIFT] = node;
			nodes++;
		}
		if (++n % XA_CHECK_SCHED)
			continue;
		xas_pause(&xas);
		rcu_read_unlock();
		cond_resched();
		rcu_read_lock();
	}
	rcu_read_unlock();
	return nodes;
}

/**
 * ubfab_model_mem() - the kernel memory the fabric model holds
 * @fabric: the fabric
 * @m: out: the figures
 *
 * Read without a lock: queues and stamps that come or go meanwhile may
 * be counted or not. Context: process context; may sleep.
 */
void ubfab_model_mem(struct ubfab_fabric *fabric, struct ubfab_model_mem *m)
{
	struct ubfab_entity *entity;
	u64 nodes = 0;
	u32 eid, p;

	*m = (struct ubfab_model_mem) {};
	for (p = 0; p < fabric->topo.planes; p++)
		m->links += ubfab_plane_nr_links(&fabric->planes[p]);
	for (eid = 0; eid < fabric->nr_entities; eid++) {
		entity = fabric->entities[eid];
		/* each port's tx and rx; its DMA engines and vector-core paths */
		m->links += 2 * entity->nr_ports + UBFAB_MODEL_ENGINES;
		nodes += ubfab_model_xa_nodes(&entity->stamps);
	}
	m->links_bytes = m->links * sizeof(struct ubfab_link);
	m->queues = atomic_read(&fabric->model_queues);
	m->queue_bytes = (u64)m->queues *
			 (sizeof_field(struct ubfab_queue, model) +
			  sizeof_field(struct ubfab_queue, order));
	m->stamps = atomic_long_read(&fabric->model_stamps);
	m->stamp_bytes = nodes * sizeof(struct xa_node) +
			 atomic_long_read(&fabric->model_stamp_bytes);
	m->other_bytes = ubfab_model_params_bytes() + sizeof(fabric->order) +
			 fabric->nr_entities *
			 sizeof_field(struct ubfab_entity, engine_users);
	m->total_bytes = m->links_bytes + m->queue_bytes + m->stamp_bytes +
			 m->other_bytes;
}
