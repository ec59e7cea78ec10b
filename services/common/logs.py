"""structlog set-up: JSON lines in production, readable console output in development.

Bind request context with ``bind(match_id=..., player_id=..., request_id=...)`` (contextvars, so
it follows the current asyncio task / gRPC call) and log with ``get_logger(__name__)``.
"""

from __future__ import annotations

import logging
import sys
from typing import Any

import structlog

_configured = False


def configure_logging(fmt: str = "console", level: str = "info") -> None:
    """Configure structlog and the standard library root logger (idempotent)."""
    global _configured
    lvl = getattr(logging, level.upper(), logging.INFO)
    processors: list[Any] = [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        structlog.processors.StackInfoRenderer(),
    ]
    if fmt == "json":
        processors += [structlog.processors.format_exc_info, structlog.processors.JSONRenderer()]
    else:
        processors += [structlog.dev.ConsoleRenderer(colors=sys.stderr.isatty())]
    structlog.configure(
        processors=processors,
        wrapper_class=structlog.make_filtering_bound_logger(lvl),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=False,
    )
    logging.basicConfig(level=lvl, stream=sys.stderr, format="%(levelname)s %(name)s %(message)s")
    _configured = True


def get_logger(name: str = "wordarena", **initial: Any) -> Any:
    """A lazy structlog logger with ``logger_name`` and any initial values bound (configuration
    made later by ``configure_logging`` still applies)."""
    return structlog.get_logger(name, logger_name=name, **initial)


def bind(**values: Any) -> None:
    """Bind values (``match_id``, ``player_id``, ``request_id`` …) to the current context."""
    structlog.contextvars.bind_contextvars(**{k: v for k, v in values.items() if v is not None})


def clear() -> None:
    """Forget the values bound in the current context."""
    structlog.contextvars.clear_contextvars()
