# SPDX-License-Identifier: LGPL-2.1-or-later
"""Queue: an NPU queue of an entity (DMA semantics), its rings mapped
into the process.

Owns posting entries (one method per opcode, through libubfab's
ubfab_prep_*() helpers; the messages' receivers are rq.py's), submitting them, and reaping completions with
their status and modeled time; the queue's modeled clock.
"""

import ctypes
import errno

from . import _lib
from ._lib import lib
from ._resource import Handle
from ._uapi import CqeStatus, SqFlags, StampFlags
from .errors import CompletionError, Error, check
from .records import record


class Queue(Handle):
    """An NPU queue on an entity, from Device.queue().

    Post entries with the opcode methods (write(), read(), ...; each takes
    ``user_data`` and ``flags``, SqeFlags, as keywords), hand them to the
    kernel with submit(), then reap their completions with wait() or
    reap(). A Completion has user_data, result, model_ns (where the entry
    ended on the queue's modeled clock, ns), bytes, status (a CqeStatus)
    and opcode (an Op). "local" addresses are offsets in the entity's
    memory (Allocation.offset + n), "remote" ones come from
    Import.addr(). An entry that fails puts the queue in the error state
    until reset(). A context manager; close() destroys the queue (work
    in flight is abandoned).

    ``flags``: QueueFlags (POLL, SELECTIVE, TIMING, ORDERED);
    ``sq_entries``/``cq_entries``: ring depths (powers of two; cq 0: twice
    sq); ``eventfd``: signalled per batch of completions, or -1;
    ``idle_us``: for POLL, how long the kernel polls an idle SQ.
    """

    _free = "queue_destroy"

    def __init__(self, dev, flags=0, sq_entries=128, cq_entries=0,
                 eventfd=-1, idle_us=0):
        attr = _lib.QueueAttr(flags, sq_entries, cq_entries, eventfd,
                              idle_us)
        q = ctypes.POINTER(_lib.Queue)()
        check(lib.queue_create(dev.handle(), ctypes.byref(attr),
                               ctypes.byref(q)), "ubfab_queue_create")
        self._p = q
        self.id = q.contents.id
        self._cqe = ctypes.POINTER(_lib.Completion)()

    def fileno(self):
        """The queue's descriptor, readable while completions wait."""
        return check(lib.queue_fd(self.handle()), "ubfab_queue_fd")

    @property
    def sq_space(self):
        """How many more entries can be posted before submit()."""
        return lib.queue_sq_space(self.handle())

    @property
    def cq_ready(self):
        """How many completions can be reaped now."""
        return lib.queue_cq_ready(self.handle())

    @property
    def sq_flags(self):
        """The SQ flag word (SqFlags: ERROR, CQ_FULL, NEED_WAKEUP)."""
        return SqFlags(lib.queue_sq_flags(self.handle()))

    # Posting entries

    def _post(self, prep, *args, user_data=0, flags=0):
        sqe = lib.queue_get_sqe(self.handle())
        if not sqe:
            raise Error(errno.ENOSPC, "ubfab_queue_get_sqe",
                        "SQ full: submit() and reap completions")
        prep(sqe, *args)
        lib.sqe_set_data(sqe, user_data)
        lib.sqe_set_flags(sqe, flags)

    def nop(self, **kw):
        """Post a NOP: completes OK, doing nothing."""
        self._post(lib.prep_nop, **kw)

    def write(self, local, remote, length, **kw):
        """Post a WRITE of ``length`` bytes from ``local`` to ``remote``
        (needs SegRights.WRITE)."""
        self._post(lib.prep_write, local, remote, length, **kw)

    def read(self, local, remote, length, **kw):
        """Post a READ of ``length`` bytes from ``remote`` to ``local``
        (needs SegRights.READ)."""
        self._post(lib.prep_read, local, remote, length, **kw)

    def write_notify(self, local, remote, length, notify, add=1, **kw):
        """Post a WRITE, then an atomic add of ``add`` to the word at
        remote ``notify`` once the data is visible; result: its old
        value."""
        self._post(lib.prep_write_notify, local, remote, length, notify,
                   add, **kw)

    def atomic(self, op, remote, value, compare=0, **kw):
        """Post an atomic ``op`` (AtomicOp) on the 8-byte word at
        ``remote``; result: the old value."""
        self._post(lib.prep_atomic, op, remote, value, compare, **kw)

    def copy(self, dst, src, length, **kw):
        """Post a COPY within the entity's memory."""
        self._post(lib.prep_copy, dst, src, length, **kw)

    def fill(self, local, byte, length, **kw):
        """Post a FILL of ``length`` bytes at ``local`` with ``byte``."""
        self._post(lib.prep_fill, local, byte, length, **kw)

    def event_record(self, event, **kw):
        """Post an EVENT_RECORD: count up the device's event counter."""
        self._post(lib.prep_event_record, event, **kw)

    def event_wait(self, event, count, timeout_ms=0, **kw):
        """Post an EVENT_WAIT: hold the queue until the counter reaches
        ``count``."""
        self._post(lib.prep_event_wait, event, count, timeout_ms, **kw)

    def wait_value(self, local, cmp, value, timeout_ms=0, **kw):
        """Post a WAIT_VALUE: hold the queue until the word at ``local``
        compares to ``value`` as ``cmp`` (WaitCmp) says."""
        self._post(lib.prep_wait_value, local, cmp, value, timeout_ms, **kw)

    def compute(self, ns, **kw):
        """Post a COMPUTE task of ``ns`` modeled nanoseconds."""
        self._post(lib.prep_compute, ns, **kw)

    def send(self, local, length, eid, rq, token, **kw):
        """Post a SEND of ``length`` bytes at ``local`` (0 bytes: no
        data) to receive queue ``rq`` (its id) of entity ``eid``,
        presenting ``token``; it lands in the next receive posted there.
        Fails with RNR_RETRY_EXC when none is posted in time,
        REMOTE_LENGTH when the receive's buffer is shorter."""
        self._post(lib.prep_send, local, length, eid, rq, token, **kw)

    def send_imm(self, local, length, eid, rq, token, imm, **kw):
        """Post a SEND carrying the 32-bit immediate ``imm``, which the
        receive completion holds."""
        self._post(lib.prep_send_imm, local, length, eid, rq, token, imm,
                   **kw)

    def write_imm(self, local, remote, length, rq, token, imm, **kw):
        """Post a WRITE (needs SegRights.WRITE), then the immediate
        ``imm`` to the next receive posted on receive queue ``rq`` of the
        segment's owner: its completion has the write's bytes, its buffer
        stays untouched."""
        self._post(lib.prep_write_imm, local, remote, length, rq, token,
                   imm, **kw)

    def submit(self):
        """Hand the posted entries to the kernel; returns their count.
        Error EIO if the queue is in the error state (they then complete
        FLUSHED)."""
        return check(lib.queue_submit(self.handle()), "ubfab_queue_submit")

    # Completions

    def wait(self, timeout=None, raise_on_error=True):
        """The next completion, waiting up to ``timeout`` seconds (None:
        forever); Error ETIMEDOUT if none came. Raises CompletionError
        for a status other than OK unless ``raise_on_error`` is False;
        the completion is consumed either way."""
        ms = -1 if timeout is None else int(timeout * 1000)
        check(lib.queue_wait_cqe(self.handle(), ctypes.byref(self._cqe), ms),
              "ubfab_queue_wait_cqe")
        c = record(self._cqe.contents)
        lib.queue_cqe_seen(self._p)
        if raise_on_error and c.status != CqeStatus.OK:
            raise CompletionError(c)
        return c

    def reap(self, max_count=64):
        """The completions waiting now, up to ``max_count``, oldest
        first, consumed; does not wait and does not raise for their
        status."""
        out = (_lib.Completion * max_count)()
        n = lib.queue_reap(self.handle(), out, max_count)
        return [record(out[i]) for i in range(n)]

    def run(self, timeout=None):
        """Submit what was posted and wait for as many completions, in
        order; returns them. Raises CompletionError for the first that
        failed (after reaping them all). Not for SELECTIVE queues, whose
        entries do not all complete."""
        q = self.handle().contents
        n = (q.sq_next - q.sq_published) & 0xFFFFFFFF
        try:
            self.submit()
        except Error as e:
            # In the error state the entries are published all the same.
            if e.errno != errno.EIO:
                raise
        done = [self.wait(timeout, raise_on_error=False) for _ in range(n)]
        for c in done:
            if c.status != CqeStatus.OK:
                raise CompletionError(c)
        return done

    def reset(self):
        """Take the queue out of the error state."""
        check(lib.queue_reset(self.handle()), "ubfab_queue_reset")

    # The modeled clock

    def clock(self, advance_ns=0):
        """Advance the queue's modeled clock by ``advance_ns`` and return
        it, in nanoseconds."""
        now = ctypes.c_uint64()
        check(lib.queue_clock(self.handle(), advance_ns, ctypes.byref(now)),
              "ubfab_queue_clock")
        return now.value

    def park(self):
        """Stop an ORDERED queue holding its model domain back."""
        check(lib.queue_park(self.handle()), "ubfab_queue_park")

    def stamp(self, addr, local=False):
        """Stamp the flag word at ``addr`` with the queue's clock before a
        CPU store raises it; returns the stamp (ns)."""
        now = ctypes.c_uint64()
        check(lib.queue_stamp(self.handle(), addr,
                              StampFlags.LOCAL if local else 0,
                              ctypes.byref(now)), "ubfab_queue_stamp")
        return now.value
