// The play being put together on the page: rack tiles placed on squares (by click, drag, typing
// on the board or typed notation), blanks' letters, a Blaster's direction, and War of Words'
// Rain / Whirlwind moves. It only records what the player chose; the server judges and scores it
// (PreviewPlay, SubmitTurn).
import { create } from "@bufbuild/protobuf";
import type { Tentative } from "./board.js";
import {
  ActionKind, EffectMoveSchema, Facing, PlacementSchema,
  type ActiveEffect, type EffectMove, type Placement, type Tile,
} from "./gen/wordarena/v1/common_pb.js";
import type { MatchView } from "./gen/wordarena/v1/match_pb.js";
import { actionName } from "./names.js";

export class Placing {
  tentative = new Map<number, Tentative>();
  selected: number | null = null;
  /** The player's own Rain / Whirlwind moves of this play, by effect id. */
  private effectMoves = new Map<string, { to: number; action: ActionKind }>();
  /** The effect picked up to move (its new square is the next square clicked). */
  private moving: ActiveEffect | null = null;

  /** `changed`: after any change; `say`: a hint for the player. */
  constructor(private readonly view: () => MatchView, private readonly changed: () => void,
              private readonly say: (text: string) => void) {}

  rackTiles(): Tile[] {
    return this.view().rack?.tiles ?? [];
  }

  used(): Set<number> {
    return new Set([...this.tentative.values()].map((t) => t.rackIndex));
  }

  hasMoves(): boolean {
    return this.effectMoves.size > 0;
  }

  /** The squares effects are being moved to, with a label. */
  marks(): Map<number, string> {
    return new Map([...this.effectMoves.values()].map((m) => [m.to, `${actionName(m.action)} here`]));
  }

  clear(): void {
    this.tentative.clear();
    this.effectMoves.clear();
    this.moving = null;
    this.selected = null;
  }

  /** Replaces the placed tiles (typed notation), keeping the effect moves. */
  setTiles(tiles: Map<number, Tentative>): void {
    this.tentative = tiles;
    this.selected = null;
  }

  onRackTile(i: number): void {
    this.selected = this.selected === i ? null : i;
  }

  onSquare(index: number): void {
    const view = this.view();
    const cols = view.board?.cols ?? 15;
    if (this.moving) {
      this.effectMoves.set(this.moving.effectId, { to: index, action: this.moving.action });
      this.moving = null;
      this.changed();
      return;
    }
    if (this.tentative.delete(index)) {
      this.changed();
      return;
    }
    if (this.selected === null) {
      // a click on the player's own Rain or Whirlwind picks it up, to move it with this play
      const own = view.board?.effects.find((e) => e.movable && view.controlledSeats.includes(e.ownerSeat)
        && e.origin && e.origin.row * cols + e.origin.col === index);
      if (own) {
        this.moving = own;
        this.say(`Moving the ${actionName(own.action)}: pick its new square.`);
      }
      return;
    }
    if (!view.rack || view.board?.squares[index]?.tile) return;
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

  onDrop(index: number, rackIndex: number): void {
    if (this.tentative.has(index) || this.used().has(rackIndex)) return;
    this.selected = rackIndex;
    this.onSquare(index);
  }

  /** A letter typed on a board square: that letter's rack tile, else a blank standing for it. */
  onLetter(index: number, letter: string): boolean {
    const view = this.view();
    if (!view.rack || this.tentative.has(index) || view.board?.squares[index]?.tile) return false;
    const used = this.used();
    const tiles = this.rackTiles();
    let rackIndex = tiles.findIndex((t, i) => !used.has(i) && !t.isBlank && t.letter === letter);
    if (rackIndex < 0) rackIndex = tiles.findIndex((t, i) => !used.has(i) && t.isBlank);
    const tile = tiles[rackIndex];
    if (!tile) {
      this.say(`No ${letter} on your rack.`);
      return false;
    }
    this.tentative.set(index, { rackIndex, letter, isBlank: tile.isBlank, tile });
    this.changed();
    return true;
  }

  onErase(index: number): boolean {
    if (!this.tentative.delete(index)) return false;
    this.changed();
    return true;
  }

  placements(): Placement[] {
    const cols = this.view().board?.cols ?? 15;
    return [...this.tentative.entries()].map(([index, t]) => create(PlacementSchema, {
      square: { row: Math.floor(index / cols), col: index % cols },
      letter: t.tile.action !== ActionKind.UNSPECIFIED || t.tile.isWildcard ? "" : t.letter,
      isBlank: t.isBlank, isWildcard: t.tile.isWildcard, action: t.tile.action, actionFactor: t.tile.actionFactor,
      facing: t.tile.action === ActionKind.BLASTER ? facingOf(t.letter) : Facing.UNSPECIFIED,
    }));
  }

  effectMoveList(): EffectMove[] {
    const cols = this.view().board?.cols ?? 15;
    return [...this.effectMoves.entries()].map(([effectId, m]) =>
      create(EffectMoveSchema, { effectId, to: { row: Math.floor(m.to / cols), col: m.to % cols } }));
  }
}

function facingOf(letter: string): Facing {
  return ({ U: Facing.UP, D: Facing.DOWN, L: Facing.LEFT, R: Facing.RIGHT } as Record<string, Facing>)[letter] ?? Facing.RIGHT;
}
