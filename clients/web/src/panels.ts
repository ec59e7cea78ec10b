// The game page's side panels: seats with scores and clocks, the move list, chat, the pending
// Word Tiles play, the game-over summary. Everything a player typed goes in as text.
import { h, replace } from "./dom.js";
import { notation } from "./board.js";
import { actionName } from "./names.js";
import {
  ActionKind, CheckResult, GameOverReason, LeaveKind, Outcome, SeatStatus,
  type Event, type GameOver, type Placement, type ScoreBreakdown, type Seat,
} from "./gen/wordarena/v1/common_pb.js";
import type { MatchView } from "./gen/wordarena/v1/match_pb.js";

export function seatName(view: MatchView, seat: number | undefined): string {
  if (seat === undefined) return "someone";
  const p = view.seats[seat]?.player;
  if (!p) return `seat ${seat + 1}`;
  return p.bot ? `${p.displayName || "bot"} (bot ${p.botLevel})` : p.displayName;
}

function clockText(seat: Seat): string {
  const c = seat.clock;
  if (!c?.remaining) return "";
  let ms = Number(c.remaining.seconds) * 1000 + c.remaining.nanos / 1e6;
  if (c.running && c.asOf) ms -= Date.now() - (Number(c.asOf.seconds) * 1000 + c.asOf.nanos / 1e6);
  const s = Math.max(0, Math.round(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

export function renderSeats(el: HTMLElement, view: MatchView): void {
  replace(el, ...view.seats.map((s) => {
    const classes = [s.index === view.toMoveSeat ? "to-move" : "", s.status !== SeatStatus.ACTIVE && s.status !== SeatStatus.UNSPECIFIED ? "inactive" : ""];
    const you = view.viewerSeat === s.index ? " (you)" : "";
    return h("li", { class: classes.filter(Boolean).join(" "), "data-seat": s.index },
      h("span", { class: "name" }, seatName(view, s.index) + you),
      h("span", { class: "clock" }, clockText(s)),
      h("span", { class: "score", "data-score": s.score }, String(s.score)));
  }));
}

export function wordsOf(b: ScoreBreakdown | undefined): string {
  return (b?.words ?? []).map((w) => w.word).join(", ");
}

/** One line of the move list for a game event; null for events that are not moves. */
export function moveLine(view: MatchView, ev: Event): string | null {
  const k = ev.kind;
  switch (k.case) {
    case "turnPlayed": {
      const moved = k.value.effectMoves.map((e) => `, ${e.effectId.split("@")[0]} moved to ${e.to ? notation(e.to.row, e.to.col) : "?"}`);
      return `${seatName(view, k.value.seat)}: ${k.value.notation || placed(k.value.placements)} for ${k.value.points}${moved.join("")}`;
    }
    case "turnPassed": return `${seatName(view, k.value.seat)} passed`;
    case "tilesExchanged": return `${seatName(view, k.value.seat)} swapped ${k.value.count}`;
    case "playPending":
      return `${seatName(view, k.value.seat)} played ${wordsOf(k.value.breakdown)} for ${k.value.breakdown?.total ?? 0} (waiting for ${seatName(view, k.value.deciderSeat)})`;
    case "playAccepted": return `${seatName(view, k.value.deciderSeat)} accepted: ${k.value.points} to ${seatName(view, k.value.seat)}`;
    case "playChecked":
      return k.value.result === CheckResult.HELD
        ? `${seatName(view, k.value.checkerSeat)} checked: the play held, ${k.value.points} to ${seatName(view, k.value.seat)}`
        : `${seatName(view, k.value.checkerSeat)} checked: ${k.value.invalidWords.join(", ")} not a word, the play is taken back`;
    case "playerTimedOut": return `${seatName(view, k.value.seat)} ran out of time`;
    case "playerLeft": return `${seatName(view, k.value.seat)} ${k.value.kind === LeaveKind.RESIGNED ? "resigned" : "left"}`;
    case "playerKicked": return `${seatName(view, k.value.seat)} was kicked for idleness`;
    case "effect": return `⚔ ${k.value.reason}`;
    case "gameOver": return `Game over: ${reasonText(k.value.reason)}`;
    default: return null;
  }
}

/** A play the server wrote no notation for (War of Words action tiles alone): what lies where. */
function placed(placements: readonly Placement[]): string {
  return placements.map((p) => {
    const at = p.square ? notation(p.square.row, p.square.col) : "";
    return p.action !== ActionKind.UNSPECIFIED ? `${actionName(p.action)} at ${at}` : `${p.letter} at ${at}`;
  }).join(", ");
}

function reasonText(r: GameOverReason): string {
  switch (r) {
    case GameOverReason.OUT_OF_TILES: return "a player went out";
    case GameOverReason.SCORELESS_TURNS: return "too many scoreless turns";
    case GameOverReason.PLAYERS_LEFT: return "fewer than two players remain";
    case GameOverReason.TIMEOUT: return "time ran out";
    case GameOverReason.ABORTED: return "stopped by the service";
    default: return "ended";
  }
}

const OUTCOMES: Record<number, string> = {
  [Outcome.WIN]: "won", [Outcome.LOSS]: "lost", [Outcome.TIE]: "tied", [Outcome.NO_RESULT]: "no result",
};

export function renderSummary(el: HTMLElement, view: MatchView, result: GameOver | undefined): void {
  if (!result) {
    el.hidden = true;
    el.replaceChildren();
    return;
  }
  el.hidden = false;
  const rows = result.finalScores.map((f) => h("tr", { "data-seat": f.seat },
    h("td", {}, seatName(view, f.seat)), h("td", {}, String(f.finalScore)),
    h("td", {}, f.rackPenalty ? String(f.rackPenalty) : ""), h("td", {}, f.rackBonus ? `+${f.rackBonus}` : ""),
    h("td", { class: "outcome" }, OUTCOMES[f.outcome] ?? "")));
  const winners = result.winnerSeats.map((s) => seatName(view, s)).join(" and ");
  replace(el,
    h("h2", {}, "Game over"),
    h("p", { id: "winner" }, winners ? `${winners} won (${reasonText(result.reason)}).` : `No winner (${reasonText(result.reason)}).`),
    h("table", {}, h("tr", {}, h("th", {}, "Player"), h("th", {}, "Score"), h("th", {}, "Rack"), h("th", {}, "Bonus"), h("th", {}, "")), ...rows),
    h("p", {}, h("a", { href: "#/" }, "Back to the lobby")));
}
