// SPDX-License-Identifier: GPL-2.0
/*
 * ubfab module entry: builds the emulated UB fabric from the module
 * parameters at load time and tears it down at unload.
 *
 * Order of setup: topology, the queue engine's workqueue, device class,
 * fabric (planes, entities and their devices), netlink family. Teardown is
 * the exact reverse, so the control plane never sees a fabric that is not
 * fully built.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include "model.h"
#include "queue.h"
#include "ubfab.h"

static struct ubfab_fabric *ubfab_fabric;

static int __init ubfab_init(void)
{
	struct ubfab_topo topo;
	int ret;

	ret = ubfab_topo_resolve(&topo);
	if (ret)
		return ret;

	ret = ubfab_engine_init();
	if (ret)
		return ret;

	ret = ubfab_entity_class_register();
	if (ret)
		goto err_destroy_wq;

	ubfab_fabric = ubfab_fabric_create(&topo);
	if (IS_ERR(ubfab_fabric)) {
		ret = PTR_ERR(ubfab_fabric);
		pr_err("cannot build the fabric: %d\n", ret);
		goto err_unregister_class;
	}

	ret = ubfab_netlink_init(ubfab_fabric);
	if (ret) {
		pr_err("cannot register the netlink family: %d\n", ret);
		goto err_destroy_fabric;
	}

	pr_info("%s: %u NPU dies, %u CPUs, %u planes, %u ports ready in %llu us\n",
		topo.profile, ubfab_topo_npus(&topo), ubfab_topo_cpus(&topo),
		topo.planes, ubfab_topo_entities(&topo) * topo.planes,
		div_u64(ubfab_fabric->setup_ns, NSEC_PER_USEC));
	return 0;

err_destroy_fabric:
	ubfab_fabric_destroy(ubfab_fabric);
err_unregister_class:
	ubfab_entity_class_unregister();
err_destroy_wq:
	ubfab_engine_fini();
	return ret;
}

static void __exit ubfab_exit(void)
{
	ubfab_netlink_fini();
	ubfab_fabric_destroy(ubfab_fabric);
	ubfab_entity_class_unregister();
	ubfab_engine_fini();
	ubfab_model_fini();
}

module_init(ubfab_init);
module_exit(ubfab_exit);

MODULE_DESCRIPTION("Emulated UB (Unified Bus) fabric of a CloudMatrix384-class supernode");
MODULE_LICENSE("GPL");
