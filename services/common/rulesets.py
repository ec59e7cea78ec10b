"""The engine's rulesets as contract messages: the one writer of a ruleset's vocabulary
(``RulesetRef``), its board squares, its tiles, its optional tools and its description, used by
the lobby (``DescribeRuleset``, ``ListRulesets``) and by the match servers (every board view).

Nothing here decides a rule: every fact comes from ``engine.rulesets`` (``Ruleset``, its
``BoardLayout`` and ``TileSet``, and ``Ruleset.describe()``); this module only spells it in the
contract's words.

Vocabulary (the contract's ``RulesetRef``):

* ``ruleset_id`` is the family id: ``classic``, ``wordtiles``, ``warofwords``, ``scrabble``;
* ``language`` a lower-case language code, with a region after a hyphen (``en``, ``en-gb``);
  input is case-insensitive (``en-GB`` is ``en-gb``), answers are lower-case;
* ``board_id`` the board layout id (``classic``, ``scrabble``, ``wordtiles``, ``superscrabble``,
  ``warofwords-delta`` …).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from wordarena.engine.board import square_name
from wordarena.engine.rulesets.layout import BLOCKING, SAND, STAR, TITANIUM, WATER, Square
from wordarena.engine.rulesets.model import Ruleset, WordCheck, WordFactor
from wordarena.engine.tiles import BLANK, WILDCARD, is_action
from wordarena.v1 import common_pb2 as c
from wordarena.v1 import lobby_pb2

__all__ = [
    "ACTION_KINDS",
    "COLOURS",
    "FAMILIES",
    "action_kind",
    "board_square",
    "empty_board",
    "features",
    "has_dictionary",
    "normalise_language",
    "rules_text",
    "ruleset_ref",
    "square",
    "tile",
    "tile_counts",
]

FAMILIES: dict[str, int] = {"classic": c.FAMILY_CLASSIC, "wordtiles": c.FAMILY_WORDTILES,
                            "warofwords": c.FAMILY_WAROFWORDS, "scrabble": c.FAMILY_SCRABBLE}
COLOURS: dict[int, int] = {1: c.TILE_COLOUR_YELLOW, 2: c.TILE_COLOUR_GREEN, 3: c.TILE_COLOUR_BLUE,
                           5: c.TILE_COLOUR_RED}
ACTION_KINDS: dict[str, int] = {
    "bomb": c.ACTION_KIND_BOMB, "blaster": c.ACTION_KIND_BLASTER,
    "blackhole": c.ACTION_KIND_BLACK_HOLE, "fire": c.ACTION_KIND_FIRE,
    "lightning": c.ACTION_KIND_LIGHTNING, "whirlwind": c.ACTION_KIND_WHIRLWIND,
    "nuke": c.ACTION_KIND_NUCLEAR_BOMB, "poison": c.ACTION_KIND_POISON,
    "medic": c.ACTION_KIND_MEDIC, "rain": c.ACTION_KIND_RAIN, "shield": c.ACTION_KIND_SHIELD,
    "star": c.ACTION_KIND_STAR, "quicksand": c.ACTION_KIND_QUICKSAND,
    "portal": c.ACTION_KIND_PORTAL, "pirate": c.ACTION_KIND_PIRATE_SHIP,
    "sandstorm": c.ACTION_KIND_SANDSTORM,
}

#: Languages whose words MatchService.Define can look up (English: WordNet).
DICTIONARY_LANGUAGES = frozenset({"en"})


def normalise_language(language: str) -> str:
    """The contract's form of a language code: lower-case (``en-GB`` → ``en-gb``)."""
    return language.strip().lower()


def has_dictionary(language: str) -> bool:
    """True when MatchService.Define can look up words of ``language`` (``en``, ``en-gb``)."""
    return normalise_language(language).split("-")[0] in DICTIONARY_LANGUAGES


def ruleset_ref(ruleset: Ruleset) -> c.RulesetRef:
    """The RulesetRef of a ruleset: family id, language, board id and lexicon."""
    return c.RulesetRef(ruleset_id=ruleset.family, family=FAMILIES.get(ruleset.family, 0),  # type: ignore[arg-type]
                        language=ruleset.language, board_id=ruleset.board.id, lexicon_id=ruleset.lexicon)


def square(ruleset: Ruleset, index: int) -> c.Square:
    """The Square at a row-major index of the ruleset's board."""
    r, col = divmod(index, ruleset.board.cols)
    return c.Square(row=r, col=col, notation=square_name(r, col))


def action_kind(token: str) -> tuple[int, int]:
    """(ActionKind, factor) of an action token (``@bomb`` → (BOMB, 0), ``@3W`` → (WORD_MULT, 3))."""
    name = token.removeprefix("@")
    if name[:-1].isdigit() and name[-1] in "LW":
        kind = c.ACTION_KIND_LETTER_MULTIPLIER if name[-1] == "L" else c.ACTION_KIND_WORD_MULTIPLIER
        return kind, int(name[:-1])
    return ACTION_KINDS.get(name, c.ACTION_KIND_UNSPECIFIED), 0


def tile(ruleset: Ruleset, token_or_letter: str, blank: bool = False, owner: int | None = None,
         placed_seq: int = 0, on_board: bool = False) -> c.Tile:
    """A tile: a rack token (``?``, ``*``, ``@bomb``, a letter) or a board tile."""
    t = c.Tile()
    if is_action(token_or_letter):
        t.action, t.action_factor = action_kind(token_or_letter)  # type: ignore[assignment]
        return t
    if token_or_letter == WILDCARD:
        t.letter, t.is_wildcard = WILDCARD, True
    elif blank or token_or_letter == BLANK:
        t.letter = token_or_letter if on_board else BLANK
        t.is_blank = True
    else:
        t.letter = token_or_letter
        t.value = ruleset.tiles.value(token_or_letter)
        if ruleset.colour_bonus:
            t.colour = COLOURS.get(t.value, 0)  # type: ignore[assignment]
    if owner is not None:
        t.owner_seat = owner
    t.placed_seq = placed_seq
    return t


def tile_counts(ruleset: Ruleset, tokens: Iterable[str] | None = None) -> list[c.TileCount]:
    """TileCounts of the ruleset's tile set (``tokens``: only these), letters first."""
    counts = ruleset.tiles.counts
    chosen = counts if tokens is None else tokens
    order = sorted(chosen, key=lambda t: (is_action(t), t in (BLANK, WILDCARD), t))
    return [c.TileCount(tile=tile(ruleset, t), count=counts[t]) for t in order]


def board_square(ruleset: Ruleset, i: int, sq: Square) -> c.BoardSquare:
    """A square without a tile: its premium, terrain and scenery as ``sq`` says."""
    layout = ruleset.board
    b = c.BoardSquare(square=square(ruleset, i))
    prem = None
    add = ruleset.word_factor is WordFactor.ADD
    if sq.colour:
        prem = c.Premium(kind=c.PREMIUM_KIND_COLOUR, factor=ruleset.colour_bonus or 3,
                         colour=COLOURS.get(sq.colour, 0), label=sq.label)  # type: ignore[arg-type]
    elif sq.letter_mult > 1 and sq.word_mult > 1:
        prem = c.Premium(kind=c.PREMIUM_KIND_LETTER_AND_WORD, factor=sq.letter_mult, label=sq.label)
    elif sq.letter_mult > 1:
        label = f"{sq.letter_mult}L" if add else {2: "DL", 3: "TL", 4: "QL"}.get(sq.letter_mult, sq.label)
        prem = c.Premium(kind=c.PREMIUM_KIND_LETTER, factor=sq.letter_mult, label=label)
    elif sq.word_mult > 1:
        label = f"{sq.word_mult}W" if add else {2: "DW", 3: "TW", 4: "QW"}.get(sq.word_mult, sq.label)
        prem = c.Premium(kind=c.PREMIUM_KIND_WORD, factor=sq.word_mult, label=label)
    if prem is not None:
        b.premium.CopyFrom(prem)
    if sq.terrain == WATER:
        b.terrain = c.TERRAIN_KIND_WATER
        b.water_patch_id = layout.water_patch[i] + 1
    elif sq.terrain == SAND:
        b.terrain = c.TERRAIN_KIND_SAND
    elif sq.terrain == TITANIUM:
        b.scenery = c.SCENERY_KIND_TITANIUM
    elif sq.terrain in BLOCKING:
        b.scenery = c.SCENERY_KIND_BRICKS
    b.is_star = sq.terrain == STAR
    b.is_start = layout.start == i
    return b


def empty_board(ruleset: Ruleset) -> c.BoardView:
    """The ruleset's board as printed: every square (premium, terrain, scenery, start, stars),
    no tiles, every water patch at electrification 1."""
    layout = ruleset.board
    view = c.BoardView(board_id=layout.id, rows=layout.rows, cols=layout.cols,
                       squares=[board_square(ruleset, i, sq) for i, sq in enumerate(layout.squares)])
    if layout.start is not None:
        view.start_square.CopyFrom(square(ruleset, layout.start))
    for pid in range(max(layout.water_patch, default=-1) + 1):
        view.water_patches.append(c.WaterPatch(patch_id=pid + 1, electrification=1))
    return view


def features(ruleset: Ruleset) -> list[int]:
    """The optional tools (lobby.proto ``Feature`` values) a match of the ruleset offers."""
    out = [lobby_pb2.FEATURE_HINDSIGHT]
    if ruleset.word_check is WordCheck.IMMEDIATE:  # accept-or-check: judged by the players
        out.append(lobby_pb2.FEATURE_WORD_STRENGTH)
    out += [lobby_pb2.FEATURE_TILE_BAG, lobby_pb2.FEATURE_PREVIEW, lobby_pb2.FEATURE_CHAT]
    if has_dictionary(ruleset.language):
        out.append(lobby_pb2.FEATURE_DEFINE)
    return out


def rules_text(ruleset: Ruleset) -> str:
    """A plain-language summary (Markdown) of ``Ruleset.describe()``."""
    d: dict[str, Any] = ruleset.describe()
    board = ruleset.board
    lo, hi = d["players"]
    players = f"{lo}" if lo == hi else f"{lo} to {hi}"
    bingo = "; ".join(
        f"+{b['bonus']} for {b['count']} {'letters' if b['letters_only'] else 'tiles'}" for b in d["bingos"]
    )
    ex = d["exchange"]
    swaps = "unlimited exchanges" if ex["per_player"] is None else f"{ex['per_player']} exchanges per player"
    lines = [
        f"# {d['name']}",
        "",
        f"- Players: {players}; rack of {d['rack_size']} tiles.",
        f"- Board: {board.name} ({board.rows}x{board.cols}). {board.description}".rstrip(),
        f"- Tiles: {d['tiles']['total']} in the bag ({d['language']}).",
        f"- Bingo: {bingo} (the first that applies counts).",
        f"- Word multipliers {'add up' if d['word_multipliers'] == 'add' else 'multiply'}.",
        "- Words are checked when played." if d["word_check"] == "immediate"
        else "- Words wait for the next player to accept or check them.",
        "- The first play covers the start square." if d["first_play"] == "start-square"
        else "- A play may stand unconnected over a Star or Water square.",
        f"- Exchanges: {swaps}, while the bag holds at least {ex['min_bag']}"
        f" tile{'s' if ex['min_bag'] != 1 else ''}.",
        f"- The game ends when a player goes out with the bag empty, or {_zero_turns(ruleset)}.",
        f"- At the end, {OUT_RULES.get(d['out_rule'], d['out_rule'])}.",
    ]
    clock = d["clock"]
    if clock["default"]:
        lines.append(f"- Chess clock: {clock['min'] // 60}..{clock['max'] // 60} minutes per player"
                     f" (default {clock['default'] // 60}).")
    if clock["overtime_points"]:
        lines.append(f"- Over time: {clock['overtime_points']} points off per started minute;"
                     f" {clock['max_overtime'] // 60} minutes over loses the game.")
    if clock["turn_deadline"]:
        lines.append(f"- Each turn must be played within {clock['turn_deadline'] // 3600} hours"
                     " unless the table sets 1 hour .. 30 days.")
    return "\n".join(lines) + "\n"


OUT_RULES = {
    "transfer": "the player who went out gains the values left on the others' racks, which they lose",
    "double": "the player who went out gains twice the values left on the others' racks",
    "deduct": "every player loses the values left on their own rack",
}
TURN_KINDS = {"pass": "passes", "exchange": "exchanges", "scoreless": "scoreless plays",
              "failed": "plays that failed a check", "lost": "lost turns"}


def _zero_turns(ruleset: Ruleset) -> str:
    z = ruleset.zero_turns
    names = [TURN_KINDS.get(k, k) for k in sorted(z.counts)]
    kinds = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"
    if z.per_active_player:
        run = f"{z.limit} full rounds"
    else:
        run = f"{z.limit} turns in a row"
        if z.zero_zero_limit is not None:
            run += f" ({z.zero_zero_limit} while every score is 0)"
    return f"after {run} of nothing but {kinds}"
