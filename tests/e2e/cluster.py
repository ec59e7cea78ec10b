"""A small cluster of "hosts" on this machine: one Linux network namespace per host.

``Cluster`` builds a bridge in the root namespace with its own /24 and, per host, a namespace
holding one end of a veth pair (``eth0``, the host's address) whose other end is on the bridge.
Hosts reach each other and the root side of the bridge; the machine's PostgreSQL (listening on
127.0.0.1 in the root namespace only) is reached through ``Forwarder``, a small TCP relay on the
bridge address. ``spawn`` starts a process inside a host (``ip netns exec``: the process keeps
the pid of the ``Popen``, so signals reach it directly); ``cut`` / ``restore`` take a host's link
down and up (its packets are dropped, not refused: a partition, not a crash).

Names carry a random prefix, so runs never collide; ``close`` kills every process it started
(continuing stopped ones first), deletes the namespaces and the bridge, and stops the relay — the
fixtures call it in their finalizers, so a failing test leaves nothing behind. Needs root.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import signal
import subprocess
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, text=True)


def netns_available() -> str | None:
    """None when namespaces can be made here (root, ``ip`` present), else why not."""
    if os.geteuid() != 0:
        return "network namespaces need root"
    probe = f"wa{secrets.token_hex(3)}probe"
    try:
        _ip("netns", "add", probe)
    except (OSError, subprocess.CalledProcessError) as exc:
        return f"ip netns add failed: {exc}"
    _ip("netns", "del", probe)
    return None


@dataclass
class Host:
    """One namespace: its name, address and the root-side end of its link."""

    name: str
    netns: str
    address: str
    link: str


class Forwarder:
    """A TCP relay from ``listen`` (host, port) to ``target`` (host, port), on its own thread."""

    def __init__(self, listen: tuple[str, int], target: tuple[str, int]) -> None:
        self.listen, self.target = listen, target
        self.loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._server: asyncio.base_events.Server | None = None
        self._thread = threading.Thread(target=self._run, name="pg-forwarder", daemon=True)
        self._thread.start()
        if not self._ready.wait(10) or self._server is None:
            raise RuntimeError(f"forwarder on {listen} did not start")

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)

        async def start() -> None:
            self._server = await asyncio.start_server(self._relay, *self.listen)
            self._ready.set()

        self.loop.run_until_complete(start())
        self.loop.run_forever()

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection(*self.target)
        except OSError:
            writer.close()
            return

        async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            try:
                while data := await src.read(65536):
                    dst.write(data)
                    await dst.drain()
            except (OSError, asyncio.CancelledError):
                pass
            finally:
                with contextlib.suppress(Exception):
                    dst.close()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))

    def close(self) -> None:
        """Stop listening and stop the thread (open relays die with the loop)."""

        async def stop() -> None:
            if self._server is not None:
                self._server.close()
            for task in asyncio.all_tasks():
                if task is not asyncio.current_task():
                    task.cancel()

        if self.loop.is_running():
            asyncio.run_coroutine_threadsafe(stop(), self.loop).result(5)
            self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(5)


@dataclass
class Cluster:
    """The bridge, the hosts and the processes started in them."""

    prefix: str = field(default_factory=lambda: f"wa{secrets.token_hex(3)}")
    subnet: str = field(default_factory=lambda: f"10.{200 + secrets.randbelow(50)}.{secrets.randbelow(250)}")
    hosts: dict[str, Host] = field(default_factory=dict)
    procs: list[subprocess.Popen[str]] = field(default_factory=list)
    forwarder: Forwarder | None = None
    _bridge_up: bool = False

    @property
    def bridge(self) -> str:
        return f"{self.prefix}br"

    @property
    def gateway(self) -> str:
        """The root namespace's address on the bridge."""
        return f"{self.subnet}.1"

    def up(self, names: list[str]) -> None:
        """Create the bridge and one host per name."""
        _ip("link", "add", self.bridge, "type", "bridge")
        self._bridge_up = True
        _ip("addr", "add", f"{self.gateway}/24", "dev", self.bridge)
        _ip("link", "set", self.bridge, "up")
        for i, name in enumerate(names):
            self.add_host(name, i)

    def add_host(self, name: str, index: int) -> Host:
        """A namespace with ``eth0`` at ``<subnet>.<10 + index>`` on the bridge."""
        host = Host(name, f"{self.prefix}-{name}", f"{self.subnet}.{10 + index}", f"{self.prefix}h{index}")
        peer = f"{self.prefix}n{index}"
        _ip("netns", "add", host.netns)
        self.hosts[name] = host
        _ip("link", "add", host.link, "type", "veth", "peer", "name", peer)
        _ip("link", "set", peer, "netns", host.netns)
        _ip("link", "set", host.link, "master", self.bridge, "up")
        _ip("-n", host.netns, "link", "set", "lo", "up")
        _ip("-n", host.netns, "link", "set", peer, "name", "eth0")
        _ip("-n", host.netns, "addr", "add", f"{host.address}/24", "dev", "eth0")
        _ip("-n", host.netns, "link", "set", "eth0", "up")
        return host

    def forward(self, port: int, target: tuple[str, int]) -> str:
        """Relay ``<gateway>:port`` to ``target`` in the root namespace; returns ``host:port``."""
        self.forwarder = Forwarder((self.gateway, port), target)
        return f"{self.gateway}:{port}"

    def spawn(
        self,
        host: str,
        argv: list[str],
        *,
        env: dict[str, str] | None = None,
        cwd: Path | None = None,
        stdout: int | IO[str] | None = subprocess.PIPE,
        stderr: int | IO[str] | None = None,
    ) -> subprocess.Popen[str]:
        """Start ``argv`` inside ``host``'s namespace (same pid as the returned process)."""
        proc = subprocess.Popen(
            ["ip", "netns", "exec", self.hosts[host].netns, *argv],
            env=env,
            cwd=cwd,
            stdout=stdout,
            stderr=stderr,
            text=True,
        )
        self.procs.append(proc)
        return proc

    def cut(self, host: str) -> None:
        """Take ``host``'s link down: its packets are dropped both ways."""
        _ip("link", "set", self.hosts[host].link, "down")

    def restore(self, host: str) -> None:
        """Bring ``host``'s link back up."""
        _ip("link", "set", self.hosts[host].link, "up")

    def close(self) -> None:
        """Kill every process, delete the namespaces and the bridge, stop the relay."""
        for proc in self.procs:
            if proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(proc.pid, signal.SIGCONT)
                    proc.kill()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(10)
        for host in self.hosts.values():
            with contextlib.suppress(subprocess.CalledProcessError):
                _ip("netns", "del", host.netns)
        if self._bridge_up:
            with contextlib.suppress(subprocess.CalledProcessError):
                _ip("link", "del", self.bridge)
        if self.forwarder is not None:
            self.forwarder.close()
