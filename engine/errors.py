"""Typed errors of the engine.

``RuleError`` is a refused action: the state it was applied to is unchanged. Its ``code`` names
the rule (stable, machine-readable, mirrored by the public API); its message says it in words.
``InputError`` is malformed outside data (CGP, GCG, word lists, actions from wordarena.clients) and names
what is wrong and where.
"""

from __future__ import annotations

from enum import StrEnum


class Rule(StrEnum):
    """The rules an action can break. Values are stable identifiers used by the API."""

    GAME_OVER = "game-over"
    NOT_YOUR_TURN = "not-your-turn"
    PLAYER_NOT_ACTIVE = "player-not-active"
    NO_TILES = "no-tiles"
    TILES_NOT_ON_RACK = "tiles-not-on-rack"
    OFF_BOARD = "off-board"
    SQUARE_OCCUPIED = "square-occupied"
    SQUARE_BLOCKED = "square-blocked"
    DUPLICATE_SQUARE = "duplicate-square"
    NOT_IN_LINE = "not-in-line"
    GAP = "gap"
    NOT_CONNECTED = "not-connected"
    FIRST_MOVE_OFF_START = "first-move-off-start"
    FIRST_MOVE_TOO_SHORT = "first-move-too-short"
    NO_WORD = "no-word"
    LETTER_NOT_IN_SET = "letter-not-in-set"
    BAD_BLANK = "bad-blank"
    WORD_NOT_IN_LEXICON = "word-not-in-lexicon"
    EXCHANGE_LIMIT = "exchange-limit"
    EXCHANGE_BAG_TOO_SMALL = "exchange-bag-too-small"
    PENDING_DECISION = "pending-decision"
    NOTHING_PENDING = "nothing-pending"
    NOT_ALLOWED = "not-allowed"
    EFFECT_NOT_MOVABLE = "effect-not-movable"  # warofwords: not the player's own Rain / Whirlwind


class EngineError(Exception):
    """Base class of every error the engine raises on purpose."""


class RuleError(EngineError):
    """An action that breaks a rule. Carries the rule and, where relevant, the words at fault."""

    def __init__(self, rule: Rule, message: str, words: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.rule = rule
        self.words = words

    @property
    def code(self) -> str:
        return self.rule.value

    def __repr__(self) -> str:
        return f"RuleError({self.rule.value!r}, {str(self)!r})"


class InputError(EngineError, ValueError):
    """Malformed outside data. ``where`` names the line, field or position at fault."""

    def __init__(self, message: str, where: str = "") -> None:
        super().__init__(f"{where}: {message}" if where else message)
        self.where = where
        self.detail = message
