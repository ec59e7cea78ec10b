// The game page's controller: the view from GetMatch, the event stream (StreamMatch, resumed with
// after_seq after a reload or a dropped connection), the tiles being placed with the server's
// preview of their score, and the turns (play, pass, swap, resign, accept / check) and chat.
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";
import { describeError, isCode, lobby, matchClient, requestId, type MatchClient } from "./api.js";
import { BoardGrid, type Tentative } from "./board.js";
import { h } from "./dom.js";
import {
  ActionKind, EffectMoveSchema, Facing, LeaveKind, MoveSchema, PlacementSchema, SeatStatus,
  type ActiveEffect, type EffectMove, type Event, type Placement, type Tile,
} from "./gen/wordarena/v1/common_pb.js";
import {
  Decision, MatchStatus, PendingPlaySchema, type MatchView,
} from "./gen/wordarena/v1/match_pb.js";
import { actionName, familyName } from "./names.js";
import { parsePlay } from "./notation.js";
import { moveLine, renderSeats, renderSummary, seatName, wordsOf } from "./panels.js";
import { RackView } from "./rack.js";

interface Saved {
  seq: string;
  moves: string[];
  chat: { text: string; observers: boolean }[];
}

const storeKey = (id: string) => `wordarena.match.${id}`;

export function gameView(root: HTMLElement, matchId: string): () => void {
  const game = new Game(root, matchId);
  void game.start();
  return () => game.stop();
}

class Game {
  private client!: MatchClient;
  private view!: MatchView;
  /** The highest seq received (stream, heartbeats included, or the view). */
  private seq = 0n;
  private readonly abort = new AbortController();
  private tentative = new Map<number, Tentative>();
  private selected: number | null = null;
  /** War of Words: the player's own Rain / Whirlwind moves of this play, by effect id. */
  private effectMoves = new Map<string, { to: number; action: ActionKind }>();
  /** The effect picked to move (its new square is the next square clicked). */
  private moving: ActiveEffect | null = null;
  private moves: string[] = [];
  private chat: Saved["chat"] = [];
  private previewToken = 0;
  private refreshTimer: number | undefined;
  private clockTimer: number | undefined;

  private readonly board = new BoardGrid((i) => this.onSquare(i), (i, rackIndex) => this.onDrop(i, rackIndex),
    (i, letter) => this.onLetter(i, letter), (i) => this.onErase(i));
  private readonly rack = new RackView((i) => this.onRackTile(i));
  private readonly title = h("h1", { id: "match-title" });
  private readonly status = h("p", { class: "status", id: "status", role: "status" });
  private readonly notice = h("p", { class: "notice", id: "notice" });
  private readonly error = h("p", { class: "error", id: "error", role: "alert" });
  private readonly preview = h("p", { class: "preview", id: "preview", "aria-live": "polite" });
  private readonly typed = h("input", { id: "typed", "aria-label": "Type a play, e.g. 8H WORD, or pass / swap ABC / resign", placeholder: "8H WORD · pass · swap ABC", autocomplete: "off", spellcheck: "false" });
  private readonly seatsEl = h("ul", { class: "seats", id: "seats" });
  private readonly bag = h("p", { class: "muted", id: "bag" });
  private readonly movesEl = h("ol", { class: "moves", id: "moves", "aria-label": "Moves" });
  private readonly chatEl = h("ul", { class: "chat-log", id: "chat", "aria-label": "Chat" });
  private readonly chatInput = h("input", { id: "chat-input", "aria-label": "Chat message", maxlength: 500, autocomplete: "off" });
  private readonly pendingEl = h("div", { class: "pending-box", id: "pending", hidden: true });
  private readonly summary = h("section", { class: "card summary", id: "summary", hidden: true });
  private readonly controls = h("div", { class: "row", id: "controls" });
  private readonly playButton = h("button", { type: "button", class: "primary", id: "play", onclick: () => void this.play() }, "Play");

  constructor(private readonly root: HTMLElement, private readonly matchId: string) {}

  async start(): Promise<void> {
    this.root.replaceChildren(h("p", {}, "Opening the match…"));
    try {
      const located = await lobby.locateMatch({ matchId: this.matchId });
      this.client = await matchClient(located.assignment?.address ?? "");
      this.view = await this.fetchView();
    } catch (err) {
      this.root.replaceChildren(h("p", { class: "error", role: "alert" }, `Cannot open the match: ${describeError(err)}`),
        h("p", {}, h("a", { href: "#/" }, "Back to the lobby")));
      return;
    }
    this.layout();
    const saved = this.load();
    let after = 0n;
    if (saved) {
      this.moves = saved.moves;
      this.chat = saved.chat;
      after = BigInt(saved.seq);
      this.notice.textContent = `Reconnected: resumed after event ${after}.`;
    }
    this.seq = this.view.lastSeq;
    this.render();
    this.renderMoves();
    this.renderChat();
    this.clockTimer = window.setInterval(() => renderSeats(this.seatsEl, this.view), 1000);
    void this.follow(after);
  }

  stop(): void {
    this.abort.abort();
    window.clearInterval(this.clockTimer);
    window.clearTimeout(this.refreshTimer);
  }

  private async fetchView(): Promise<MatchView> {
    const res = await this.client.getMatch({ matchId: this.matchId }, { signal: this.abort.signal });
    if (!res.match) throw new Error("no match in the answer");
    return res.match;
  }

  // --- the stream ------------------------------------------------------------------------------

  /** Follows the match from event `after` on; events up to the view's last seq only fill the
   * move list and chat (the view already shows them); later ones change the view. On a dropped
   * stream: the view again, and the stream resumed after the last seq received. */
  private async follow(after: bigint): Promise<void> {
    let history = this.view.lastSeq;
    let attempt = 0;
    while (!this.abort.signal.aborted) {
      try {
        for await (const res of this.client.streamMatch({ matchId: this.matchId, afterSeq: after }, { signal: this.abort.signal })) {
          attempt = 0;
          const ev = res.event;
          if (!ev) continue;
          if (ev.kind.case === "heartbeat") {
            if (ev.seq > this.seq) this.seq = ev.seq;
            continue;
          }
          if (ev.seq <= after) continue;
          after = ev.seq;
          this.onEvent(ev, ev.seq <= history);
        }
        if (this.view.status === MatchStatus.FINISHED || this.view.result) return;
      } catch (err) {
        if (this.abort.signal.aborted) return;
        if (isCode(err, Code.FailedPrecondition) || isCode(err, Code.PermissionDenied) || isCode(err, Code.NotFound)) {
          this.error.textContent = describeError(err);
          return;
        }
        this.notice.textContent = `Connection lost (${describeError(err)}); reconnecting…`;
      }
      attempt += 1;
      await new Promise((r) => setTimeout(r, Math.min(5000, 250 * attempt)));
      try {
        this.view = await this.fetchView();
        history = this.view.lastSeq;
        if (this.view.lastSeq > this.seq) this.seq = this.view.lastSeq;
        this.render();
        this.notice.textContent = `Reconnected: resumed after event ${after}.`;
      } catch (err) {
        this.notice.textContent = `Reconnecting… (${describeError(err)})`;
      }
    }
  }

  private onEvent(ev: Event, historyOnly: boolean): void {
    if (ev.seq > this.seq) this.seq = ev.seq;
    if (ev.kind.case === "chat") {
      const c = ev.kind.value;
      const who = c.sender?.displayName ?? seatName(this.view, c.seat);
      this.chat.push({ text: `${who}${c.observers ? " (watching)" : ""}: ${c.text}`, observers: c.observers });
      this.renderChat();
      this.save();
      return;
    }
    const line = moveLine(this.view, ev);
    if (line) {
      this.moves.push(line);
      this.renderMoves();
    }
    this.save();
    if (historyOnly) return;
    this.apply(ev);
    this.render();
    if (this.needsRefresh(ev)) this.scheduleRefresh();
  }

  /** Whether the view after `ev` holds more than the event told: War of Words' effects, clouds
   * and water; running clocks; seats that dropped out. A classic or Scrabble play without clocks
   * is whole in its event (board changes, scores, rack, seat to move). */
  private needsRefresh(ev: Event): boolean {
    if (this.view.ruleset?.rulesetId === "warofwords") return true;
    if (this.view.seats.some((s) => s.clock)) return true;
    const k = ev.kind.case;
    return k !== "turnPlayed" && k !== "turnPassed" && k !== "tilesExchanged";
  }

  /** What an event changes in the view, at once; GetMatch after it fills in the rest (clocks,
   * effects, clouds). */
  private apply(ev: Event): void {
    const v = this.view;
    const board = v.board;
    if (board) {
      for (const sq of ev.boardChanges) {
        const r = sq.square?.row ?? 0;
        const c = sq.square?.col ?? 0;
        board.squares[r * board.cols + c] = sq;
      }
    }
    ev.scores.forEach((score, i) => { const s = v.seats[i]; if (s) s.score = score; });
    v.toMoveSeat = ev.toMoveSeat;
    v.bagCount = ev.bagCount;
    v.lastSeq = ev.seq;
    v.gameSeq = ev.seq;
    if (ev.viewerRack) {
      v.rack = ev.viewerRack;
      this.clearTentative();
    }
    const k = ev.kind;
    switch (k.case) {
      case "playPending":
        v.pending = create(PendingPlaySchema, { seat: k.value.seat, deciderSeat: k.value.deciderSeat, placements: k.value.placements, breakdown: k.value.breakdown, seq: ev.seq });
        break;
      case "playAccepted":
      case "playChecked":
        v.pending = undefined;
        break;
      case "playerLeft": {
        const s = v.seats[k.value.seat];
        if (s) s.status = k.value.kind === LeaveKind.RESIGNED ? SeatStatus.RESIGNED : SeatStatus.LEFT;
        break;
      }
      case "playerTimedOut": {
        const s = v.seats[k.value.seat];
        if (s) s.status = SeatStatus.TIMED_OUT;
        break;
      }
      case "gameOver":
        v.result = k.value;
        v.status = MatchStatus.FINISHED;
        v.toMoveSeat = undefined;
        break;
      default:
        break;
    }
  }

  private scheduleRefresh(): void {
    window.clearTimeout(this.refreshTimer);
    this.refreshTimer = window.setTimeout(async () => {
      try {
        const fresh = await this.fetchView();
        if (fresh.lastSeq >= this.view.lastSeq) {
          this.view = fresh;
          this.render();
        }
      } catch {
        // the stream's own reconnection reports trouble
      }
    }, 200);
  }

  // --- placing tiles ---------------------------------------------------------------------------

  private rackTiles(): Tile[] {
    return this.view.rack?.tiles ?? [];
  }

  private onRackTile(i: number): void {
    this.selected = this.selected === i ? null : i;
    this.renderRack();
  }

  private onSquare(index: number): void {
    const cols = this.view.board?.cols ?? 15;
    if (this.moving) {
      this.effectMoves.set(this.moving.effectId, { to: index, action: this.moving.action });
      this.moving = null;
      this.changed();
      return;
    }
    if (this.tentative.has(index)) {
      this.tentative.delete(index);
      this.changed();
      return;
    }
    if (this.selected === null) {
      // a click on the player's own Rain or Whirlwind picks it up, to move it with this play
      const own = this.view.board?.effects.find((e) => e.movable && this.view.controlledSeats.includes(e.ownerSeat)
        && e.origin && e.origin.row * cols + e.origin.col === index);
      if (own) {
        this.moving = own;
        this.preview.textContent = `Moving the ${actionName(own.action)}: pick its new square.`;
      }
      return;
    }
    if (!this.view.rack) return;
    const square = this.view.board?.squares[index];
    if (square?.tile) return;
    const tile = this.rackTiles()[this.selected];
    if (!tile) return;
    let letter = tile.letter;
    if (tile.isBlank) {
      const answer = window.prompt("Which letter does the blank stand for?", "")?.trim().toUpperCase();
      if (!answer) return;
      letter = answer;
    } else if (tile.action === ActionKind.BLASTER) {
      // the direction it fires, kept as U / D / L / R (facingOf)
      const answer = window.prompt("Which way does the Blaster fire? (up, down, left, right)", "right")?.trim().toUpperCase();
      if (!answer || !"UDLR".includes(answer[0]!)) return;
      letter = answer[0]!;
    }
    this.tentative.set(index, { rackIndex: this.selected, letter, isBlank: tile.isBlank, tile });
    this.selected = null;
    this.changed();
  }

  private onDrop(index: number, rackIndex: number): void {
    if (this.tentative.has(index) || [...this.tentative.values()].some((t) => t.rackIndex === rackIndex)) return;
    this.selected = rackIndex;
    this.onSquare(index);
  }

  /** A letter typed on a board square: that letter's rack tile, else a blank standing for it. */
  private onLetter(index: number, letter: string): boolean {
    if (!this.view.rack || this.tentative.has(index) || this.view.board?.squares[index]?.tile) return false;
    const used = new Set([...this.tentative.values()].map((t) => t.rackIndex));
    const tiles = this.rackTiles();
    let rackIndex = tiles.findIndex((t, i) => !used.has(i) && !t.isBlank && t.letter === letter);
    if (rackIndex < 0) rackIndex = tiles.findIndex((t, i) => !used.has(i) && t.isBlank);
    const tile = tiles[rackIndex];
    if (!tile) {
      this.preview.textContent = `No ${letter} on your rack.`;
      return false;
    }
    this.tentative.set(index, { rackIndex, letter, isBlank: tile.isBlank, tile });
    this.changed();
    return true;
  }

  private onErase(index: number): boolean {
    if (!this.tentative.delete(index)) return false;
    this.changed();
    return true;
  }

  private clearTentative(): void {
    this.tentative.clear();
    this.effectMoves.clear();
    this.moving = null;
    this.selected = null;
    this.preview.textContent = "";
  }

  private changed(): void {
    this.renderBoard();
    this.renderRack();
    void this.runPreview();
  }

  private placements(): Placement[] {
    const cols = this.view.board?.cols ?? 15;
    return [...this.tentative.entries()].map(([index, t]) => {
      return create(PlacementSchema, {
        square: { row: Math.floor(index / cols), col: index % cols },
        letter: t.tile.action !== ActionKind.UNSPECIFIED || t.tile.isWildcard ? "" : t.letter,
        isBlank: t.isBlank, isWildcard: t.tile.isWildcard, action: t.tile.action, actionFactor: t.tile.actionFactor,
        facing: t.tile.action === ActionKind.BLASTER ? facingOf(t.letter) : Facing.UNSPECIFIED,
      });
    });
  }

  private effectMoveList(): EffectMove[] {
    const cols = this.view.board?.cols ?? 15;
    return [...this.effectMoves.entries()].map(([effectId, m]) =>
      create(EffectMoveSchema, { effectId, to: { row: Math.floor(m.to / cols), col: m.to % cols } }));
  }

  private async runPreview(): Promise<void> {
    const token = ++this.previewToken;
    if (!this.tentative.size || this.view.viewerSeat === undefined) {
      this.preview.textContent = this.effectMoves.size ? "Place tiles too: moving alone is not a turn." : "";
      return;
    }
    try {
      const res = await this.client.previewPlay({ matchId: this.matchId, placements: this.placements(), effectMoves: this.effectMoveList() });
      if (token !== this.previewToken) return;
      if (res.scoreHidden) this.preview.textContent = "No score shown: the play reaches under a cloud.";
      else if (res.legal) this.preview.textContent = `${res.breakdown?.total ?? 0} points: ${wordsOf(res.breakdown)}`;
      else {
        const why = res.violation?.message || res.violation?.codeName || "not a legal play";
        this.preview.textContent = res.breakdown ? `${why} (${res.breakdown.total} points if it were)` : why;
      }
    } catch (err) {
      if (token === this.previewToken) this.preview.textContent = describeError(err);
    }
  }

  private onTyped(): void {
    const text = this.typed.value.trim();
    if (!text || /^(pass|swap|resign|accept|check)\b/i.test(text) || !this.view.board) return;
    const parsed = parsePlay(text, this.view.board, this.rackTiles());
    this.tentative = typeof parsed === "string" ? new Map() : parsed.placements;
    this.selected = null;
    this.renderBoard();
    this.renderRack();
    if (typeof parsed === "string") this.preview.textContent = parsed;
    else void this.runPreview();
  }

  private async onTypedEnter(): Promise<void> {
    const text = this.typed.value.trim();
    const [word, ...rest] = text.split(/\s+/);
    switch (word?.toLowerCase()) {
      case "pass": return this.pass();
      case "swap": return this.swap(rest.join(""));
      case "resign": return this.resign();
      case "accept": return this.decide(Decision.ACCEPT);
      case "check": return this.decide(Decision.CHECK);
      default: return this.play();
    }
  }

  // --- turns -----------------------------------------------------------------------------------

  private async submit(move: MessageInitShape<typeof MoveSchema>): Promise<boolean> {
    this.error.textContent = "";
    try {
      const res = await this.client.submitTurn({ matchId: this.matchId, expectedSeq: this.seq, requestId: requestId(), move });
      if (res.rack && this.view) this.view.rack = res.rack;
      this.clearTentative();
      this.typed.value = "";
      this.render();
      return true;
    } catch (err) {
      this.error.textContent = describeError(err);
      return false;
    }
  }

  private async play(): Promise<void> {
    if (!this.tentative.size) {
      this.error.textContent = "Place tiles first (pick a rack tile, then a square), or type a play such as 8H WORD.";
      return;
    }
    await this.submit({ kind: { case: "play", value: { placements: this.placements(), effectMoves: this.effectMoveList() } } });
  }

  private async pass(): Promise<void> {
    await this.submit({ kind: { case: "passTurn", value: {} } });
  }

  private async swap(letters?: string): Promise<void> {
    const all = this.rackTiles().map((t) => (t.isBlank ? "?" : t.letter)).join("");
    const answer = letters || window.prompt("Tiles to swap (letters; ? for a blank):", all);
    if (!answer) return;
    const tiles = [...answer.replace(/\s+/g, "").toUpperCase()].map((ch) => ({ letter: ch, isBlank: ch === "?" }));
    await this.submit({ kind: { case: "exchange", value: { tiles } } });
  }

  private async resign(): Promise<void> {
    if (!window.confirm("Resign this game? It counts as a loss.")) return;
    await this.submit({ kind: { case: "resign", value: {} } });
  }

  private async decide(decision: Decision): Promise<void> {
    this.error.textContent = "";
    try {
      await this.client.decidePending({ matchId: this.matchId, expectedSeq: this.seq, requestId: requestId(), decision });
    } catch (err) {
      this.error.textContent = describeError(err);
    }
  }

  private async sendChat(): Promise<void> {
    const text = this.chatInput.value.trim();
    if (!text) return;
    this.error.textContent = "";
    try {
      await this.client.sendChat({ matchId: this.matchId, requestId: requestId(), text });
      this.chatInput.value = "";
    } catch (err) {
      this.error.textContent = describeError(err);
    }
  }

  // --- persistence across reloads ----------------------------------------------------------------

  private save(): void {
    const saved: Saved = { seq: String(this.seq), moves: this.moves, chat: this.chat };
    try {
      sessionStorage.setItem(storeKey(this.matchId), JSON.stringify(saved));
    } catch {
      // storage full or off: a reload then replays the match from its start
    }
  }

  private load(): Saved | null {
    try {
      const raw = sessionStorage.getItem(storeKey(this.matchId));
      return raw ? (JSON.parse(raw) as Saved) : null;
    } catch {
      return null;
    }
  }

  // --- drawing ---------------------------------------------------------------------------------

  private layout(): void {
    const player = () => this.view.viewerSeat !== undefined;
    this.typed.addEventListener("input", () => this.onTyped());
    this.typed.addEventListener("keydown", (ev) => { if (ev.key === "Enter") { ev.preventDefault(); void this.onTypedEnter(); } });
    this.chatInput.addEventListener("keydown", (ev) => { if (ev.key === "Enter") { ev.preventDefault(); void this.sendChat(); } });
    this.controls.append(
      this.playButton,
      h("button", { type: "button", id: "clear", onclick: () => { this.clearTentative(); this.typed.value = ""; this.changed(); } }, "Clear"),
      h("button", { type: "button", id: "pass", onclick: () => void this.pass() }, "Pass"),
      h("button", { type: "button", id: "swap", onclick: () => void this.swap() }, "Swap"),
      h("button", { type: "button", id: "resign", onclick: () => void this.resign() }, "Resign"));
    const left = h("section", {}, this.title, this.status, this.notice, this.board.el);
    if (player()) {
      left.append(this.rack.el, h("label", { class: "row" }, "Type a play", this.typed), this.preview, this.controls, this.pendingEl, this.error);
    } else {
      left.append(h("p", { class: "muted" }, "You are watching."), this.pendingEl, this.error);
    }
    const right = h("aside", {},
      h("section", { class: "card" }, h("h2", {}, "Players"), this.seatsEl, this.bag),
      this.summary,
      h("section", { class: "card" }, h("h2", {}, "Moves"), this.movesEl),
      h("section", { class: "card" }, h("h2", {}, player() ? "Chat" : "Chat (watchers' channel)"), this.chatEl,
        h("div", { class: "row" }, this.chatInput, h("button", { type: "button", id: "chat-send", onclick: () => void this.sendChat() }, "Send"))),
      h("p", {}, h("a", { href: "#/" }, "Lobby")));
    this.root.replaceChildren(h("div", { class: "game", "data-family": this.view.ruleset?.rulesetId ?? "" }, left, right));
  }

  private render(): void {
    const v = this.view;
    this.title.textContent = `${familyName(v.ruleset?.rulesetId ?? "")} · ${v.ruleset?.language ?? ""} · ${v.board?.boardId ?? ""}`;
    const over = v.status === MatchStatus.FINISHED || !!v.result;
    const mine = v.toMoveSeat !== undefined && v.controlledSeats.includes(v.toMoveSeat);
    this.status.textContent = over ? "Game over." : v.toMoveSeat === undefined ? "" : mine ? "Your turn." : `${seatName(v, v.toMoveSeat)} to move.`;
    this.status.dataset.turn = over ? "over" : mine ? "mine" : "theirs";
    this.bag.textContent = `${v.bagCount} tiles in the bag${v.bonusLetter ? ` · bonus letter ${v.bonusLetter}` : ""}`;
    renderSeats(this.seatsEl, v);
    this.renderBoard();
    this.renderRack();
    this.renderPending();
    renderSummary(this.summary, v, v.result);
    for (const b of this.controls.querySelectorAll("button")) b.disabled = over;
    this.typed.disabled = over;
  }

  private renderBoard(): void {
    const marks = new Map([...this.effectMoves.values()].map((m) => [m.to, `${actionName(m.action)} here`]));
    if (this.view.board) this.board.render(this.view.board, this.tentative, this.view.viewerSeat !== undefined, marks);
  }

  private renderRack(): void {
    const used = new Set([...this.tentative.values()].map((t) => t.rackIndex));
    this.rack.render(this.rackTiles(), used, this.selected);
  }

  private renderPending(): void {
    const p = this.view.pending;
    if (!p) {
      this.pendingEl.hidden = true;
      this.pendingEl.replaceChildren();
      return;
    }
    this.pendingEl.hidden = false;
    const words = wordsOf(p.breakdown);
    this.pendingEl.replaceChildren(h("p", {}, `${seatName(this.view, p.seat)} played ${words} for ${p.breakdown?.total ?? 0}; ${seatName(this.view, p.deciderSeat)} decides.`));
    if (this.view.controlledSeats.includes(p.deciderSeat)) {
      this.pendingEl.append(h("div", { class: "row" },
        h("button", { type: "button", id: "accept", class: "primary", onclick: () => void this.decide(Decision.ACCEPT) }, `Accept ${words}`),
        h("button", { type: "button", id: "check", onclick: () => void this.decide(Decision.CHECK) }, `Check ${words}`)));
    }
  }

  private renderMoves(): void {
    this.movesEl.replaceChildren(...this.moves.map((m) => h("li", {}, m)));
    this.movesEl.scrollTop = this.movesEl.scrollHeight;
  }

  private renderChat(): void {
    this.chatEl.replaceChildren(...this.chat.map((c) => h("li", { class: c.observers ? "obs" : "" }, c.text)));
    this.chatEl.scrollTop = this.chatEl.scrollHeight;
  }
}

function facingOf(letter: string): Facing {
  return ({ U: Facing.UP, D: Facing.DOWN, L: Facing.LEFT, R: Facing.RIGHT } as Record<string, Facing>)[letter] ?? Facing.RIGHT;
}
