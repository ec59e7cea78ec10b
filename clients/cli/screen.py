"""The interactive game screen shared by ``wordarena play`` and ``wordarena watch``.

A background thread follows the match's event stream (reconnecting and resuming with the last seq,
with a notice); the main thread redraws the screen when something changes (and every second while
a clock runs) and reads the command line character by character, so a redraw never eats what the
player is typing.
"""

from __future__ import annotations

import contextlib
import os
import queue
import select
import sys
import termios
import threading
import time
import tty
from collections import deque
from typing import Any

from rich.console import Console, RenderableType
from rich.text import Text

from wordarena.clients.cli import effects, legend, movelog, moves, render
from wordarena.clients.cli.client import EXIT_OK, Client, ClientError
from wordarena.clients.cli.match_cmd import (
    HINDSIGHT_ASK,
    LOG_CHANNELS,
    define_text,
    hindsight_text,
    log_text,
    preview_text,
    seat_of,
    strength_text,
)
from wordarena.clients.cli.records_cmd import record_text
from wordarena.clients.cli.safe import safe_text
from wordarena.v1 import common_pb2, match_pb2

HELP = """Commands:
  8H WORD        play across from H8      H8 WORD   play down from H8
                 lower case = blank (e.g. 8H WoRD), '.' = a tile already on the board
  pass           pass the turn            swap ABC   exchange tiles ('?' = blank)
  resign         resign the match (asks you to confirm: it is a loss)
  preview PLAY   score a play first       strength PLAY    how good is this play?
  hindsight      best plays on your last turn          bag  tiles you have not seen
  hindsight sim  the same, also ranked by simulation (level 6's judgement; a second or two)
  define WORD    what a word means        chat TEXT  say something   chat  the chat history
  log            the combat log           log chat / log all   chat history / both
  record [NAME]  a player's record (you by default)    kick NAME|SEAT   kick an idle player
  legend         what the board's symbols mean
  refresh        redraw                   help       this text     quit  leave the screen"""

#: Help lines of one family only, shown after the first line of HELP.
WAR_OF_WORDS_HELP = """  * = a wildcard (any letter)
  H8 @bomb       put an action tile on H8 (rack tokens: @bomb, @3W, @portal …)
  H8 @blaster:right   a Blaster fires up, down, left or right
  8H WORD + K10 @bomb   several parts in one play, joined with + (E5 @portal + K11 @portal)
  8H WORD + C3>E5       also move your Rain or Whirlwind from C3 to E5 (never alone)
  swap ABC @bomb exchange letters and action tiles"""
WORD_TILES_HELP = """  accept / check   decide the pending play of the player before you (a failed check
                   loses the checker's turn)"""

WATCH_HELP = """Commands: chat TEXT, chat (history), log, legend, refresh, help, quit
  chat TEXT goes to the observers' channel: other watchers read it now, the players only once the
  match is over."""


class LineReader:
    """Non-blocking line input: cbreak mode on a terminal (we echo), plain lines otherwise."""

    def __init__(self, stream: Any = None) -> None:
        self.stream = stream or sys.stdin
        self.fd = self.stream.fileno()
        self.tty = os.isatty(self.fd)
        self.buffer = ""
        self._saved: Any = None
        self.eof = False

    def __enter__(self) -> LineReader:
        if self.tty:
            self._saved = termios.tcgetattr(self.fd)
            # TCSANOW, not tty's default TCSAFLUSH: that would discard what the player typed
            # while the client was still starting.
            tty.setcbreak(self.fd, termios.TCSANOW)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._saved is not None:
            termios.tcsetattr(self.fd, termios.TCSADRAIN, self._saved)

    def poll(self, timeout: float) -> tuple[list[str], bool]:
        """Lines completed within ``timeout`` seconds, and whether the typed text changed."""
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return [], False
        data = os.read(self.fd, 4096)
        if not data:
            self.eof = True
            return ([self.buffer] if self.buffer else []), False
        lines = []
        for ch in data.decode("utf-8", "replace"):
            if ch in "\r\n":
                lines.append(self.buffer)
                self.buffer = ""
            elif ch in ("\x7f", "\b"):
                self.buffer = self.buffer[:-1]
            elif ch == "\x15":  # Ctrl-U
                self.buffer = ""
            elif ch == "\x04" and not self.buffer:  # Ctrl-D
                self.eof = True
            elif ch == "\x1b" or ord(ch) < 32:
                continue
            else:
                self.buffer += ch
        return lines, True


class GameScreen:
    """One match on the screen: state, event log, notices, command handling."""

    def __init__(self, client: Client, match_id: str, *, spectator: bool = False,
                 out: Any = None, context: str = "", next_game: bool = False) -> None:
        """``context``: what the match is part of, in the title (``tournament Club night · round
        2``); ``next_game``: once the game is over, Enter asks for the player's next game
        (:attr:`wants_next`) and ``quit`` stops."""
        self.client = client
        self.context = context
        self.next_game = next_game
        self.wants_next = False
        self.match_id = match_id
        self.spectator = spectator
        self.out = out or sys.stdout
        is_tty = hasattr(self.out, "isatty") and self.out.isatty()
        width = None
        with contextlib.suppress(OSError):
            width = os.get_terminal_size(self.out.fileno()).columns
        self.console = Console(file=self.out, force_terminal=is_tty, width=max(width or 100, 80),
                               highlight=False)
        self.events: queue.Queue[tuple[str, Any]] = queue.Queue()
        self.log: deque[str] = deque(maxlen=50)
        self.notices: deque[str] = deque(maxlen=6)
        self.info: list[str | RenderableType] = []
        self._info_turn: tuple[int, int] | None = None  # whose turn it was when info was shown
        self.view = client.get_match(match_id)
        self.names = render.names_of(self.view)
        self.stop = threading.Event()
        self.finished = self.view.status == match_pb2.MATCH_STATUS_FINISHED or self.view.HasField("result")
        self.dirty = True
        self._last_draw = 0.0
        self._confirming = False  # "resign" typed: the next line answers whether to
        self._effects: list[common_pb2.Effect] = []  # the happening the last log line tells
        self._load_history()

    # -- stream ---------------------------------------------------------------------------

    def _load_history(self) -> None:
        """The last moves so far, from the stored events (a short replay of the stream)."""
        self._history_done = threading.Event()

    def _follow(self) -> None:
        try:
            for event in self.client.follow(self.match_id, 0, notice=lambda t: self.events.put(("notice", t)),
                                            stop=self.stop.is_set):
                self.events.put(("event", event))
        except ClientError as exc:
            self.events.put(("notice", f"Lost the match stream: {exc.message}"))
        except Exception as exc:  # the thread must never die silently
            self.events.put(("notice", f"Stream error: {exc}"))

    def start(self) -> None:
        """Start following the stream."""
        threading.Thread(target=self._follow, daemon=True).start()

    def refresh(self) -> None:
        """Fetch the view again."""
        try:
            self.view = self.client.get_match(self.match_id)
            self.names = render.names_of(self.view)
            if self.view.status == match_pb2.MATCH_STATUS_FINISHED or self.view.HasField("result"):
                self.finished = True
        except ClientError as exc:
            self.notices.append(f"⚠ {exc.message}")
        self.dirty = True

    def drain(self) -> None:
        """Apply what the stream thread delivered."""
        changed = False
        while True:
            try:
                kind, item = self.events.get_nowait()
            except queue.Empty:
                break
            if kind == "notice":
                self.notices.append(f"⚠ {item}")
                self.dirty = True
                continue
            if item.WhichOneof("kind") == "effect":
                self._log_effect(item.effect)
                changed = True
                continue
            self._effects = []
            line = movelog.describe_event(item, self.names)
            if line and item.WhichOneof("kind") not in ("match_started",):
                self.log.append(line)
            if item.WhichOneof("kind") == "game_over":
                self.finished = True
            changed = True
        if changed:
            self.refresh()
            self._forget_stale_info()

    def _log_effect(self, effect: common_pb2.Effect) -> None:
        """An Effect event in the move log: one line per happening (the server sends one event
        per player whose score it moved: the line grows their points, it is not repeated)."""
        if self._effects and effects.same_happening(self._effects[0], effect) and self.log:
            self._effects.append(effect)
            self.log[-1] = effects.merged_line(self._effects, self._who)
            return
        self._effects = [effect]
        self.log.append(effects.merged_line(self._effects, self._who))

    def _who(self, seat: int) -> str:
        return self.names[seat] if 0 <= seat < len(self.names) else f"seat {seat}"

    def _turn_key(self) -> tuple[int, int]:
        to_move = self.view.to_move_seat if self.view.HasField("to_move_seat") else -1
        return self.view.turn_number, to_move

    def _forget_stale_info(self) -> None:
        """Refusals about a turn that has passed ("not your turn" …) leave the screen."""
        if self.info and self._info_turn is not None and self._info_turn != self._turn_key():
            self.info = [line for line in self.info if not (isinstance(line, str) and line.startswith("✗"))]

    # -- drawing --------------------------------------------------------------------------

    def has_clock(self) -> bool:
        """True when some seat's clock runs (the screen then ticks every second)."""
        return any(s.HasField("clock") and s.clock.running for s in self.view.seats)

    def prompt(self) -> str:
        """The prompt text."""
        if self.finished and self.next_game:
            return "game over — Enter for your next game, 'quit' to stop > "
        if self.finished:
            return "game over — Enter or 'quit' to leave > "
        if self.spectator:
            return "watching > "
        if self._confirming:
            return "resign? yes / no > "
        pending = self.view.pending if self.view.HasField("pending") else None
        if pending is not None and pending.placements and pending.decider_seat in self.view.controlled_seats:
            words = render.words_text(pending.breakdown)
            return f"accept or check {words or 'the pending play'}? > "
        if self.view.HasField("to_move_seat") and self.view.to_move_seat in self.view.controlled_seats:
            return "your move > "
        return "waiting (commands still work) > "

    def draw(self, typed: str = "") -> None:
        """Redraw the whole screen and the prompt with what is typed so far."""
        screen = render.match_screen(self.view, list(self.log), [safe_text(n) for n in self.notices],
                                     title=safe_text(f"wordarena · {self.view.ruleset.ruleset_id} · "
                                                     f"match {self.match_id}"
                                                     + (f" · {self.context}" if self.context else ""))
                                     + (" · watching" if self.spectator else ""))
        with self.console.capture() as cap:
            self.console.print(screen)
            for line in self.info:
                self.console.print(Text(safe_text(line), style="cyan") if isinstance(line, str) else line)
        clear = "\x1b[H\x1b[2J" if self.console.is_terminal else "\n" + "-" * 60 + "\n"
        self.out.write(clear + cap.get() + self.prompt() + typed)
        self.out.flush()
        self.dirty = False
        self._last_draw = time.monotonic()

    # -- commands -------------------------------------------------------------------------

    def say(self, text: str) -> None:
        """Show a line under the board until the next command (or until the turn passes)."""
        self.info.append(safe_text(text))

    def _seat(self) -> int | None:
        """The seat to act for when the caller controls several (pass-and-play)."""
        if len(self.view.controlled_seats) > 1 and self.view.HasField("viewer_seat"):
            return self.view.viewer_seat
        return None

    def _help(self) -> list[str]:
        """HELP with the lines of this match's family (no action tiles outside War of Words)."""
        lines = HELP.splitlines()
        family = self.view.ruleset.family
        extra = (WAR_OF_WORDS_HELP if family == common_pb2.FAMILY_WAROFWORDS
                 else WORD_TILES_HELP if family == common_pb2.FAMILY_WORDTILES else "")
        return lines[:3] + extra.splitlines() + lines[3:]

    def _action_tiles(self) -> bool:
        return moves.has_action_tiles(self.view.ruleset)

    def _additive(self) -> bool:
        return self.view.ruleset.family == common_pb2.FAMILY_WAROFWORDS

    def _legend(self) -> RenderableType:
        rack = self.view.rack.tiles if self.view.HasField("rack") else ()
        return legend.legend_renderable(self.view.board, rack, additive=self._additive())

    def handle(self, line: str) -> bool:
        """Run one typed command; False to leave the screen."""
        line = line.strip()
        self.info = []
        self._info_turn = self._turn_key()
        self.dirty = True
        if self.finished and line.lower() in ("", "quit", "exit", "q"):
            self.wants_next = self.next_game and not line
            return False
        if not line:
            return True
        confirmed = False
        if self._confirming:  # the answer to "Resign?"
            self._confirming = False
            if line.lower() in ("yes", "y"):
                line, confirmed = "resign", True
            elif line.lower() in ("no", "n"):
                self.say("Not resigned: the game goes on.")
                return True
        head, _, rest = line.partition(" ")
        verb = head.lower()
        try:
            if verb in ("quit", "exit", "q"):
                return False
            if verb in ("help", "?"):
                self.info.extend(WATCH_HELP.splitlines() if self.spectator else self._help())
                self.info.append(self._legend())
            elif verb == "legend":
                self.info.append(self._legend())
            elif verb in ("refresh", "r"):
                self.refresh()
            elif verb == "chat" and not rest.strip():
                self._log("chat")
            elif verb == "chat":
                self.client.chat(self.match_id, rest)
            elif verb == "log":
                self._log(rest.strip().lower() or "combat")
            elif self.spectator:
                self.say("Spectators can only chat (type help)")
            elif verb in ("accept", "check"):
                decision = match_pb2.DECISION_ACCEPT if verb == "accept" else match_pb2.DECISION_CHECK
                resp = self.client.decide(self.match_id, decision, self.view.last_seq)
                self._after(resp.events)
            elif verb == "record":
                self._record(rest.strip())
            elif verb == "kick":
                resp = self.client.kick(self.match_id, seat_of(self.view, rest))
                self._after(resp.events)
            elif verb == "preview":
                play = moves.play_move(self.view.board, rest, self._action_tiles())
                placed = list(play.placements)
                resp = self.client.preview(self.match_id, placed, self._seat(),
                                           list(play.effect_moves))
                mover = self._seat()
                if mover is None and self.view.HasField("viewer_seat"):
                    mover = self.view.viewer_seat
                self.info.extend(preview_text(resp, movelog.blank_squares(placed, self.view.board),
                                              render.names_of(self.view), mover)
                                 .replace("Legal: ", "Preview: ", 1).splitlines())
            elif verb == "strength":
                placed = moves.play_placements(self.view.board, rest, self._action_tiles())
                s = self.client.strength(self.match_id, placed, self._seat())
                self.say(strength_text(s, movelog.blank_squares(placed, self.view.board)))
            elif verb == "hindsight":
                sim = rest.strip() == "sim"
                h = self.client.hindsight(self.match_id, 0, 5 if sim else HINDSIGHT_ASK, by_simulation=sim)
                self.info.extend(hindsight_text(h, shown=5).splitlines())
            elif verb == "bag":
                b = self.client.tile_bag(self.match_id)
                self.say(f"Unseen ({b.unseen_count}; {b.bag_count} in the bag): "
                         f"{render.tile_counts_text(b.unseen)}")
            elif verb == "define":
                d = self.client.define(self.match_id, rest.strip(), self.view.ruleset.language)
                self.info.extend(define_text(d).splitlines()[:8])
            elif moves.is_resign(line) and not confirmed:
                self._confirming = True
                self.say("Resign? The game ends as a loss for you. Type yes to resign; anything "
                         "else carries on.")
            else:
                move = moves.parse_move(self.view.board, line, self._action_tiles())
                resp = self.client.submit(self.match_id, move, self.view.last_seq, seat=self._seat())
                self._after(resp.events)
        except ClientError as exc:
            self.say(f"✗ {self._refusal(exc)}")
            if exc.current_seq is not None:
                self.refresh()
        return True

    def _refusal(self, exc: ClientError) -> str:
        """A refusal in words; "not your turn" names the player to move, not seat numbers."""
        if exc.rule == "NOT_YOUR_TURN":
            self.refresh()
            return render.not_your_turn(self.view)
        return exc.message

    def _log(self, channel: str) -> None:
        if channel not in LOG_CHANNELS:
            raise ClientError("log shows: log (combat log), log chat, log all")
        resp = self.client.list_log(self.match_id, LOG_CHANNELS[channel], 20)
        self.info.extend(log_text(resp, self.names, channel).splitlines())

    def _record(self, who: str) -> None:
        player_id = ""
        if who:
            seat = seat_of(self.view, who)
            player_id = next(s.player.player_id for s in self.view.seats if s.index == seat)
        resp = self.client.player_record(player_id)
        self.info.extend(record_text(resp).splitlines())

    def _after(self, events: Any) -> None:
        for line in movelog.describe_events(events, self.names):
            self.say(f"✓ {line}")
        self.refresh()

    # -- main loop ------------------------------------------------------------------------

    def run(self, reader: LineReader | None = None) -> int:
        """Show the match until the player quits (or stdin closes)."""
        self.start()
        with reader or LineReader() as rd:
            while True:
                self.drain()
                now = time.monotonic()
                if self.dirty or (self.has_clock() and not self.finished and now - self._last_draw >= 1.0):
                    self.draw(rd.buffer)
                lines, typed = rd.poll(0.2)
                if typed and rd.tty and not lines:
                    self.out.write("\r\x1b[2K" + self.prompt() + rd.buffer)
                    self.out.flush()
                for line in lines:
                    self.drain()
                    if not self.handle(line):
                        self.stop.set()
                        self.out.write("\n")
                        return EXIT_OK
                if rd.eof:
                    self.stop.set()
                    self.drain()
                    self.draw()
                    self.out.write("\n")
                    return EXIT_OK
