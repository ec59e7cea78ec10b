"""The CLI's Hindsight text: the best plays, then (``--sim`` / ``hindsight sim``) the plays
ranked by simulation — a play or an exchange, what it keeps ± its error, the chance to win, the
draws — and a lone candidate said to be unsimulated rather than shown with empty figures."""

from __future__ import annotations

from wordarena.clients.cli.match_cmd import hindsight_text
from wordarena.v1 import common_pb2 as c
from wordarena.v1 import match_pb2 as m


def _play(notation: str, letters: str, total: int) -> m.AnalysedPlay:
    placed = [c.Placement(square=c.Square(row=7, col=7 + i), letter=x) for i, x in enumerate(letters)]
    return m.AnalysedPlay(notation=notation, play=c.PlayMove(placements=placed),
                          breakdown=c.ScoreBreakdown(total=total))


def test_simulated_plays_follow_the_best_plays() -> None:
    zax = _play("8H ZAX", "ZAX", 52)
    resp = m.HindsightResponse(turn_seq=3, legal_play_count=40, best=[zax])
    resp.simulated.add(play=zax, equity=55.5, mean_spread=21.25, spread_error=1.5,
                       iterations=128, win_chance=0.614)
    resp.simulated.add(exchange=[c.Tile(letter="Q"), c.Tile(letter="V")], equity=9.0,
                       mean_spread=-4.0, spread_error=2.0, iterations=64, win_chance=0.4)
    lines = hindsight_text(resp).splitlines()
    start = lines.index("By simulation (what a play keeps after the opponent's best answer):")
    first, second = lines[start + 1:]
    assert first.startswith(" 1. 8H ZAX") and " 52 " in first
    assert first.endswith("equity 55.5  keeps +21.2 ± 1.5  win 61%  (128 draws)")
    assert second.startswith(" 2. exchange QV") and "keeps -4.0 ± 2.0  win 40%  (64 draws)" in second


def test_a_lone_candidate_is_said_to_be_unsimulated() -> None:
    resp = m.HindsightResponse(turn_seq=2, legal_play_count=0)
    resp.simulated.add(exchange=[c.Tile(letter="B")], equity=3.0, mean_spread=3.0, win_chance=0.5)
    assert hindsight_text(resp).splitlines()[-1].endswith("equity 3.0  (the only choice: not simulated)")


def test_without_simulation_there_is_no_such_section() -> None:
    resp = m.HindsightResponse(turn_seq=3, legal_play_count=1, best=[_play("8H AX", "AX", 18)])
    assert "By simulation" not in hindsight_text(resp)
