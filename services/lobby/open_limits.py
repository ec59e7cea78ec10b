"""How much one account, and one address's guests, may keep open at once: open tables (seats at
tables not yet started) and tournaments not yet finished. Without a cap one guest opened 300
tables in 9 s and 150 tournaments in 2 s, and the real ones vanished from the lists (issue 38).

A player's own count comes from what the lobby holds (the table cache, the tournaments' rows);
the count per address is this lobby's memory of what guests from that address opened (guests are
free and many per address; a claimed account is one person and has only its own cap), forgotten
as those tables start or close and those tournaments finish."""

from __future__ import annotations

from collections.abc import Callable

from wordarena.services.lobby.errors import LobbyError, Status

__all__ = ["TOO_MANY_OPEN", "OpenLimits"]

TOO_MANY_OPEN = "TOO_MANY_OPEN"


class OpenLimits:
    """The caps of one kind of thing ("tables", "tournaments"): ``per_player`` open at once for
    an account, ``per_guest_address`` opened by the guests of one address."""

    def __init__(self, kind: str, per_player: int, per_guest_address: int) -> None:
        self.kind = kind
        self.per_player = per_player
        self.per_guest_address = per_guest_address
        self._by_address: dict[str, set[str]] = {}

    def check(self, held: int, guest: bool, address: str, still_open: Callable[[str], bool]) -> None:
        """Refuses one more (RESOURCE_EXHAUSTED, TOO_MANY_OPEN) when the player holds ``held``
        already at the cap, or a guest's address has opened its cap of those still open."""
        if held >= self.per_player:
            raise LobbyError(Status.RESOURCE_EXHAUSTED,
                             f"you have {held} {self.kind} open, the most one player may: "
                             f"finish or leave one first", TOO_MANY_OPEN)
        if guest and address:
            mine = {i for i in self._by_address.pop(address, set()) if still_open(i)}
            if mine:
                self._by_address[address] = mine
            if len(mine) >= self.per_guest_address:
                raise LobbyError(Status.RESOURCE_EXHAUSTED,
                                 f"guests from your address have {len(mine)} {self.kind} open, the "
                                 f"most one address's guests may: sign in to an account", TOO_MANY_OPEN)

    def opened(self, guest: bool, address: str, item_id: str) -> None:
        """Notes that a guest from ``address`` opened ``item_id``."""
        if guest and address:
            self._by_address.setdefault(address, set()).add(item_id)
