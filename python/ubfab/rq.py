# SPDX-License-Identifier: LGPL-2.1-or-later
"""ReceiveQueue: a receive queue of an entity (the real stack's JFR), the
target of two-sided messages, its rings mapped into the process.

Owns posting receives (buffers in the entity's memory), reaping receive
completions, and the receive queue's counters of messages that found it
not ready. The messages themselves are posted on a Queue (send(),
send_imm(), write_imm()).
"""

import ctypes
import errno

from . import _lib
from ._lib import lib
from ._resource import Handle
from .errors import Error, check
from .records import record


class ReceiveQueue(Handle):
    """A receive queue on an entity, from Device.receive_queue().

    Senders name it by the entity's eid, its ``id`` and its ``token``.
    post() a receive for each message to come; each message takes the
    next posted receive, in order. reap() and wait() give receive
    completions (ReceiveCompletion: user_data, model_ns, bytes, imm,
    src_eid, status (a CqeStatus), flags (RcqeFlags: IMM when ``imm``
    holds immediate data), opcode (the sender's Op)). A message that
    finds nothing posted, or the receive completion ring full, is retried
    by the sender (module parameter rnr_retry, rnr_ns apart), then fails
    there with RNR_RETRY_EXC; each miss counts in ``rq_overflow`` or
    ``rcq_overflow``. A context manager; close() destroys it (messages on
    their way fail at the sender).

    ``rq_entries``: receives it holds (a power of two); ``rcq_entries``:
    receive completions it holds (a power of two; 0: as many);
    ``token``: the 32-bit value senders must present.
    """

    _free = "rq_destroy"

    def __init__(self, dev, rq_entries=128, rcq_entries=0, token=0):
        rq = ctypes.POINTER(_lib.Rq)()
        check(lib.rq_create(dev.handle(), rq_entries, rcq_entries, token,
                            ctypes.byref(rq)), "ubfab_rq_create")
        self._p = rq
        self.id = rq.contents.id
        self.token = rq.contents.token

    def fileno(self):
        """The receive queue's descriptor, readable while receive
        completions wait."""
        return self.handle().contents.fd

    @property
    def rq_overflow(self):
        """Messages that found no receive posted (each try counts)."""
        return self.handle().contents.rq_overflow[0]

    @property
    def rcq_overflow(self):
        """Messages that found the receive completion ring full."""
        return self.handle().contents.rcq_overflow[0]

    def post(self, addr, length, user_data=0):
        """Post a receive: a buffer of ``length`` bytes at ``addr``, an
        offset in the entity's memory within one of its allocations
        (Allocation.offset + n). Its completion carries ``user_data``.
        Error EAGAIN when the receive ring is full."""
        check(lib.rq_post(self.handle(), addr, length, user_data),
              "ubfab_rq_post")

    def reap(self, max_count=64, timeout=0):
        """The receive completions waiting, up to ``max_count``, oldest
        first, consumed; waits up to ``timeout`` seconds (None: forever)
        while there is none. Does not raise for their status."""
        out = (_lib.ReceiveCompletion * max_count)()
        ms = -1 if timeout is None else int(timeout * 1000)
        n = check(lib.rq_reap(self.handle(), out, max_count, ms),
                  "ubfab_rq_reap")
        return [record(out[i]) for i in range(n)]

    def wait(self, timeout=None):
        """The next receive completion, waiting up to ``timeout`` seconds
        (None: forever); Error ETIMEDOUT if none came. Does not raise for
        its status."""
        done = self.reap(1, timeout)
        if not done:
            raise Error(errno.ETIMEDOUT, "ubfab_rq_reap")
        return done[0]
