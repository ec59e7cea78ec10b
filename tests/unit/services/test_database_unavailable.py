"""Which errors count as a database outage (UNAVAILABLE + RetryInfo) and which stay errors."""

from __future__ import annotations

import sqlite3

import grpc
import psycopg
from google.rpc import error_details_pb2
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError

from wordarena.services.common.errors import database_unavailable


def test_lost_or_unreachable_databases_are_outages() -> None:
    for exc in (OperationalError("SELECT 1", {}, Exception("server closed the connection")),
                psycopg.OperationalError("connection failed"),
                sqlite3.OperationalError("database is locked"),
                DBAPIError("COMMIT", {}, Exception("gone"), connection_invalidated=True)):
        err = database_unavailable(exc)
        assert err is not None and err.code == grpc.StatusCode.UNAVAILABLE, exc
        assert err.message == "the database is unavailable; retry shortly"
        assert any(isinstance(d, error_details_pb2.RetryInfo) for d in err.details)


def test_other_errors_are_not_outages() -> None:
    for exc in (IntegrityError("INSERT", {}, Exception("duplicate key")), sqlite3.IntegrityError("x"),
                DBAPIError("SELECT", {}, Exception("syntax")), ValueError("no")):
        assert database_unavailable(exc) is None, exc
