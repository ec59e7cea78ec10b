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

/** A short mark for an action tile or effect on a square. */
export function actionMark(kind: ActionKind, factor = 0): string {
  switch (kind) {
    case ActionKind.LETTER_MULTIPLIER: return `${factor}L`;
    case ActionKind.WORD_MULTIPLIER: return `${factor}W`;
    case ActionKind.BOMB: return "💣";
    case ActionKind.BLASTER: return "⇶";
    case ActionKind.BLACK_HOLE: return "◉";
    case ActionKind.FIRE: return "🔥";
    case ActionKind.LIGHTNING: return "⚡";
    case ActionKind.WHIRLWIND: return "🌀";
    case ActionKind.NUCLEAR_BOMB: return "☢";
    case ActionKind.POISON: return "☠";
    case ActionKind.MEDIC: return "✚";
    case ActionKind.RAIN: return "☔";
    case ActionKind.SHIELD: return "🛡";
    case ActionKind.STAR: return "★";
    case ActionKind.QUICKSAND: return "≋";
    case ActionKind.PORTAL: return "◎";
    case ActionKind.PIRATE_SHIP: return "⛵";
    case ActionKind.SANDSTORM: return "🌪";
    default: return "?";
  }
}
