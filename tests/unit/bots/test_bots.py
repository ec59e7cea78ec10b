"""Bots: legal actions at every level, exchanges and passes, wordtiles decisions, series."""

from __future__ import annotations

import pytest

from wordarena.engine.bots import LEVELS, Bot, leave_table, play_game, play_series
from wordarena.engine.families import get_ruleset
from wordarena.engine.game import Decide, Exchange, Pass, Play, apply, set_rack, start_game
from wordarena.engine.placement import Placement


@pytest.mark.parametrize("level", sorted(LEVELS))
@pytest.mark.parametrize("family", ["classic", "warofwords"])
def test_every_level_makes_a_legal_play(family: str, level: int, lexicon) -> None:
    state, _ = start_game(get_ruleset(family), 2, 3, lexicon)
    plays = 0
    for _ in range(3):
        seat = state.to_move
        action = Bot(level, 1, lexicon).choose(state)
        assert action.seat == seat
        after, _ = apply(state, action)  # raises if illegal
        assert after.to_move != seat and after.turn == state.turn + 1
        if isinstance(action, Play):
            plays += 1
            layout = state.ruleset.board
            letters = [p for p in action.placements if not p.letter.startswith("@")]  # not action tiles
            # War of Words: a letter laid on a square on fire burns at the end of the turn
            burning = {m.index for m in (*state.effects, *after.effects)
                       if getattr(m, "kind", None) == "fire"}
            for p in letters:
                square = layout.index(p.row, p.col)
                if square not in burning:  # a letter on fire burns; every other stays
                    assert after.cells[square] is not None
            if letters:  # a word scores; an action tile alone may score nothing
                assert after.scores[seat] > state.scores[seat]
        state = after
    assert plays >= 2  # an opening rack nearly always plays; three turns are not all swaps


def test_without_a_play_the_bot_exchanges_or_passes(lexicon) -> None:
    state, _ = start_game(get_ruleset("classic"), 2, 3, lexicon)
    state = set_rack(state, 0, ("Q", "X", "Z", "J"))
    state = state.evolve(cells=state.cells)  # empty board: QXZJ spells nothing
    action = Bot(5, 0, lexicon).choose(state)
    assert isinstance(action, Exchange)
    apply(state, action)
    no_exchanges = state.evolve(bag=state.bag[:0])
    assert isinstance(Bot(5, 0, lexicon).choose(no_exchanges), Pass)
    assert isinstance(Bot(1, 0, lexicon).choose(no_exchanges), Pass)


def test_wordtiles_bots_check_an_invalid_pending_play(lexicon) -> None:
    state, _ = start_game(get_ruleset("wordtiles"), 2, 3, lexicon, check_words=True)
    state = set_rack(state, 0, ("Q", "X", "Z", "A", "E", "I", "O"))
    bogus = Play(0, (Placement(7, 7, "Q"), Placement(7, 8, "X")))
    state, _ = apply(state, bogus)
    assert state.pending is not None
    assert Bot(5, 0, lexicon).choose(state) == Decide(1, False)
    # The weakest level catches a phantom only now and then (tests/unit/bots/test_ladder.py).
    assert Decide(1, True) in {Bot(1, s, lexicon).choose(state) for s in range(10)}


def test_leave_tables_are_shipped() -> None:
    """One table per ruleset a bot plays (family and language), covering its tile set, each
    derived from at least 20,000 self-play games (docs/bots.md)."""
    from training.derive_leaves import rulesets

    for family, language in rulesets():
        table = leave_table(family, language)
        assert table.games >= 20_000, f"{family}/{language}: {table.games} games"
        assert table.scale > 0 and table.language == language
        assert set(get_ruleset(family, language).tiles.letters) <= set(table.values)
        blank = "*" if family == "warofwords" else "?"  # War of Words: the wildcard
        assert table.value((blank,)) > max(table.value((t,)) for t in table.values if t != blank)
        letters = get_ruleset(family, language).tiles.letters
        common = max(letters, key=lambda t: get_ruleset(family, language).tiles.counts[t])
        assert table.value((common, common, common)) < 3 * table.value((common,))
    english = leave_table("classic")
    assert english.value(("?",)) > english.value(("S",)) > english.value(("Q",))


def test_a_game_ends_and_a_series_counts(lexicon) -> None:
    outcome = play_game(get_ruleset("classic"), [Bot(4, 0, lexicon), Bot(1, 0, lexicon)], 1,
                        lexicon)
    assert outcome.winners and outcome.turns > 5
    stats = play_series(get_ruleset("classic"), (4, 1), 2, lexicon)
    assert stats.games == 2 and 0 <= stats.win_rate <= 1


def test_selfplay_command(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from wordarena.clients.cli.main import main as cli

    assert cli(["selfplay", "--ruleset", "classic", "--levels", "4,1", "--games", "1",
                "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["games"] == 1 and data["levels"] == [4, 1]
    assert cli(["selfplay", "--levels", "9,1"]) == 2
    assert "--levels" in capsys.readouterr().err


def test_leave_fit_recovers_tile_values_from_rack_samples() -> None:
    """The fit behind the shipped leaves: a rack's best score that grows with S, shrinks with Q
    and drops for a second I (more than for a second E) gives S a higher value than Q and a
    second I a lower value than a second E, whichever model predicted the held-out racks
    best (every model is compared in the report), and the game count it was told."""
    import random

    from training.leavefit import fit_file

    rng = random.Random(7)
    pool = list("AEIOUSQRTNLD" * 3)
    samples: dict[str, list[float]] = {}
    for _ in range(4000):
        rack = sorted(rng.sample(pool, 7))
        score = 20 + 8 * rack.count("S") - 6 * rack.count("Q") + rng.uniform(-2, 2)
        score -= 9 * max(0, rack.count("I") - 1) + 1 * max(0, rack.count("E") - 1)
        entry = samples.setdefault(" ".join(rack), [0, 0.0, 0.0])
        entry[0] += 1
        entry[1] += score
        entry[2] += score * score
    table, report = fit_file({"family": "classic", "language": "en", "games": 12,
                              "samples": samples})
    assert table.values["S"] > 5 > 0 > -4 > table.values["Q"]
    assert all(m in report for m in ("tokens", "duplicates", "pairs", "means"))
    second_i = table.value(("I", "I")) - 2 * table.value(("I",))
    assert second_i < -4 and second_i < table.value(("E", "E")) - 2 * table.value(("E",)) - 3
    assert table.duplicate <= 0 and table.balance <= 0 and table.games == 12
    means, _ = fit_file({"family": "classic", "language": "en", "games": 12, "samples": samples},
                        "means")
    assert means.values["S"] > 3 > 0 > -2 > means.values["Q"]


def test_level5_end_game_looks_at_the_reply(lexicon) -> None:
    from wordarena.engine.bots import bot as botmod

    state, _ = start_game(get_ruleset("classic"), 2, 3, lexicon)
    for _ in range(4):  # a few plays on the board, then empty the bag
        state, _ = apply(state, Bot(4, 0, lexicon).choose(state))
    state = state.evolve(bag=state.bag[:0])
    bot = Bot(5, 0, lexicon)
    moves = botmod.generate_moves(state, state.to_move, lexicon)
    chosen = bot._endgame(state, moves)
    size = len(state.racks[state.to_move])
    # The search weighs the best-scoring candidates and every play that goes out.
    searched = set(moves[: botmod.ENDGAME_CANDIDATES]) | {m for m in moves if m.tile_count == size}
    assert chosen in searched
    action = bot.choose(state)
    assert isinstance(action, Play)
    apply(state, action)  # legal


def test_derive_collect_resumes_and_fit_writes_a_table(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """``collect`` keeps aggregated rack samples per ruleset and continues a file from the
    games it holds (game g from seed g: two runs of one game each give the samples of one run
    of two); ``fit`` writes the table of the ruleset's language."""
    import json

    from training import derive_leaves as derive

    for folder, steps in ((tmp_path / "a", (1, 2)), (tmp_path / "b", (2,))):
        for until in steps:
            assert derive.main(["collect", str(folder), "classic/it", "--until", str(until),
                                "--chunk", "1"]) == 0
    a = json.loads((tmp_path / "a" / "samples-classic-it.json").read_text(encoding="utf-8"))
    b = json.loads((tmp_path / "b" / "samples-classic-it.json").read_text(encoding="utf-8"))
    assert a["games"] == b["games"] == 2 and a["language"] == "it"
    assert sum(v[0] for v in a["samples"].values()) == sum(v[0] for v in b["samples"].values()) > 20
    # two processes, games 0 and 1, merged: the one run's samples exactly
    for folder, first in ((tmp_path / "c", 0), (tmp_path / "d", 1)):
        assert derive.main(["collect", str(folder), "classic/it", "--until", "1", "--chunk", "1",
                            "--first", str(first)]) == 0
    with pytest.raises(SystemExit, match="holds games from 1"):  # a file continues its own range
        derive.main(["collect", str(tmp_path / "d"), "classic/it", "--until", "2", "--chunk", "1"])
    with pytest.raises(SystemExit, match=r"games 0\.\. overlap games 0\.\.0"):
        derive.main(["merge", str(tmp_path / "x"), str(tmp_path / "c"), str(tmp_path / "c"),
                     "--rulesets", "classic/it"])
    assert derive.main(["merge", str(tmp_path / "e"), str(tmp_path / "d"), str(tmp_path / "c"),
                        "--rulesets", "classic/it"]) == 0
    e = json.loads((tmp_path / "e" / "samples-classic-it.json").read_text(encoding="utf-8"))
    assert (e["games"], e["first"], e["samples"]) == (2, 0, a["samples"]) and "ranges" not in e
    # ranges with a gap between them (games 0 and 2): fitted, never continued
    assert derive.main(["collect", str(tmp_path / "g"), "classic/it", "--until", "1", "--chunk", "1",
                        "--first", "2"]) == 0
    assert derive.main(["merge", str(tmp_path / "h"), str(tmp_path / "c"), str(tmp_path / "g"),
                        "--rulesets", "classic/it"]) == 0
    h = json.loads((tmp_path / "h" / "samples-classic-it.json").read_text(encoding="utf-8"))
    assert (h["games"], h["ranges"]) == (2, [[0, 1], [2, 1]])
    with pytest.raises(SystemExit, match="into a folder of its own"):
        derive.main(["collect", str(tmp_path / "h"), "classic/it", "--until", "3", "--chunk", "1"])
    monkeypatch.setattr(derive, "DATA", tmp_path)
    assert derive.main(["fit", str(tmp_path / "a"), "classic/it", "--model", "means"]) == 0
    table = json.loads((tmp_path / "leaves-classic-it.json").read_text(encoding="utf-8"))
    assert table["games"] == 2 and table["language"] == "it" and "?" in table["values"]


def test_derive_by_equity_values_a_rack_as_level_5_plays_it(tmp_path, lexicon) -> None:  # type: ignore[no-untyped-def]
    """``collect --equity TABLE`` (an iterated derivation's next round) values each random rack
    by what level 5 with TABLE makes of it — its chosen play's score plus the value of the
    tiles it keeps, or its exchange's — not by the rack's best score; the samples it keeps
    differ from the score-valued ones on the same racks, and fit ``--out`` writes the table
    there, not over the shipped one."""
    import json

    from training import derive_leaves as derive
    from wordarena.engine.bots.simulation import static_equity
    from wordarena.engine.movegen import generate_moves

    table = leave_table("classic")
    state, _ = start_game(get_ruleset("classic"), 2, 5, lexicon)
    checked = 0
    for _ in range(8):
        seat = state.to_move
        level5 = Bot(5, 0, lexicon, leaves=table)
        action = level5.choose(state)
        value = derive.rack_equity(state, state.racks[seat], level5)
        if isinstance(action, Play):
            chosen = next(m for m in generate_moves(state, seat, lexicon)
                          if m.to_play(seat) == action)
            assert value == pytest.approx(static_equity(state, seat, chosen, table))
            best_score = generate_moves(state, seat, lexicon, limit=1)[0].score
            checked += value != best_score
        state, _ = apply(state, action)
    assert checked  # the leave changed a rack's value at least once
    shipped = str(derive.DATA / "leaves-classic-en.json")
    by_score, by_equity = tmp_path / "score", tmp_path / "equity"
    assert derive.main(["collect", str(by_score), "classic/en", "--until", "1"]) == 0
    assert derive.main(["collect", str(by_equity), "classic/en", "--until", "1",
                        "--equity", shipped]) == 0
    score = json.loads((by_score / "samples-classic-en.json").read_text(encoding="utf-8"))
    equity = json.loads((by_equity / "samples-classic-en.json").read_text(encoding="utf-8"))
    assert score["samples"].keys() == equity["samples"].keys()  # the same racks, valued otherwise
    assert score["samples"] != equity["samples"]
    with pytest.raises(SystemExit, match="the one ruleset"):
        derive.main(["collect", str(tmp_path / "x"), "--until", "1", "--equity", shipped])
    assert derive.main(["fit", str(by_equity), "classic/en", "--model", "means",
                        "--out", str(tmp_path)]) == 0
    fitted = json.loads((tmp_path / "leaves-classic-en.json").read_text(encoding="utf-8"))
    assert fitted["games"] == 1 and fitted["values"] != table.values
