"""The ``/metrics`` endpoint (``--metrics-listen``): what a scrape reads, and a stop that closes the
port (servers stop it on every graceful stop)."""

from __future__ import annotations

import socket
import threading
import urllib.request

import pytest
from prometheus_client import CollectorRegistry, Counter

from wordarena.services.common.metrics import start_metrics_server, stop_metrics_server


@pytest.mark.parametrize("listen", ["127.0.0.1:0", "[::1]:0"])
def test_a_scrape_reads_the_registry_and_a_stop_closes_the_port(listen: str) -> None:
    if listen.startswith("[") and not socket.has_ipv6:
        pytest.fail("this machine has no IPv6 loopback")
    registry = CollectorRegistry()
    Counter("wordarena_test_things", "Things.", registry=registry).inc(3)
    before = set(threading.enumerate())
    server, port = start_metrics_server(listen, registry)
    (serving,) = [t for t in threading.enumerate() if t not in before and t.name == "metrics"]
    host = server.server_address[0]
    url = f"http://[{host}]:{port}/metrics" if ":" in host else f"http://{host}:{port}/metrics"
    with urllib.request.urlopen(url, timeout=10) as resp:
        assert resp.status == 200
        assert "wordarena_test_things_total 3.0" in resp.read().decode()
    stop_metrics_server(server)
    assert not serving.is_alive()
    with pytest.raises(ConnectionRefusedError), socket.create_connection((host, port), timeout=5):
        pass
