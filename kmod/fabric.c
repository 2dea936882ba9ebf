// SPDX-License-Identifier: GPL-2.0
/*
 * ubfab fabric: the one object that owns the whole emulated supernode, its
 * device numbers, planes and entity table, and the lookups into it.
 *
 * The fabric is built before the netlink family is registered and torn down
 * after it is unregistered, so no control-plane request ever sees it half
 * built. Its shape does not change while it exists.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/ktime.h>
#include <linux/nospec.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "ubfab.h"

static void ubfab_fabric_del_entities(struct ubfab_fabric *fabric, u32 count)
{
	while (count--)
		ubfab_entity_destroy(fabric->entities[count]);
}

/**
 * ubfab_fabric_create() - build the supernode
 * @topo: its shape, from ubfab_topo_resolve()
 *
 * Context: process context, module init; the "ubfab" class is registered.
 * Return: the fabric, or ERR_PTR.
 */
struct ubfab_fabric *ubfab_fabric_create(const struct ubfab_topo *topo)
{
	struct ubfab_fabric *fabric;
	struct ubfab_entity *entity;
	ktime_t start = ktime_get();
	u32 eid;
	int ret;

	fabric = kzalloc(sizeof(*fabric), GFP_KERNEL);
	if (!fabric)
		return ERR_PTR(-ENOMEM);
	fabric->topo = *topo;
	fabric->nr_entities = ubfab_topo_entities(topo);
	mutex_init(&fabric->order.lock);
	INIT_LIST_HEAD(&fabric->order.members);

	fabric->entities = kvcalloc(fabric->nr_entities,
				    sizeof(*fabric->entities), GFP_KERNEL);
	if (!fabric->entities) {
		ret = -ENOMEM;
		goto err_free_fabric;
	}

	ret = alloc_chrdev_region(&fabric->devt, 0, fabric->nr_entities,
				  "ubfab");
	if (ret)
		goto err_free_table;

	ret = ubfab_planes_init(fabric);
	if (ret)
		goto err_unregister_chrdev;

	for (eid = 0; eid < fabric->nr_entities; eid++) {
		entity = ubfab_entity_create(fabric, eid);
		if (IS_ERR(entity)) {
			ret = PTR_ERR(entity);
			goto err_del_entities;
		}
		fabric->entities[eid] = entity;
	}

	fabric->setup_ns = ktime_to_ns(ktime_sub(ktime_get(), start));
	return fabric;

err_del_entities:
	ubfab_fabric_del_entities(fabric, eid);
	ubfab_planes_fini(fabric);
err_unregister_chrdev:
	unregister_chrdev_region(fabric->devt, fabric->nr_entities);
err_free_table:
	kvfree(fabric->entities);
err_free_fabric:
	kfree(fabric);
	return ERR_PTR(ret);
}

/**
 * ubfab_fabric_destroy() - tear the supernode down
 * @fabric: from ubfab_fabric_create()
 *
 * Context: module exit; no file is open (each pins the module) and the
 * netlink family is unregistered.
 */
void ubfab_fabric_destroy(struct ubfab_fabric *fabric)
{
	ubfab_fabric_del_entities(fabric, fabric->nr_entities);
	ubfab_planes_fini(fabric);
	unregister_chrdev_region(fabric->devt, fabric->nr_entities);
	kvfree(fabric->entities);
	kfree(fabric);
}

/**
 * ubfab_entity_find() - the entity with a given EID
 * @fabric: the fabric
 * @eid: any value, checked here
 *
 * Return: the entity, valid while the fabric exists, or NULL.
 */
struct ubfab_entity *ubfab_entity_find(struct ubfab_fabric *fabric, u32 eid)
{
	if (eid >= fabric->nr_entities)
		return NULL;
	/* eid comes from user space: no speculative load past the array */
	return fabric->entities[array_index_nospec(eid, fabric->nr_entities)];
}

/**
 * ubfab_entity_find_by_name() - the entity with a given device name
 * @fabric: the fabric
 * @name: a NUL-terminated name such as "npu3"
 *
 * A linear walk: this serves the control plane only.
 * Return: the entity, valid while the fabric exists, or NULL.
 */
struct ubfab_entity *ubfab_entity_find_by_name(struct ubfab_fabric *fabric,
					       const char *name)
{
	u32 eid;

	for (eid = 0; eid < fabric->nr_entities; eid++) {
		if (!strcmp(dev_name(&fabric->entities[eid]->dev), name))
			return fabric->entities[eid];
	}
	return NULL;
}
