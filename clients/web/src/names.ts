// Names shown for the contract's ids and enums.
import { ActionKind, SceneryKind } from "./gen/wordarena/v1/common_pb.js";

const FAMILIES: Record<string, string> = {
  classic: "Classic", wordtiles: "Word Tiles", warofwords: "War of Words", scrabble: "Scrabble",
};

export function familyName(id: string): string {
  return FAMILIES[id] ?? id;
}

/** "BLACK_HOLE" -> "black hole". */
function enumWords(name: string | undefined): string {
  return (name ?? "").toLowerCase().replace(/_/g, " ");
}

export function actionName(kind: ActionKind): string {
  return enumWords(ActionKind[kind]);
}

export function sceneryName(kind: SceneryKind): string {
  return enumWords(SceneryKind[kind]);
}

/** A short mark for an action tile or effect on a square (plain text: no emoji font needed). */
export function actionMark(kind: ActionKind, factor = 0): string {
  switch (kind) {
    case ActionKind.LETTER_MULTIPLIER: return `${factor}L`;
    case ActionKind.WORD_MULTIPLIER: return `${factor}W`;
    case ActionKind.BLACK_HOLE: return "hole";
    case ActionKind.BLASTER: return "blast";
    case ActionKind.NUCLEAR_BOMB: return "nuke";
    case ActionKind.PIRATE_SHIP: return "ship";
    case ActionKind.LIGHTNING: return "bolt";
    case ActionKind.WHIRLWIND: return "wind";
    case ActionKind.SANDSTORM: return "storm";
    case ActionKind.QUICKSAND: return "qsand";
    case ActionKind.UNSPECIFIED: return "?";
    default: return actionName(kind);
  }
}
