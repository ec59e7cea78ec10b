// The game page's controller: the view from GetMatch, the event stream (StreamMatch, resumed with
// after_seq after a reload or a dropped connection), the tiles being placed with the server's
// preview of their score, and the turns (play, pass, swap, resign, accept / check) and chat.
import type { MessageInitShape } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";
import { describeError, isCode, lobby, matchClient, requestId, type MatchClient } from "./api.js";
import { BoardGrid } from "./board.js";
import { h } from "./dom.js";
import { applyEvent, needsRefresh } from "./events.js";
import type { Event, MoveSchema } from "./gen/wordarena/v1/common_pb.js";
import { Decision, MatchStatus, type MatchView } from "./gen/wordarena/v1/match_pb.js";
import { familyName } from "./names.js";
import { parsePlay } from "./notation.js";
import { Placing } from "./placing.js";
import { moveLine, renderSeats, renderSummary, seatName, wordsOf } from "./panels.js";
import { RackView } from "./rack.js";
import { ToolsPanel } from "./analysis.js";
import { RecordDownload } from "./record.js";
import { watchersChat } from "./observers.js";

interface Saved {
  seq: string;
  moves: string[];
  chat: { text: string; observers: boolean; seq?: string }[];
  /** The watchers' channel was added to a player's chat once the match was over. */
  watchersRead?: boolean;
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
  private moves: string[] = [];
  private chat: Saved["chat"] = [];
  private watchersRead = false;
  private previewToken = 0;
  private refreshTimer: number | undefined;
  private clockTimer: number | undefined;

  private readonly placing = new Placing(() => this.view, () => this.changed(), (text) => { this.preview.textContent = text; });
  private readonly board = new BoardGrid((i) => this.placing.onSquare(i), (i, rackIndex) => this.placing.onDrop(i, rackIndex),
    (i, letter) => this.placing.onLetter(i, letter), (i) => this.placing.onErase(i));
  private readonly rack = new RackView((i) => { this.placing.onRackTile(i); this.renderRack(); });
  private readonly title = h("h1", { id: "match-title" });
  private readonly status = h("p", { class: "status", id: "status", role: "status" });
  private readonly notice = h("p", { class: "notice", id: "notice" });
  private readonly error = h("p", { class: "error", id: "error", role: "alert" });
  private readonly preview = h("p", { class: "preview", id: "preview", "aria-live": "polite" });
  /** War of Words: the view's board is irradiated (BoardView.irradiated: every letter worth 1). */
  private readonly irradiated = h("p", { class: "irradiated", id: "irradiated", hidden: true },
    "The board is irradiated (Nuclear Bomb): every letter is worth 1 point.");
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
      this.watchersRead = !!saved.watchersRead;
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
        if (this.view.status === MatchStatus.FINISHED || this.view.result) return void this.readWatchers();
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
      this.chat.push({ text: `${who}${c.observers ? " (watching)" : ""}: ${c.text}`, observers: c.observers, seq: String(ev.seq) });
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
    if (applyEvent(this.view, ev)) this.clearTentative();
    this.render();
    if (needsRefresh(this.view, ev)) this.scheduleRefresh();
  }

  /** A player's page, once the match is over: the watchers' messages it was not shown. */
  private async readWatchers(): Promise<void> {
    if (this.watchersRead || this.view.viewerSeat === undefined) return;
    try {
      const shown = new Set(this.chat.map((c) => c.seq));
      const said = (await watchersChat(this.client, this.matchId, this.abort.signal)).filter((s) => !shown.has(String(s.seq)));
      this.chat.push(...said.map((s) => ({ text: `${s.chat.sender?.displayName ?? "a watcher"} (watching): ${s.chat.text}`, observers: true, seq: String(s.seq) })));
      this.chat.sort((x, y) => Number(x.seq ?? 0) - Number(y.seq ?? 0));
      this.watchersRead = true;
      this.renderChat();
      this.save();
    } catch {
      // a player whose seat is no longer active may not read the chat (CHAT_UNAVAILABLE)
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

  private clearTentative(): void {
    this.placing.clear();
    this.preview.textContent = "";
  }

  private changed(): void {
    this.renderBoard();
    this.renderRack();
    void this.runPreview();
  }

  private async runPreview(): Promise<void> {
    const token = ++this.previewToken;
    if (!this.placing.tentative.size || this.view.viewerSeat === undefined) {
      this.preview.textContent = this.placing.hasMoves() ? "Place tiles too: moving alone is not a turn." : "";
      return;
    }
    try {
      const res = await this.client.previewPlay({ matchId: this.matchId, placements: this.placing.placements(), effectMoves: this.placing.effectMoveList() });
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
    const parsed = parsePlay(text, this.view.board, this.placing.rackTiles());
    this.placing.setTiles(typeof parsed === "string" ? new Map() : parsed.placements);
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
    if (!this.placing.tentative.size) {
      this.error.textContent = "Place tiles first (pick a rack tile, then a square), or type a play such as 8H WORD.";
      return;
    }
    await this.submit({ kind: { case: "play", value: { placements: this.placing.placements(), effectMoves: this.placing.effectMoveList() } } });
  }

  private async pass(): Promise<void> {
    await this.submit({ kind: { case: "passTurn", value: {} } });
  }

  private async swap(letters?: string): Promise<void> {
    const all = this.placing.rackTiles().map((t) => (t.isBlank ? "?" : t.letter)).join("");
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
    const saved: Saved = { seq: String(this.seq), moves: this.moves, chat: this.chat, watchersRead: this.watchersRead };
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
    const left = h("section", {}, this.title, this.status, this.notice, this.board.el, this.irradiated);
    if (player()) {
      left.append(this.rack.el, h("label", { class: "row" }, "Type a play", this.typed), this.preview, this.controls, this.pendingEl, this.error);
    } else {
      left.append(h("p", { class: "muted" }, "You are watching."), this.pendingEl, this.error);
    }
    const right = h("aside", {},
      h("section", { class: "card" }, h("h2", {}, "Players"), this.seatsEl, this.bag),
      this.summary,
      h("section", { class: "card" }, h("h2", {}, "Moves"), this.movesEl),
      this.tools(player()),
      h("section", { class: "card" }, h("h2", {}, player() ? "Chat" : "Chat (watchers' channel)"), this.chatEl,
        h("div", { class: "row" }, this.chatInput, h("button", { type: "button", id: "chat-send", onclick: () => void this.sendChat() }, "Send"))),
      h("p", {}, h("a", { href: "#/" }, "Lobby")));
    this.root.replaceChildren(h("div", { class: "game", "data-family": this.view.ruleset?.rulesetId ?? "" }, left, right));
  }

  /** Tile Bag, Hindsight, Word Strength, Define and the record download (analysis.ts, record.ts). */
  private tools(player: boolean): HTMLElement {
    const tools = new ToolsPanel({ client: () => this.client, matchId: this.matchId, view: () => this.view,
      placements: () => this.placing.placements() }, player);
    tools.el.append(new RecordDownload(() => this.client, this.matchId).el);
    return tools.el;
  }

  private render(): void {
    const v = this.view;
    this.title.textContent = `${familyName(v.ruleset?.rulesetId ?? "")} · ${v.ruleset?.language ?? ""} · ${v.board?.boardId ?? ""}`;
    const over = v.status === MatchStatus.FINISHED || !!v.result;
    const mine = v.toMoveSeat !== undefined && v.controlledSeats.includes(v.toMoveSeat);
    this.status.textContent = over ? "Game over." : v.toMoveSeat === undefined ? "" : mine ? "Your turn." : `${seatName(v, v.toMoveSeat)} to move.`;
    this.status.dataset.turn = over ? "over" : mine ? "mine" : "theirs";
    this.irradiated.hidden = !v.board?.irradiated;
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
    if (this.view.board) {
      this.board.render(this.view.board, this.placing.tentative, this.view.viewerSeat !== undefined, this.placing.marks());
    }
  }

  private renderRack(): void {
    this.rack.render(this.placing.rackTiles(), this.placing.used(), this.placing.selected, !!this.view.board?.irradiated);
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
