// What a streamed event changes in a match view. The event carries the squares it changed, the
// scores, the seat to move, the bag and the viewer's rack; what it does not carry (War of Words'
// effects and clouds, clocks) comes from GetMatch after it (needsRefresh).
import { create } from "@bufbuild/protobuf";
import { LeaveKind, SeatStatus, type Event } from "./gen/wordarena/v1/common_pb.js";
import { MatchStatus, PendingPlaySchema, type MatchView } from "./gen/wordarena/v1/match_pb.js";

/** Applies `ev` to `view` in place; true when it changed the viewer's rack. */
export function applyEvent(view: MatchView, ev: Event): boolean {
  const board = view.board;
  if (board) {
    for (const sq of ev.boardChanges) {
      board.squares[(sq.square?.row ?? 0) * board.cols + (sq.square?.col ?? 0)] = sq;
    }
  }
  ev.scores.forEach((score, i) => { const s = view.seats[i]; if (s) s.score = score; });
  view.toMoveSeat = ev.toMoveSeat;
  view.bagCount = ev.bagCount;
  view.lastSeq = ev.seq;
  view.gameSeq = ev.seq;
  if (ev.viewerRack) view.rack = ev.viewerRack;
  const k = ev.kind;
  switch (k.case) {
    case "playPending":
      view.pending = create(PendingPlaySchema, {
        seat: k.value.seat, deciderSeat: k.value.deciderSeat, placements: k.value.placements, breakdown: k.value.breakdown, seq: ev.seq,
      });
      break;
    case "playAccepted":
    case "playChecked":
      view.pending = undefined;
      break;
    case "playerLeft": {
      const s = view.seats[k.value.seat];
      if (s) s.status = k.value.kind === LeaveKind.RESIGNED ? SeatStatus.RESIGNED : SeatStatus.LEFT;
      break;
    }
    case "playerTimedOut":
    case "playerKicked": {
      const s = view.seats[k.value.seat];
      if (s) s.status = k.case === "playerKicked" ? SeatStatus.KICKED : SeatStatus.TIMED_OUT;
      break;
    }
    case "gameOver":
      view.result = k.value;
      view.status = MatchStatus.FINISHED;
      view.toMoveSeat = undefined;
      break;
    default:
      break;
  }
  return ev.viewerRack !== undefined;
}

/** Whether the view after `ev` holds more than the event told: War of Words' effects, clouds
 * and water; running clocks; decisions and seats dropping out. A classic or Scrabble play
 * without clocks is whole in its event. */
export function needsRefresh(view: MatchView, ev: Event): boolean {
  if (view.ruleset?.rulesetId === "warofwords") return true;
  if (view.seats.some((s) => s.clock)) return true;
  const k = ev.kind.case;
  return k !== "turnPlayed" && k !== "turnPassed" && k !== "tilesExchanged";
}
