"""structlog set-up: JSON lines in production, readable console output in development.

Bind request context with ``bind(match_id=..., player_id=..., request_id=...)`` (contextvars, so
it follows the current asyncio task / gRPC call) and log with ``get_logger(__name__)``.

Everything goes through one handler on the standard library's root logger, formatted by
structlog's ``ProcessorFormatter``: structlog's own events and the lines of libraries that log
with ``logging`` (Alembic, SQLAlchemy, grpc …) and Python warnings come out in the same format, so
with ``--log-format json`` every line on stderr is one JSON object. ``static`` values (e.g. the
service and its ``server_id``) are added to every line.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Mapping
from typing import Any

import structlog

_configured = False
_HANDLER_NAME = "wordarena"


def _static_adder(static: Mapping[str, Any]) -> Any:
    """A processor that adds ``static`` values (without overriding bound ones)."""
    items = dict(static)

    def add(_logger: Any, _method: str, event_dict: dict[str, Any]) -> dict[str, Any]:
        for k, v in items.items():
            event_dict.setdefault(k, v)
        return event_dict

    return add


def _foreign_logger_name(_logger: Any, _method: str, event_dict: dict[str, Any]) -> dict[str, Any]:
    """``logger_name`` for lines logged through ``logging`` (structlog's own bind it)."""
    record = event_dict.get("_record")
    if record is not None:
        event_dict.setdefault("logger_name", record.name)
    return event_dict


def configure_logging(fmt: str = "console", level: str = "info", **static: Any) -> None:
    """Configure structlog and the standard library root logger (idempotent: a second call
    replaces the first configuration). ``static`` values appear on every line."""
    global _configured
    lvl = getattr(logging, level.upper(), logging.INFO)
    shared: list[Any] = [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        _static_adder({k: v for k, v in static.items() if v not in (None, "")}),
    ]
    renderer: Any
    if fmt == "json":
        renderer = structlog.processors.JSONRenderer()
        final: list[Any] = [structlog.processors.StackInfoRenderer(),
                            structlog.processors.format_exc_info]
    else:
        renderer = structlog.dev.ConsoleRenderer(colors=sys.stderr.isatty())
        final = [structlog.processors.StackInfoRenderer()]
    structlog.configure(
        processors=[*shared, structlog.stdlib.ProcessorFormatter.wrap_for_formatter],
        wrapper_class=structlog.make_filtering_bound_logger(lvl),
        logger_factory=structlog.stdlib.LoggerFactory(),
        cache_logger_on_first_use=False,
    )
    formatter = structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=[*shared, _foreign_logger_name, structlog.stdlib.ExtraAdder()],
        processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, *final, renderer],
    )
    handler = logging.StreamHandler(sys.stderr)
    handler.set_name(_HANDLER_NAME)
    handler.setFormatter(formatter)
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(lvl)
    # Alembic's command API sets up no logging of its own; make sure its loggers propagate here.
    for name in ("alembic", "sqlalchemy"):
        logging.getLogger(name).propagate = True
    logging.captureWarnings(True)
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
