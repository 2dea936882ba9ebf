// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libubfab names of the uAPI's enumerations: entity kinds, port and plane
 * states, jetty states.
 */
#include "internal.h"

static const char *const kind_names[] = {
	[UBFAB_ENTITY_NPU] = "npu",
	[UBFAB_ENTITY_CPU] = "cpu",
};

static const char *const state_names[] = {
	[UBFAB_STATE_DOWN] = "down",
	[UBFAB_STATE_UP] = "up",
};

static const char *const jetty_state_names[] = {
	[UBFAB_JETTY_READY] = "ready",
	[UBFAB_JETTY_ERROR] = "error",
};

static const char *name_of(const char *const *names, size_t n, uint32_t v)
{
	return v < n && names[v] ? names[v] : "unknown";
}

const char *ubfab_kind_name(uint32_t kind)
{
	return name_of(kind_names, ARRAY_SIZE(kind_names), kind);
}

const char *ubfab_state_name(uint32_t state)
{
	return name_of(state_names, ARRAY_SIZE(state_names), state);
}

const char *ubfab_jetty_state_name(uint32_t state)
{
	return name_of(jetty_state_names, ARRAY_SIZE(jetty_state_names),
		       state);
}
