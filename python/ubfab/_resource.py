# SPDX-License-Identifier: LGPL-2.1-or-later
"""The base of every object of the binding that holds something to close.

Owns the protocol: a context manager whose exit closes, close() that may
be called again, and closing at garbage collection; and the holding of a
libubfab C object (session, device, queue) until close().
"""

from ._lib import lib
from .errors import Error


class Resource:
    """Something to close(): a context manager, closed when collected."""

    def close(self):
        raise NotImplementedError

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except (Error, AttributeError):
            # Closed already by what it depends on, or half made.
            pass


class Handle(Resource):
    """A Resource that is a C object of libubfab: ``_p``, freed by the
    library's ``_free`` (the name of a ``lib`` function) on close()."""

    _free = None
    _p = None

    def is_open(self):
        """Whether it is still open."""
        return bool(self._p)

    def handle(self):
        """The C object; ValueError once closed."""
        if not self._p:
            raise ValueError("the %s is closed" % type(self).__name__)
        return self._p

    def close(self):
        """Free the C object; later calls raise ValueError."""
        if self._p:
            getattr(lib, self._free)(self._p)
            self._p = None
