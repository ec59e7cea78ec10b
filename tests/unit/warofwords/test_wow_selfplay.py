"""Issue 7: "A self-play test runs 200 seeded bot games across all boards to the end without
an error, and prints the score distribution and how often each action was used." The 200
games under ``--soak``; by default a sample of 28: each board with each pair of levels (tests/soak.py).

Rule sentences checked on every game: "The game ends when all letters are exhausted from the
supply, and one of the players plays all of their letters … The game also ends on the third
consecutive Pass"; "Games can end in a tie." (a result with winners, and every game ends).
"""

from __future__ import annotations

import statistics
from collections import Counter

import pytest
import soak

from wordarena.engine.bots import Bot, play_game
from wordarena.engine.families import get_ruleset
from wordarena.engine.game import Play
from wordarena.engine.lexicon import load_lexicon
from wordarena.engine.rulesets.layout import board_ids

GAMES = soak.pick(200, 28)
LEVELS = ((1, 2), (2, 3), (1, 3), (2, 2))  # small levels keep 200 games quick


@pytest.mark.soak
@pytest.mark.timeout(900)
def test_200_seeded_bot_games_across_every_board_end_without_error() -> None:
    lexicon = load_lexicon("en")
    boards = sorted(b for b in board_ids() if b.startswith("warofwords"))
    assert len(boards) >= 7
    used: Counter[str] = Counter()
    scores: list[int] = []
    per_board: dict[str, list[int]] = {b: [] for b in boards}
    turns: list[int] = []

    def count(before: object, action: object, after: object) -> None:
        if isinstance(action, Play):
            used.update(p.letter for p in action.placements if p.letter.startswith("@"))

    for g in range(GAMES):
        board = boards[g % len(boards)]
        a, b = LEVELS[(g // len(boards)) % len(LEVELS)]
        ruleset = get_ruleset("warofwords", "en", board)
        bots = [Bot(a, seed=g, lexicon=lexicon), Bot(b, seed=g + 1000, lexicon=lexicon)]
        outcome = play_game(ruleset, bots, seed=1000 + g, lexicon=lexicon, on_turn=count)
        assert outcome.winners, f"game {g} on {board} did not end by the rules"
        scores.extend(outcome.scores)
        per_board[board].extend(outcome.scores)
        turns.append(outcome.turns)

    q = statistics.quantiles(scores, n=10)
    print(f"\n{GAMES} games, {sum(turns)} turns; scores: min {min(scores)}, "
          f"deciles {[round(x) for x in q]}, max {max(scores)}, mean {statistics.mean(scores):.1f}")
    for board, got in per_board.items():
        print(f"  {board:22} mean {statistics.mean(got):6.1f}  min {min(got):5}  max {max(got):5}")
    print("action tiles used:", ", ".join(f"{t[1:]} {n}" for t, n in used.most_common()))
    assert sum(used.values()) > GAMES  # the bots do use their action tiles
    assert {"@bomb", "@shield", "@poison", "@medic"} <= set(used)
