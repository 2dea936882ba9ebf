# SPDX-License-Identifier: LGPL-2.1-or-later
"""python/examples/numpy_peer.py runs and reports what it promises."""

import os
import re
import subprocess
import sys

EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "examples",
                       "numpy_peer.py")


def test_numpy_peer():
    out = subprocess.run([sys.executable, EXAMPLE, "npu0", "npu1", "1000"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "npu0 -> npu1: 1000 float32 (4000 bytes)" in out.stdout
    times = re.findall(r"(WRITE|READ): +(\d+) ns modeled", out.stdout)
    assert [t[0] for t in times] == ["WRITE", "READ"]
    assert all(int(t[1]) > 0 for t in times)
    assert "read back equal" in out.stdout
