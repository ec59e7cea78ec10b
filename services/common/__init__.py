"""Shared service plumbing for the lobby and match servers.

Modules:

* ``config``   – settings from command-line flags with matching ``WORDARENA_*`` environment variables.
* ``logs``     – structlog set-up (JSON lines in production, console in development) and context binding.
* ``metrics``  – Prometheus registry helpers and the gRPC server interceptor (``grpc_server_*``).
* ``db``       – SQLModel / SQLAlchemy engine and session helpers (SQLite WAL or PostgreSQL), Alembic runner.
* ``errors``   – ``ServiceError``, rich ``google.rpc.Status`` error details for grpc.aio, and the one
  error-mapping decorator of the servicers (``rpc`` / ``rpc_errors``).
* ``authn``    – the one bearer-token authenticator of the servicers (players, services).
* ``request_ids`` – the one check of client request ids.
* ``paging``   – page tokens bound to the request that got them (AIP-158), for both servers.
* ``tasks``    – ending background asyncio tasks.
* ``server``   – grpc.aio server bootstrap: health, reflection, size limits, metrics, graceful shutdown.
* ``reflection`` – server reflection in both protocol versions (``grpc.reflection.v1`` and ``v1alpha``).
* ``rulesets`` – the engine's rulesets as contract messages (RulesetRef, board squares, tiles, a
  ruleset's description): the one writer both servers use.
* ``auth``     – bearer token signing / verification (owned by the lobby).
"""
