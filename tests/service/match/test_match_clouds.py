"""War of Words clouds over loopback gRPC, on the Cloudy Day in the Park board.

Rule sentences (shared/rules/war-of-words-2.txt, "Persistent Tiles and Effects"):
* "Clouds obscure an area on the board approximately 5x5 in size. You can't see under clouds."
* "If you're playing any tile under a cloud, in-play scoring stops working."

A human seat (played by an engine bot through the public API, action tiles included) meets a
level-5 bot seat; a spectator streams the match. What a player may see is derived here from what
the player received, never from the server's own cloud code: the squares a cloud covers are the
rectangles of the ``clouds`` a view lists; a client following the stream keeps its board from
``match_started`` and each event's ``board_changes``, and that board must agree with ``GetMatch``
at the same seq. Every message is then checked against those squares: no tile, letter, word,
notation, premium, terrain, effect detail or error text under a cloud. What really lay under the
clouds comes from replaying the match's stored log with the engine, to show the check had
something to find and that the Tile Bag counts those hidden tiles as unseen.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

import grpc
import pytest
from match_harness import Harness, Player, violation_of

from wordarena.engine.bots import Bot
from wordarena.engine.families import parse_ruleset_id, replay
from wordarena.engine.game import Exchange, GameState, Play, apply
from wordarena.engine.game.actions import action_from_dict
from wordarena.engine.game.events import Event as EngineEvent
from wordarena.engine.placement import next_square
from wordarena.services.match import messages
from wordarena.v1 import common_pb2 as c
from wordarena.v1 import errors_pb2 as e
from wordarena.v1 import match_pb2 as m

PARK = "warofwords/en/warofwords-park"
_RULESET = parse_ruleset_id(PARK)
COLS = _RULESET.board.cols
SQUARE_NAME = re.compile(r"\b([A-Z])([1-9][0-9]?)\b")


def _move(action: Any) -> c.Move:
    if isinstance(action, Play):
        pls = []
        for p in action.placements:
            if p.letter.startswith("@"):
                kind, factor = messages.action_kind(p.letter)
                pls.append(c.Placement(square=c.Square(row=p.row, col=p.col), action=kind,
                                       action_factor=factor, facing=messages.FACING_PB.get(p.facing, 0)))
            else:
                pls.append(c.Placement(square=c.Square(row=p.row, col=p.col),
                                       letter="" if p.letter == "*" else p.letter,
                                       is_wildcard=p.letter == "*", is_blank=p.blank))
        return c.Move(play=c.PlayMove(placements=pls))
    if isinstance(action, Exchange):
        return c.Move(exchange=c.ExchangeMove(tiles=[messages.tile(_RULESET, t) for t in action.tiles]))
    return c.Move(pass_turn=c.PassMove())


# --- What the player may see, from what the player received ------------------------------------


def _area(index: int, size: int) -> set[int]:
    """The size x size square centred on ``index`` (clipped to the board)."""
    r, col, h = index // COLS, index % COLS, size // 2
    return {rr * COLS + cc for rr in range(max(0, r - h), min(COLS, r + h + 1))
            for cc in range(max(0, col - h), min(COLS, col + h + 1))}


def _index(sq: c.Square) -> int:
    return sq.row * COLS + sq.col


def _under_clouds(clouds: Any) -> frozenset[int]:
    """The squares the listed clouds cover: each cloud's rectangle, nothing else."""
    return frozenset((cl.top_left.row + dr) * COLS + cl.top_left.col + dc
                     for cl in clouds for dr in range(cl.rows) for dc in range(cl.cols))


def _names_in(text: str) -> set[int]:
    """The squares a text names (``H8``), as indexes."""
    return {(int(row) - 1) * COLS + ord(col) - ord("A") for col, row in SQUARE_NAME.findall(text)}


def _check_square(bs: c.BoardSquare, hidden: frozenset[int], what: str) -> None:
    i = _index(bs.square)
    if i in hidden:
        assert bs.hidden, f"{what}: {bs.square.notation} is under a cloud but not marked hidden"
        assert not bs.HasField("tile") and not bs.HasField("premium"), f"{what}: leak at {bs.square.notation}"
        assert bs.terrain == 0 and bs.scenery == 0 and not bs.is_star and not bs.water_patch_id, what
        assert not bs.pending, what
    else:
        assert not bs.hidden, f"{what}: {bs.square.notation} is not under a cloud but marked hidden"


def _check_view(view: m.MatchView) -> frozenset[int]:
    """Every square of a GetMatch board against the clouds the same view lists; the hidden set."""
    assert len(view.board.clouds) == 3
    hidden = _under_clouds(view.board.clouds)
    assert len(view.board.squares) == view.board.rows * view.board.cols
    for bs in view.board.squares:
        _check_square(bs, hidden, f"GetMatch at seq {view.last_seq}")
    for eff in view.board.effects:
        assert _index(eff.origin) not in hidden, f"GetMatch at seq {view.last_seq}: effect origin hidden"
    return hidden


def _portal_links(view: m.MatchView) -> dict[int, int]:
    """The open portal pairs a view shows: Portals pair in the order they were put down."""
    portals = [_index(eff.origin) for eff in view.board.effects if eff.action == c.ACTION_KIND_PORTAL]
    links: dict[int, int] = {}
    for a, b in zip(portals[0::2], portals[1::2], strict=False):
        links[a], links[b] = b, a
    return links


def _readable_words(placements: Any, squares: dict[int, c.BoardSquare], links: dict[int, int]) -> set[str]:
    """The words of a play as the player can read them: along each line through a placed
    letter (read through open portals as the rules read lines), the run of placed and visible
    tiles. A word that goes on under a cloud is longer than its readable run, so a breakdown
    spelling it matches none of these. A wildcard reads as ``?``."""
    placed = {_index(p.square): ("?" if p.is_wildcard or p.letter == "*" else p.letter.upper())
              for p in placements if not p.action}

    def letter(i: int | None) -> str | None:
        if i is None:
            return None
        if i in placed:
            return placed[i]
        bs = squares.get(i)
        if bs is None or not bs.HasField("tile"):
            return None
        return "?" if bs.tile.is_wildcard or bs.tile.letter == "*" else bs.tile.letter.upper()

    out = set()
    for i in placed:
        for across in (True, False):
            start, seen = i, {i}
            while (j := next_square(_RULESET.board, links, start, across, forward=False)) is not None \
                    and letter(j) is not None and j not in seen:
                start = j
                seen.add(j)
            run, k, seen = [], start, set()
            while k is not None and letter(k) is not None and k not in seen:
                run.append(letter(k))
                seen.add(k)
                k = next_square(_RULESET.board, links, k, across)
            if len(run) > 1:
                out.add("".join(run))  # type: ignore[arg-type]
    return out


def _runs_under_a_cloud(placements: Any, squares: dict[int, c.BoardSquare], links: dict[int, int]) -> bool:
    """Whether a line through a placed letter runs on, through placed and visible tiles, into a
    square under a cloud (the player cannot read that word whole)."""
    placed = {_index(p.square) for p in placements if not p.action}

    def filled(i: int) -> bool:
        bs = squares.get(i)
        return i in placed or (bs is not None and bs.HasField("tile"))

    for i in placed:
        for across in (True, False):
            for forward in (True, False):
                k, seen = i, {i}
                while (j := next_square(_RULESET.board, links, k, across, forward=forward)) is not None \
                        and j not in seen:
                    if squares[j].hidden:
                        return True
                    if not filled(j):
                        break
                    k = j
                    seen.add(j)
    return False


def _check_words_visible(breakdown: c.ScoreBreakdown, readable: set[str], what: str) -> None:
    """Every word a breakdown spells is one the player can read whole off the visible board."""
    for w in breakdown.words:
        assert any(len(w.word) == len(x) and all(a in ("?", b) for a, b in zip(x, w.word, strict=True))
                   for x in readable), f"{what}: the word {w.word!r} is not readable ({sorted(readable)})"


def _notation_squares(notation: str) -> set[int]:
    position, word = notation.split(" ", 1)
    across = position[0].isdigit()
    row = int(re.sub(r"[A-Z]", "", position)) - 1
    col = ord(re.sub(r"[0-9]", "", position)) - ord("A")
    return {(row + (0 if across else k)) * COLS + col + (k if across else 0) for k in range(len(word))}


class ClientBoard:
    """A client's board kept from the stream: ``match_started`` then each event's changes."""

    def __init__(self, links_around: Any) -> None:
        self.squares: dict[int, c.BoardSquare] = {}
        self.at_seq: dict[int, dict[int, c.BoardSquare]] = {}
        self.links_around = links_around  # seq -> the portal links of the views around it

    @property
    def hidden(self) -> frozenset[int]:
        return frozenset(i for i, bs in self.squares.items() if bs.hidden)

    def hidden_at(self, seq: int) -> frozenset[int]:
        """The squares under a cloud just before or just after event ``seq``."""
        before = max((s for s in self.at_seq if s < seq), default=seq)
        return frozenset(i for s in (before, seq) for i, bs in self.at_seq[s].items() if bs.hidden)

    def follow(self, ev: c.Event, stats: dict[str, int]) -> None:
        what = f"event {ev.seq} ({ev.WhichOneof('kind')})"
        before = self.hidden
        if ev.HasField("match_started"):
            board = ev.match_started.board
            hidden = _under_clouds(board.clouds)
            assert len(board.clouds) == 3
            for bs in board.squares:
                _check_square(bs, hidden, what)
                self.squares[_index(bs.square)] = bs
        for bs in ev.board_changes:
            self.squares[_index(bs.square)] = bs
            if bs.hidden:
                _check_square(bs, frozenset({_index(bs.square)}), what)
        self.at_seq[ev.seq] = dict(self.squares)
        veiled = before | self.hidden
        kind = ev.WhichOneof("kind")
        if kind == "turn_played":
            tp = ev.turn_played
            stats["plays"] += 1
            for p in tp.placements:
                assert _index(p.square) not in veiled, f"{what}: placement under a cloud"
            board_before = self.at_seq.get(ev.seq - 1, self.squares)
            readable = {w for links in self.links_around(ev.seq)
                        for w in _readable_words(tp.placements, board_before, links)}
            _check_words_visible(tp.breakdown, readable, what)
            if tp.notation:
                assert not _notation_squares(tp.notation) & veiled, f"{what}: {tp.notation} under a cloud"
            if tp.breakdown.words:
                stats["words shown"] += 1
            else:
                stats["words withheld"] += 1
        elif kind == "effect":
            eff = ev.effect
            stats["effects"] += 1
            if eff.HasField("square"):
                assert _index(eff.square) not in veiled, f"{what}: effect source hidden"
            for sq in eff.squares:
                assert _index(sq) not in veiled, f"{what}: effect names a hidden square"
            assert not _names_in(eff.reason) & veiled, f"{what}: {eff.reason!r} names a hidden square"


# --- What really lay under the clouds, from the stored log --------------------------------------


def _true_states(rt: Any, lexicon_for: Any) -> dict[int, GameState]:
    """For every stored event: the engine state after it, replayed from the log."""
    out: dict[int, GameState] = {}
    state = replay([EngineEvent.from_dict(rt.events[0].payload["engine"][0])], lexicon_for)
    for ev in rt.events:
        engine = ev.payload.get("engine") or []
        if engine and "action" in engine[0].get("data", {}):
            state = apply(state, action_from_dict(engine[0]["data"]["action"]))[0]
        out[ev.seq] = state
    return out


async def _my_turn(alice: Player, mid: str) -> m.MatchView:
    """Alice's view once it is her turn (or the match is over)."""
    async with asyncio.timeout(30):
        while True:
            view = await alice.view(mid)
            if view.status != m.MATCH_STATUS_IN_PROGRESS or view.to_move_seat == 0:
                return view
            await asyncio.sleep(0.02)


async def test_clouds_hide_what_lies_under_them_in_every_message(harness: Harness) -> None:
    """"You can't see under clouds": no message to a player or a spectator shows a tile,
    letter, word, multiplier or effect detail under a cloud; "If you're playing any tile under a
    cloud, in-play scoring stops working": PreviewPlay gives no score there, and scores every
    other play as the turn then scores it."""
    srv = await harness.start()
    mid = await harness.create(srv, ruleset=PARK, players=("alice",), bots=(5,), seed=11,
                               spectators_allowed=True)
    alice, carol = harness.player(srv, "alice"), harness.player(srv, "carol")
    streams = []
    for who in (alice, carol):
        async def read(p: Any = who) -> None:
            async for msg in p.stub.StreamMatch(m.StreamMatchRequest(match_id=mid), metadata=p.md):
                p.received.append(msg)
        streams.append(asyncio.create_task(read()))
    rt = srv.manager.matches[mid]  # the engine bot that plays alice's seat reads the true state
    me = Bot(4, seed=3, lexicon=rt.state.lexicon)
    views_seen: list[m.MatchView] = []
    bags: list[tuple[m.MatchView, m.TileBagResponse]] = []
    previews = {"refused": 0, "scored": 0}
    scored_preview: dict[int, int] = {}  # seq of the turn -> total the preview gave
    for _ in range(300):
        view = await _my_turn(alice, mid)
        if view.status != m.MATCH_STATUS_IN_PROGRESS:
            break
        views_seen += [view, (await carol.view(mid))]
        hidden = _check_view(view)
        bag = await alice.stub.TileBag(m.TileBagRequest(match_id=mid), metadata=alice.md)
        bags.append((view, bag))
        action = me.choose(rt.state)
        if isinstance(action, Play):
            pv = await alice.stub.PreviewPlay(m.PreviewPlayRequest(
                match_id=mid, placements=_move(action).play.placements), metadata=alice.md)
            alice.received.append(pv)
            assert not set(pv.violation.squares) & hidden
            assert not _names_in(pv.violation.message) & hidden, pv.violation.message
            if any(p.row * COLS + p.col in hidden for p in action.placements):
                assert pv.score_hidden and not pv.HasField("breakdown"), pv
                assert pv.violation.code == e.RULE_CODE_FEATURE_UNAVAILABLE, pv
                assert not pv.violation.words, pv
                previews["refused"] += 1
            elif pv.score_hidden:  # a word runs on under a cloud: no score, no words
                squares = {_index(bs.square): bs for bs in view.board.squares}
                assert _runs_under_a_cloud(_move(action).play.placements, squares, _portal_links(view))
                assert not pv.HasField("breakdown") and not pv.violation.words, pv
                previews["refused"] += 1
            else:
                assert pv.legal and not pv.score_hidden, pv
                squares = {_index(bs.square): bs for bs in view.board.squares}
                readable = _readable_words(_move(action).play.placements, squares, _portal_links(view))
                _check_words_visible(pv.breakdown, readable, f"PreviewPlay at seq {view.last_seq}")
                scored_preview[view.last_seq + 1] = pv.breakdown.total
                previews["scored"] += 1
                # What the action tiles will do names no clouded square and counts nothing there;
                # a tile acting next to a cloud says it may do more (reach_hidden).
                for eff in pv.effects:
                    assert not {_index(sq) for sq in eff.squares} & hidden, eff
                    assert not (eff.HasField("square") and _index(eff.square) in hidden), eff
                near = {i for p in action.placements if p.letter in ("@bomb", "@whirlwind")
                        for i in _area(p.row * COLS + p.col, 5)}
                if near & hidden:
                    assert pv.reach_hidden, pv
        await alice.submit(mid, _move(action), view.last_seq)
    assert (await alice.view(mid)).status == m.MATCH_STATUS_FINISHED
    await asyncio.wait_for(asyncio.gather(*streams), 20)
    for p in (alice, carol):
        log = await p.stub.ListLog(m.ListLogRequest(match_id=mid, page_size=200), metadata=p.md)
        p.received.append(log)

    stats = {"plays": 0, "words shown": 0, "words withheld": 0, "effects": 0}
    links_seen = sorted((v.last_seq, _portal_links(v)) for v in views_seen if v.HasField("viewer_seat"))

    def links_around(seq: int) -> list[dict[int, int]]:
        """The portal links of the last view before ``seq`` and of the first view after it."""
        before = [links for s, links in links_seen if s < seq][-1:]
        after = [links for s, links in links_seen if s >= seq][:1]
        return before + after or [{}]

    boards: dict[str, ClientBoard] = {}
    for p in (alice, carol):
        board = boards[p.player_id] = ClientBoard(links_around)
        streamed: dict[int, c.Event] = {}
        for msg in p.received:
            if isinstance(msg, m.StreamMatchResponse) and not msg.event.HasField("heartbeat"):
                board.follow(msg.event, stats)
                streamed[msg.event.seq] = msg.event
                if msg.event.HasField("turn_played") and msg.event.seq in scored_preview:
                    # The preview showed the points the turn then scored.
                    assert msg.event.turn_played.breakdown.total == scored_preview[msg.event.seq]
        for msg in p.received:
            if isinstance(msg, m.SubmitTurnResponse):  # the same events as the stream, no more
                for ev in msg.events:
                    assert ev == streamed[ev.seq]
            elif isinstance(msg, m.ListLogResponse):
                for ev in msg.events:
                    if ev.HasField("effect"):
                        hidden = board.hidden_at(ev.seq)
                        assert not _names_in(ev.effect.reason) & hidden, ev.effect.reason
                        assert not {_index(sq) for sq in ev.effect.squares} & hidden
    # The boards the clients kept from the stream are the boards GetMatch showed at that seq.
    for view in views_seen:
        kept = boards["alice" if view.HasField("viewer_seat") else "carol"].at_seq[view.last_seq]
        assert [kept[_index(bs.square)] for bs in view.board.squares] == list(view.board.squares)

    # What really lay under the clouds (the stored log, replayed): the Tile Bag counted it unseen.
    truth = _true_states(rt, srv.manager.lexicon_for)
    covered = 0
    for view, bag in bags:
        hidden = _under_clouds(view.board.clouds)
        under = sum(1 for i in hidden if truth[view.last_seq].cells[i] is not None)
        covered += under
        opponents = sum(s.rack_count for s in view.seats if s.index != view.viewer_seat)
        assert bag.unseen_count == view.bag_count + opponents + under, (view.last_seq, under)
        assert sum(tc.count for tc in bag.unseen) == bag.unseen_count
    print(stats, previews, "letters under clouds (summed over alice's turns):", covered)
    assert covered > 0
    assert previews["refused"] > 0 and previews["scored"] > 0
    assert stats["words withheld"] > 0 and stats["words shown"] > 0


def _probes(state: GameState, seat: int, hidden: frozenset[int]) -> list[tuple[Play, tuple[str, ...]]]:
    """Plays of one rack letter on a visible empty square beside a lettered square under a cloud
    whose words the word list refuses, with those words as the truth spells them: the probes
    the hostile tester sent (issue 38, finding 2). Chosen from the true state (a test driver may
    read it); what the answers may say is judged from the player's view."""
    from wordarena.engine.game.play import evaluate_play
    from wordarena.engine.placement import Placement

    letters = [t for t in dict.fromkeys(state.racks[seat]) if t.isalpha()]
    out = []
    for h in sorted(hidden):
        if state.cells[h] is None:
            continue
        r, col = divmod(h, COLS)
        for dr, dc in ((0, 1), (0, -1), (1, 0), (-1, 0)):
            rr, cc = r + dr, col + dc
            i = rr * COLS + cc
            if not (0 <= rr < _RULESET.board.rows and 0 <= cc < COLS) or i in hidden or state.cells[i]:
                continue
            for letter in letters:
                placed = (Placement(rr, cc, letter),)
                verdict = evaluate_play(state, placed, seat)
                if verdict.invalid_words:
                    out.append((Play(seat, placed), tuple(verdict.invalid_words)))
                    break
    return out


async def test_no_answer_of_any_rpc_spells_what_lies_under_a_cloud(harness: Harness) -> None:
    """Issue 38, finding 2: WordStrength (`invalid_words=['OWSEI']`), SubmitTurn's refusals ("not
    in the en word list: OWSEI") and Hindsight's best plays read letters under clouds. Every
    answer is computed from the asking player's view: a probe beside clouded letters gets no
    word and no text spelling one, and no best play or count reaches under a cloud."""
    srv = await harness.start(analysis_rate=1000.0, analysis_burst=1000)
    mid = await harness.create(srv, ruleset=PARK, players=("alice",), bots=(5,), seed=11)
    alice = harness.player(srv, "alice")
    rt = srv.manager.matches[mid]
    me = Bot(4, seed=3, lexicon=rt.state.lexicon)
    counts = {"probes": 0, "hindsights": 0, "best plays checked": 0}
    for _ in range(300):
        view = await _my_turn(alice, mid)
        if view.status != m.MATCH_STATUS_IN_PROGRESS:
            break
        hidden = _check_view(view)
        squares = {_index(bs.square): bs for bs in view.board.squares}
        links = _portal_links(view)
        for probe, true_words in _probes(rt.state, 0, hidden)[:3]:
            counts["probes"] += 1
            placements = _move(probe).play.placements
            assert _runs_under_a_cloud(placements, squares, links)  # the player cannot read it
            ws = await alice.stub.WordStrength(m.WordStrengthRequest(match_id=mid, placements=placements),
                                               metadata=alice.md)
            said = " ".join([*ws.invalid_words, *ws.violation.words, ws.violation.message,
                             *(w.word for w in ws.breakdown.words)])
            assert not any(w in said for w in true_words), (true_words, ws)
            assert not ws.invalid_words and not ws.HasField("breakdown") and not ws.rank, ws
            assert ws.violation.code == e.RULE_CODE_FEATURE_UNAVAILABLE, ws
            if ws.HasField("best"):
                assert not _runs_under_a_cloud(ws.best.play.placements, squares, links), ws.best
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await alice.submit(mid, _move(probe), view.last_seq)
            v = violation_of(refused.value)
            assert v is not None and not v.words, v
            said = " ".join([refused.value.details() or "", v.message])
            assert not any(w in said for w in true_words), (true_words, said)
            assert not _names_in(said) & hidden, said
        action = me.choose(rt.state)
        await alice.submit(mid, _move(action), view.last_seq)
        if isinstance(action, Play):
            h = await alice.stub.Hindsight(m.HindsightRequest(match_id=mid, limit=5), metadata=alice.md)
            counts["hindsights"] += 1
            for best in h.best:  # read off the board alice saw when she played that turn
                counts["best plays checked"] += 1
                assert not {_index(p.square) for p in best.play.placements} & hidden, best
                assert not _runs_under_a_cloud(best.play.placements, squares, links), best
                _check_words_visible(best.breakdown, _readable_words(best.play.placements, squares, links),
                                     f"Hindsight of seq {h.turn_seq}")
    print(counts)
    assert counts["probes"] >= 10 and counts["best plays checked"] >= 20, counts


#: Alice is dealt a Bomb on the park board (the engine's deal of this seed; checked below), and
#: after her opening word and Bob's pass a cloud lies two squares from letters on the board.
BOMB_SEED = 8


async def test_a_bomb_previewed_beside_a_cloud_tells_nothing_of_what_lies_under_it(harness: Harness) -> None:
    """PreviewPlay's ``effects`` name no clouded square and count nothing there, and a Bomb
    acting beside a cloud (a Shield under it may cover a square of the Bomb's) says it may do
    more (``reach_hidden``): what it tells, the Bomb then does, and perhaps more. A Bomb far
    from the clouds tells exactly what it does (``reach_hidden`` false)."""
    from match_harness import engine_move, pass_move

    srv = await harness.start()
    mid = await harness.create(srv, ruleset=PARK, seed=BOMB_SEED)
    alice, bob = harness.player(srv, "alice"), harness.player(srv, "bob")
    rt = srv.manager.matches[mid]  # drives Alice's opening word, never an expected value
    view = await alice.view(mid)
    assert c.ACTION_KIND_BOMB in {t.action for t in view.rack.tiles}
    await alice.submit(mid, engine_move(rt.state, 0), view.last_seq)
    await bob.submit(mid, pass_move(), (await bob.view(mid)).last_seq)

    view = await alice.view(mid)
    hidden = _check_view(view)
    letters = {_index(bs.square) for bs in view.board.squares if bs.HasField("tile") and bs.tile.letter}
    empty = [_index(bs.square) for bs in view.board.squares
             if not bs.HasField("tile") and not bs.hidden]
    beside = [i for i in empty if _area(i, 3) & letters and _area(i, 5) & hidden and not _area(i, 3) & hidden]
    far = [i for i in empty if _area(i, 3) & letters and not _area(i, 5) & hidden]
    assert beside and far, "the deal no longer puts letters beside a cloud: pick another BOMB_SEED"

    def bomb(i: int) -> list[c.Placement]:
        kind, _ = messages.action_kind("@bomb")
        return [c.Placement(square=c.Square(row=i // COLS, col=i % COLS), action=kind)]  # type: ignore[arg-type]

    away = await alice.stub.PreviewPlay(m.PreviewPlayRequest(match_id=mid, placements=bomb(far[0])),
                                        metadata=alice.md)
    assert away.legal and not away.reach_hidden and away.effects, away
    pv = await alice.stub.PreviewPlay(m.PreviewPlayRequest(match_id=mid, placements=bomb(beside[0])),
                                      metadata=alice.md)
    assert pv.legal and pv.reach_hidden, pv
    for eff in pv.effects:
        assert not {_index(sq) for sq in eff.squares} & hidden, eff
    answer = await alice.submit(mid, c.Move(play=c.PlayMove(placements=bomb(beside[0]))), view.last_seq)
    done = [ev.effect for ev in answer.events
            if ev.HasField("effect") and ev.effect.source == c.ACTION_KIND_BOMB]
    for eff in pv.effects:  # what it told, the Bomb did (it may have done more)
        same = [d for d in done if (d.kind, d.seat) == (eff.kind, eff.seat)]
        assert same and {_index(sq) for sq in eff.squares} <= {_index(sq) for d in same for sq in d.squares}
        assert sum(d.points for d in same) <= eff.points <= 0, (eff, done)
