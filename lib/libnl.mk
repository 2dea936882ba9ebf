# SPDX-License-Identifier: LGPL-2.1-or-later
# lib/libnl.mk: the flags of libnl-genl-3.0, which libubfab is built with,
# for every makefile that builds against it (lib/, tools/ubctl/,
# tools/bench/, selftests/ubfab/): $(NL_CFLAGS), $(NL_LIBS) and, for a
# static link, $(NL_STATIC_LIBS). pkg-config is asked only when a recipe
# uses them, so that goals that do not (clean, uninstall) need neither;
# if it or libnl is missing, the build stops naming the Debian package.

PKG_CONFIG ?= pkg-config
NL_PC := libnl-genl-3.0

nl-missing = $(if $(shell command -v $(PKG_CONFIG)),$(NL_PC) not found by \
	$(PKG_CONFIG): install the Debian package libnl-genl-3-dev,$(PKG_CONFIG) \
	not found: install the Debian package pkg-config) (`make deps` at the \
	top of ubfab installs every package it needs)

# $(call nl-flags,<pkg-config options>)
nl-flags = $(call nl-found,$(shell $(PKG_CONFIG) $(1) $(NL_PC) 2>/dev/null || \
	echo NL-MISSING))
nl-found = $(if $(filter NL-MISSING,$(1)),$(error $(nl-missing)),$(1))

NL_CFLAGS = $(call nl-flags,--cflags)
NL_LIBS = $(call nl-flags,--libs)
NL_STATIC_LIBS = $(call nl-flags,--static --libs)
