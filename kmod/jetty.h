/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ubfab jetties (jetty.c) as the rest of the module sees them: creation
 * through an entity file's ioctl, the hooks the queue engine, the receive
 * queues and an entity reset call to raise a jetty's async events, and
 * netlink's dump.
 */
#ifndef _UBFAB_JETTY_H
#define _UBFAB_JETTY_H

#include <linux/fs.h>
#include <linux/types.h>
#include <linux/ubfab.h>

struct sk_buff;
struct ubfab_entity;
struct ubfab_file;
struct ubfab_queue;
struct ubfab_rq;

/**
 * struct ubfab_jetty_create_cmd - UBFAB_IOCTL_JETTY_CREATE in flight
 * @arg: the user's argument; first, as the ioctl table copies it in and out
 * @filp: the new jetty's file, installed at @arg.fd once @arg is copied out
 */
struct ubfab_jetty_create_cmd {
	struct ubfab_jetty_create arg;
	struct file *filp;
};

int ubfab_jetty_create(struct ubfab_file *file,
		       struct ubfab_jetty_create_cmd *cmd);
void ubfab_jetty_create_undo(struct ubfab_jetty_create_cmd *cmd);
void ubfab_jetty_create_commit(struct ubfab_jetty_create_cmd *cmd);

void ubfab_jetty_sq_error(struct ubfab_queue *q, u16 status);
void ubfab_jetty_rcq_full(struct ubfab_rq *rq);
void ubfab_jetty_reset(struct ubfab_entity *entity);

int ubfab_jetty_fill(struct sk_buff *skb, const void *obj);

#endif /* _UBFAB_JETTY_H */
