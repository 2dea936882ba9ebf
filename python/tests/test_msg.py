# SPDX-License-Identifier: LGPL-2.1-or-later
"""Two-sided messages through ReceiveQueue and Queue.send/send_imm/
write_imm: a ping-pong with immediate data, WRITE_IMM, a message too
long for its receive (statuses on both sides, nothing written), a
receiver not ready (RNR_RETRY_EXC after the module's retries, counted:
nothing posted, or the receive completions full), a wrong token and no
such receive queue."""

import errno

import pytest

import ubfab
from conftest import WINDOW

TOKEN = 0xfeed
RNR_RETRY = "/sys/module/ubfab/parameters/rnr_retry"


def _rq(dev):
    return dev.receive_queue(rq_entries=8, token=TOKEN)


def test_ping_pong_with_immediate(peers):
    a, b = peers.a, peers.b
    with a.queue() as qa, b.queue() as qb, _rq(a) as ra, _rq(b) as rb, \
            peers.src.map() as src, peers.dst.map() as dst:
        half = WINDOW // 2
        # Each side sends from its first half, receives into its second.
        ra.post(peers.src.offset + half, half, user_data=100)
        rb.post(peers.dst.offset + half, half, user_data=200)
        src.buffer[:4] = b"ping"
        qa.send_imm(peers.src.offset, 4, b.eid, rb.id, TOKEN, 0xabc0,
                    user_data=1)
        c, = qa.run(timeout=10)
        assert (c.status, c.opcode, c.bytes) == \
            (ubfab.CqeStatus.OK, ubfab.Op.SEND_IMM, 4)
        r = rb.wait(timeout=10)
        assert (r.user_data, r.status, r.opcode, r.bytes, r.imm,
                r.src_eid) == (200, ubfab.CqeStatus.OK, ubfab.Op.SEND_IMM,
                               4, 0xabc0, a.eid)
        assert r.flags == ubfab.RcqeFlags.IMM
        assert r.model_ns > 0
        assert bytes(dst.buffer[half:half + 4]) == b"ping"

        dst.buffer[:4] = b"pong"
        qb.send_imm(peers.dst.offset, 4, a.eid, ra.id, TOKEN, 0xabc1)
        qb.run(timeout=10)
        r = ra.wait(timeout=10)
        assert (r.user_data, r.imm, r.src_eid, r.bytes) == \
            (100, 0xabc1, b.eid, 4)
        assert bytes(src.buffer[half:half + 4]) == b"pong"
        assert ra.reap() == [] and rb.reap() == []


def test_send_without_immediate_and_write_imm(peers):
    a, b = peers.a, peers.b
    with a.queue() as q, _rq(b) as rb, peers.src.map() as src, \
            peers.dst.map() as dst:
        rb.post(peers.dst.offset + 1024, 64, user_data=1)
        rb.post(peers.dst.offset + 2048, 64, user_data=2)
        src.buffer[:8] = b"message!"
        q.send(peers.src.offset, 8, b.eid, rb.id, TOKEN)
        q.write_imm(peers.src.offset, peers.imp.addr(0), 8, rb.id, TOKEN, 7)
        q.run(timeout=10)
        # Written before the senders' completions, in order.
        r1, r2 = rb.reap()
        assert (r1.user_data, r1.opcode, r1.bytes, r1.imm, r1.flags) == \
            (1, ubfab.Op.SEND, 8, 0, ubfab.RcqeFlags(0))
        assert bytes(dst.buffer[1024:1032]) == b"message!"
        # WRITE_IMM: the bytes go to the segment, the receive's buffer
        # stays as it was; its completion counts the write's bytes.
        assert (r2.user_data, r2.opcode, r2.bytes, r2.imm, r2.flags) == \
            (2, ubfab.Op.WRITE_IMM, 8, 7, ubfab.RcqeFlags.IMM)
        assert bytes(dst.buffer[:8]) == b"message!"
        assert bytes(dst.buffer[2048:2056]) == bytes(8)


def test_too_long_fails_both_sides_and_writes_nothing(peers):
    a, b = peers.a, peers.b
    with a.queue() as q, _rq(b) as rb, peers.src.map() as src, \
            peers.dst.map() as dst:
        dst.buffer[:64] = b"\x5a" * 64
        rb.post(peers.dst.offset + 16, 16, user_data=9)
        src.buffer[:64] = b"\x01" * 64
        q.send_imm(peers.src.offset, 64, b.eid, rb.id, TOKEN, 3)
        with pytest.raises(ubfab.CompletionError) as e:
            q.run(timeout=10)
        assert e.value.status == ubfab.CqeStatus.REMOTE_LENGTH
        assert e.value.status.name == "REMOTE_LENGTH"
        r = rb.wait(timeout=10)
        assert (r.user_data, r.status, r.bytes) == \
            (9, ubfab.CqeStatus.LOCAL_LENGTH, 0)
        assert r.status.name == "LOCAL_LENGTH"
        # Nothing in the buffer, nothing before or past it.
        assert bytes(dst.buffer[:64]) == b"\x5a" * 64
        assert q.sq_flags & ubfab.SqFlags.ERROR


def test_receiver_not_ready(peers):
    a, b = peers.a, peers.b
    with open(RNR_RETRY) as f:
        retries = int(f.read())
    with a.queue() as q, _rq(b) as rb:
        q.send(peers.src.offset, 8, b.eid, rb.id, TOKEN, user_data=5)
        with pytest.raises(ubfab.CompletionError) as e:
            q.run(timeout=10)
        assert e.value.status == ubfab.CqeStatus.RNR_RETRY_EXC
        assert e.value.completion.user_data == 5
        # The first try and each retry found nothing posted.
        assert (rb.rq_overflow, rb.rcq_overflow) == (retries + 1, 0)
        assert rb.reap() == []
        # Once reset, with a receive posted, the message goes through.
        q.reset()
        rb.post(peers.dst.offset, 8, user_data=6)
        q.send(peers.src.offset, 8, b.eid, rb.id, TOKEN)
        c, = q.run(timeout=10)
        assert c.status == ubfab.CqeStatus.OK
        assert rb.wait(timeout=10).user_data == 6
        assert rb.rq_overflow == retries + 1


def test_receive_completions_full(peers):
    a, b = peers.a, peers.b
    with open(RNR_RETRY) as f:
        retries = int(f.read())
    with a.queue() as q, \
            b.receive_queue(rq_entries=2, rcq_entries=1, token=TOKEN) as rb:
        rb.post(peers.dst.offset, 8, user_data=1)
        rb.post(peers.dst.offset + 8, 8, user_data=2)
        q.send(peers.src.offset, 8, b.eid, rb.id, TOKEN)
        q.send(peers.src.offset, 8, b.eid, rb.id, TOKEN)
        with pytest.raises(ubfab.CompletionError) as e:
            q.run(timeout=10)
        # The second found the one receive completion unreaped.
        assert e.value.status == ubfab.CqeStatus.RNR_RETRY_EXC
        assert (rb.rq_overflow, rb.rcq_overflow) == (0, retries + 1)
        assert [r.user_data for r in rb.reap()] == [1]


def test_wrong_token_and_no_receive_queue(peers):
    a, b = peers.a, peers.b
    with a.queue() as q, _rq(b) as rb:
        rb.post(peers.dst.offset, 8)
        q.send(peers.src.offset, 8, b.eid, rb.id, TOKEN + 1)
        with pytest.raises(ubfab.CompletionError) as e:
            q.run(timeout=10)
        assert e.value.status == ubfab.CqeStatus.ACCESS
        q.reset()
        q.send(peers.src.offset, 8, b.eid, rb.id + 1000, TOKEN)
        with pytest.raises(ubfab.CompletionError) as e:
            q.run(timeout=10)
        assert e.value.status == ubfab.CqeStatus.NO_IMPORT
        # The receive posted was not taken.
        with pytest.raises(ubfab.Error) as t:
            rb.wait(timeout=0.05)
        assert t.value.errno == errno.ETIMEDOUT
