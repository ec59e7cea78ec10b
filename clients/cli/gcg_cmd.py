"""``wordarena gcg check|hindsight|replay``: check GCG game records against the engine, annotate
one with Hindsight, or watch one replayed on the board."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from wordarena.clients.cli.safe import safe_text
from wordarena.engine.analysis.record import review_record
from wordarena.engine.errors import InputError
from wordarena.engine.interchange.check import Finding, check_record, replay_record, unsupported_letters
from wordarena.engine.interchange.gcg import GameRecord, MoveKind, format_move, parse_gcg
from wordarena.engine.interchange.pragmas import record_ruleset
from wordarena.engine.interchange.text import board_text
from wordarena.engine.lexicon import load_lexicon
from wordarena.engine.rulesets.model import Ruleset

OK, FINDINGS, BAD_INPUT = 0, 1, 2


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("gcg", help="check and replay GCG game records")
    sub = parser.add_subparsers(dest="gcg_command", required=True)
    check = sub.add_parser(
        "check", help="replay records (words unchecked), recompute every score and total",
        description="Replays each record on the engine without checking words, recomputes every "
        "move's score and every running total and prints each disagreement as FILE:LINE: "
        "message. Exit 0 all agree, 1 disagreements, 2 unreadable or malformed input.",
    )
    _ruleset_options(check)
    check.add_argument("--json", action="store_true", help="one JSON document for all files")
    check.add_argument("--leaves", action="store_true",
                       help="also report racks that lack the tiles kept from the last turn")
    check.add_argument("files", nargs="+", metavar="FILE")
    check.set_defaults(func=_check)
    review = sub.add_parser(
        "hindsight", help="annotate a record: the best moves each player could have played",
        description="Replays the record and, for every turn whose rack is known, prints what was "
        "played, its rank among all legal moves and the best alternatives (words checked "
        "against the ruleset's lexicon, which may differ from the record's).",
    )
    _ruleset_options(review)
    review.add_argument("--top", type=int, default=3, help="alternatives per turn (default 3)")
    review.add_argument("--json", action="store_true")
    review.add_argument("file", metavar="FILE")
    review.set_defaults(func=_hindsight)
    replay = sub.add_parser("replay", help="print the board after each move")
    _ruleset_options(replay)
    replay.add_argument("file", metavar="FILE")
    replay.set_defaults(func=_replay)


def _ruleset_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--ruleset", default=None,
                        help="family or family/language[/board] (default: the record's #ruleset "
                             "pragma, else scrabble)")
    parser.add_argument("--language", default="en", help="tile set language (default en)")


def _ruleset(args: argparse.Namespace, record: GameRecord | None = None) -> Ruleset:
    """``--ruleset``/``--language``; without ``--ruleset``, what the record's pragmas name
    (``engine.interchange.pragmas.record_ruleset``, the one reader ``replay`` uses too)."""
    return record_ruleset(record, args.ruleset, args.language)


def _load(path: str) -> GameRecord:
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", path) from exc
    return parse_gcg(data)


def _check(args: argparse.Namespace) -> int:
    try:
        default = _ruleset(args)
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return BAD_INPUT
    code = OK
    report = []
    for path in args.files:
        entry: dict[str, object] = {"file": path}
        try:
            record = _load(path)
            ruleset = default if args.ruleset else _ruleset(args, record)
            entry["ruleset"] = ruleset.id
            findings = check_record(record, ruleset, leaves=args.leaves)
        except InputError as exc:
            code = BAD_INPUT
            entry |= {"error": str(exc)}
            if not args.json:
                print(f"{path}: error: {exc}")
            report.append(entry)
            continue
        if findings and code == OK:
            code = FINDINGS
        entry |= {"findings": [f.to_dict() for f in findings]}
        report.append(entry)
        if not args.json:
            _print_findings(path, findings)
    if args.json:
        print(json.dumps({"ruleset": default.id, "files": report}, indent=1, ensure_ascii=False))
    return code


def _print_findings(path: str, findings: list[Finding]) -> None:
    for finding in findings:
        print(f"{path}:{finding.line}: {finding.message} [{finding.code}]")
    summary = "ok" if not findings else f"{len(findings)} disagreement(s)"
    print(f"{path}: {summary}")


def _replay(args: argparse.Namespace) -> int:
    try:
        record = _load(args.file)
        ruleset = _ruleset(args, record)
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return BAD_INPUT
    unsupported = unsupported_letters(record, ruleset)
    if unsupported:
        print(f"{args.file}:{unsupported.line}: {unsupported.message}")
        return FINDINGS
    try:
        steps = list(replay_record(record, ruleset))
    except InputError as exc:
        print(f"{args.file}: error: {exc}", file=sys.stderr)
        return BAD_INPUT
    names = [safe_text(p.name) for p in record.players]  # a record's names are untrusted text
    print(f"{' vs '.join(names)} — {ruleset.name} ({ruleset.id})")
    print(board_text(ruleset.board, _empty(ruleset)))
    found = False
    for step in steps:
        move = step.move
        print()
        print(safe_text(f"line {move.line}: {format_move(move)}"))
        for finding in step.findings:
            found = True
            print(f"  ! {finding.message} [{finding.code}]")
        if move.kind in (MoveKind.PLAY, MoveKind.PHONY):
            print(board_text(ruleset.board, step.state.cells))
        scores = safe_text("  ".join(f"{record.players[s].nick} {t}" for s, t in _totals(record, move.line)))
        print(f"  scores: {scores}")
    return FINDINGS if found else OK


def _empty(ruleset: Ruleset) -> tuple[None, ...]:
    return (None,) * (ruleset.board.rows * ruleset.board.cols)


def _totals(record: GameRecord, line: int) -> list[tuple[int, int]]:
    totals = {p.seat: 0 for p in record.players}
    for move in record.moves:
        if move.line > line:
            break
        totals[move.seat] = move.total
    return sorted(totals.items())


def _hindsight(args: argparse.Namespace) -> int:
    try:
        record = _load(args.file)
        ruleset = _ruleset(args, record)
        lexicon = load_lexicon(ruleset.lexicon)
        reviews = list(review_record(record, ruleset, lexicon, top=max(1, args.top)))
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return BAD_INPUT
    if args.json:
        print(json.dumps({"file": args.file, "turns": [r.to_dict() for r in reviews]}, indent=1))
        return OK
    for review in reviews:
        print(safe_text(f"{args.file}:{review.line}: {review.nick}: {review.played}: "
                        f"{review.verdict.describe()}"))
    missed = {}
    for review in reviews:
        missed[review.nick] = missed.get(review.nick, 0) + review.verdict.missed
    print(safe_text("points missed: " + ", ".join(f"{nick} {points}" for nick, points in missed.items())))
    return OK
