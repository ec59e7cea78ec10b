"""The scripting commands added for "every rule playable by a person", each a separate process
against a real ``wordarena serve``: action tiles by script (``move MATCH 'A1 @bomb'``, ``swap
MATCH @bomb``), the combat log and chat history (``log``), ``kick`` (refused: too early),
``record``, a Pass-and-Play table, hostile chat refused by the server and chat markup printed as typed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from e2e_helpers import Served, cli, cli_json

from wordarena.clients.cli import actions
from wordarena.v1 import common_pb2

pytestmark = pytest.mark.slow

HOSTILE = "gg \x1b]0;owned\x07\x1b[2J\u202eolleh\u2066 [bold]x[/bold]\x7f"
MARKUP = "gg [bold]x[/bold] wp"


def _tokens(view: dict) -> list[str]:
    return [actions.token(common_pb2.ActionKind.Value(t["action"]), t.get("action_factor", 0))
            for t in view.get("rack", {}).get("tiles", []) if t.get("action")]


def test_action_tiles_logs_kick_record_and_pass_and_play_by_script(served: Served, tmp_path: Path) -> None:
    me = tmp_path / "sam.json"
    cli(served, me, "login", "--name", "Sam")
    table = cli_json(served, me, "table", "create", "--ruleset", "warofwords", "--bot", "1", "--wait")
    match_id = table["match"]["match_id"]

    # Action tiles: a usage error names the notation; a swap of an action tile and a placement.
    bad = cli(served, me, "move", match_id, "H8 @blaster", check=False)
    assert bad.returncode == 2 and "@blaster:up" in bad.stderr
    assert cli(served, me, "move", match_id, "H8 @nosuch", check=False).returncode == 2
    for _ in range(6):  # swap letters until an action tile comes (5 swaps allowed)
        view = cli_json(served, me, "state", match_id)
        if _tokens(view):
            break
        letters = "".join("?" if t.get("is_blank") else t.get("letter") or "*"
                          for t in view["rack"]["tiles"])
        cli(served, me, "swap", match_id, letters)
        cli(served, me, "stream", match_id, "--after", str(view["last_seq"]), "--count", "2", "--idle", "5")
    view = cli_json(served, me, "state", match_id)
    tokens = _tokens(view)
    if tokens:
        placeable = [t for t in tokens if t not in ("@pirate", "@quicksand")]
        if placeable:
            tok = placeable[0] + (":down" if placeable[0] == "@blaster" else "")
            played = cli_json(served, me, "move", match_id, f"A1 {tok}")
            placed = played["events"][0]["turn_played"]["placements"]
            assert placed[0]["square"]["notation"] == "A1"
            assert placed[0]["action"] == common_pb2.ActionKind.Name(actions.from_token(tok.split(":")[0])[0])
        else:
            swapped = cli(served, me, "swap", match_id, tokens[0])
            assert f"({tokens[0]})" in swapped.stdout

    # The combat log, in text and JSON.
    combat = cli(served, me, "log", match_id)
    assert combat.stdout.startswith("Combat log")
    assert isinstance(cli_json(served, me, "log", match_id, "--all").get("events", []), list)

    # A hostile chat: text output shows it visibly, JSON carries it exactly but escaped.
    # The server refuses chat with control or hiding characters, naming the field; the refusal
    # reaches the terminal harmlessly. Markup in an allowed chat is printed as typed.
    refused = cli(served, me, "chat", match_id, HOSTILE, "--json", check=False)
    assert refused.returncode == 2 and "control or format characters" in refused.stdout + refused.stderr
    for raw in ("\x1b", "\x07", "\x7f", "\u202e", "\u2066"):
        assert raw not in refused.stdout + refused.stderr
    chat_seq = int(cli_json(served, me, "chat", match_id, MARKUP)["event"]["seq"])
    text = cli(served, me, "log", match_id, "--chat").stdout
    assert MARKUP in text
    out = cli(served, me, "log", match_id, "--chat", "--json").stdout
    assert [e["chat"]["text"] for e in json.loads(out)["events"]] == [MARKUP]
    streamed = cli(served, me, "stream", match_id, "--after", str(chat_seq - 1), "--count", "1").stdout
    assert "[bold]x[/bold]" in streamed

    # Kicking a bot that has not been idle for long is refused, with the rule.
    kicked = cli(served, me, "kick", match_id, "Bot 1", "--json", check=False)
    assert kicked.returncode == 1
    assert json.loads(kicked.stdout)["rule"] in ("KICK_TOO_EARLY", "KICK_NOT_ALLOWED")

    # The player's record.
    record = cli_json(served, me, "player-record")
    assert record["player"]["display_name"] == "Sam"
    assert "Sam (p_" in cli(served, me, "stats").stdout

    # A Pass-and-Play table: one client holds every seat, the match starts at once.
    pnp = cli_json(served, me, "table", "create", "--pass-and-play", "--seats", "2", "--wait")
    assert pnp["settings"]["options"]["pass_and_play"] is True
    pnp_view = cli_json(served, me, "state", pnp["match"]["match_id"])
    assert sorted(pnp_view["controlled_seats"]) == [0, 1]
    passed = cli(served, me, "pass", pnp["match"]["match_id"])
    assert "passed" in passed.stdout
    assert cli_json(served, me, "state", pnp["match"]["match_id"])["to_move_seat"] != pnp_view["to_move_seat"]


def test_rules_describe_draws_the_board_with_a_legend_and_the_tiles_as_a_table(served: Served,
                                                                                tmp_path: Path) -> None:
    out = cli(served, tmp_path / "x.json", "rules", "describe", "classic").stdout
    assert " A  B  C " in out and "Legend:" in out and "QL" not in out
    assert "triple word" in out and "start square" in out
    assert "tile" in out and "count" in out and "? blank" in out
    assert '"0,0"' not in out
    wow = cli(served, tmp_path / "x.json", "rules", "describe", "warofwords", "--board",
              "warofwords-fortress").stdout
    assert "quadruple letter" in wow and "Titanium" in wow and "@blackhole" in wow
    data = json.loads(cli(served, tmp_path / "x.json", "rules", "describe", "classic", "--json").stdout)
    assert data["board"]["premiums"]["0,3"] == "3W"
