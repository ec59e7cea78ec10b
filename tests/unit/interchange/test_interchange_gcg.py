"""GCG: every reference record parses, the whole move vocabulary, encodings, line-numbered
errors, and write_gcg round trips."""

from __future__ import annotations

import pytest
from gcg_support import GCG_DIR, RECORDS, gcg, load

from wordarena.engine.errors import InputError
from wordarena.engine.interchange.gcg import MoveKind, decode_gcg, format_move, parse_gcg, write_gcg


def test_twenty_reference_records_are_there() -> None:
    assert len(RECORDS) == 20


@pytest.mark.parametrize("name", RECORDS)
def test_every_reference_record_parses(name: str) -> None:
    record = load(name)
    assert len(record.players) == 2
    assert record.moves
    seats = {p.nick: p.seat for p in record.players}
    assert all(m.seat == seats[m.nick] for m in record.moves)


@pytest.mark.parametrize("name", RECORDS)
def test_write_gcg_round_trips(name: str) -> None:
    record = load(name)
    again = parse_gcg(write_gcg(record))
    assert again == record
    assert write_gcg(again) == write_gcg(record)


def test_placements_blanks_phony_and_out_bonus() -> None:
    record = load("doug_v_emely.gcg")
    first = record.moves[0]
    assert (first.line, first.nick, first.rack, first.kind) == (3, "doug", "DINNVWY", MoveKind.PLAY)
    assert (first.position, first.word, first.score, first.total) == ("8D", "WINDY", 32, 32)
    assert record.moves[2].word == "JAVE..N" and record.moves[2].position == "E3"
    phony = record.moves[6]
    assert (phony.kind, phony.score, phony.total) == (MoveKind.PHONY, -24, 55)
    assert record.moves[17].word == "RE.IgION"
    out = record.moves[-1]
    assert (out.kind, out.rack, out.word, out.score) == (MoveKind.OUT, "", "OPEG", 14)


def test_pass_exchange_challenge_and_out_without_rack() -> None:
    guy = load("guy_vs_bot.gcg")
    assert guy.moves[1].kind is MoveKind.EXCHANGE and guy.moves[1].word == "OOOY"
    assert guy.moves[22].kind is MoveKind.PASS
    assert guy.moves[-1].kind is MoveKind.OUT and guy.moves[-1].word == "CDDEOT"
    josh = load("josh2.gcg")
    assert josh.moves[1].kind is MoveKind.CHALLENGE and josh.moves[1].score == 5
    isc = load("some_isc_game.gcg")
    assert isc.moves[-2].kind is MoveKind.CHALLENGE and isc.moves[-2].rack == ""


def test_end_rack_penalty_time_penalty_and_numbered_exchange() -> None:
    record = parse_gcg(gcg(
        ">a: ?AEEOTT (?AEEOTT) -6 -6",
        ">b: NU (time) -10 -10",
        ">a: ABCDEFG -7 +0 -6",
        ">b: ? (?) -0 -10",
    ))
    kinds = [m.kind for m in record.moves]
    assert kinds == [MoveKind.END_RACK, MoveKind.TIME, MoveKind.EXCHANGE, MoveKind.END_RACK]
    assert record.moves[2].word == "7"
    assert format_move(record.moves[3]) == ">b: ? (?) -0 -10"
    assert parse_gcg(write_gcg(record)) == record


def test_pragmas_notes_and_final_racks() -> None:
    record = load("some_isc_game.gcg")
    assert record.encoding == "UTF-8"
    assert record.description == "Created with Macondo"
    assert record.id == "org.aerolith RfqTieg8s6eg4J9TXp5n7R"
    assert record.players[0].name == "José Arcadio Buendía"
    assert record.players[1].nick == "úrsula"
    elise = load("incomplete_elise.gcg")
    assert elise.lexicon == "NWL18"
    assert elise.final_racks == ((0, "AEEIILZ"), (1, "AAAELQS"))
    josh = load("josh2.gcg")
    assert josh.moves[3].notes == ("K5 MID(LI)ST #knowledgemedium",)
    kept = parse_gcg(gcg("#title Final", "#tile-set english", "#note before", ">a: AB 8G AB +8 8"))
    assert kept.title == "Final" and kept.pragmas == (("tile-set", "english"),)
    assert kept.notes == ("before",)


def test_crlf_and_note_continuation_lines() -> None:
    record = load("utf8_dos.gcg")
    note = record.moves[9].notes[0]
    assert note.startswith("tennises dentines") and "\nsince ive been behind" in note
    assert all("\r" not in m.word for m in record.moves)


@pytest.mark.parametrize("name, nick", [
    ("name_iso8859-1.gcg", "césar"),
    ("name_utf8_noheader.gcg", "césar"),
    ("name_utf8_with_header.gcg", "césar"),
    ("name_weird_encoding_with_header.gcg", "césar"),
])
def test_encodings(name: str, nick: str) -> None:
    assert load(name).players[0].nick == nick


def test_declared_encoding_wins_when_it_decodes() -> None:
    data = "#character-encoding ISO-8859-2\n#player1 ł ł\n".encode("iso-8859-2")
    assert "ł" in decode_gcg(data)
    assert decode_gcg((GCG_DIR / "polish_endgame.gcg").read_bytes()).count("Ś") > 0


def test_three_and_four_players() -> None:
    record = parse_gcg("#player1 a A\n#player2 b B\n#player3 c C\n#player4 d D\n"
                       ">c: ABC 8G AB +8 8\n")
    assert [p.nick for p in record.players] == ["a", "b", "c", "d"]
    assert record.moves[0].seat == 2


def test_text_after_the_running_total_is_ignored() -> None:
    # As Quackle writes some records: the cross-words formed follow the running total.
    record = parse_gcg(gcg(">a: BEDGMNP 8D BEDIM +26 26  BE, ET, DO", ">b: ABC -5 +0 0 well played"))
    (play, swap) = record.moves
    assert (play.position, play.word, play.score, play.total) == ("8D", "BEDIM", 26, 26)
    assert (swap.kind, swap.word, swap.score, swap.total) == (MoveKind.EXCHANGE, "5", 0, 0)
    # Still refused: a line whose score or total is missing, even with text after it.
    with pytest.raises(InputError, match="score and running total"):
        parse_gcg(gcg(">a: BEDGMNP 8D BEDIM +26 BE, ET"))


@pytest.mark.parametrize("text, line, words", [
    (gcg(">a: AB 8G AB +8"), 3, "score and running total"),
    (gcg(">a: AB 8G AB x8 8"), 3, "score and running total"),
    (gcg(">zed: AB 8G AB +8 8"), 3, "not a player"),
    (gcg(">a: AB 8G AB +8 8", ">b: AB 8Z9 AB +8 8"), 4, "position"),
    (gcg(">a: AB 8G A-B +8 8"), 3, "word"),
    (gcg(">a: AB -A1 +0 0"), 3, "exchange"),
    (gcg(">a: AB (bogus +0 0"), 3, "(challenge)"),
    (gcg(">a: AB 8G +8 8"), 3, "position"),
    (gcg(">a: X Y 8G AB +8 8"), 3, "before the move"),
    (gcg("a: AB 8G AB +8 8"), 3, "expected a move"),
    (gcg("#player5 e E"), 3, "1 to 4 players"),
    (gcg("#player1 z Z"), 3, "given twice"),
    (gcg("#rack9 AB"), 3, "#rack"),
    (gcg("#"), 3, "pragma"),
    (gcg(">a: AB 8G AB +8 8", "#player3 c C"), 4, "after the first move"),
])
def test_malformed_lines_name_their_line(text: str, line: int, words: str) -> None:
    with pytest.raises(InputError) as info:
        parse_gcg(text)
    assert info.value.where == f"line {line}"
    assert words in str(info.value)


def test_not_a_record() -> None:
    with pytest.raises(InputError, match="line 1: expected a move"):
        parse_gcg(b"hello\xff")
    with pytest.raises(InputError, match="no #player"):
        parse_gcg(b"\n#note nothing\n")
    with pytest.raises(InputError, match="players"):
        parse_gcg("#player2 b B\n")
