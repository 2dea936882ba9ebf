# SPDX-License-Identifier: LGPL-2.1-or-later
"""The binding's exceptions: a failed library call, a failed completion.

Owns turning libubfab's negative errno returns into exceptions.
"""

import errno
import os

class Error(OSError):
    """A libubfab call failed.

    ``errno`` is the positive errno the library returned (e.g.
    ``errno.ENODEV``), ``strerror`` its text; ``reason`` is what the kernel
    said of a refused netlink request (its extended ack), or "".
    ``call`` is the library function that failed.
    """

    def __init__(self, err, call, reason=""):
        text = os.strerror(err)
        if reason:
            text = "%s (%s)" % (text, reason)
        super().__init__(err, "%s: %s" % (call, text))
        self.call = call
        self.reason = reason


class CompletionError(Error):
    """A queue entry completed with a status other than ``CqeStatus.OK``.

    ``status`` is the ``CqeStatus`` (``status.name`` e.g.
    "REMOTE_RANGE"), ``completion`` the whole ``Completion``. Its errno
    is ``errno.EIO``.
    """

    def __init__(self, completion):
        self.status = completion.status
        self.completion = completion
        name = getattr(self.status, "name", str(self.status))
        OSError.__init__(self, errno.EIO, "entry %s (user_data %d) "
                         "completed with %s" % (
                             getattr(completion.opcode, "name",
                                     completion.opcode),
                             completion.user_data, name))
        self.call = "ubfab_queue"
        self.reason = name


def check(rc, call, reason=None):
    """Return ``rc`` if it is not negative; else raise Error(-rc).

    ``reason`` is called for the kernel's reason only on failure.
    """
    if rc < 0:
        raise Error(-rc, call, reason() if reason else "")
    return rc
