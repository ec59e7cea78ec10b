"""One play evaluator: ``apply``, the match server's preview and Word Strength give the same
verdict, name the same broken rule and credit the same score, for a thousand random plays —
legal and illegal — over the four families."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from wordarena.engine.analysis import word_strength
from wordarena.engine.errors import Rule, RuleError
from wordarena.engine.families import get_ruleset
from wordarena.engine.game import Decide, GameState, Play, apply, start_game
from wordarena.engine.movegen import Move, generate_moves
from wordarena.engine.placement import Placement
from wordarena.engine.rulesets.model import WordCheck
from wordarena.engine.tiles import BLANK, is_action
from wordarena.engine.warofwords.catalog import spec_of
from wordarena.services.match import analysis, messages

FAMILIES = ("classic", "scrabble", "wordtiles", "warofwords")
PLAYS_PER_FAMILY = 250
POSITIONS = 5  # per family: the opening, then after 1, 2 … best plays
FACINGS = ("up", "down", "left", "right")


def positions(family: str, lexicon, seed: int) -> Iterator[tuple[GameState, list[Move]]]:
    """The opening and the positions after each side plays its best move (a pending wordtiles
    play is accepted), with the moves of the seat to move."""
    state, _ = start_game(get_ruleset(family), 2, seed, lexicon)
    for _ in range(POSITIONS):
        if state.over:
            return
        if state.pending is not None:
            state, _ = apply(state, Decide(state.to_move, True))
            continue
        moves = generate_moves(state)
        yield state, moves
        if not moves:
            return
        state, _ = apply(state, moves[0].to_play(state.to_move))


def random_play(rng: random.Random, state: GameState, moves: list[Move]) -> tuple[Placement, ...]:
    """A play of one of many kinds: a generated (legal) move, or one bent to break a rule."""
    seat = state.to_move
    rack = state.racks[seat]
    board = state.ruleset.board
    letters = state.ruleset.tiles.letters
    base = list(rng.choice(moves).placements()) if moves else []
    kind = rng.choice(["legal", "legal", "legal", "shift", "gap", "not-on-rack", "non-word",
                       "scatter", "scatter", "off-board", "duplicate", "off-start", "action"])
    if kind == "legal" or not base:
        return tuple(base)
    if kind == "shift" and len(base) > 1:  # one tile off the line
        k = rng.randrange(len(base))
        p = base[k]
        base[k] = Placement(min(board.rows - 1, p.row + rng.choice((-1, 1))),
                            min(board.cols - 1, p.col + rng.choice((-1, 1))), p.letter, p.blank)
    elif kind == "gap" and len(base) > 2:
        del base[rng.randrange(1, len(base) - 1)]
    elif kind == "not-on-rack":
        missing = [ch for ch in letters if ch not in rack] or list(letters)
        k = rng.randrange(len(base))
        p = base[k]
        base[k] = Placement(p.row, p.col, rng.choice(missing))
    elif kind == "non-word":
        shown = [p.letter for p in base]
        rng.shuffle(shown)
        if rng.random() < 0.5:
            k = rng.randrange(len(base))
            shown[k] = rng.choice(letters)
            base[k] = Placement(base[k].row, base[k].col, shown[k], True)
        base = [Placement(p.row, p.col, ch, p.blank) for p, ch in zip(base, shown, strict=True)]
    elif kind == "scatter":  # rack tiles on a run of squares somewhere on the board
        tokens = [t for t in rack if not is_action(t)]
        rng.shuffle(tokens)
        n = rng.randint(1, max(1, len(tokens)))
        across = rng.random() < 0.5
        r, c = rng.randrange(board.rows), rng.randrange(board.cols)
        base = []
        for k, token in enumerate(tokens[:n]):
            rr, cc = (r, c + k) if across else (r + k, c)
            if token == BLANK:
                base.append(Placement(rr, cc, rng.choice(letters), True))
            else:
                base.append(Placement(rr, cc, token))
    elif kind == "off-board":
        p = base[-1]
        base[-1] = Placement(board.rows, p.col, p.letter, p.blank)
    elif kind == "duplicate":
        base.append(base[0])
    elif kind == "off-start":  # the opening move, shifted off the start square
        dr = rng.choice((-4, 4))
        base = [Placement(max(0, min(board.rows - 1, p.row + dr)), p.col, p.letter, p.blank)
                for p in base]
    elif kind == "action":
        actions = [t for t in rack if is_action(t)]
        if actions:
            token = rng.choice(actions)
            spec = spec_of(token)
            facing = rng.choice(FACINGS) if spec is not None and spec.needs_facing else ""
            base.append(Placement(rng.randrange(board.rows), rng.randrange(board.cols), token,
                                  facing=facing))
    return tuple(base)


def judge_apply(state: GameState, placements: tuple[Placement, ...]) -> tuple[bool, str, int]:
    """(legal, the engine rule broken, score) as ``apply`` decides."""
    seat = state.to_move
    try:
        _, events = apply(state, Play(seat, placements))
    except RuleError as exc:
        return False, exc.code, 0
    return True, "", int(events[0].data["score"])


def judge_preview(state: GameState, placements: tuple[Placement, ...]) -> tuple[bool, str, int]:
    """(legal, the contract's rule code name, score) as the match server's preview answers."""
    out = analysis.preview_response(state, state.to_move, placements)
    return out.legal, out.violation.code_name, out.breakdown.total


def judge_strength(state: GameState, placements: tuple[Placement, ...],
                   moves: list[Move]) -> tuple[bool, str, int]:
    verdict = word_strength(state, placements, state.to_move, moves)
    return verdict.valid, verdict.code, verdict.score


def contract(rule: str) -> str:
    """The contract's code name of an engine rule ("" for none)."""
    return messages.rule_violation(rule, "").code_name if rule else ""


@pytest.mark.slow
@pytest.mark.parametrize("family", FAMILIES)
def test_apply_preview_and_word_strength_agree_on_random_plays(family: str, lexicon) -> None:
    rng = random.Random(f"one-evaluator/{family}")
    deferred = get_ruleset(family).word_check is WordCheck.DEFERRED
    seen_rules: set[str] = set()
    plays = 0
    found = list(positions(family, lexicon, seed=11))
    assert len(found) >= 3
    per_position = -(-PLAYS_PER_FAMILY // len(found))
    for state, moves in found:
        for _ in range(per_position):
            if plays == PLAYS_PER_FAMILY:
                break
            plays += 1
            placements = random_play(rng, state, moves)
            applied = judge_apply(state, placements)
            previewed = judge_preview(state, placements)
            strength = judge_strength(state, placements, moves)
            where = f"{family} turn {state.turn}: {placements}"
            legal, rule, score = applied
            seen_rules.add(rule)
            if rule == Rule.WORD_NOT_IN_LEXICON:  # refused for its words: scored all the same
                assert previewed[:2] == (False, contract(rule)), where
                assert strength[:2] == (False, rule), where
                assert previewed[2] == strength[2], where
                continue
            assert previewed == (legal, contract(rule), score), where
            if deferred and legal and not strength[0]:
                # wordtiles plays first and checks words later; Word Strength checks them now
                assert strength[1:] == (Rule.WORD_NOT_IN_LEXICON, score), where
                continue
            assert strength == applied, where
    assert plays == PLAYS_PER_FAMILY
    # the random plays did reach the rules they are meant to reach
    assert {"", Rule.NOT_IN_LINE, Rule.TILES_NOT_ON_RACK, Rule.OFF_BOARD} <= seen_rules, seen_rules
