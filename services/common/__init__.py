"""Shared service plumbing for the lobby and match servers.

* running a server
  * ``config``      settings from command-line flags with matching ``WORDARENA_*`` environment variables
  * ``logs``        structlog set-up (JSON lines in production, console in development), context binding
  * ``metrics``     Prometheus helpers and the gRPC server interceptor (``grpc_server_*``)
  * ``server``      grpc.aio server bootstrap: health, reflection, size limits, metrics, graceful shutdown
  * ``reflection``  server reflection in both protocol versions (``grpc.reflection.v1``,
    ``grpc.reflection.v1alpha``)
  * ``web``         gRPC-Web and Connect for browsers, in the server's own process and event loop
  * ``webcontext``  the servicer context of a call that came in over gRPC-Web or Connect
  * ``tasks``       ending background asyncio tasks, and locks by key
  * ``lifeline``    servers started by ``wordarena serve`` end with it, even when it is killed
* storage
  * ``db``          SQLModel / SQLAlchemy engines and sessions (SQLite WAL or PostgreSQL), Alembic
    migrations, ``Database`` (blocking work off the event loop)
* identity
  * ``tokens``      bearer tokens: Ed25519-signed JWTs issued by the lobby, verified by every server
  * ``auth``        token keys: the lobby's signing key, every server's verifying keys, a call's token
  * ``authn``       the one bearer-token authenticator of the servicers (players, services)
* requests and answers
  * ``errors``      ``ServiceError``, rich ``google.rpc.Status`` details, and the one error-mapping
    decorator of the servicers (``rpc_errors``)
  * ``request_ids`` the one check of client request ids
  * ``paging``      page tokens bound to the request that got them (AIP-158)
  * ``ratelimit``   token buckets kept per key, and the client address a limit is kept for
  * ``text``        what text one player writes may reach another player's screen (chat, names)
  * ``rulesets``    the engine's rulesets as contract messages: the one writer both servers use
"""
