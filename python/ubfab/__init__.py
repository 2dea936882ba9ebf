# SPDX-License-Identifier: LGPL-2.1-or-later
"""ubfab: Python binding of libubfab, the user-space library of ubfab,
the emulated UB fabric of a CloudMatrix384-like supernode.

Through ctypes over the installed libubfab (libubfab-ffi.so.1). The
pieces, each a context manager with a close() method:

  Session   the netlink session: topology, ports, planes, links, queues
            and segments with their counters; the fabric model's
            parameters; faults (port and plane states, port fault knobs,
            entity reset); the fabric's events (subscribe, read_event)
  Device    act as an entity: alloc() memory (Allocation), map() it
            (Mapping, whose ``buffer`` numpy.frombuffer takes without a
            copy), export() segments (Segment), import_segment() others'
            (Import), wait_event(), queue() (Queue: post entries,
            submit, reap completions with status and modeled time) and
            receive_queue() (ReceiveQueue: post receives for two-sided
            messages, reap receive completions with immediate data)

Errors are Error (an OSError carrying the library's errno and the
kernel's reason) and CompletionError (an entry's CqeStatus). The enums
(Op, CqeStatus, State, SegRights, ...) are generated from the uAPI
header. Documentation/python.rst has a tour.
"""

from ._uapi import (AtomicOp, Cmd, CqeStatus, EntityKind, EventType,
                    LinkKind, Op, QueueFlags, RcqeFlags, RevokeReason,
                    SegRights, SqeFlags, SqFlags, StampFlags, State, WaitCmp)
from .device import READ_WRITE, Allocation, Device, Import, Mapping, Segment
from .errors import CompletionError, Error
from .queue import Queue
from .rq import ReceiveQueue
from .session import Model, ModelParam, NlEvent, Session

__all__ = [
    "AtomicOp", "Cmd", "CqeStatus", "EntityKind", "EventType", "LinkKind",
    "Op", "QueueFlags", "RcqeFlags", "RevokeReason", "SegRights",
    "SqeFlags", "SqFlags", "StampFlags", "State", "WaitCmp", "READ_WRITE",
    "Allocation", "Device", "Import", "Mapping", "Segment",
    "CompletionError", "Error", "Queue", "ReceiveQueue", "Model",
    "ModelParam", "NlEvent", "Session",
]
