"""Match server load benchmark: N concurrent two-player matches of real plays over loopback gRPC.

    .venv/bin/python bench/match_load.py                          # 500 matches, SQLite, 1 s think
    .venv/bin/python bench/match_load.py --matches 50 --think 0   # closed loop: capacity
    .venv/bin/python bench/match_load.py --postgres               # + PostgreSQL (127.0.0.1:5432)
    .venv/bin/python bench/match_load.py --profile /tmp/match.raw # + py-spy of the server
    .venv/bin/python bench/match_load.py --matches 100 --think 0 --procs 2 --servers 2  # 2 servers
    .venv/bin/python bench/match_load.py --procs 2 --baseline-matches 100  # + memory per further match
    .venv/bin/python bench/match_load.py --matches 200 --think 2 --tracemalloc /tmp/tm  # + Python's share

The match server (``python -m wordarena.services.match.main``) runs in its own process on a fresh SQLite
file (``--postgres``: also on a fresh PostgreSQL database, URL from WORDARENA_TEST_POSTGRES_URL,
default ``postgresql+psycopg://postgres@127.0.0.1:5432/postgres``). The load runs in
``--procs`` other processes (real gRPC clients; nothing shares the server's event loop).

Every match is a *classic* game whose moves were computed before the run with
``engine.movegen`` (the top-scoring play for the seat to move, else a pass) from the same seed
the server deals from, so every SubmitTurn is a real play the server validates and scores.
Each match has both players' streams open for the whole game; when a game ends, its slot starts
a new match, so ``--matches`` games are always in progress. Players wait a random think time
(exponential, mean ``--think`` seconds) before each turn; ``--think 0`` is a closed loop.

Printed per database, over the timed window (``--duration`` seconds after every slot started):
turns/s, SubmitTurn p50/p99 (client-side, request to answer), event-to-stream delivery p50/p99
(server event time to the moment the opponent's stream yields it), the server's peak RSS and
RSS per active match (peak minus the RSS before any match, over the matches in progress); with
``--baseline-matches M``, also the memory each match beyond M adds (a second server, M matches
offering the same turns/s: the difference of the peaks over N - M), which leaves out what a
server holds whatever its number of matches.
A figure script, not a timed test.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing as mp
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

SERVICE_TOKEN = "bench-service-token"
RULESET = "classic"

# --------------------------------------------------------------------------------------------
# Scripts: real games computed with the engine's move generator before the run.


def _script(seed: int) -> dict[str, Any]:
    from wordarena.engine.families import get_ruleset
    from wordarena.engine.game import Pass, apply, start_game
    from wordarena.engine.lexicon import load_lexicon
    from wordarena.engine.movegen import generate_moves

    ruleset = get_ruleset(RULESET, "en", None)
    state, _ = start_game(ruleset, 2, seed, load_lexicon(ruleset.lexicon), True)
    turns: list[list[Any]] = []
    while not state.over:
        seat = state.to_move
        moves = generate_moves(state)
        if moves:
            mv = moves[0]
            cols = mv.cols
            tiles = [[i // cols, i % cols, letter, bool(blank)] for i, letter, blank in mv.tiles]
            turns.append([seat, tiles])
            action: Any = mv.to_play(seat)
        else:
            turns.append([seat, None])
            action = Pass(seat)
        state, _ = apply(state, action)
    return {"seed": seed, "turns": turns}


def load_scripts(count: int, cache: bool) -> list[dict[str, Any]]:
    """``count`` game scripts (seeds 1..count), cached in the temp directory."""
    # Keyed by count only: if the engine's rules change, a stale script's plays are refused
    # (the summary counts them) — run once with --no-cache.
    path = Path(tempfile.gettempdir()) / f"wordarena-load-scripts-{count}.json"
    if cache and path.exists():
        return json.loads(path.read_text())  # type: ignore[no-any-return]
    t0 = time.perf_counter()
    with mp.get_context("spawn").Pool(os.cpu_count() or 2) as pool:
        scripts = pool.map(_script, range(1, count + 1))
    print(f"computed {count} game scripts in {time.perf_counter() - t0:.1f}s "
          f"({sum(len(s['turns']) for s in scripts)} turns)", flush=True)
    path.write_text(json.dumps(scripts))
    return scripts


# --------------------------------------------------------------------------------------------
# The load (one client process).


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(int(q * len(values)), len(values) - 1)]


async def _client(port: int, data_dir: str, slots: list[int], scripts: list[dict[str, Any]],
                  think: float, duration: float, ramp_deadline: float, channels_n: int,
                  tag: str, all_started: Any = None) -> dict[str, Any]:
    import grpc
    from google.rpc import status_pb2

    from wordarena.services.common import auth
    from wordarena.v1 import common_pb2 as c
    from wordarena.v1 import control_pb2 as ctl
    from wordarena.v1 import control_pb2_grpc, match_pb2_grpc
    from wordarena.v1 import errors_pb2 as e
    from wordarena.v1 import match_pb2 as m

    keys = auth.load_token_keys(Path(data_dir))
    target = f"127.0.0.1:{port}"
    # Distinct channel arguments give distinct HTTP/2 connections.
    channels = [grpc.aio.insecure_channel(target, options=[("grpc.channel_id", i)])
                for i in range(channels_n)]
    service_md = [("authorization", f"Bearer {SERVICE_TOKEN}")]
    latencies: list[float] = []
    delivery: list[float] = []
    counts = {"turns": 0, "refused": 0, "matches": 0, "stale": 0, "cutoffs": 0, "errors": 0}
    error_kinds: dict[str, int] = {}

    def error(where: str, err: grpc.aio.AioRpcError) -> None:
        counts["errors"] += 1
        key = f"{where}:{err.code().name}"
        if key not in error_kinds:
            print(f"first {key}: {err.details()}", file=sys.stderr, flush=True)
        error_kinds[key] = error_kinds.get(key, 0) + 1
    state = {"measuring": False, "stop": False}
    started = asyncio.Event()
    ready = {"n": 0}
    rng = random.Random(hash(tag))

    def stale_seq(err: grpc.aio.AioRpcError) -> int | None:
        for key, value in err.trailing_metadata() or ():
            if key == "grpc-status-details-bin":
                st = status_pb2.Status.FromString(value)
                for d in st.details:
                    if d.Is(e.StaleSeq.DESCRIPTOR):
                        s = e.StaleSeq()
                        d.Unpack(s)
                        return s.current_seq
        return None

    async def follow(stream: Any, first: asyncio.Event, done: asyncio.Event) -> None:
        try:
            async for msg in stream:
                ev = msg.event
                if ev.HasField("heartbeat"):
                    continue
                if ev.HasField("match_started"):
                    first.set()
                    continue
                if state["measuring"]:
                    delivery.append(time.time() - (ev.time.seconds + ev.time.nanos * 1e-9))
                if ev.HasField("game_over"):
                    break
        except grpc.aio.AioRpcError as err:
            if err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED:
                counts["cutoffs"] += 1
            elif err.code() != grpc.StatusCode.CANCELLED:
                error("StreamMatch", err)
        finally:
            first.set()
            done.set()

    local = {k: n for n, k in enumerate(slots)}

    async def slot(k: int) -> None:
        players = [f"{tag}s{k}a", f"{tag}s{k}b"]
        md = [[("authorization", f"Bearer {keys.issue(p, p, 7200)}")] for p in players]
        game = 0
        first_round = True
        while not state["stop"]:
            script = scripts[(k + game * 7) % len(scripts)]
            game += 1
            mid = f"{tag}-{k}-{game}"
            ch = channels[local[k] % len(channels)]  # this process's slots, spread evenly
            stub = match_pb2_grpc.MatchServiceStub(ch)
            control = control_pb2_grpc.MatchControlServiceStub(ch)  # as a lobby would: its own calls
            try:
                await control.CreateMatch(ctl.CreateMatchRequest(
                    match_id=mid, ruleset=c.RulesetRef(ruleset_id=RULESET), seed=script["seed"],
                    seats=[ctl.SeatAssignment(index=i, player=c.Player(player_id=p, display_name=p))
                           for i, p in enumerate(players)]), metadata=service_md)
            except grpc.aio.AioRpcError as err:
                error("CreateMatch", err)
                await asyncio.sleep(0.5)
                continue
            if state["measuring"]:
                counts["matches"] += 1
            streams, tasks, dones = [], [], []
            firsts = []
            for i in range(2):
                s = stub.StreamMatch(m.StreamMatchRequest(match_id=mid), metadata=md[i])
                f, d = asyncio.Event(), asyncio.Event()
                streams.append(s)
                firsts.append(f)
                dones.append(d)
                tasks.append(asyncio.create_task(follow(s, f, d)))
            for f in firsts:
                await f.wait()
            if first_round:
                first_round = False
                ready["n"] += 1
                if ready["n"] == len(slots):
                    started.set()
            seq = 1
            for seat, tiles in script["turns"]:
                if state["stop"]:
                    break
                if think > 0:
                    await asyncio.sleep(rng.expovariate(1.0 / think))
                if tiles is None:
                    move = c.Move(pass_turn=c.PassMove())
                else:
                    move = c.Move(play=c.PlayMove(placements=[
                        c.Placement(square=c.Square(row=r, col=col), letter=letter, is_blank=blank)
                        for r, col, letter, blank in tiles]))
                req = m.SubmitTurnRequest(match_id=mid, expected_seq=seq, request_id=uuid.uuid4().hex,
                                          move=move)
                t0 = time.perf_counter()
                try:
                    r = await stub.SubmitTurn(req, metadata=md[seat])
                except grpc.aio.AioRpcError as err:
                    cur = stale_seq(err)
                    if cur is not None:
                        counts["stale"] += 1
                        seq = cur
                    elif err.code() in (grpc.StatusCode.INVALID_ARGUMENT,
                                        grpc.StatusCode.FAILED_PRECONDITION):
                        counts["refused"] += 1
                    else:
                        error("SubmitTurn", err)
                    break
                if state["measuring"]:
                    latencies.append(time.perf_counter() - t0)
                    counts["turns"] += 1
                seq = r.last_seq
            await asyncio.wait(tasks, timeout=10)
            for s in streams:
                s.cancel()
            for t in tasks:
                t.cancel()

    async def pace() -> None:
        # Start the slots spread over the ramp so that games are out of phase.
        tasks = []
        spread = max(ramp_deadline - time.time(), 0.0)
        for k in slots:
            tasks.append(asyncio.create_task(slot(k)))
            await asyncio.sleep(spread / max(len(slots), 1))
        return tasks  # type: ignore[return-value]

    # Connected before the burst: until a connection has the server's SETTINGS (its limit of
    # 100 streams) the client does not queue past it, and the server refuses the excess.
    await asyncio.gather(*(ch.channel_ready() for ch in channels))
    tasks: Any = await pace()
    await started.wait()
    if all_started is not None:
        # The window opens once every client process has all its matches started: a burst of
        # match creations still under way elsewhere would otherwise count in this one's window.
        await asyncio.to_thread(all_started.wait)
    t_start = time.perf_counter()
    t0_wall = time.time()
    cpu0 = time.process_time()
    state["measuring"] = True
    await asyncio.sleep(duration)
    state["measuring"] = False
    wall = time.perf_counter() - t_start
    cpu = time.process_time() - cpu0
    state["stop"] = True
    await asyncio.sleep(0.2)
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    for ch in channels:
        await ch.close()
    return {"latencies": latencies, "delivery": delivery, "wall": wall, "client_cpu": cpu / wall,
            "t0": t0_wall, "t1": t0_wall + wall, "error_kinds": error_kinds,
            **counts}


def _client_proc(args: tuple[Any, ...], out: Any, all_started: Any, cpu: int | None = None) -> None:
    import gc
    import logging

    if cpu is not None:  # --pin: beside the server it drives
        os.sched_setaffinity(0, {cpu})

    logging.disable(logging.WARNING)
    # The load generator's own garbage collections would show up as server latency.
    gc.disable()
    result = asyncio.run(_client(*args, all_started=all_started))
    out.send(result)
    out.close()


# --------------------------------------------------------------------------------------------
# The server process.


def rss_kb(pid: int, field: str = "VmRSS") -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def cpu_s(pid: int) -> float:
    """User + system CPU seconds of a process (all threads)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except OSError:
        return 0.0


def _cpu_between(samples: list[tuple[float, float]], t0: float, t1: float) -> float:
    """Average CPU use (cores) of the sampled process between wall times t0 and t1."""
    inside = [s for s in samples if t0 <= s[0] <= t1]
    if len(inside) < 2:
        return float("nan")
    return (inside[-1][1] - inside[0][1]) / (inside[-1][0] - inside[0][0])


def scrape(port: int) -> dict[str, dict[float, float]]:
    """Cumulative histogram buckets of the server's SubmitTurn handling and turn seconds."""
    import urllib.request

    wanted = {'grpc_server_handling_seconds_bucket{grpc_method="SubmitTurn"': "handling",
              "wordarena_turn_seconds_bucket": "turn", "wordarena_event_append_seconds_bucket": "append"}
    out: dict[str, dict[float, float]] = {v: {} for v in wanted.values()}
    try:
        text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10).read().decode()
    except OSError:
        return out
    for line in text.splitlines():
        for prefix, name in wanted.items():
            head = prefix.split("{")[0]
            if line.startswith(head) and (("{" not in prefix) or prefix.split("{")[1] in line):
                le = line.split('le="')[1].split('"')[0]
                out[name][float(le)] = out[name].get(float(le), 0.0) + float(line.rsplit(" ", 1)[1])
    return out


def hist_quantile(before: dict[float, float], after: dict[float, float], q: float) -> float:
    """Upper bound of the bucket holding quantile ``q`` of the observations between two scrapes."""
    les = sorted(after)
    counts = [after[le] - before.get(le, 0.0) for le in les]
    if not counts or counts[-1] <= 0:
        return float("nan")
    for le, n in zip(les, counts, strict=True):
        if n >= q * counts[-1]:
            return le
    return float("inf")


# --tracemalloc: the server runs under tracemalloc and writes a snapshot on SIGUSR2 (a file
# per signal, numbered), so the bench can compare what Python holds before and during the load.
TRACED_SERVER = """
import os, runpy, signal, sys, tracemalloc
tracemalloc.start(int(sys.argv.pop(1)))
out, n = sys.argv.pop(1), [0]
def dump(*_):  # written under another name, then renamed: the bench sees only whole files
    n[0] += 1
    tracemalloc.take_snapshot().dump(f"{out}/{n[0]}.part")
    os.replace(f"{out}/{n[0]}.part", f"{out}/{n[0]}.snap")
signal.signal(signal.SIGUSR2, dump)
runpy.run_module("wordarena.services.match.main", run_name="__main__", alter_sys=True)
"""


def start_server(url: str, data_dir: Path, extra: list[str], cpu: int | None = None,
                 traced: str = "") -> tuple[subprocess.Popen[str], int, int]:
    env = dict(os.environ)
    head = ([sys.executable, "-c", TRACED_SERVER, "12", traced] if traced
            else [sys.executable, "-m", "wordarena.services.match.main"])
    cmd = [*head, "--listen", "127.0.0.1:0",
           "--database-url", url, "--data-dir", str(data_dir), "--service-token", SERVICE_TOKEN,
           "--log-level", "warning", "--log-format", "json", "--shutdown-grace", "2",
           "--metrics-listen", "127.0.0.1:0",
           "--server-id", f"bench-{uuid.uuid4().hex[:6]}", *extra]
    with open(data_dir / "server.log", "a") as log:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=log, text=True)
    if cpu is not None:  # --pin: all its threads (they start after this) on one core
        os.sched_setaffinity(proc.pid, {cpu})
    assert proc.stdout is not None
    deadline = time.time() + 60
    while time.time() < deadline:
        line = proc.stdout.readline()
        if not line and proc.poll() is not None:
            raise RuntimeError(f"match server exited: see {data_dir / 'server.log'}")
        from wordarena.services.match.main import parse_ready_line  # JSON with --log-format json

        ready = parse_ready_line(line)
        if ready is not None:
            return proc, ready[0], ready[1]
    raise RuntimeError("match server did not start")


def snapshot(args: argparse.Namespace, proc: subprocess.Popen[str]) -> None:
    """With ``--tracemalloc``: the server's next tracemalloc snapshot, written before returning."""
    if not args.tracemalloc:
        return
    n = len(list(Path(args.tracemalloc).glob("*.snap"))) + 1
    proc.send_signal(signal.SIGUSR2)
    while not (Path(args.tracemalloc) / f"{n}.snap").exists():
        time.sleep(0.2)


def traced_report(args: argparse.Namespace, top: int = 25) -> None:
    """What the server's Python held at the snapshots (1: before any match; 2: all matches
    started; 3: the end of the window) beyond the first, per match, by allocation site."""
    import tracemalloc

    snaps = [tracemalloc.Snapshot.load(str(Path(args.tracemalloc) / f"{n}.snap")) for n in (1, 2, 3)]
    for name, snap in (("all started", snaps[1]), ("end of window", snaps[2])):
        for key in ("filename", "lineno"):
            stats = snap.compare_to(snaps[0], key)
            total = sum(s.size_diff for s in stats)
            print(f"  tracemalloc, {name}: {total / args.matches / 1024:.1f} KB of Python a match; by {key}:")
            for s in stats[:top]:
                where = s.traceback[0]
                line = f":{where.lineno}" if key == "lineno" else ""
                print(f"    {s.size_diff / args.matches / 1024:6.2f} KB  "
                      f"{s.count_diff / args.matches:6.1f} blocks  "
                      f"{where.filename.split('site-packages/')[-1]}{line}")


def pin_cpu(args: argparse.Namespace, server: int) -> int | None:
    """With ``--pin``, the core of server ``server`` and of the clients that drive it."""
    if not args.pin:
        return None
    cpus = sorted(os.sched_getaffinity(0))
    return cpus[server % len(cpus)]


def run(name: str, url: str, args: argparse.Namespace, scripts: list[dict[str, Any]]) -> dict[str, Any]:
    data_dir = Path(tempfile.mkdtemp(prefix=f"wa-load-{name}-"))
    from wordarena.services.common import auth

    auth.load_token_keys(data_dir)  # the key pair, before the server and clients read it
    # --servers N: N match servers (on SQLite each its own file); client process i drives server
    # i mod N. CPU and memory are summed over the servers.
    servers = [start_server(url.replace("bench.db", f"bench-{n}.db") if n else url, data_dir,
                            args.server_arg or [], pin_cpu(args, n), args.tracemalloc if not n else "")
               for n in range(args.servers)]
    proc, _, metrics_port = servers[0]
    hist0: dict[str, dict[float, float]] = {}
    profiler = None
    try:
        time.sleep(0.5)
        rss0 = sum(rss_kb(srv[0].pid) for srv in servers)
        snapshot(args, proc)
        ramp = min(max(args.matches / 100.0, 1.0), 10.0)
        ramp_deadline = time.time() + ramp
        ctx = mp.get_context("spawn")
        procs, pipes = [], []
        all_started = ctx.Barrier(args.procs)
        for i in range(args.procs):
            slots = list(range(i, args.matches, args.procs))
            rx, tx = ctx.Pipe(duplex=False)
            p = ctx.Process(target=_client_proc, args=((servers[i % len(servers)][1], str(data_dir), slots,
                                                        scripts, args.think,
                                                        args.duration, ramp_deadline, args.channels,
                                                        f"c{i}"), tx, all_started,
                                                       pin_cpu(args, i % len(servers))))
            p.start()
            procs.append(p)
            pipes.append(rx)
        time.sleep(ramp + 2)
        hist0 = scrape(metrics_port)
        snapshot(args, proc)
        if args.profile:
            profiler = subprocess.Popen(
                [str(Path(sys.executable).parent / "py-spy"), "record", "--pid", str(proc.pid),
                 "--format", "raw", "--rate", "200", "--output", args.profile,
                 "--duration", str(int(args.duration)),
                 # --native needs the process paused while its stacks are read
                 *([] if args.profile_native else ["--nonblocking"]),
                 *(["--gil"] if args.profile_gil else []),
                 *(["--native", "--threads"] if args.profile_native else [])],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        results = []
        peak_active = 0
        samples: list[tuple[float, float]] = []
        waiting = list(pipes)
        while waiting:
            for rx, p in zip(pipes, procs, strict=True):
                if rx in waiting and rx.poll(0.5):
                    results.append(rx.recv())
                    waiting.remove(rx)
                elif rx in waiting and not p.is_alive() and not rx.poll(0):
                    raise RuntimeError(f"a client process died (exit code {p.exitcode})")
            peak_active = max(peak_active, sum(rss_kb(srv[0].pid) for srv in servers))
            samples.append((time.time(), sum(cpu_s(srv[0].pid) for srv in servers)))
        hist1 = scrape(metrics_port)
        snapshot(args, proc)
        for p in procs:
            p.join()
        peak = sum(rss_kb(srv[0].pid, "VmHWM") for srv in servers)
    finally:
        if profiler is not None:
            profiler.wait(timeout=60)
        for srv in servers:
            srv[0].send_signal(signal.SIGTERM)
        for srv in servers:
            try:
                srv[0].wait(timeout=30)
            except subprocess.TimeoutExpired:
                srv[0].kill()
        shutil.rmtree(data_dir, ignore_errors=True)
    lat = [x for r in results for x in r["latencies"]]
    dlv = [x for r in results for x in r["delivery"]]
    wall = max(r["wall"] for r in results)
    out = {k: sum(r[k] for r in results) for k in ("turns", "refused", "matches", "stale", "cutoffs",
                                                    "errors")}
    kinds: dict[str, int] = {}
    for r in results:
        for k, n in r["error_kinds"].items():
            kinds[k] = kinds.get(k, 0) + n
    out["error_kinds"] = kinds
    out.update(turns_per_s=out["turns"] / wall, p50=pct(lat, 0.5) * 1e3, p99=pct(lat, 0.99) * 1e3,
               d50=pct(dlv, 0.5) * 1e3, d99=pct(dlv, 0.99) * 1e3, peak_mb=peak / 1024,
               per_match_kb=(peak - rss0) / max(args.matches, 1), base_mb=rss0 / 1024,
               client_cpu=max(r["client_cpu"] for r in results),
               server_side={k: (hist_quantile(hist0.get(k, {}), v, 0.5) * 1e3,
                                hist_quantile(hist0.get(k, {}), v, 0.99) * 1e3) for k, v in hist1.items()},
               server_cpu=_cpu_between(samples, min(r["t0"] for r in results),
                                       max(r["t1"] for r in results)))
    return out


def print_marginal(name: str, url: str, args: argparse.Namespace, scripts: list[dict[str, Any]],
                   full: dict[str, Any]) -> None:
    """With ``--baseline-matches M``: the same turns per second offered by M matches (think time
    scaled by M / N) on a fresh server, and the memory each of the N - M more matches adds: the
    peak RSS difference over N - M. What a server holds whatever its number of matches (the
    lexicon, the buffers and arenas its turn rate keeps busy) is in both runs and cancels out."""
    small = argparse.Namespace(**{**vars(args), "matches": args.baseline_matches,
                                  "think": args.think * args.baseline_matches / args.matches,
                                  "tracemalloc": ""})
    if name == "sqlite":  # a fresh file (PostgreSQL: the same database, new matches)
        url = f"sqlite:///{tempfile.mkdtemp(prefix='wa-load-db-')}/bench.db"
    base = run(name, url, small, scripts)
    extra = (full["peak_mb"] - base["peak_mb"]) * 1024 / (args.matches - args.baseline_matches)
    print(f"  baseline: {small.matches} matches at think={small.think:.2f}s, "
          f"{base['turns_per_s']:.0f} turns/s, "
          f"peak RSS={base['peak_mb']:.0f}MB: {extra:.0f}KB per active match beyond the baseline's",
          flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--matches", type=int, default=500, help="concurrent matches (default 500)")
    ap.add_argument("--duration", type=float, default=30.0, help="timed window, seconds (default 30)")
    ap.add_argument("--think", type=float, default=1.0,
                    help="mean think time before each turn, seconds (default 1; 0 = closed loop)")
    ap.add_argument("--procs", type=int, default=1, help="client processes (default 1)")
    ap.add_argument("--servers", type=int, default=1,
                    help="match servers (default 1; needs --procs >= --servers: client process i "
                         "drives server i mod N; histograms are the first server's)")
    ap.add_argument("--channels", type=int, default=0,
                    help="gRPC connections per client process (default: one per 10 matches, so "
                         "that a connection's streams and calls stay under the server's "
                         "--max-streams-per-connection of 100; past it HTTP/2 refuses streams "
                         "with REFUSED_STREAM)")
    ap.add_argument("--scripts", type=int, default=40, help="distinct precomputed games (default 40)")
    ap.add_argument("--no-cache", action="store_true", help="recompute the game scripts")
    ap.add_argument("--postgres", action="store_true", help="also run on PostgreSQL")
    ap.add_argument("--sqlite-only", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--profile", default="", help="py-spy raw profile of the server to this file")
    ap.add_argument("--profile-gil", action="store_true",
                    help="with --profile: sample only the thread holding the GIL (Python's CPU)")
    ap.add_argument("--profile-native", action="store_true",
                    help="with --profile: include C frames (grpc's Cython, protobuf's upb, SQLite) "
                         "and one root per thread")
    ap.add_argument("--pin", action="store_true",
                    help="server i and the client processes driving it on core i mod cores "
                         "(with --servers 2 on 2 cores: each server beside its own load)")
    ap.add_argument("--server-arg", action="append", help="extra flag for the server (repeatable)")
    ap.add_argument("--tracemalloc", default="",
                    help="run the server under tracemalloc (much slower) and print what its "
                         "Python holds a match, by allocation site; snapshots go to this directory")
    ap.add_argument("--baseline-matches", type=int, default=0,
                    help="also run this many matches offering the same turns/s, and print the "
                         "memory each further match adds (peak RSS difference / match difference)")
    args = ap.parse_args()
    if not 0 <= args.baseline_matches < args.matches:
        ap.error("--baseline-matches must be below --matches")
    if args.channels <= 0:  # per match two streams, two calls and a CreateMatch: 10 matches <= 50
        args.channels = max(1, -(-args.matches // (10 * args.procs)))
    scripts = load_scripts(args.scripts, not args.no_cache)
    targets = [("sqlite", "sqlite:///{dir}/bench.db")]
    pg_name = admin = None
    if args.postgres:
        import psycopg

        admin = os.environ.get("WORDARENA_TEST_POSTGRES_URL",
                               "postgresql+psycopg://postgres@127.0.0.1:5432/postgres")
        pg_name = f"wa_load_{uuid.uuid4().hex[:8]}"
        with psycopg.connect(admin.replace("+psycopg", ""), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{pg_name}"')
        targets.append(("postgresql", admin.rsplit("/", 1)[0] + "/" + pg_name))
    try:
        for name, url in targets:
            if "{dir}" in url:
                d = tempfile.mkdtemp(prefix="wa-load-db-")
                url = url.format(dir=d)
            r = run(name, url, args, scripts)
            print(f"{name:10s} matches={args.matches} think={args.think}s procs={args.procs} "
                  f"servers={args.servers} "
                  f"window={args.duration:.0f}s turns={r['turns']} games_started={r['matches']}\n"
                  f"  turns/s={r['turns_per_s']:.0f}  SubmitTurn p50={r['p50']:.1f}ms p99={r['p99']:.1f}ms  "
                  f"stream delivery p50={r['d50']:.1f}ms p99={r['d99']:.1f}ms\n"
                  f"  server peak RSS={r['peak_mb']:.0f}MB (idle {r['base_mb']:.0f}MB, "
                  f"{r['per_match_kb']:.0f}KB per active match)  "
                  f"refused={r['refused']} stale={r['stale']} cutoffs={r['cutoffs']} errors={r['errors']} "
                  f"{r['error_kinds'] or ''}\n"
                  f"  CPU (cores): server={r['server_cpu']:.2f} client={r['client_cpu']:.2f}  "
                  f"server CPU per turn={1000 * r['server_cpu'] / max(r['turns_per_s'], 1e-9):.2f}ms\n"
                  f"  server-side histograms (bucket bounds, ms) p50/p99: " + "  ".join(
                      f"{k}={a:g}/{b:g}" for k, (a, b) in r["server_side"].items()),
                  flush=True)
            if args.tracemalloc:
                traced_report(args)
            if args.baseline_matches:
                print_marginal(name, url, args, scripts, r)
    finally:
        if pg_name and admin:
            import psycopg

            with psycopg.connect(admin.replace("+psycopg", ""), autocommit=True) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{pg_name}" WITH (FORCE)')


if __name__ == "__main__":
    main()
