// Typed entry: "8H WORD" (across from H8) / "H8 WORD" (down from H8), lower case for a blank,
// "." for a letter already on the board. This only turns what the player typed into squares and
// rack tiles; whether the play is legal, and its score, is the server's answer (PreviewPlay).
import type { BoardView, Tile } from "./gen/wordarena/v1/common_pb.js";
import type { Tentative } from "./board.js";

export interface Parsed {
  placements: Map<number, Tentative>;
}

export function parsePlay(text: string, board: BoardView, rack: readonly Tile[]): Parsed | string {
  const m = /^\s*(?:(\d{1,2})([A-Za-z])|([A-Za-z])(\d{1,2}))\s+(\S+)\s*$/.exec(text);
  if (!m) return "write a play as 8H WORD (across) or H8 WORD (down)";
  const across = m[1] !== undefined;
  let row = Number(across ? m[1] : m[4]) - 1;
  let col = (across ? m[2]! : m[3]!).toUpperCase().charCodeAt(0) - 65;
  const word = [...m[5]!];
  const used = new Set<number>();
  const placements = new Map<number, Tentative>();
  for (const ch of word) {
    if (row < 0 || col < 0 || row >= board.rows || col >= board.cols) return "the word runs off the board";
    const index = row * board.cols + col;
    const onBoard = board.squares[index]?.tile;
    if (ch === "." || onBoard) {
      if (!onBoard && ch === ".") return `no tile on the board at ${String.fromCharCode(65 + col)}${row + 1} for "."`;
    } else {
      const blank = ch !== ch.toUpperCase();
      const letter = ch.toUpperCase();
      const rackIndex = rack.findIndex((t, i) => !used.has(i) && (blank ? t.isBlank : !t.isBlank && t.letter === letter));
      if (rackIndex < 0) return blank ? "no blank on your rack" : `no ${letter} on your rack`;
      used.add(rackIndex);
      placements.set(index, { rackIndex, letter, isBlank: blank, tile: rack[rackIndex]! });
    }
    if (across) col += 1; else row += 1;
  }
  if (!placements.size) return "no tile of yours in that play";
  return { placements };
}
