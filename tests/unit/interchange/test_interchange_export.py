"""``record_from_events``: a played game's event log as a GCG record, line by line."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from wordarena.engine.bots import Bot, play_game
from wordarena.engine.errors import InputError
from wordarena.engine.families import get_ruleset
from wordarena.engine.game import (
    Decide,
    Event,
    Exchange,
    GameState,
    Pass,
    Play,
    Resign,
    apply,
    set_rack,
    start_game,
)
from wordarena.engine.interchange import (
    GameRecord,
    MoveKind,
    check_record,
    parse_gcg,
    record_from_events,
    record_ruleset_id,
    record_seed,
    replay_record,
    write_gcg,
)
from wordarena.engine.interchange.gcg import format_move
from wordarena.engine.lexicon import load_lexicon
from wordarena.engine.notation import placements_from_word
from wordarena.engine.rulesets.model import Ruleset

PLAYERS = [("ann", "Ann A"), ("ben", "Ben B")]
LEXICON = frozenset({"CAT", "CATS", "AT", "TA"})


class Game:
    """A game driven by hand: every event kept. ``racks`` are dealt instead of the seed's (the
    ``game-started`` event says so, as if the bag had dealt them)."""

    def __init__(self, ruleset_id: str, *racks: str, seed: int = 5, players: int = 2) -> None:
        ruleset = get_ruleset(*ruleset_id.split("/"))
        self.state, self.events = start_game(ruleset, players, seed, LEXICON)
        for seat, tiles in enumerate(racks):
            self.state = set_rack(self.state, seat, tuple(tiles))
        self.events[0].data["private"]["racks"] = [list(r) for r in self.state.racks]

    def do(self, action: Play | Pass | Exchange | Decide | Resign) -> None:
        self.state, events = apply(self.state, action)
        self.events += events

    def play(self, seat: int, position: str, word: str) -> None:
        layout = self.state.ruleset.board
        self.do(Play(seat, placements_from_word(layout, self.state.cells, position, word)))


def lines(events: list[Event], **options: bool) -> list[str]:
    return [format_move(m) for m in record_from_events(events, PLAYERS, **options).moves]


def test_a_classic_game_is_written_with_its_pragmas_racks_and_the_engines_notation() -> None:
    game = Game("classic/en", "CATSXYZ", "SEEIIOU")
    game.play(0, "8G", "CAT")
    game.play(1, "J8", "S")  # one tile: its main word is CATS, across from 8G
    record = record_from_events(game.events, PLAYERS, title="t", record_id="wordarena m1")
    assert record.pragmas == (("ruleset", "classic/en"), ("language", "en"), ("seed", "5"))
    assert record.lexicon == "word-list-4.1.0+wwf"  # the list's name (docs/lexicon.md), not "en"
    assert (record.title, record.id) == ("t", "wordarena m1")
    score = int(game.events[1].data["score"])
    assert format_move(record.moves[0]) == f">ann: CATSXYZ 8G CAT +{score} {score}"
    assert (record.moves[1].position, record.moves[1].word) == ("8G", "...S")
    assert record_ruleset_id(record) == "classic/en" and record_seed(record) == 5
    # a running match with racks: each rack now, as #rackN
    assert [s for s, _ in record.final_racks] == [0, 1]
    assert parse_gcg(write_gcg(record)) == record
    assert check_record(record, get_ruleset("classic", "en")) == []


def test_without_racks_no_rack_seed_or_exchanged_tile_is_written() -> None:
    game = Game("scrabble/en", "CATEEEE", "QVVWWXZ")
    game.play(0, "8G", "CAT")
    game.do(Exchange(1, ("Q", "V", "V")))
    game.do(Pass(0))
    record = record_from_events(game.events, PLAYERS, racks=False)
    # a play's rack token: the tiles it put down, which everyone saw (a GCG reader needs one)
    assert [m.rack for m in record.moves] == ["CAT", "", ""]
    assert record.moves[1].kind is MoveKind.EXCHANGE and record.moves[1].word == "3"
    assert record_seed(record) is None and record.final_racks == ()
    text = write_gcg(record)
    assert "QVV" not in text and "#seed" not in text
    assert check_record(record, get_ruleset("scrabble", "en")) == []
    shown = record_from_events(game.events, PLAYERS)
    assert shown.moves[1].word == "QVV" and shown.moves[1].rack == "QVVWWXZ"


def test_a_word_tiles_play_that_fails_the_check_is_taken_back_with_two_dashes() -> None:
    game = Game("wordtiles/en", "QXTAEIO")
    game.play(0, "8G", "QX")
    game.do(Decide(1, accept=False))
    assert lines(game.events)[-1].startswith(">ann: ") and " -- -" in lines(game.events)[-1]
    record = record_from_events(game.events, PLAYERS)
    play, phony = record.moves
    assert (play.kind, phony.kind, phony.score, phony.total) == (MoveKind.PLAY, MoveKind.PHONY,
                                                                 -play.score, 0)
    assert "not words: QX" in phony.notes[0]
    steps = list(replay_record(record, get_ruleset("wordtiles", "en")))
    assert all(cell is None for cell in steps[-1].state.cells)
    assert check_record(record, get_ruleset("wordtiles", "en")) == []


def test_a_word_tiles_check_that_holds_costs_the_checker_a_pass() -> None:
    game = Game("wordtiles/en", "CATEIOU")
    game.play(0, "8G", "CAT")
    game.do(Decide(1, accept=False))
    record = record_from_events(game.events, PLAYERS)
    assert [(m.nick, m.kind) for m in record.moves] == [("ann", MoveKind.PLAY),
                                                         ("ben", MoveKind.PASS)]
    assert record.moves[0].score > 0 and "the play holds" in record.moves[1].notes[0]
    assert check_record(record, get_ruleset("wordtiles", "en")) == []


def test_resigning_is_a_left_line_and_the_game_ends_without_rack_lines() -> None:
    game = Game("classic/en", "CATSXYZ")
    game.play(0, "8G", "CAT")
    game.do(Resign(1))
    record = record_from_events(game.events, PLAYERS)
    assert record.moves[-1].kind is MoveKind.LEFT
    assert record.moves[-1].notes == ("ben resigned", "game over: resigned")
    assert record.final_racks == ()


def test_a_seat_that_resigned_has_no_rack_line_at_the_end() -> None:
    game = Game("wordtiles/en", "CATEIOU", players=3)
    game.do(Resign(2))  # before any move
    game.play(0, "8G", "CAT")
    game.do(Decide(1, accept=True))
    while not game.state.over:
        game.do(Pass(game.state.to_move))
    players = [*PLAYERS, ("cat", "Cat C")]
    record = record_from_events(game.events, players)
    assert (record.moves[0].kind, record.moves[0].notes) == (MoveKind.LEFT, ("cat resigned",))
    assert format_move(record.moves[0]) == ">cat:  (left) +0 0"
    ends = [m for m in record.moves if m.kind is MoveKind.END_RACK]
    assert [m.seat for m in ends] == [0, 1]
    assert game.state.result is not None
    assert tuple({m.seat: m.total for m in record.moves}.get(s, 0) for s in range(3)) \
        == game.state.result.scores
    assert check_record(record, get_ruleset("wordtiles", "en")) == []


def finished(ruleset_id: str) -> tuple[GameState, list[Event]]:
    """A game played to its end by passes: the zero-turn rule counts the racks off."""
    game = Game(ruleset_id)
    while not game.state.over:
        game.do(Pass(game.state.to_move))
    return game.state, game.events


@pytest.mark.parametrize("ruleset_id", ["classic/en", "scrabble/en", "warofwords/en"])
def test_the_tiles_left_at_the_end_are_rack_lines_that_add_up_to_the_final_scores(
        ruleset_id: str) -> None:
    state, events = finished(ruleset_id)
    record = record_from_events(events, PLAYERS)
    ends = [m for m in record.moves if m.kind is MoveKind.END_RACK]
    assert [m.seat for m in ends] == [0, 1]
    assert record.moves[-3].notes[-1] == "game over: zero-turns"
    assert state.result is not None
    assert tuple(m.total for m in ends) == state.result.scores
    assert check_record(record, get_ruleset(*ruleset_id.split("/"))) == []


def test_war_of_words_tokens_read_back() -> None:
    text = "\n".join([
        "#player1 ann Ann", "#player2 ben Ben", "#ruleset warofwords", "#language en",
        ">ann: CAT*@bomb@blaster 8G C*T H9@bomb K3@blaster:left +9 9",
        ">ben: AE@rain J2@rain +0 0",
        ">ann:  (effect) -3 6",
        "#note effect bomb by ann at H9: -3 (H8) destroyed",
        ">ben: AE J3>J4 K5@3W +0 0",
    ]) + "\n"
    record = parse_gcg(text)
    first, second, effect, moved = record.moves
    assert (first.word, first.actions) == ("C*T", ("H9@bomb", "K3@blaster:left"))
    assert first.rack == "CAT*@bomb@blaster"
    assert (second.position, second.word, second.actions) == ("", "", ("J2@rain",))
    assert effect.kind is MoveKind.EFFECT and effect.score == -3
    assert moved.actions == ("J3>J4", "K5@3W")
    assert record_ruleset_id(record) == "warofwords/en"
    assert parse_gcg(write_gcg(record)) == record


@pytest.mark.parametrize("players, message", [
    ([("ann", "A")], "2 players"),
    ([("ann", "A"), ("ann", "B")], "share a nick"),
    ([("ann", "A"), ("b en", "B")], "one word"),
    ([("ann", "A"), ("b:n", "B")], "one word"),
])
def test_players_must_be_one_distinct_nick_per_seat(players: list[tuple[str, str]],
                                                    message: str) -> None:
    _, events = start_game(get_ruleset("classic", "en"), 2, 0, check_words=False)
    with pytest.raises(InputError, match=message):
        record_from_events(events, players)


def test_a_log_must_start_with_the_game() -> None:
    with pytest.raises(InputError, match="game-started"):
        record_from_events([Event("passed", 0)], PLAYERS)


def war_of_words_record() -> tuple[GameRecord, Ruleset]:
    """A level-1 War of Words game (seed 2) whose effects changed scores."""
    ruleset = get_ruleset("warofwords", "en")
    lexicon = load_lexicon(ruleset.lexicon)
    outcome = play_game(ruleset, [Bot(1, 2, lexicon), Bot(1, 3, lexicon)], 2, lexicon)
    return record_from_events(outcome.events, PLAYERS), ruleset


def test_check_compares_each_effect_line_with_the_engines_effects() -> None:
    record, ruleset = war_of_words_record()
    assert check_record(record, ruleset) == []
    k = next(i for i, m in enumerate(record.moves) if m.kind is MoveKind.EFFECT)
    moves = list(record.moves)
    wrong = replace(moves[k], score=moves[k].score + 1, total=moves[k].total + 1)
    codes = {f.code for f in check_record(replace(record, moves=(*moves[:k], wrong)), ruleset)}
    assert codes == {"effect-mismatch"}
    dropped = (*moves[:k], *moves[k + 1:])
    assert "effect-missing" in {f.code for f in check_record(replace(record, moves=dropped),
                                                             ruleset)}


@pytest.mark.parametrize("line, message", [
    (">ann: ABC - H9@bomb +0 0", "follow a pass"),
    (">ann: AB%@bomb H9@bomb +0 0", "rack"),
])
def test_war_of_words_tokens_are_refused_where_they_make_no_sense(line: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        parse_gcg(f"#player1 ann Ann\n#player2 ben Ben\n{line}\n")


#: A play line as macondo's GCG reader matches it (gcgio: a rack token, then position, word,
#: score, total), written here from the GCG conventions.
STANDARD_PLAY = re.compile(r"^>(\S+):\s+(\S+)\s+(\w+)\s+([\w.?]+)\s+([+-]\d+)\s+(-?\d+)$")


def test_a_running_matchs_plays_are_read_by_a_standard_gcg_reader() -> None:
    game = Game("classic/en", "CATSXYZ", "SEEIIOU")
    game.play(0, "8G", "CAT")
    game.play(1, "J8", "S")
    text = write_gcg(record_from_events(game.events, PLAYERS, racks=False))
    plays = [line for line in text.splitlines() if line.startswith(">")]
    # before: ">ann:  8G CAT +10 10" (no rack token): the reader's pattern failed
    assert all(STANDARD_PLAY.match(line) for line in plays), plays
    assert "CATSXYZ" not in text and "SEEIIOU" not in text  # the hidden racks stay hidden
    assert "#lexicon word-list-4.1.0+wwf" in text
