// Draws a board view for every family: premium squares (classic, scrabble), Word Tiles colour
// squares, War of Words terrain, water electrification, scenery, stars, clouds (hidden squares),
// tiles with their owners, action tiles, and the lasting effects over the squares they cover —
// all as the server's BoardView gives them. The squares are buttons in a grid; the arrow keys
// move between them (one tab stop for the whole board).
import { h, replace } from "./dom.js";
import {
  ActionKind, PremiumKind, SceneryKind, TerrainKind, TileColour,
  type ActiveEffect, type BoardSquare, type BoardView, type Premium, type Tile,
} from "./gen/wordarena/v1/common_pb.js";
import { actionMark, actionName, sceneryName } from "./names.js";

/** A tile the player has put on the board but not played yet. */
export interface Tentative {
  rackIndex: number;
  letter: string;
  isBlank: boolean;
  tile: Tile;
}

/** The drag-and-drop data type of a rack tile (its index on the rack; rack.ts). */
export const RACK_DRAG = "application/x-wordarena-rack";

export function notation(row: number, col: number): string {
  return `${String.fromCharCode(65 + col)}${row + 1}`;
}

const COLOURS: Record<number, string> = {
  [TileColour.YELLOW]: "yellow", [TileColour.GREEN]: "green", [TileColour.BLUE]: "blue", [TileColour.RED]: "red",
};

function premiumClass(p: Premium): string {
  switch (p.kind) {
    case PremiumKind.LETTER: return p.factor >= 4 ? "p-ql" : p.factor === 3 ? "p-tl" : "p-dl";
    case PremiumKind.WORD: return p.factor >= 4 ? "p-qw" : p.factor === 3 ? "p-tw" : "p-dw";
    case PremiumKind.LETTER_AND_WORD: return "p-lw";
    case PremiumKind.COLOUR: return `c-${COLOURS[p.colour] ?? "none"}`;
    default: return "";
  }
}

function premiumText(p: Premium): string {
  if (p.label) return p.label;
  const kind = p.kind === PremiumKind.LETTER ? "L" : p.kind === PremiumKind.WORD ? "W" : "LW";
  return `${p.factor}${kind}`;
}

export function tileFace(t: Tile): { text: string; value: string; classes: string[] } {
  const classes = ["tile"];
  if (t.action !== ActionKind.UNSPECIFIED) {
    classes.push("action");
    return { text: actionMark(t.action, t.actionFactor), value: "", classes };
  }
  if (t.isBlank) classes.push("blank");
  if (t.colour !== TileColour.UNSPECIFIED) classes.push(`tc-${COLOURS[t.colour]}`);
  const letter = t.isWildcard && !t.letter ? "*" : t.letter;
  return { text: t.isBlank ? letter.toLowerCase() : letter, value: t.isBlank || t.isWildcard ? "" : String(t.value), classes };
}

export class BoardGrid {
  readonly el: HTMLElement;
  private cols = 15;
  private focusIndex = 0;

  /** Typing on the board: letters go across, or down after "/" (shown on the board). */
  private down = false;

  constructor(private readonly onSquare: (index: number) => void,
              private readonly onDrop: (index: number, rackIndex: number) => void = () => {},
              /** A letter typed on a square: true when a rack tile was put there. */
              private readonly onLetter: (index: number, letter: string) => boolean = () => false,
              /** Backspace on a square: takes back the tile the player put there. */
              private readonly onErase: (index: number) => boolean = () => false) {
    this.el = h("div", { class: "board", id: "board", role: "grid",
      "aria-label": "Board: arrow keys move, a letter puts that rack tile on the square, / turns across or down" });
    this.el.addEventListener("keydown", (ev) => this.onKey(ev));
    // a rack tile dropped on a square (rack.ts sets RACK_DRAG)
    this.el.addEventListener("dragover", (ev) => {
      if (ev.dataTransfer?.types.includes(RACK_DRAG)) ev.preventDefault();
    });
    this.el.addEventListener("drop", (ev) => {
      const square = (ev.target as HTMLElement).closest<HTMLElement>("[data-index]");
      const rackIndex = ev.dataTransfer?.getData(RACK_DRAG);
      if (!square || !rackIndex) return;
      ev.preventDefault();
      this.onDrop(Number(square.dataset.index), Number(rackIndex));
    });
  }

  /** `marks`: squares a movable effect is being moved to (their label). */
  render(board: BoardView, tentative: ReadonlyMap<number, Tentative>, selectable: boolean,
         marks: ReadonlyMap<number, string> = new Map()): void {
    this.cols = board.cols || 15;
    this.el.style.gridTemplateColumns = `repeat(${this.cols}, minmax(0, 1fr))`;
    this.el.dataset.boardId = board.boardId;
    this.el.classList.toggle("irradiated", board.irradiated);  // every letter worth 1: no face values
    const effects = new Map<number, ActiveEffect[]>();
    for (const fx of board.effects) {
      // the squares it covers, and the square it lies on (some effects list no area: a Shield)
      const squares = new Set([...fx.area, ...(fx.origin ? [fx.origin] : [])].map((sq) => sq.row * this.cols + sq.col));
      for (const i of squares) effects.set(i, [...(effects.get(i) ?? []), fx]);
    }
    const electrified = new Map(board.waterPatches.map((w) => [w.patchId, w.electrification]));
    let lastPlaced = 0n;
    for (const sq of board.squares) if (sq.tile && sq.tile.placedSeq > lastPlaced) lastPlaced = sq.tile.placedSeq;
    const cells = board.squares.map((sq, i) => {
      const cell = this.square(sq, i, tentative.get(i), effects.get(i) ?? [], electrified, lastPlaced, selectable);
      const mark = marks.get(i);
      if (mark) {
        cell.classList.add("fx-target");
        cell.append(h("span", { class: "lbl fx-mark" }, "→"));
        cell.setAttribute("aria-label", `${cell.getAttribute("aria-label")}, ${mark}`);
      }
      return cell;
    });
    const hadFocus = this.el.contains(document.activeElement);
    replace(this.el, ...cells);
    this.el.dataset.direction = this.down ? "down" : "across";
    if (hadFocus) (this.el.children[this.focusIndex] as HTMLElement | undefined)?.focus();
  }

  private square(sq: BoardSquare, index: number, tent: Tentative | undefined, fx: ActiveEffect[],
                 electrified: Map<number, number>, lastPlaced: bigint, selectable: boolean): HTMLElement {
    const row = Math.floor(index / this.cols);
    const col = index % this.cols;
    const classes = ["sq"];
    const described: string[] = [notation(row, col)];
    let label = "";
    if (sq.hidden) {
      classes.push("cloud");
      label = "☁";
      described.push("under a cloud");
    } else {
      if (sq.premium) {
        classes.push(premiumClass(sq.premium));
        label = premiumText(sq.premium);
        described.push(sq.premium.isTile ? `multiplier tile ${label}` : label);
      }
      if (sq.terrain === TerrainKind.WATER) {
        classes.push("t-water");
        const e = electrified.get(sq.waterPatchId) ?? 1;
        described.push(e > 1 ? `water ×${e}` : "water");
        if (!label && e > 1) label = `×${e}`;
      } else if (sq.terrain === TerrainKind.SAND) {
        classes.push("t-sand");
        described.push("sand");
      }
      if (sq.scenery !== SceneryKind.UNSPECIFIED) {
        const name = sceneryName(sq.scenery);
        classes.push("scenery", `s-${name.replace(/ /g, "-")}`);
        label = name.slice(0, 3);
        described.push(name);
      }
      if (sq.isStart) { classes.push("start"); described.push("start"); if (!label) label = "★"; }
      if (sq.isStar) { classes.push("star"); described.push("star"); }
    }
    for (const e of fx) {
      classes.push("fx", `fx-${actionName(e.action).replace(/ /g, "-")}`);
      described.push(`${actionName(e.action)} of seat ${e.ownerSeat + 1}${e.turnsLeft ? `, ${e.turnsLeft} turns left` : ""}`);
    }
    const tabindex = index === this.focusIndex ? 0 : -1;
    const cell = h("button", {
      type: "button", class: classes.join(" "), role: "gridcell", tabindex, "data-sq": notation(row, col),
      "data-index": index, "aria-disabled": selectable ? undefined : "true",
    });
    const tile = tent?.tile ?? sq.tile;
    if (tile) {
      const face = tileFace(tile);
      if (tent) face.classes.push("tentative");
      else {
        if (sq.pending) face.classes.push("pending");
        if (tile.placedSeq && tile.placedSeq === lastPlaced) face.classes.push("last");
        if (tile.ownerSeat !== undefined) face.classes.push(`owner-${tile.ownerSeat}`);
      }
      const arrows: Record<string, string> = { U: " ↑", D: " ↓", L: " ←", R: " →" };
      const shown = !tent ? face.text
        : tent.isBlank ? tent.letter.toLowerCase()
          : tile.action !== ActionKind.UNSPECIFIED ? face.text + (arrows[tent.letter] ?? "")
            : tent.letter || face.text;
      cell.append(h("span", { class: face.classes.join(" ") }, shown, face.value ? h("sub", {}, face.value) : null));
      described.push(tent ? `your tile ${shown}` : `tile ${shown}${sq.pending ? " (pending)" : ""}`);
    } else if (label) {
      cell.append(h("span", { class: "lbl" }, label));
    }
    const lying = fx.find((e) => e.origin?.row === row && e.origin?.col === col);
    if (lying && !tile) cell.replaceChildren(h("span", { class: "lbl fx-mark" }, actionMark(lying.action)));
    cell.setAttribute("aria-label", described.join(", "));
    cell.title = described.join(", ");
    cell.addEventListener("click", () => { this.focusIndex = index; this.onSquare(index); });
    return cell;
  }

  private onKey(ev: KeyboardEvent): void {
    const target = ev.target as HTMLElement;
    const index = Number(target.dataset.index);
    if (Number.isNaN(index)) return;
    const count = this.el.children.length;
    const along = this.down ? this.cols : 1;
    if (ev.key === "/") {
      ev.preventDefault();
      this.down = !this.down;
      this.el.dataset.direction = this.down ? "down" : "across";
      return;
    }
    if (ev.key.length === 1 && /\p{L}/u.test(ev.key) && !ev.ctrlKey && !ev.metaKey && !ev.altKey) {
      ev.preventDefault();
      // the focus moves on first (the board is drawn again at once), past tiles on the board
      let next = index + along;
      while (next < count && this.el.children[next]?.querySelector(".tile:not(.tentative)")) next += along;
      const from = this.focusIndex;
      this.focusIndex = next < count ? next : index;
      if (!this.onLetter(index, ev.key.toUpperCase())) this.focusIndex = from;
      return;
    }
    if (ev.key === "Backspace") {
      ev.preventDefault();
      if (this.onErase(index)) return;
      const back = index - along;
      if (back >= 0) { this.focusIndex = back; this.onErase(back); (this.el.children[back] as HTMLElement).focus(); }
      return;
    }
    const moves: Record<string, number> = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -this.cols, ArrowDown: this.cols };
    const step = moves[ev.key];
    if (step === undefined) return;
    ev.preventDefault();
    const next = Math.min(count - 1, Math.max(0, index + step));
    (this.el.children[index] as HTMLElement).tabIndex = -1;
    const el = this.el.children[next] as HTMLElement;
    el.tabIndex = 0;
    el.focus();
    this.focusIndex = next;
  }
}
