/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ubfab fault injection that reaches the queue worker (failnth.c); without
 * CONFIG_FAULT_INJECTION, nothing.
 */
#ifndef _UBFAB_FAILNTH_H
#define _UBFAB_FAILNTH_H

#include <linux/types.h>

#ifdef CONFIG_FAULT_INJECTION
void ubfab_failnth_init(void);
void ubfab_failnth_fini(void);
bool ubfab_failnth_enter(void);
void ubfab_failnth_leave(bool armed);
#else
static inline void ubfab_failnth_init(void) {}
static inline void ubfab_failnth_fini(void) {}
static inline bool ubfab_failnth_enter(void) { return false; }
static inline void ubfab_failnth_leave(bool armed) {}
#endif

#endif /* _UBFAB_FAILNTH_H */
