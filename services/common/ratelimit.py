"""Rate limits: token buckets (a rate after a burst) kept per key, in memory, and the client
address a limit is kept for.

A bucket holds up to ``burst`` tokens and gains ``rate`` a second; each admitted action takes one.
An action finding less than one token is refused with the wait until there is one (the caller
answers RESOURCE_EXHAUSTED with ``google.rpc.RetryInfo``). Refusals take nothing.
"""

from __future__ import annotations

import ipaddress
from collections import OrderedDict
from dataclasses import dataclass
from urllib.parse import unquote

__all__ = ["Buckets", "TokenBucket", "client_address"]


@dataclass(frozen=True, slots=True)
class TokenBucket:
    """The policy: ``rate`` tokens a second, up to ``burst``. Stateless; a bucket's state is a
    ``(tokens, at)`` pair (``at`` in the caller's clock, seconds)."""

    rate: float
    burst: float

    def take(self, state: tuple[float, float] | None, now: float,
             cost: float = 1.0) -> tuple[tuple[float, float], float | None]:
        """``(new state, None)`` when an action is admitted at ``now`` (``cost`` tokens taken),
        else ``(state, seconds to wait)``. ``state`` None is a full bucket."""
        tokens, at = state if state is not None else (self.burst, now)
        tokens = min(self.burst, tokens + max(0.0, now - at) * self.rate)
        if tokens >= cost:
            return (tokens - cost, now), None
        wait = (cost - tokens) / self.rate if self.rate > 0 else 3600.0
        return (tokens, now), wait


class Buckets:
    """Token buckets by key (a client address), at most ``max_keys`` of them: when full, the
    least recently used bucket is forgotten (it is the one most likely to be full again)."""

    def __init__(self, policy: TokenBucket, max_keys: int = 100_000) -> None:
        self.policy = policy
        self.max_keys = max_keys
        self._state: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def wait(self, key: str, now: float) -> float | None:
        """The seconds ``key`` must wait before its next action (None: it may act now); takes
        nothing."""
        _, wait = self.policy.take(self._state.get(key), now)
        return wait

    def take(self, key: str, now: float, cost: float = 1.0) -> float | None:
        """Admits one action of ``cost`` tokens for ``key`` at ``now`` (None) or returns the
        seconds to wait."""
        state, wait = self.policy.take(self._state.get(key), now, cost)
        self._state[key] = state
        self._state.move_to_end(key)
        while len(self._state) > self.max_keys:
            self._state.popitem(last=False)
        return wait


def client_address(peer: str) -> str:
    """The address a limit is kept for, from a gRPC peer string (``ipv4:1.2.3.4:5``,
    ``ipv6:[::1]:5``, ``unix:/path``): the IPv4 address; for IPv6 its /64 network (one host
    usually holds a whole /64), an IPv4-mapped IPv6 address as the IPv4 one; anything else as is
    without its port."""
    kind, _, rest = unquote(peer).partition(":")
    if kind not in ("ipv4", "ipv6"):
        return kind or peer
    host = rest.rsplit(":", 1)[0].strip("[]")
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)
