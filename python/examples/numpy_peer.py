#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Move a numpy array into a peer's window with a WRITE, read it back
with a READ, and print the modeled time of each.

Acts as two NPUs (by default npu0 and the first NPU of the last node):
the peer allocates a window and exports it, the sender imports it,
fills its own memory through a numpy array (no copy: the array is the
entity's memory) and posts the two entries on a queue.

Usage: numpy_peer.py [SENDER PEER [FLOATS]]   (needs ubfab.ko and root)
"""

import sys

import numpy

import ubfab

TOKEN = 0xc0ffee


def page_round(n):
    return -(-n // 4096) * 4096


def main(argv):
    with ubfab.Session() as s:
        npus = [e for e in s.entities() if e.kind == ubfab.EntityKind.NPU]
    sender = argv[1] if len(argv) > 1 else npus[0].name
    peer = argv[2] if len(argv) > 2 else \
        [e for e in npus if e.node == npus[-1].node][0].name
    count = int(argv[3]) if len(argv) > 3 else 1 << 18
    size = count * 4
    window = page_round(size)
    rw = ubfab.SegRights.READ | ubfab.SegRights.WRITE

    with ubfab.Device(sender) as a, ubfab.Device(peer) as b, \
            a.alloc(2 * window) as mem, b.alloc(window) as win, \
            win.export(rw, TOKEN) as seg, \
            a.import_segment(b.eid, seg.token_id, TOKEN, rw) as imp, \
            mem.map() as local, win.map() as remote, a.queue() as q:
        x = numpy.frombuffer(local.buffer, numpy.float32, count)
        back = numpy.frombuffer(local.buffer, numpy.float32, count, window)
        x[:] = numpy.random.default_rng(1).random(count, numpy.float32)

        t0 = q.clock()
        q.write(mem.offset, imp.addr(0), size)
        w, = q.run(timeout=10)
        q.read(mem.offset + window, imp.addr(0), size)
        r, = q.run(timeout=10)

        at_peer = numpy.frombuffer(remote.buffer, numpy.float32, count)
        ok = numpy.array_equal(x, at_peer) and numpy.array_equal(x, back)
        print("%s -> %s: %d float32 (%d bytes)" % (sender, peer, count, size))
        print("WRITE: %d ns modeled" % (w.model_ns - t0))
        print("READ:  %d ns modeled" % (r.model_ns - w.model_ns))
        print("read back %s" % ("equal" if ok else "DIFFERENT"))
        del x, back, at_peer
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
