"""The one bearer-token authenticator of the gRPC servicers (lobby and match server).

Every call carries ``authorization: Bearer <token>``. A player token is an Ed25519 JWT issued by
the lobby (``services.common.auth``); a service (lobby <-> match server) presents a JWT of kind
``service`` or, when one is configured, the shared service secret (``--service-token``). Refusals
are ``ServiceError``: UNAUTHENTICATED for a missing, malformed, forged or expired token,
PERMISSION_DENIED for a token of the wrong kind.
"""

from __future__ import annotations

import hmac

import grpc

from wordarena.services.common import auth, logs
from wordarena.services.common.errors import ServiceError

__all__ = ["BearerAuth"]

#: The name ``service`` answers for a caller that presented the shared secret (it has no claims).
SECRET_CALLER = "service-token"


class BearerAuth:
    """Checks the bearer token of a call against a server's token keys (and shared secret)."""

    def __init__(self, keys: auth.TokenKeys, service_secret: str = "") -> None:
        self.keys = keys
        self.service_secret = service_secret

    def token(self, context: grpc.aio.ServicerContext) -> str:
        """The call's bearer token (UNAUTHENTICATED when there is none)."""
        token = auth.bearer_token_from_metadata(context.invocation_metadata())
        if not token:
            raise ServiceError(
                grpc.StatusCode.UNAUTHENTICATED, "missing 'authorization: Bearer <token>' metadata"
            )
        return token

    def _verify(self, token: str) -> auth.Claims:
        try:
            return self.keys.verify(token)
        except auth.TokenError as exc:
            raise ServiceError(grpc.StatusCode.UNAUTHENTICATED, f"{exc.reason}: {exc.message}") from exc

    def claims(self, context: grpc.aio.ServicerContext) -> auth.Claims:
        """The verified claims of any token, player or service; binds ``player_id`` to the log
        context."""
        claims = self._verify(self.token(context))
        logs.bind(player_id=claims.player_id)
        return claims

    def player(self, context: grpc.aio.ServicerContext) -> auth.Claims:
        """The claims of a player token (a service token is PERMISSION_DENIED)."""
        claims = self.claims(context)
        if claims.is_service:
            raise ServiceError(grpc.StatusCode.PERMISSION_DENIED, "service tokens cannot act as players")
        return claims

    def service(self, context: grpc.aio.ServicerContext) -> str:
        """The calling service's id: the shared secret, or a service token (a player token is
        PERMISSION_DENIED)."""
        caller = self.service_caller(context)
        if caller is None:
            raise ServiceError(grpc.StatusCode.PERMISSION_DENIED, "a service token is needed")
        return caller

    def service_caller(self, context: grpc.aio.ServicerContext) -> str | None:
        """The calling service's id when the call presents the shared secret or a service token;
        None for a player token (UNAUTHENTICATED for a missing or invalid one)."""
        token = self.token(context)
        secret = self.service_secret
        # compare_digest: the secret is not leaked by how long a wrong guess takes to refuse
        if secret and hmac.compare_digest(token.encode(), secret.encode()):
            return SECRET_CALLER
        claims = self._verify(token)
        return claims.player_id if claims.is_service else None
