/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ubfab compatibility: every difference between the kernel series ubfab
 * supports (6.1 and 6.12) is bridged here and nowhere else. This is the
 * one file allowed to test LINUX_VERSION_CODE (make lint knows).
 */
#ifndef _UBFAB_COMPAT_H
#define _UBFAB_COMPAT_H

#include <linux/eventfd.h>
#include <linux/mm.h>
#include <linux/version.h>
#include <net/genetlink.h>

/* 6.2 made struct class's devnode() take a const device. */
#if KERNEL_VERSION(6, 2, 0) <= LINUX_VERSION_CODE
#define UBFAB_DEVNODE_CONST const
#else
#define UBFAB_DEVNODE_CONST
#endif

/* 6.2 moved a dump's parsed request attributes into a struct genl_info. */
static inline struct nlattr **ubfab_dump_attrs(struct netlink_callback *cb)
{
#if KERNEL_VERSION(6, 2, 0) <= LINUX_VERSION_CODE
	return genl_dumpit_info(cb)->info.attrs;
#else
	return genl_dumpit_info(cb)->attrs;
#endif
}

/* 6.3 made vma->vm_flags read-only outside the vm_flags_*() helpers. */
static inline void ubfab_vm_flags_set(struct vm_area_struct *vma,
				      unsigned long flags)
{
#if KERNEL_VERSION(6, 3, 0) <= LINUX_VERSION_CODE
	vm_flags_set(vma, flags);
#else
	vma->vm_flags |= flags;
#endif
}

static inline void ubfab_vm_flags_clear(struct vm_area_struct *vma,
					unsigned long flags)
{
#if KERNEL_VERSION(6, 3, 0) <= LINUX_VERSION_CODE
	vm_flags_clear(vma, flags);
#else
	vma->vm_flags &= ~flags;
#endif
}

/* 6.8 dropped eventfd_signal()'s count argument: it always adds one. */
static inline void ubfab_eventfd_signal(struct eventfd_ctx *ctx)
{
#if KERNEL_VERSION(6, 8, 0) <= LINUX_VERSION_CODE
	eventfd_signal(ctx);
#else
	eventfd_signal(ctx, 1);
#endif
}

#endif /* _UBFAB_COMPAT_H */
