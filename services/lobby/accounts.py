"""Accounts: guests who play at once, claimed accounts with a password, sign-in (throttled across
every lobby), the tokens the lobby signs for them, and who is online.

Sign-in throttle: failed sign-ins are rows per (name, client address) (``lobby_sign_in_failures``):
an attacker failing from one address slows down only that address, never the owner signing in
from theirs. Every sign-in counts itself as a failure before its password is checked, in a
transaction of its own with the row locked (``store.count_sign_in_attempt``; refused there while
its backoff lasts), and a success then clears the row. So the limit (``passwords.FailureThrottle``)
holds across all lobbies, for attempts at once too, and survives restarts.

Failed sign-ins are also limited per client address over all names (password spraying: a token
bucket in each lobby's memory, ``address_failure_rate`` after ``address_failure_burst``).
Guest sign-ins are limited per client address (a token bucket in each lobby's memory:
``guest_sign_in_rate`` after ``guest_sign_in_burst``). A guest's token carries ``guest: true``;
once the guest has claimed the account, such tokens are refused (``authorize``).
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

from sqlmodel import Session

from wordarena.services.common import auth, logs
from wordarena.services.common.db import Database, GroupCommit
from wordarena.services.common.ratelimit import Buckets, TokenBucket
from wordarena.services.lobby import store
from wordarena.services.lobby.errors import LobbyError, Status
from wordarena.services.lobby.metrics import PLAYERS_ONLINE
from wordarena.services.lobby.models import PlayerRow
from wordarena.services.lobby.names import name_skeleton, validate_display_name
from wordarena.services.lobby.options import ONLINE_WINDOW_S, LobbyOptions
from wordarena.services.lobby.passwords import Passwords, validate_password

__all__ = ["Accounts", "SignedIn"]

log = logs.get_logger("wordarena.lobby")

#: Most players a memo of ``Accounts`` (guests confirmed, guests claimed) holds before it is
#: emptied; a player it no longer holds is looked up in the database again.
MEMO_MAX = 100_000


@dataclass(frozen=True)
class SignedIn:
    """A player and a fresh token for them (valid until ``expires_at``, epoch seconds)."""

    player: PlayerRow
    token: str
    expires_at: float


def _name_taken(field: str) -> LobbyError:
    return LobbyError(Status.ALREADY_EXISTS, "that name is in use", "NAME_TAKEN", field)


class Accounts:
    """Players: guests, claims, sign-in, tokens, presence."""

    def __init__(self, db: Database, keys: auth.TokenKeys, options: LobbyOptions) -> None:
        self.db = db
        self.keys = keys
        self.opt = options
        self.passwords = Passwords(options.password_time_cost, options.password_memory_kib)
        #: The sign-in failure policy; the failures themselves are rows shared by every lobby.
        self.throttle = options.sign_in_throttle
        #: SignInGuest's buckets per client address.
        self.guest_buckets = Buckets(TokenBucket(options.guest_sign_in_rate, options.guest_sign_in_burst))
        #: Failed SignIns per client address, whatever the name (password spraying).
        self.address_failures = Buckets(
            TokenBucket(options.address_failure_rate, options.address_failure_burst)
        )
        #: Guest players confirmed still guests (monotonic time of the check), and claimed ones.
        self._guests: dict[str, float] = {}
        self._claimed: set[str] = set()
        #: Last time each player was seen by this lobby (``wordarena_players_online``), the
        #: longest quiet first.
        self.online: OrderedDict[str, float] = OrderedDict()
        PLAYERS_ONLINE.set_function(self.online_count)
        #: Guest sign-ins that arrive together are committed together (one fsync), each answered
        #: once committed.
        self._guest_writer: GroupCommit[tuple[str, str, float], PlayerRow] = GroupCommit(
            db, self._add_guests
        )

    def _add_guests(
        self, s: Session, guests: Sequence[tuple[str, str, float]]
    ) -> list[PlayerRow | BaseException]:
        """New guest players (name, name key, time) in one session: each name taken (by an
        account, a guest seen lately, or a guest earlier in this group) refused alone."""
        # One query for the group's names, then the rows added together (one INSERT on flush).
        taken = store.names_in_use(s, {key for _, key, _ in guests},
                                   min(now for _, _, now in guests) - self.opt.token_ttl_s)
        out: list[PlayerRow | BaseException] = []
        for name, key, now in guests:
            if key in taken:
                out.append(_name_taken("display_name"))
                continue
            taken.add(key)
            row = PlayerRow(id=f"p_{uuid.uuid4().hex}", display_name=name, name_key=key, created_at=now,
                            last_seen=now)
            out.append(store.save_player(s, row))
        return out

    def seen(self, player_id: str) -> None:
        """Notes that a player called just now, and forgets those quiet for longer than
        ``ONLINE_WINDOW_S``: here, not only when the gauge is scraped (it may never be)."""
        now = time.time()
        self.online[player_id] = now
        self.online.move_to_end(player_id)
        self._forget_quiet(now)

    def _forget_quiet(self, now: float) -> None:
        cut = now - ONLINE_WINDOW_S
        while self.online and next(iter(self.online.values())) < cut:
            self.online.popitem(last=False)

    def online_count(self) -> int:
        """Players seen in the last ``ONLINE_WINDOW_S``."""
        self._forget_quiet(time.time())
        return len(self.online)

    def _signed_in(self, player: PlayerRow) -> SignedIn:
        tok = self.keys.issue(player.id, player.display_name, self.opt.token_ttl_s, guest=player.guest)
        return SignedIn(player, tok, time.time() + self.opt.token_ttl_s)

    def _note_claimed(self, pid: str) -> None:
        """Remembers a claimed guest (its guest tokens refused at once), forgetting it was seen
        a guest. Both memos are emptied when full: a player neither holds is looked up again."""
        self._guests.pop(pid, None)
        if len(self._claimed) >= MEMO_MAX:
            self._claimed.clear()
        self._claimed.add(pid)

    async def authorize(self, claims: auth.Claims) -> None:
        """Refuses (UNAUTHENTICATED) a guest's token once that guest has claimed the account:
        the old token must not keep acting for an account with a password. A player seen to be a
        guest is trusted to stay one for ``guest_check_s`` (a claim through another lobby shows
        within that; one through this lobby at once)."""
        if not claims.guest:
            return
        pid = claims.player_id
        now = time.monotonic()
        if pid not in self._claimed and now - self._guests.get(pid, -1e18) >= self.opt.guest_check_s:
            p = await self.db.run(store.get_player, pid)
            if p is not None and not p.guest:
                self._note_claimed(pid)
            else:
                if len(self._guests) >= MEMO_MAX:
                    self._guests.clear()
                self._guests[pid] = now
        if pid in self._claimed:
            raise LobbyError(
                Status.UNAUTHENTICATED,
                "this guest token was revoked: the account has been claimed; sign in with its password",
            )

    async def sign_in_guest(self, display_name: str, client: str) -> SignedIn:
        """A new guest with this display name (NAME_TAKEN while an account or a live guest
        holds a name that looks the same); RESOURCE_EXHAUSTED when ``client`` (its address) has
        signed in too many guests lately."""
        wait = self.guest_buckets.take(client, time.monotonic())
        if wait is not None:
            raise LobbyError(
                Status.RESOURCE_EXHAUSTED,
                f"too many guest sign-ins from your address: at most {self.opt.guest_sign_in_rate:g} "
                f"a second after {self.opt.guest_sign_in_burst}; retry in {wait:.1f}s",
                retry_after_s=wait,
            )
        name = validate_display_name(display_name)
        key = name_skeleton(name)
        now = time.time()

        player = await self._guest_writer.submit((name, key, now))
        self.seen(player.id)
        log.info("guest signed in", player_id=player.id)
        return self._signed_in(player)

    async def claim(self, player_id: str, name: str, password: str) -> SignedIn:
        """Turns a guest into an account with a password (and a new name, if ``name``)."""
        new_name = validate_display_name(name, "name") if name else None
        validate_password(password)
        hashed = await asyncio.to_thread(self.passwords.hash, password)
        now = time.time()

        def work(s: Session) -> PlayerRow:
            p = store.get_player(s, player_id)
            if p is None:
                raise LobbyError(Status.UNAUTHENTICATED, "unknown player")
            if not p.guest:
                raise LobbyError.precondition("ALREADY_CLAIMED", "this account is already claimed")
            if new_name is not None:
                key = name_skeleton(new_name)
                if store.name_in_use(s, key, now - self.opt.token_ttl_s, except_id=p.id):
                    raise _name_taken("name")
                p.display_name, p.name_key = new_name, key
            p.guest, p.password_hash, p.last_seen = False, hashed, now
            return store.save_player(s, p)

        claimed = await self.db.run(work)
        self._note_claimed(player_id)
        return self._signed_in(claimed)

    async def sign_in(self, name: str, password: str, client: str) -> SignedIn:
        """Signs a claimed account in (UNAUTHENTICATED for a wrong name or password,
        RESOURCE_EXHAUSTED while the name is throttled for ``client``, the caller's address)."""
        if len(name) > 64 or len(password) > 256:
            raise LobbyError(Status.UNAUTHENTICATED, "wrong name or password")
        spray = self.address_failures.wait(client, time.monotonic())
        if spray is not None:
            raise LobbyError(Status.RESOURCE_EXHAUSTED, "too many failed sign-ins from your address",
                             retry_after_s=spray)
        account = name_skeleton(name)
        key = f"{account}\x00{client}"

        def begin(s: Session) -> tuple[float | None, PlayerRow | None]:
            # Counted (as a failure) before the password is checked, and committed: attempts at
            # once, through any lobby, see each other, so at most the throttle's limit are checked.
            # Unknown names are counted and checked (against a dummy hash) all the same.
            wait = store.count_sign_in_attempt(s, key, time.time(), self.throttle)
            if wait is not None:
                return wait, None
            return None, store.claimed_player(s, account)

        wait, p = await self.db.run(begin)
        if wait is not None:
            raise LobbyError(Status.RESOURCE_EXHAUSTED, "too many failed sign-ins", retry_after_s=wait)
        # Argon2 (slow): outside the transaction, no row lock held.
        ok = await asyncio.to_thread(self.passwords.verify, p.password_hash if p else None, password)
        if not ok or p is None:
            self.address_failures.take(client, time.monotonic())
            raise LobbyError(Status.UNAUTHENTICATED, "wrong name or password")
        # a success forgets the failures, this attempt's with them
        await self.db.run(store.clear_sign_in_failures, key)
        self.seen(p.id)
        return self._signed_in(p)

    async def player(self, player_id: str) -> PlayerRow:
        """A player's row, marked seen (UNAUTHENTICATED if the player is unknown)."""
        p = await self.db.run(store.touch_player, player_id, time.time())
        if p is None:
            raise LobbyError(Status.UNAUTHENTICATED, "unknown player")
        return p

    async def refresh(self, player_id: str) -> SignedIn:
        """A fresh token for a known player."""
        return self._signed_in(await self.player(player_id))
