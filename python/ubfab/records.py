# SPDX-License-Identifier: LGPL-2.1-or-later
"""The binding's read-only records: named tuples made from libubfab's
structs, field for field.

Owns the conversion of a C struct into its record: strings decoded,
nested structs converted, enumerated fields made enums, and the
"not reported" values (UBFAB_FIELD_NONE, UBFAB_COUNT_NONE) made None.
"""

import collections
import ctypes

from . import _lib
from ._uapi import (CqeStatus, EntityKind, EventType, LinkKind, Op,
                    QueueFlags, RcqeFlags, RevokeReason, SegRights, State)

# (struct, field) -> the enum its values belong to
ENUM_FIELDS = {
    "kind": {"EntityInfo": EntityKind, "LinkInfo": LinkKind},
    "state": State, "status": CqeStatus, "opcode": Op, "type": EventType,
    "rights": SegRights,
    "flags": {"QueueInfo": QueueFlags, "ReceiveCompletion": RcqeFlags},
}
# Fields that hold UBFAB_FIELD_NONE / UBFAB_COUNT_NONE when they do not
# apply or the kernel does not report them.
OPTIONAL = {"chip", "die", "socket", "auth_failures", "bw_permille",
            "error_ppm", "delay_ps", "eid", "node", "l2"}
# Leave out of records: reserved words.
HIDDEN = {"reserved"}

_types = {}


def record_type(ctype):
    """The named tuple type for a ctypes struct type."""
    name = ctype.__name__
    if name not in _types:
        fields = [f for f, _ in ctype._fields_ if f not in HIDDEN]
        _types[name] = collections.namedtuple(name, fields)
    return _types[name]


def _enum(cls, value):
    try:
        return cls(value)
    except ValueError:
        return value


def record(s):
    """The record of a ctypes struct instance."""
    name = type(s).__name__
    values = []
    for field, ctype in s._fields_:
        if field in HIDDEN:
            continue
        v = getattr(s, field)
        if isinstance(v, bytes):
            v = v.decode()
        elif isinstance(v, ctypes.Structure):
            v = record(v)
        elif field in OPTIONAL and v in (_lib.FIELD_NONE, _lib.COUNT_NONE):
            v = None
        else:
            cls = ENUM_FIELDS.get(field)
            if isinstance(cls, dict):
                cls = cls.get(name)
            if field == "reason" and name == "DeviceEvent" and v:
                cls = RevokeReason
            if cls:
                v = _enum(cls, v)
        values.append(v)
    return record_type(type(s))(*values)
