// The game page's tools: Tile Bag, Hindsight, Word Strength and Define. Every answer is the match
// server's (TileBag, Hindsight, WordStrength, Define over gRPC-Web), shown as it comes: the page
// generates no moves and counts no tiles itself. Tile Bag, Hindsight and Word Strength are a
// player's (the server refuses spectators); Define is anyone's.
import { describeError, type MatchClient } from "./api.js";
import { h, replace } from "./dom.js";
import { ActionKind, type Placement, type Tile } from "./gen/wordarena/v1/common_pb.js";
import type { AnalysedPlay, HindsightResponse, MatchView, TileBagResponse, WordStrengthResponse, DefineResponse } from "./gen/wordarena/v1/match_pb.js";
import { actionName } from "./names.js";
import { wordsOf } from "./panels.js";

export interface ToolsHost {
  client(): MatchClient;
  readonly matchId: string;
  view(): MatchView;
  /** The play being put together on the board (what Word Strength judges). */
  placements(): Placement[];
}

/** How many of the best plays Hindsight asks for (the server allows 1..20). */
const HINDSIGHT_LIMIT = 10;

/** A tile as a word: its letter, "?" for a blank, "*" for a wildcard, an action tile's name. */
export function tileName(t: Tile | undefined): string {
  if (!t) return "";
  if (t.action !== ActionKind.UNSPECIFIED) {
    const name = actionName(t.action);
    return t.actionFactor ? `${name} ×${t.actionFactor}` : name;
  }
  if (t.isBlank) return "?";
  if (t.isWildcard) return "*";
  return t.letter;
}

function leaveText(tiles: readonly Tile[]): string {
  return tiles.map(tileName).join(" ");
}

/** A play as the server wrote it: its notation (War of Words action tiles: named with the square). */
function playText(a: AnalysedPlay): string {
  if (a.notation) return a.notation;
  return (a.play?.placements ?? []).map((p) => `${p.action ? actionName(p.action) : p.letter} at ${p.square?.notation ?? ""}`).join(", ");
}

/** The server's best plays in its order, the same word for the same score and leave at several
 * squares one row (an opening lies at many): each with the squares it was listed at. */
function samePlaysOnce(best: readonly AnalysedPlay[]): { play: AnalysedPlay; positions: string[] }[] {
  const rows = new Map<string, { play: AnalysedPlay; positions: string[] }>();
  best.forEach((a, i) => {
    const [position = "", ...word] = a.notation.split(" ");
    const key = a.notation ? `${word.join(" ")}|${a.breakdown?.total ?? 0}|${leaveText(a.leave)}` : `#${i}`;
    const row = rows.get(key) ?? { play: a, positions: [] };
    rows.set(key, row);
    if (a.notation && !row.positions.includes(position)) row.positions.push(position);
  });
  return [...rows.values()];
}

export class ToolsPanel {
  readonly el: HTMLElement;
  private readonly out = h("div", { class: "tool-out", id: "tool-out", "aria-live": "polite" });
  private readonly defineWord = h("input", { id: "define-word", "aria-label": "Word to define", maxlength: 32, autocomplete: "off", spellcheck: "false", placeholder: "word" });
  private token = 0;

  constructor(private readonly host: ToolsHost, player: boolean) {
    const buttons = h("div", { class: "row", role: "group", "aria-label": "Analysis" });
    if (player) {
      buttons.append(
        h("button", { type: "button", id: "tool-bag", onclick: () => void this.tileBag() }, "Tile bag"),
        h("button", { type: "button", id: "tool-hindsight", onclick: () => void this.hindsight() }, "Hindsight"),
        h("button", { type: "button", id: "tool-strength", onclick: () => void this.strength() }, "Word strength"));
    }
    this.defineWord.addEventListener("keydown", (ev) => { if (ev.key === "Enter") { ev.preventDefault(); void this.define(); } });
    const define = h("div", { class: "row" }, this.defineWord,
      h("button", { type: "button", id: "define-go", onclick: () => void this.define() }, "Define"));
    this.el = h("section", { class: "card tools", id: "tools", "aria-label": "Tools" },
      h("h2", {}, "Tools"), player ? buttons : null, define, this.out);
  }

  /** Runs one tool: its answer replaces the last one; a later tool's answer wins over an earlier
   * one still on its way. */
  private async run<T>(title: string, kind: string, call: () => Promise<T>, show: (res: T) => Node[]): Promise<void> {
    const token = ++this.token;
    replace(this.out, h("h3", {}, title), h("p", { class: "muted" }, "Asking the server…"));
    this.out.dataset.tool = kind;
    this.out.dataset.state = "busy";
    try {
      const res = await call();
      if (token !== this.token) return;
      replace(this.out, h("h3", {}, title), ...show(res));
      this.out.dataset.state = "done";
    } catch (err) {
      if (token !== this.token) return;
      replace(this.out, h("h3", {}, title), h("p", { class: "error", id: "tool-error" }, describeError(err)));
      this.out.dataset.state = "error";
    }
  }

  async tileBag(): Promise<void> {
    const { matchId } = this.host;
    await this.run("Tile bag", "bag", () => this.host.client().tileBag({ matchId }), (res: TileBagResponse) => [
      h("p", { id: "bag-summary", "data-unseen": res.unseenCount, "data-bag": res.bagCount, "data-racks": res.opponentRackCount },
        `Unseen ${res.unseenCount}: ${res.bagCount} in the bag, ${res.opponentRackCount} on other racks.`),
      h("ul", { class: "bag-tiles", id: "bag-tiles", "aria-label": "Unseen tiles" },
        ...res.unseen.map((tc) => h("li", { "data-tile": tileName(tc.tile), "data-count": tc.count },
          h("span", { class: "bag-tile" }, tileName(tc.tile)), h("span", { class: "bag-count" }, `×${tc.count}`)))),
    ]);
  }

  async hindsight(): Promise<void> {
    const { matchId } = this.host;
    await this.run("Hindsight: your last turn", "hindsight",
      () => this.host.client().hindsight({ matchId, limit: HINDSIGHT_LIMIT }), (res: HindsightResponse) => {
        const nodes: Node[] = [h("p", { id: "hindsight-count", "data-count": res.legalPlayCount },
          `${res.legalPlayCount} legal ${res.legalPlayCount === 1 ? "play" : "plays"} (event ${res.turnSeq}).`)];
        if (res.played) {
          nodes.push(h("p", { id: "hindsight-played", "data-rank": res.playedRank },
            `You played ${playText(res.played)} for ${res.played.breakdown?.total ?? 0} (rank ${res.playedRank}).`));
        } else {
          nodes.push(h("p", { id: "hindsight-played", "data-rank": 0 }, "You did not play tiles on that turn."));
        }
        nodes.push(h("ol", { class: "hindsight", id: "hindsight-best", "aria-label": "Best plays" },
          ...samePlaysOnce(res.best).map(({ play: a, positions }) => {
            const leave = leaveText(a.leave);
            const shown = positions.length > 1 ? `${positions.join(" / ")} ${a.notation.split(" ").slice(1).join(" ")}` : playText(a);
            return h("li", { "data-notation": playText(a), "data-score": a.breakdown?.total ?? 0, "data-positions": positions.length },
              h("span", { class: "play" }, shown), " ", h("strong", {}, String(a.breakdown?.total ?? 0)),
              leave ? h("span", { class: "muted" }, ` leave ${leave}`) : null);
          })));
        return nodes;
      });
  }

  async strength(): Promise<void> {
    const placements = this.host.placements();
    if (!placements.length) {
      this.token++;
      replace(this.out, h("h3", {}, "Word strength"),
        h("p", { class: "error", id: "tool-error" }, "Place a play on the board (or type it) first: Word strength judges it."));
      this.out.dataset.tool = "strength";
      this.out.dataset.state = "error";
      return;
    }
    const { matchId } = this.host;
    await this.run("Word strength", "strength",
      () => this.host.client().wordStrength({ matchId, placements }), (res: WordStrengthResponse) => {
        const total = res.breakdown?.total ?? 0;
        let verdict: string;
        if (res.valid) {
          verdict = `Valid: ${total} points (${wordsOf(res.breakdown)}); rank ${res.rank} of ${res.legalPlayCount}, `
            + `the best scores ${res.bestScore}; it beats ${Math.round(res.percentile * 100)}% of the plays.`;
        } else {
          const why: string[] = [];
          if (res.invalidWords.length) why.push(`not words: ${res.invalidWords.join(", ")}`);
          if (res.violation && (res.violation.code || res.violation.codeName)) why.push(res.violation.message || res.violation.codeName);
          verdict = `Not valid: ${why.join("; ") || "not a legal play"} (the best available scores ${res.bestScore}).`;
        }
        const nodes: Node[] = [h("p", { id: "strength-verdict", "data-valid": String(res.valid), "data-rank": res.rank,
          "data-count": res.legalPlayCount, "data-best": res.bestScore }, verdict)];
        if (res.best) {
          nodes.push(h("p", { id: "strength-best", "data-notation": playText(res.best), "data-score": res.best.breakdown?.total ?? 0 },
            `Best alternative: ${playText(res.best)} for ${res.best.breakdown?.total ?? 0}.`));
        }
        return nodes;
      });
  }

  async define(): Promise<void> {
    const word = this.defineWord.value.trim();
    if (!word) {
      this.defineWord.focus();
      return;
    }
    const language = this.host.view().ruleset?.language ?? "";
    await this.run(`Define ${word}`, "define",
      () => this.host.client().define({ word, language }), (res: DefineResponse) => [
        h("p", { id: "define-head" }, h("strong", {}, res.word), res.source ? h("span", { class: "muted" }, ` (${res.source})`) : null),
        h("ol", { id: "define-list", "aria-label": `Definitions of ${res.word}` },
          ...res.definitions.map((d) => h("li", {},
            d.partOfSpeech ? h("em", {}, `${d.partOfSpeech}: `) : null, d.text,
            ...d.examples.map((e) => h("span", { class: "muted" }, ` “${e}”`))))),
      ]);
  }
}
