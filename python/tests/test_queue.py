# SPDX-License-Identifier: LGPL-2.1-or-later
"""Queues through Queue: entries move data and complete with their
status and modeled time; failures raise CompletionError and flush the
queue until reset(); the modeled clock; the queue dump."""

import errno
import os
import time

import numpy
import pytest

import ubfab
from conftest import WINDOW


def tx_bytes(session, eid):
    return sum(p.stats.tx_bytes for p in session.ports(eid))


def test_write_then_read_back(session, peers):
    with peers.a.queue() as q, peers.src.map() as src, \
            peers.dst.map() as dst:
        x = numpy.frombuffer(src.buffer, dtype=numpy.float64)
        x[:] = numpy.linspace(0, 1, x.size)
        sent = tx_bytes(session, peers.a.eid)
        t0 = q.clock()
        q.write(peers.src.offset, peers.imp.addr(0), WINDOW, user_data=11)
        c, = q.run(timeout=10)
        assert (c.user_data, c.status, c.opcode, c.bytes) == \
            (11, ubfab.CqeStatus.OK, ubfab.Op.WRITE, WINDOW)
        assert c.model_ns > t0
        assert q.clock() == c.model_ns
        y = numpy.frombuffer(dst.buffer, dtype=numpy.float64)
        assert numpy.array_equal(x, y)
        assert tx_bytes(session, peers.a.eid) - sent == WINDOW
        # Back, into the second half of the source range.
        half = WINDOW // 2
        q.read(peers.src.offset + half, peers.imp.addr(0), half,
               user_data=12)
        c, = q.run(timeout=10)
        assert (c.user_data, c.opcode, c.bytes) == (12, ubfab.Op.READ, half)
        assert numpy.array_equal(x[x.size // 2:], y[:y.size // 2])
        del x, y


@pytest.mark.parametrize("flags, moves", [
    (ubfab.QueueFlags.POLL, True), (ubfab.QueueFlags.TIMING, False)])
def test_queue_flags(peers, flags, moves):
    with peers.a.queue(flags=flags) as q, peers.src.map() as src, \
            peers.dst.map() as dst:
        src.buffer[:4] = b"flag"
        q.write(peers.src.offset, peers.imp.addr(0), 4)
        c, = q.run(timeout=10)
        assert (c.status, c.bytes) == (ubfab.CqeStatus.OK, 4)
        assert (bytes(dst.buffer[:4]) == b"flag") == moves


def test_failure_raises_and_flushes_until_reset(peers):
    with peers.a.queue() as q:
        q.write(peers.src.offset, peers.imp.addr(WINDOW), 8, user_data=1)
        q.nop(user_data=2)
        with pytest.raises(ubfab.CompletionError) as e:
            q.run(timeout=10)
        assert e.value.status == ubfab.CqeStatus.REMOTE_RANGE
        assert e.value.reason == "REMOTE_RANGE"
        assert e.value.errno == errno.EIO
        assert e.value.completion.user_data == 1
        assert q.sq_flags & ubfab.SqFlags.ERROR
        q.nop(user_data=3)
        with pytest.raises(ubfab.CompletionError) as e:
            q.run(timeout=10)
        assert e.value.status == ubfab.CqeStatus.FLUSHED
        q.reset()
        q.nop(user_data=4)
        assert q.run(timeout=10)[0].user_data == 4


def test_compute_and_clock(peers):
    with peers.a.queue() as q:
        t0 = q.clock(1000)
        assert q.clock() == t0
        q.compute(5000)
        assert q.run(timeout=10)[0].model_ns == t0 + 5000


def test_atomic_returns_the_old_value(peers):
    with peers.a.queue() as q, peers.dst.map() as dst:
        word = numpy.frombuffer(dst.buffer, dtype=numpy.uint64, count=1)
        word[0] = 40
        q.atomic(ubfab.AtomicOp.FETCH_ADD, peers.imp.addr(0), 2)
        assert q.run(timeout=10)[0].result == 40
        assert word[0] == 42
        del word


def test_full_sq_and_reap(peers):
    with peers.a.queue(sq_entries=2) as q:
        assert q.sq_space == 2
        q.nop(user_data=1)
        q.nop(user_data=2)
        with pytest.raises(ubfab.Error) as e:
            q.nop()
        assert e.value.errno == errno.ENOSPC
        assert q.submit() == 2
        assert q.wait(timeout=10).user_data == 1
        deadline = time.monotonic() + 10
        while not q.cq_ready and time.monotonic() < deadline:
            time.sleep(0.01)
        assert [c.user_data for c in q.reap()] == [2]
        assert q.reap() == []


def test_queue_dump_shows_the_queue(session, peers):
    with peers.a.queue(sq_entries=8) as q:
        mine = [i for i in session.queues(peers.a.eid) if i.id == q.id]
        assert len(mine) == 1
        assert (mine[0].pid, mine[0].sq_entries, mine[0].cq_entries) == \
            (os.getpid(), 8, 16)
    assert [i for i in session.queues(peers.a.eid) if i.id == q.id] == []
