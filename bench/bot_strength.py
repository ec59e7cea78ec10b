"""Bot strength: level 6 (simulation) against level 5, per family, with standard errors.

    nice -n 10 .venv/bin/python bench/bot_strength.py --games 40 --family classic
    nice -n 10 .venv/bin/python bench/bot_strength.py --iterations 16 --budget 0   # repeatable

Each pair of games uses one seed (game g and g+1 deal the same bag) with the levels swapping
seats, so the first player's advantage and the luck of the draw cancel out as far as they can.
Level 6 simulates ``--candidates`` plays for at most ``--iterations`` rounds within
``--budget`` seconds a move (0 = no time limit: the games are then repeatable on any machine).
Printed per family: level 6's win share (ties half) ± one standard error √(p(1−p)/n), the
average spread (level 6 − level 5) ± its standard error, games, and CPU seconds per level-6
move. ``--json FILE`` appends one line per family.

Long runs are made of pieces: ``--record FILE`` appends every game as it ends (JSON lines: the
family, seed, game index, level 6's seat, both scores, its CPU, the settings and the commit), so
a run stopped at a session's end keeps its games; ``--first G`` (even) starts at game G of the
seed's sequence, so another process or a later session plays the next deals, not the same
ones; ``--leaves TABLE`` has both levels value leaves by another table than the shipped one
(recorded by its file name); ``--report FILE…`` tallies recorded games (whole deals only,
each game once) per family and settings::

    .venv/bin/python bench/bot_strength.py --games 1000 --family scrabble --seed 161000 \
        --record bench/results/bot_strength.jsonl
    .venv/bin/python bench/bot_strength.py --report bench/results/bot_strength.jsonl

The p95 of a level-6 move through the match server (gRPC, a bot seat) is measured by
``bench/bot_latency.py``.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wordarena.engine.bots import Bot, play_game
from wordarena.engine.bots.leaves import load_leaves
from wordarena.engine.bots.simulation import PRUNES, SimSettings, mean_se
from wordarena.engine.families import get_ruleset
from wordarena.engine.lexicon import load_lexicon

FAMILIES = ("classic", "scrabble", "wordtiles", "warofwords")


@dataclass
class Tally:
    """Results of level 6 against level 5 in one family."""

    family: str
    wins: float = 0.0  # ties count half
    spreads: list[int] = field(default_factory=list)
    moves: int = 0  # level-6 moves
    cpu: float = 0.0  # CPU seconds spent in level-6 moves

    @property
    def games(self) -> int:
        return len(self.spreads)

    def share(self) -> tuple[float, float]:
        n = self.games
        p = self.wins / n if n else 0.0
        return p, math.sqrt(p * (1 - p) / n) if n else 0.0

    def spread(self) -> tuple[float, float]:
        n = self.games
        if n < 2:
            return (float(self.spreads[0]) if n else 0.0), 0.0
        m = sum(self.spreads) / n
        var = sum((x - m) ** 2 for x in self.spreads) / (n - 1)
        return m, math.sqrt(var / n)

    def add(self, mine: int, theirs: int) -> None:
        """One game's result, level 6's score first."""
        self.spreads.append(mine - theirs)
        self.wins += 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0

    def line(self) -> str:
        p, se = self.share()
        s, sse = self.spread()
        cpu = (f"{self.cpu / self.moves:.2f} s CPU per level-6 move" if self.moves
               else "CPU not recorded")
        return (
            f"{self.family:<11} level 6 vs 5: {self.games} games, wins {p:.1%} ± {se:.1%}, "
            f"spread {s:+.1f} ± {sse:.1f}, {cpu}"
        )


#: settings added after games were recorded, and the value every earlier game played with
SETTINGS_BEFORE = {"close_pool": 20, "leaves": "shipped"}


class Timed(Bot):
    """A level-6 bot that counts its moves and their CPU time."""

    tally: Tally | None = None

    def choose(self, state):  # type: ignore[no-untyped-def]
        t0 = time.process_time()
        try:
            return super().choose(state)
        finally:
            if self.tally is not None:
                self.tally.moves += 1
                self.tally.cpu += time.process_time() - t0


def commit() -> str:
    """The checkout's commit (``+`` when it has uncommitted changes): which code played."""
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], capture_output=True, text=True,
                              cwd=Path(__file__).parent, check=False).stdout.strip()
    head = git("rev-parse", "--short=12", "HEAD") or "unknown"
    # the records themselves (bench/results) change while runs append to them
    dirty = git("status", "--porcelain", "--untracked-files=no", "--", ":/", ":(top,exclude)bench/results")
    return head + ("+" if dirty else "")


def run(family: str, games: int, settings: SimSettings, seed: int, first_game: int = 0,
        record: Path | None = None, leaves: Path | None = None) -> Tally:
    """Games ``first_game`` .. ``first_game + games − 1`` of level 6 against level 5 in
    ``family`` (seats alternating), each appended to ``record`` as it ends; both levels
    value leaves by the table in ``leaves`` when given, else by the shipped one."""
    ruleset = get_ruleset(family)
    lexicon = load_lexicon(ruleset.lexicon)
    tally = Tally(family)
    version = commit()
    table = None if leaves is None else load_leaves(leaves)
    played_with = {**vars(settings), "leaves": "shipped" if leaves is None else leaves.name}
    for g in range(first_game, first_game + games):
        deal = seed + g // 2  # a pair of games per deal, the levels swapping seats
        six = Timed(6, seed + g, lexicon, sim=settings, leaves=table)
        six.tally = tally
        five = Bot(5, seed + g + 10_000, lexicon, leaves=table)
        first = g % 2  # seat of level 6
        seated = [six, five] if first == 0 else [five, six]
        cpu, moves = tally.cpu, tally.moves
        outcome = play_game(ruleset, seated, deal, lexicon)
        mine, theirs = outcome.scores[first], outcome.scores[1 - first]
        tally.add(mine, theirs)
        print(f"  {family} game {g + 1}/{first_game + games}: {mine}-{theirs}", file=sys.stderr,
              flush=True)
        if record is not None:
            line = {"family": family, "seed": seed, "game": g, "level6_seat": first,
                    "scores": [mine, theirs], "level6_moves": tally.moves - moves,
                    "level6_cpu": round(tally.cpu - cpu, 3), "settings": played_with,
                    "commit": version}
            with record.open("a", encoding="utf-8") as out:
                out.write(json.dumps(line) + "\n")
    return tally


def recorded(paths: Iterable[Path], by_commit: bool = False) -> dict[tuple[str, str, int, int], Any]:
    """The recorded games by (family, settings key — with the commit when ``by_commit`` —,
    seed, game), each once (a game recorded twice: the later record)."""
    games: dict[tuple[str, str, int, int], dict[str, Any]] = {}
    for path in paths:
        for raw in path.read_text(encoding="utf-8").splitlines():
            if raw.strip():
                g = json.loads(raw)
                # a setting added later is recorded from then on; before, its value was fixed
                key = json.dumps({**SETTINGS_BEFORE, **g["settings"]}, sort_keys=True)
                if by_commit:
                    key += f" commit {g['commit']}"
                games[(g["family"], key, g["seed"], g["game"])] = g
    return games


def whole_deals(games: dict[tuple[str, str, int, int], Any]) -> dict[tuple[str, str], list[Any]]:
    """Per (family, settings key): the games whose deal's other game was played too."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for (family, key, seed, game), g in sorted(games.items()):
        if (family, key, seed, game ^ 1) in games:
            groups.setdefault((family, key), []).append(g)
    return groups


def report(paths: Iterable[Path], by_commit: bool = False) -> list[str]:
    """Per family and settings (and commit, with ``by_commit``): the recorded games' tally,
    whole deals only (a deal's two games, the seats swapped), each (family, settings, seed,
    game) counted once, and the commits that played them."""
    lines = []
    for (family, key), played in whole_deals(recorded(paths, by_commit)).items():
        timed = [g for g in played if g.get("level6_moves")]  # games kept from a log: no CPU
        tally = Tally(family, moves=sum(g["level6_moves"] for g in timed),
                      cpu=sum(g["level6_cpu"] for g in timed))
        for g in played:
            tally.add(*g["scores"])
        seeds = sorted({g["seed"] for g in played})
        commits = sorted({g["commit"] for g in played})
        lines.append(f"{tally.line()}\n    seeds {seeds}, commits {commits}\n    settings {key}")
    return lines


def paired(paths: Iterable[Path], by_commit: bool = False) -> list[str]:
    """Every two settings that played the same games (family, seed, game; whole deals): how
    many came out identical, and the difference of the first to the second, game by game, in
    wins (ties half) and spread, each ± its standard error. Two variants on the same deals
    share each deal's luck, and many of their games are the same, so the paired difference is
    far quieter than the two tallies' (docs/bots.md). ``by_commit``: the same settings played
    by two commits count as two."""
    by_game: dict[tuple[str, int, int], dict[str, Any]] = {}
    for (family, key), played in whole_deals(recorded(paths, by_commit)).items():
        for g in played:
            by_game.setdefault((family, g["seed"], g["game"]), {})[key] = g
    pairs: dict[tuple[str, str, str], list[tuple[float, float, bool]]] = {}
    for (family, _, _), variants in sorted(by_game.items()):
        keys = sorted(variants)
        for i, a in enumerate(keys):
            for b in keys[i + 1 :]:
                ga, gb = variants[a]["scores"], variants[b]["scores"]
                pairs.setdefault((family, a, b), []).append(
                    (_win(ga) - _win(gb), (ga[0] - ga[1]) - (gb[0] - gb[1]), ga == gb))
    lines = []
    for (family, a, b), diffs in pairs.items():
        wins, wins_se = mean_se([d[0] for d in diffs])
        spread, spread_se = mean_se([d[1] for d in diffs])
        (ja, _, ca), (jb, _, cb) = a.partition(" commit "), b.partition(" commit ")
        sa, sb = {**json.loads(ja), "commit": ca}, {**json.loads(jb), "commit": cb}
        changed = sorted(k for k in {*sa, *sb} if sa.get(k) != sb.get(k))
        name = ", ".join(f"{k} {sa.get(k)} against {sb.get(k)}" for k in changed)
        lines.append(f"{family:<11} {name}: {len(diffs)} games ({sum(d[2] for d in diffs)} "
                     f"identical), wins {wins:+.1%} ± {wins_se:.1%}, spread {spread:+.1f} ± {spread_se:.1f}")
    return lines


def _win(scores: list[int]) -> float:
    return 1.0 if scores[0] > scores[1] else 0.5 if scores[0] == scores[1] else 0.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20, help="games per family (even)")
    parser.add_argument("--family", action="append", choices=FAMILIES)
    parser.add_argument("--candidates", type=int, default=SimSettings.candidates)
    parser.add_argument("--iterations", type=int, default=SimSettings.iterations)
    parser.add_argument("--budget", type=float, default=SimSettings.budget_s, help="s a move")
    parser.add_argument("--plies", type=int, default=SimSettings.plies, choices=(2, 3, 4))
    parser.add_argument("--confidence", type=float, default=SimSettings.confidence,
                        help="standard errors a challenger must beat level 5's play by")
    parser.add_argument("--prune", default=SimSettings.prune, choices=PRUNES,
                        help="what drops a clearly worse candidate (SimSettings.prune)")
    parser.add_argument("--close-pool", type=int, default=SimSettings.close_pool,
                        help="unseen tiles at or below which level 6 ranks by the win estimate")
    parser.add_argument("--leaves", type=Path, metavar="TABLE",
                        help="both levels value leaves by this table (derive fit --out)")
    parser.add_argument("--seed", type=int, default=50_000)
    parser.add_argument("--json", help="append the results to this file")
    parser.add_argument("--first", type=int, default=0,
                        help="the first game of the seed's sequence to play (even)")
    parser.add_argument("--record", type=Path, help="append every game to this JSON-lines file")
    parser.add_argument("--report", type=Path, nargs="+", metavar="FILE",
                        help="tally the games recorded in these files (plays none)")
    parser.add_argument("--paired", action="store_true",
                        help="with --report: every two settings that played the same games, "
                             "their difference game by game")
    parser.add_argument("--by-commit", action="store_true",
                        help="with --report: a tally per commit too (a deal counts when both "
                             "its games were played by one commit)")
    args = parser.parse_args(argv)
    if args.report:
        tally = paired if args.paired else report
        print("\n".join(tally(args.report, args.by_commit)))
        return 0
    if args.first % 2 or args.games % 2:
        parser.error("--first and --games must be even: a deal is two games, the seats swapped")
    settings = SimSettings(candidates=args.candidates, iterations=args.iterations,
                           budget_s=args.budget, plies=args.plies, confidence=args.confidence,
                           prune=args.prune, close_pool=args.close_pool)
    print(f"level 6 ({settings}) vs level 5, seed {args.seed}")
    for family in args.family or FAMILIES:
        tally = run(family, args.games, settings, args.seed, args.first, args.record, args.leaves)
        print(tally.line(), flush=True)
        if args.json:
            p, se = tally.share()
            s, sse = tally.spread()
            with open(args.json, "a", encoding="utf-8") as out:
                out.write(
                    json.dumps(
                        {
                            "family": family,
                            "games": tally.games,
                            "win": p,
                            "win_se": se,
                            "spread": s,
                            "spread_se": sse,
                            "cpu_per_move": tally.cpu / max(1, tally.moves),
                            "settings": vars(args),
                        }
                    )
                    + "\n"
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
