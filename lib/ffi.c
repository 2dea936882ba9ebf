// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libubfab-ffi: out-of-line copies of the queue API's inline helpers of
 * libubfab.h, for programs that reach the library through a foreign
 * function interface and cannot compile inline functions. With
 * UBFAB_INLINE empty the header defines each helper here as an ordinary
 * function; libubfab-ffi.map exports them all, and the library depends on
 * libubfab.so, so that one handle reaches the whole API.
 */
#define UBFAB_INLINE
#include "libubfab.h"
