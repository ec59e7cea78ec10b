"""Level 5 and Quackle's Speedy Player on the same positions (issue 42): where they choose
differently, and what each choice is worth.

A thin adapter over the Quackle harness kept outside the project (``../shared/quackle/``: its
``match.py`` and the ``quackle-driver`` that ``build.sh`` builds into a work folder). Nothing of
Quackle is here. Each deal (seed ``--seed`` + d) is played once. Seat 0 plays level 5's choice
and seat 1 plays Quackle's, so positions of both styles arise. At every turn both engines are
asked for their move. Quackle is asked through the driver's ``go``, and the driver deals the
opponent's rack afresh from the unseen tiles.

Where the choices differ and the bag has tiles, each choice is valued by ``--worlds`` paired
play-outs to the end of the game. The unseen tiles are dealt at random, with the same deals for
both choices, and both seats then play level 5. The value is the mean of Quackle's final spread
less level 5's. One JSON line a turn goes to ``--out``. ``--summary FILE...`` tallies them by
kind of difference. The findings of 7 December 2026 are in
bench/results/2026-12-07-quackle-findings.md.

    QUACKLE=../shared/quackle; W=/work/quackle-work
    nice -n 10 .venv/bin/python bench/quackle_positions.py --harness $QUACKLE --work $W \\
        --seed 900000 --deals 40 --worlds 24 --out $W/positions.jsonl
    .venv/bin/python bench/quackle_positions.py --summary $W/positions.jsonl
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from wordarena.engine.bots import Bot
from wordarena.engine.bots.simulation import deal, unseen_pool
from wordarena.engine.families import get_ruleset
from wordarena.engine.game import Exchange, Play, apply, start_game
from wordarena.engine.lexicon import load_lexicon
from wordarena.engine.tiles import remove_tokens

VOWELS = frozenset("AEIOU")


def key(action: Any) -> tuple[Any, ...]:
    if isinstance(action, Play):
        return ("play", tuple(sorted((p.row, p.col, p.letter, p.blank) for p in action.placements)))
    if isinstance(action, Exchange):
        return ("exch", tuple(sorted(action.tiles)))
    return ("pass",)


def used(action: Any) -> tuple[str, ...]:
    if isinstance(action, Play):
        return tuple("?" if p.blank else p.letter for p in action.placements)
    if isinstance(action, Exchange):
        return tuple(action.tiles)
    return ()


def describe(state: Any, seat: int, action: Any, table: Any, notation: Any) -> dict[str, Any]:
    leave = remove_tokens(state.racks[seat], used(action))
    after, events = apply(state, action)
    return {"kind": key(action)[0], "score": after.scores[seat] - state.scores[seat],
            "leave": "".join(sorted(leave)), "n_used": len(used(action)),
            "leave_value": round(table.value(leave), 2),
            "text": notation(state, action, list(events))}


def play_outs(state: Any, seat: int, action: Any, bots: list[Bot], worlds: int, tag: str) -> list[int]:
    """Final spreads (seat − opponent) after ``action`` in ``worlds`` deals of the unseen tiles."""
    pool = unseen_pool(state, seat)
    out = []
    for w in range(worlds):
        s, _ = apply(deal(state, seat, pool, random.Random(f"positions/{tag}/{w}")), action)
        turns = 0
        while not s.over and turns < 60:
            s, _ = apply(s, bots[s.to_move].choose(s))
            turns += 1
        scores = s.result.scores if s.result is not None else s.scores
        out.append(scores[seat] - scores[1 - seat])
    return out


def collect(args: argparse.Namespace) -> None:
    sys.path.insert(0, str(args.harness))
    from match import Driver, action_from_quackle, fields, notation_of, rack_text, unseen_for

    ruleset = get_ruleset("scrabble", "en")
    lexicon = load_lexicon(ruleset.lexicon)
    driver = Driver(args.work, "speedy", 5, "default_english")
    with args.out.open("a", encoding="utf-8") as out:
        for d in range(args.first_deal, args.first_deal + args.deals):
            seed = args.seed + d
            bot = Bot(5, seed, lexicon)
            rollers = [Bot(5, seed, lexicon), Bot(5, seed + 1, lexicon)]
            state, _ = start_game(ruleset, 2, seed, lexicon)
            table = bot._table(state)
            driver.ask(f"new {seed}")
            turn, t0 = 0, time.time()
            while not state.over:
                seat, rack = state.to_move, state.racks[state.to_move]
                reply = fields(driver.ask(f"go {seat} {rack_text(rack)} {unseen_for(state, seat)}"))
                quackle = action_from_quackle(state, seat, reply["move"])
                level5 = bot.choose(state)
                line: dict[str, Any] = {"deal": seed, "turn": turn, "bag": len(state.bag)}
                if key(quackle) == key(level5):
                    line["same"] = True
                else:
                    line.update(seat=seat, rack="".join(sorted(rack)),
                                wa=describe(state, seat, level5, table, notation_of),
                                q=describe(state, seat, quackle, table, notation_of))
                    if args.worlds and state.bag:
                        tag = f"{seed}/{turn}"
                        a = play_outs(state, seat, level5, rollers, args.worlds, tag)
                        b = play_outs(state, seat, quackle, rollers, args.worlds, tag)
                        line["q_minus_wa"] = sum(y - x for x, y in zip(a, b, strict=True)) / len(a)
                out.write(json.dumps(line) + "\n")
                out.flush()
                action = level5 if seat == 0 else quackle
                after, events = apply(state, action)
                driver.ask(f"play {seat} {rack_text(rack)} {notation_of(state, action, list(events))}")
                state, turn = after, turn + 1
            print(f"deal {seed}: {turn} turns, {time.time() - t0:.1f} s", flush=True)
    driver.close()


def kinds(r: dict[str, Any]) -> list[str]:
    """The kinds of difference a differing turn shows (one turn may show several)."""
    w, q = r["wa"], r["q"]

    def excess(leave: str) -> int:
        return sum(c in VOWELS for c in leave) - sum(c not in VOWELS and c != "?" for c in leave)

    def extra_copies(leave: str) -> int:
        return sum(leave.count(c) - 1 for c in set(leave) if c != "?")

    out = []
    if r["bag"] == 0:
        out.append("end game (bag empty)")
    elif r["bag"] < 7:
        out.append("pre-end game (bag 1-6)")
    if w["kind"] != q["kind"]:
        out.append(f"level 5 {w['kind']}, Quackle {q['kind']}")
    for tile, name in (("?", "a blank"), ("S", "an S")):
        if w["leave"].count(tile) != q["leave"].count(tile):
            who = "Quackle" if q["leave"].count(tile) > w["leave"].count(tile) else "level 5"
            out.append(f"{who} keeps more of {name}")
    if excess(w["leave"]) != excess(q["leave"]):
        who = "level 5" if excess(w["leave"]) > excess(q["leave"]) else "Quackle"
        out.append(f"{who} keeps the more vowel-heavy leave")
    if extra_copies(w["leave"]) != extra_copies(q["leave"]):
        who = "level 5" if extra_copies(w["leave"]) > extra_copies(q["leave"]) else "Quackle"
        out.append(f"{who} keeps more duplicates")
    if ("Q" in w["leave"] and "U" not in w["leave"]) != ("Q" in q["leave"] and "U" not in q["leave"]):
        out.append("Q without U kept by " + ("level 5" if "Q" in w["leave"] else "Quackle"))
    if w["kind"] == q["kind"] == "play":
        if w["score"] > q["score"]:
            out.append("level 5's play scores more")
        elif q["score"] > w["score"]:
            out.append("Quackle's play scores more")
        else:
            out.append("same score")
            if w["leave"] == q["leave"]:
                out.append("same score and leave, another place")
    return out


def summary(paths: list[Path]) -> str:
    rows = [json.loads(x) for p in paths for x in p.read_text(encoding="utf-8").splitlines() if x]
    differ = [r for r in rows if not r.get("same")]
    lines = [f"{len(rows)} turns, {len(rows) - len(differ)} the same choice, {len(differ)} different"]
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in differ:
        groups["all different, bag not empty" if r["bag"] else "all different, bag empty"].append(r)
        for k in kinds(r):
            groups[k].append(r)
    for name, rs in sorted(groups.items(), key=lambda x: -len(x[1])):
        vs = [r["q_minus_wa"] for r in rs if "q_minus_wa" in r]
        if len(vs) > 1:
            m = sum(vs) / len(vs)
            se = math.sqrt(sum((v - m) ** 2 for v in vs) / (len(vs) - 1) / len(vs))
            lines.append(f"{name:45s} {len(rs):5d}  Quackle's better by {m:+6.2f} ± {se:.2f} "
                         f"({len(vs)} valued)")
        else:
            lines.append(f"{name:45s} {len(rs):5d}  (not valued)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--harness", type=Path, default=Path("../shared/quackle"),
                    help="the Quackle harness folder (its match.py)")
    ap.add_argument("--work", type=Path, help="build.sh's work folder")
    ap.add_argument("--seed", type=int, default=900_000)
    ap.add_argument("--first-deal", type=int, default=0)
    ap.add_argument("--deals", type=int, default=10)
    ap.add_argument("--worlds", type=int, default=24, help="play-outs a choice (0: none)")
    ap.add_argument("--out", type=Path)
    ap.add_argument("--summary", type=Path, nargs="+", metavar="FILE")
    args = ap.parse_args(argv)
    if args.summary:
        print(summary(args.summary))
        return 0
    if args.out is None or args.work is None:
        ap.error("--out and --work are required")
    collect(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
