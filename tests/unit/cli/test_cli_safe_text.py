"""Untrusted text (chat, names, server messages) is printed harmlessly: terminal controls, bidi
overrides and zero-width characters shown visibly, rich markup printed literally, JSON data kept
exactly but escaped."""

from __future__ import annotations

import json

from rich.console import Console

from wordarena.clients.cli import movelog, render
from wordarena.clients.cli.client import ClientError
from wordarena.clients.cli.common import json_text
from wordarena.clients.cli.safe import safe_json, safe_text
from wordarena.v1 import common_pb2, match_pb2

HOSTILE = "a\x1b]52;c;SGk=\x07b\x1b[2Jc\u202ed\u200be\x00f[red]x[/red]"


def test_control_and_format_characters_are_shown_visibly() -> None:
    shown = safe_text(HOSTILE)
    assert shown == "a␛]52;c;SGk=␇b␛[2Jc⟨U+202E⟩d⟨U+200B⟩e␀f[red]x[/red]"
    assert safe_text(shown) == shown  # idempotent
    assert safe_text("Ñandú ÄÖÜ 💬") == "Ñandú ÄÖÜ 💬"  # ordinary text untouched
    assert safe_text("two\nlines", keep_newlines=True) == "two\nlines"
    assert safe_text("two\nlines") == "two␊lines"


def test_markup_is_escaped_when_printed_through_rich_markup() -> None:
    console = Console(record=True, width=80, force_terminal=True)
    console.print(safe_text("[red]x[/red]", markup=True))
    assert console.export_text().strip() == "[red]x[/red]"


def test_json_output_escapes_what_could_act_on_a_terminal_and_keeps_the_data() -> None:
    dumped = json.dumps({"text": HOSTILE}, ensure_ascii=False)
    safe = safe_json(dumped)
    assert "\u202e" not in safe and "\u200b" not in safe and "\x1b" not in safe
    assert json.loads(safe) == {"text": HOSTILE}
    assert json.loads(json_text({"name": "Ñ\u2066"})) == {"name": "Ñ\u2066"}


def test_chat_names_and_effect_reasons_in_the_move_log_are_safe() -> None:
    chat = common_pb2.Event(chat=common_pb2.ChatMessage(
        sender=common_pb2.Player(display_name="Eve\x1b[31m"), text=HOSTILE))
    line = movelog.describe_event(chat)
    assert line is not None and "\x1b" not in line and "\u202e" not in line and "[red]x[/red]" in line
    effect = common_pb2.Event(effect=common_pb2.Effect(reason="boom\x1b]0;title\x07"))
    assert movelog.describe_event(effect) == "boom␛]0;title␇"


def test_display_names_on_the_screen_are_safe() -> None:
    view = match_pb2.MatchView(match_id="m")
    view.seats.add(index=0, player=common_pb2.Player(display_name="\u202eevE"))
    console = Console(record=True, width=120)
    console.print(render.match_screen(view))
    out = console.export_text()
    assert "\u202e" not in out and "⟨U+202E⟩evE" in out
    assert render.names_of(view) == ["⟨U+202E⟩evE"]


def test_server_error_messages_are_safe() -> None:
    err = ClientError("refused \x1b[2J because\u202e")
    assert err.message == "refused ␛[2J because⟨U+202E⟩"
