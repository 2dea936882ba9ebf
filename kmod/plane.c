// SPDX-License-Identifier: GPL-2.0
/*
 * ubfab planes: the independent switching planes.
 *
 * Each plane has one L1 switch per node, which every entity of that node
 * reaches through its port into the plane, and a tier of L2 switches that
 * joins the L1 switches of all nodes. A transfer between two entities of
 * one node crosses one switch (die -> L1 -> die); between nodes it crosses
 * three (die -> L1 -> L2 -> L1 -> die).
 */
#include <linux/slab.h>

#include "ubfab.h"

/**
 * ubfab_planes_init() - build the fabric's planes
 * @fabric: fabric whose topology is set
 *
 * Every plane starts up, its links idle.
 * Return: 0 or -ENOMEM.
 */
int ubfab_planes_init(struct ubfab_fabric *fabric)
{
	const struct ubfab_topo *topo = &fabric->topo;
	struct ubfab_plane *plane;
	u32 p;

	fabric->planes = kcalloc(topo->planes, sizeof(*fabric->planes),
				 GFP_KERNEL);
	if (!fabric->planes)
		return -ENOMEM;

	for (p = 0; p < topo->planes; p++) {
		plane = &fabric->planes[p];
		plane->id = p;
		plane->state = UBFAB_STATE_UP;
		__set_bit(p, &fabric->planes_up);
		plane->nr_l1 = topo->nodes;
		plane->nr_l2 = topo->l2_per_plane;
		plane->links = kvcalloc(ubfab_plane_nr_links(plane),
					sizeof(*plane->links), GFP_KERNEL);
		if (!plane->links) {
			ubfab_planes_fini(fabric);
			return -ENOMEM;
		}
	}
	return 0;
}

void ubfab_planes_fini(struct ubfab_fabric *fabric)
{
	u32 p;

	if (!fabric->planes)
		return;
	for (p = 0; p < fabric->topo.planes; p++)
		kvfree(fabric->planes[p].links);
	kfree(fabric->planes);
	fabric->planes = NULL;
}

/**
 * ubfab_plane_ports_up() - how many entity ports into a plane are up
 * @fabric: the fabric
 * @plane: one of its planes
 *
 * Return: the count, read without a lock; states may change meanwhile.
 */
u32 ubfab_plane_ports_up(const struct ubfab_fabric *fabric,
			 const struct ubfab_plane *plane)
{
	u32 eid, up = 0;

	for (eid = 0; eid < fabric->nr_entities; eid++) {
		const struct ubfab_port *port =
			&fabric->entities[eid]->ports[plane->id];

		if (READ_ONCE(port->state) == UBFAB_STATE_UP)
			up++;
	}
	return up;
}

/**
 * ubfab_stats_add() - add a port's counters to a sum
 * @sum: the sum
 * @stats: the counters, each read once
 */
void ubfab_stats_add(struct ubfab_stats_val *sum,
		     const struct ubfab_stats *stats)
{
	sum->tx_bytes += atomic64_read(&stats->tx_bytes);
	sum->rx_bytes += atomic64_read(&stats->rx_bytes);
	sum->tx_ops += atomic64_read(&stats->tx_ops);
	sum->rx_ops += atomic64_read(&stats->rx_ops);
	sum->errors += atomic64_read(&stats->errors);
}

/**
 * ubfab_plane_stats() - the traffic counters of a plane
 * @fabric: the fabric
 * @plane: one of its planes
 * @val: out: the sums of the counters of every port into @plane
 *
 * The data path counts each chunk on the sending and the receiving port
 * only (struct ubfab_stats), so a plane's bytes and ops are those its
 * ports sent and received, and its errors those of its ports. Read without
 * a lock: traffic meanwhile may be counted in part.
 */
void ubfab_plane_stats(const struct ubfab_fabric *fabric,
		       const struct ubfab_plane *plane,
		       struct ubfab_stats_val *val)
{
	u32 eid;

	*val = (struct ubfab_stats_val) {};
	for (eid = 0; eid < fabric->nr_entities; eid++) {
		const struct ubfab_entity *entity = fabric->entities[eid];

		ubfab_stats_add(val, &entity->ports[plane->id].stats);
	}
}
