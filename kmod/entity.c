// SPDX-License-Identifier: GPL-2.0
/*
 * ubfab entities: one NPU die or CPU each, with its character device
 * /dev/ubfab/<name> (whose file operations are in file.c), its sysfs
 * attributes under /sys/class/ubfab/<name>, its UB ports and its memory.
 *
 * An entity is reference counted through its embedded struct device. The
 * fabric's entity table holds one reference, and each open file holds one,
 * so an entity outlives every file opened on it. The cdev's file operations
 * name THIS_MODULE as owner, so an open file also pins the module: it cannot
 * be unloaded while a device is open.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>

#include "compat.h"
#include "mem.h"
#include "model.h"

static char *ubfab_devnode(UBFAB_DEVNODE_CONST struct device *dev,
			   umode_t *mode)
{
	/*
	 * Any local user may act as an entity, as with RDMA's uverbs
	 * devices; access to other entities' memory is guarded by tokens.
	 */
	if (mode)
		*mode = 0666;
	return kasprintf(GFP_KERNEL, "ubfab/%s", dev_name(dev));
}

static struct class ubfab_class = {
	.name = "ubfab",
	.devnode = ubfab_devnode,
};

static ssize_t eid_show(struct device *dev, struct device_attribute *attr,
			char *buf)
{
	return sysfs_emit(buf, "%u\n", to_ubfab_entity(dev)->eid);
}
static DEVICE_ATTR_RO(eid);

static ssize_t node_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "%u\n", to_ubfab_entity(dev)->loc.node);
}
static DEVICE_ATTR_RO(node);

static ssize_t chip_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "%u\n", to_ubfab_entity(dev)->loc.chip);
}
static DEVICE_ATTR_RO(chip);

static ssize_t die_show(struct device *dev, struct device_attribute *attr,
			char *buf)
{
	return sysfs_emit(buf, "%u\n", to_ubfab_entity(dev)->loc.die);
}
static DEVICE_ATTR_RO(die);

static ssize_t socket_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	return sysfs_emit(buf, "%u\n", to_ubfab_entity(dev)->loc.socket);
}
static DEVICE_ATTR_RO(socket);

static ssize_t ports_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	return sysfs_emit(buf, "%u\n", to_ubfab_entity(dev)->nr_ports);
}
static DEVICE_ATTR_RO(ports);

static ssize_t kind_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	bool npu = to_ubfab_entity(dev)->loc.kind == UBFAB_ENTITY_NPU;

	return sysfs_emit(buf, "%s\n", npu ? "npu" : "cpu");
}
static DEVICE_ATTR_RO(kind);

static ssize_t mem_size_show(struct device *dev, struct device_attribute *attr,
			     char *buf)
{
	return sysfs_emit(buf, "%llu\n", to_ubfab_entity(dev)->mem_size);
}
static DEVICE_ATTR_RO(mem_size);

static struct attribute *ubfab_entity_attrs[] = {
	&dev_attr_eid.attr,
	&dev_attr_kind.attr,
	&dev_attr_node.attr,
	&dev_attr_chip.attr,
	&dev_attr_die.attr,
	&dev_attr_socket.attr,
	&dev_attr_mem_size.attr,
	&dev_attr_ports.attr,
	NULL
};

/* chip and die describe NPU dies only, socket CPUs only. */
static umode_t ubfab_entity_attr_visible(struct kobject *kobj,
					 struct attribute *attr, int n)
{
	struct ubfab_entity *entity = to_ubfab_entity(kobj_to_dev(kobj));
	bool npu = entity->loc.kind == UBFAB_ENTITY_NPU;

	if (attr == &dev_attr_chip.attr || attr == &dev_attr_die.attr)
		return npu ? attr->mode : 0;
	if (attr == &dev_attr_socket.attr)
		return npu ? 0 : attr->mode;
	return attr->mode;
}

static const struct attribute_group ubfab_entity_group = {
	.attrs = ubfab_entity_attrs,
	.is_visible = ubfab_entity_attr_visible,
};

static const struct attribute_group *ubfab_entity_groups[] = {
	&ubfab_entity_group,
	NULL
};

static void ubfab_entity_release_dev(struct device *dev)
{
	struct ubfab_entity *entity = to_ubfab_entity(dev);

	ubfab_mem_fini(entity);
	xa_destroy(&entity->queues);
	xa_destroy(&entity->rqs);
	xa_destroy(&entity->jetties);
	kfree(entity);
}

/**
 * ubfab_entity_create() - build an entity and make its device visible
 * @fabric: owner; its topology, devt and planes are set up
 * @eid: the entity's EID
 *
 * Context: process context, module init.
 * Return: the entity, holding one reference for the caller, or ERR_PTR.
 */
struct ubfab_entity *ubfab_entity_create(struct ubfab_fabric *fabric, u32 eid)
{
	const struct ubfab_topo *topo = &fabric->topo;
	struct ubfab_entity *entity;
	u32 i;
	int ret;

	entity = kzalloc(struct_size(entity, ports, topo->planes), GFP_KERNEL);
	if (!entity)
		return ERR_PTR(-ENOMEM);

	entity->fabric = fabric;
	entity->eid = eid;
	ubfab_topo_locate(topo, eid, &entity->loc);
	entity->mem_size = entity->loc.kind == UBFAB_ENTITY_NPU ?
			   topo->npu_mem : topo->cpu_mem;
	ubfab_mem_init(entity);
	xa_init_flags(&entity->queues, XA_FLAGS_ALLOC);
	xa_init_flags(&entity->rqs, XA_FLAGS_ALLOC);
	xa_init_flags(&entity->jetties, XA_FLAGS_ALLOC);
	entity->nr_ports = topo->planes;
	for (i = 0; i < entity->nr_ports; i++) {
		entity->ports[i].entity = entity;
		entity->ports[i].plane = i;
		entity->ports[i].state = UBFAB_STATE_UP;
		entity->ports[i].bw_permille = UBFAB_MODEL_PER_MILLE;
	}
	entity->ports_up = GENMASK(entity->nr_ports - 1, 0);

	device_initialize(&entity->dev);
	entity->dev.class = &ubfab_class;
	entity->dev.devt = fabric->devt + eid;
	entity->dev.groups = ubfab_entity_groups;
	entity->dev.release = ubfab_entity_release_dev;
	if (entity->loc.kind == UBFAB_ENTITY_NPU)
		ret = dev_set_name(&entity->dev, "npu%u", eid);
	else
		ret = dev_set_name(&entity->dev, "cpu%u",
				   eid - ubfab_topo_npus(topo));
	if (ret)
		goto err_put;

	cdev_init(&entity->cdev, &ubfab_entity_fops);
	entity->cdev.owner = THIS_MODULE;
	ret = cdev_device_add(&entity->cdev, &entity->dev);
	if (ret)
		goto err_put;
	return entity;

err_put:
	put_device(&entity->dev);
	return ERR_PTR(ret);
}

/**
 * ubfab_entity_destroy() - remove an entity's device and drop its reference
 * @entity: from ubfab_entity_create()
 *
 * Open files keep the entity's memory alive until they are closed.
 */
void ubfab_entity_destroy(struct ubfab_entity *entity)
{
	cdev_device_del(&entity->cdev, &entity->dev);
	put_device(&entity->dev);
}

int ubfab_entity_class_register(void)
{
	return class_register(&ubfab_class);
}

void ubfab_entity_class_unregister(void)
{
	class_unregister(&ubfab_class);
}
