"""Reading Prometheus counters in tests through the client's public ``collect()``."""

from __future__ import annotations

from prometheus_client import Counter


def counted(counter: Counter, **labels: str) -> float:
    """The value of ``counter`` (its ``_total`` sample) for ``labels``; 0 if never counted."""
    for family in counter.collect():
        for sample in family.samples:
            if sample.name.endswith("_total") and sample.labels == labels:
                return float(sample.value)
    return 0.0
