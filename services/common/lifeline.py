"""Servers started by a parent process (``wordarena serve``) end with it, even when the parent is
killed with SIGKILL and cannot stop them.

The parent sets ``WORDARENA_PARENT_PID`` (its pid) and ``WORDARENA_PARENT_FD`` (the read end of a
pipe whose write end only the parent holds) in the child's environment. The child calls
``die_with_parent`` first thing, before any import that takes time:

* ``PR_SET_PDEATHSIG`` (Linux): the kernel sends the child SIGTERM when the parent dies — strictly,
  when the parent's *thread* that started it ends, which is why the pipe below is the second line;
  a parent already gone by then (it died between the fork and this call) is seen at once: the
  child's parent is no longer that pid, and the child exits.
* the pipe: once the server runs, its event loop watches the read end (``watch_parent``); the
  pipe reads end-of-file when the parent's process is gone, whatever thread started the child,
  and the server stops as on SIGTERM (gracefully).

Without the variables (a server started by hand, by systemd, in a container) nothing happens.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import os
import signal
import sys
from collections.abc import Callable

__all__ = ["PARENT_FD_ENV", "PARENT_PID_ENV", "die_with_parent", "watch_parent"]

PARENT_PID_ENV = "WORDARENA_PARENT_PID"
PARENT_FD_ENV = "WORDARENA_PARENT_FD"
PR_SET_PDEATHSIG = 1

#: The pipe's read end, once ``die_with_parent`` has taken it from the environment.
_parent_fd: int | None = None


def die_with_parent() -> None:
    """Tie this process's life to the parent named in the environment (see the module)."""
    global _parent_fd
    pid = os.environ.pop(PARENT_PID_ENV, "")
    fd = os.environ.pop(PARENT_FD_ENV, "")
    if fd.isdigit():
        _parent_fd = int(fd)
        with contextlib.suppress(OSError):
            os.set_inheritable(_parent_fd, False)  # not passed on to this server's own children
    if not pid.isdigit():
        return
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)
    if os.getppid() != int(pid):
        sys.exit(f"the parent process {pid} is gone: not starting")


def watch_parent(loop: asyncio.AbstractEventLoop, on_gone: Callable[[], None]) -> bool:
    """Call ``on_gone`` once the parent's pipe reads end-of-file (the parent is gone). False when
    this process has no parent pipe."""
    fd = _parent_fd
    if fd is None:
        return False

    def readable() -> None:
        try:
            data = os.read(fd, 4096)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            loop.remove_reader(fd)
            on_gone()

    try:
        os.set_blocking(fd, False)
        loop.add_reader(fd, readable)
    except (OSError, ValueError, NotImplementedError):
        return False
    return True
