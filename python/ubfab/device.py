# SPDX-License-Identifier: LGPL-2.1-or-later
"""Device: acting as an entity through its device, /dev/ubfab/<name>.

Owns the entity's memory (allocations), the mappings of memory into the
process as writable buffers, exported segments, imports of other
entities' segments and the device's events; it makes the entity's
queues (queue.py) and receive queues (rq.py). Every object that holds a
resource is a context manager with a close() method.
"""

import ctypes
import errno
import mmap

from . import _lib
from ._lib import lib
from ._resource import Handle, Resource
from ._uapi import SegRights
from .errors import Error, check
from .queue import Queue
from .records import record
from .rq import ReceiveQueue

READ_WRITE = mmap.PROT_READ | mmap.PROT_WRITE


class _DeviceObject(Resource):
    """Something of a device that a C call ends, ``_end``: (the call,
    the attribute it takes). Once the device is closed, which ended it,
    close() calls nothing."""

    _end = None

    def close(self):
        if self.dev is not None and self.dev.is_open():
            call, key = self._end
            check(getattr(lib, call)(self.dev.handle(), getattr(self, key)),
                  "ubfab_" + call)
        self.dev = None


class Mapping(Resource):
    """Memory of an entity (an allocation, or an imported segment) mapped
    into the process, MAP_SHARED.

    ``buffer`` is a memoryview of the mapping's bytes, writable for
    PROT_WRITE, no copy: ``numpy.frombuffer(m.buffer, dtype)`` gives an
    array whose stores go straight into the entity's memory. close()
    unmaps it; it raises Error(EBUSY) while anything made from ``buffer``
    (such as a numpy array) still lives: delete those first.

    The mapping is Python's mmap.mmap of the device's descriptor, the
    mmap(2) ubfab_dev_map() makes, because mmap.mmap counts the buffers
    made from it and so refuses to unmap under them.
    """

    def __init__(self, dev, offset, length, prot):
        self._mm = None
        try:
            self._mm = mmap.mmap(dev.fileno(), length, mmap.MAP_SHARED, prot,
                                 offset=offset)
        except OSError as e:
            raise Error(e.errno, "mmap") from None
        self.length = length
        self.buffer = memoryview(self._mm)

    def close(self):
        if self._mm is None or self._mm.closed:
            return
        self.buffer.release()
        try:
            self._mm.close()
        except BufferError:
            self.buffer = memoryview(self._mm)
            raise Error(errno.EBUSY, "munmap",
                        "its buffer is still in use") from None


class Allocation(_DeviceObject):
    """A range of the entity's memory, from Device.alloc(): ``offset`` in
    the entity's memory (the "local" address of queue entries) and
    ``length``. close() frees it (its segments are unexported, its
    mappings fault with SIGBUS from then on)."""

    _end = ("dev_free", "offset")

    def __init__(self, dev, offset, length):
        self.dev, self.offset, self.length = dev, offset, length

    def map(self, prot=READ_WRITE, offset=0, length=None):
        """Map (part of) the allocation: a Mapping."""
        if length is None:
            length = self.length - offset
        return self.dev.map(self.offset + offset, length, prot)

    def export(self, rights, token_value, offset=0, length=None):
        """Export (part of) the allocation as a segment: a Segment.

        ``rights``: SegRights granted to importers; ``token_value``: the
        secret they must present."""
        if length is None:
            length = self.length - offset
        return self.dev.export(self.offset + offset, length, rights,
                               token_value)



class Segment(_DeviceObject):
    """An exported segment: importers need ``eid``, ``token_id`` and the
    token value. close() withdraws it (its imports are revoked)."""

    _end = ("dev_unexport", "token_id")

    def __init__(self, dev, token_id, offset, length, rights):
        self.dev, self.eid, self.token_id = dev, dev.eid, token_id
        self.offset, self.length, self.rights = offset, length, rights



class Import(_DeviceObject):
    """A segment of any entity imported by this device: ``length`` bytes.
    addr() gives the remote addresses queue entries name; map() maps it.
    close() drops the import (its mappings fault from then on)."""

    _end = ("dev_unimport", "mmap_offset")

    def __init__(self, dev, imp):
        self.dev, self._imp = dev, imp
        self.length, self.mmap_offset = imp.length, imp.mmap_offset

    def addr(self, offset=0):
        """The remote address of byte ``offset`` of the segment."""
        return lib.import_addr(ctypes.byref(self._imp), offset)

    def map(self, prot=READ_WRITE):
        """Map the whole segment: a Mapping (PROT_WRITE needs
        SegRights.WRITE)."""
        return self.dev.map(self.mmap_offset, self.length, prot)



class Device(Handle):
    """Act as an entity: its device, opened by name ("npu0", "cpu3").

    ``eid`` and ``name`` say which entity. Closing it (or the process's
    end) frees what it allocated, once nothing maps it any more; queues
    keep it open until they are closed too. Error ENOENT if there is no
    such entity or ubfab.ko is not loaded.
    """

    _free = "dev_close"

    def __init__(self, name):
        p = ctypes.c_void_p()
        check(lib.dev_open(name.encode(), ctypes.byref(p)), "ubfab_dev_open")
        self._p = p
        self.eid = lib.dev_eid(p)
        self.name = lib.dev_name(p).decode()

    def fileno(self):
        """The device's descriptor, readable while events are queued."""
        return check(lib.dev_fd(self.handle()), "ubfab_dev_fd")

    def alloc(self, length):
        """Allocate ``length`` bytes (a multiple of mmap.PAGESIZE) of the
        entity's memory: an Allocation. Error ENOSPC when full."""
        off = ctypes.c_uint64()
        check(lib.dev_alloc(self.handle(), length, ctypes.byref(off)),
              "ubfab_dev_alloc")
        return Allocation(self, off.value, length)

    def map(self, offset, length, prot=READ_WRITE):
        """Map ``length`` bytes at ``offset`` (of an allocation, or an
        import's mmap_offset): a Mapping."""
        return Mapping(self, offset, length, prot)

    def export(self, offset, length, rights, token_value):
        """Export ``length`` bytes at ``offset`` of an allocation: a
        Segment."""
        tid = ctypes.c_uint32()
        check(lib.dev_export(self.handle(), offset, length, rights,
                             token_value, ctypes.byref(tid)),
              "ubfab_dev_export")
        return Segment(self, tid.value, offset, length, SegRights(rights))

    def import_segment(self, eid, token_id, token_value, rights):
        """Import segment ``token_id`` of entity ``eid``: an Import.

        Error EACCES for a wrong token value or a right not granted,
        ENOENT for no such segment."""
        imp = _lib.Import()
        check(lib.dev_import(self.handle(), eid, token_id, token_value,
                             rights, ctypes.byref(imp)), "ubfab_dev_import")
        return Import(self, imp)

    def wait_event(self, timeout=None):
        """The next event of the device (a DeviceEvent: type, reason, eid,
        token_id, mmap_offset), or None if none came within ``timeout``
        seconds (None: wait forever)."""
        ev = _lib.DeviceEvent()
        ms = -1 if timeout is None else int(timeout * 1000)
        rc = lib.dev_event_wait(self.handle(), ctypes.byref(ev), ms)
        if rc == -errno.ETIMEDOUT:
            return None
        check(rc, "ubfab_dev_event_wait")
        return record(ev)

    def queue(self, flags=0, sq_entries=128, cq_entries=0, eventfd=-1,
              idle_us=0):
        """Create an NPU queue on the entity: a Queue (see there)."""
        return Queue(self, flags, sq_entries, cq_entries, eventfd, idle_us)

    def receive_queue(self, rq_entries=128, rcq_entries=0, token=0):
        """Create a receive queue on the entity, for the messages
        (SEND, SEND_IMM, WRITE_IMM) of any entity's queues: a
        ReceiveQueue (see there)."""
        return ReceiveQueue(self, rq_entries, rcq_entries, token)
