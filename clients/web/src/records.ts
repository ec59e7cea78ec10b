// Player records (#/record for the player, #/player/ID for anyone: GetPlayerRecord) and the
// leaderboard (#/leaderboard: GetLeaderboard, per game and period, paged, with the player's own
// line). Every figure is the lobby's.
import { describeError, lobby } from "./api.js";
import { h, replace } from "./dom.js";
import { LeaderboardPeriod, type LeaderboardEntry, type PlayerRecord } from "./gen/wordarena/v1/lobby_pb.js";
import { familyName } from "./names.js";

export const rating = (r: PlayerRecord | undefined) =>
  r?.rating ? `${r.rating.rating.toFixed(0)} ±${r.rating.deviation.toFixed(0)}` : "";
const wlt = (r: PlayerRecord | undefined) => `${r?.wins ?? 0}-${r?.losses ?? 0}-${r?.ties ?? 0}`;
const playerLink = (id: string, name: string, attrs: Record<string, string> = {}) =>
  h("a", { href: `#/player/${encodeURIComponent(id)}`, ...attrs }, name);

/** A player's records, one row per game family. */
export function recordView(root: HTMLElement, playerId: string): () => void {
  const abort = new AbortController();
  const title = h("h1", { id: "record-name" }, "Player record");
  const body = h("div", { id: "record" }, h("p", {}, "Loading…"));
  const error = h("p", { class: "error", role: "alert" });
  root.replaceChildren(h("section", { class: "card" }, title, body, error,
    h("p", {}, h("a", { href: "#/leaderboard" }, "Leaderboards"))));

  void lobby.getPlayerRecord({ playerId }, { signal: abort.signal }).then((res) => {
    const p = res.player;
    replace(title, p?.displayName ?? "", p?.guest ? h("span", { class: "muted" }, " (guest)") : null);
    if (!res.records.length) {
      replace(body, h("p", { id: "record-empty" }, "No rated games finished yet."));
      return;
    }
    replace(body, h("div", { class: "scroll" }, h("table", { class: "grid", id: "records" },
      h("thead", {}, h("tr", {}, ...["Game", "Games", "W-L-T", "Rating"].map((x) => h("th", { scope: "col" }, x)),
        ...["Average", "Best", "Weighted"].map((x) => h("th", { scope: "col", class: "wide" }, x)))),
      h("tbody", {}, ...res.records.map((r) => h("tr", { "data-ruleset": r.rulesetId },
        h("th", { scope: "row" }, familyName(r.rulesetId)), h("td", { class: "games" }, r.games),
        h("td", { class: "wlt" }, wlt(r)), h("td", { class: "rating" }, rating(r)),
        h("td", { class: "wide average" }, r.averageScore.toFixed(1)), h("td", { class: "wide best" }, r.bestScore),
        h("td", { class: "wide weighted" }, `${r.weightedScore >= 0 ? "+" : ""}${r.weightedScore.toFixed(1)}`)))))));
  }).catch((err) => { if (!abort.signal.aborted) error.textContent = describeError(err); });
  return () => abort.abort();
}

const PERIODS: [LeaderboardPeriod, string][] = [
  [LeaderboardPeriod.ALL_TIME, "all time"], [LeaderboardPeriod.MONTH, "this month"],
  [LeaderboardPeriod.WEEK, "this week"], [LeaderboardPeriod.DAY, "today"],
];

/** A game family's leaderboard for a period, page by page (More), with the player's own rank. */
export function leaderboardView(root: HTMLElement): () => void {
  const abort = new AbortController();
  const family = h("select", { id: "lb-ruleset", name: "ruleset" });
  const period = h("select", { id: "lb-period", name: "period" },
    ...PERIODS.map(([v, label]) => h("option", { value: String(v) }, label)));
  const rows = h("tbody", { id: "leaderboard" });
  const table = h("table", { class: "grid" },
    h("thead", {}, h("tr", {}, ...["#", "Player", "Rating", "W-L-T"].map((x) => h("th", { scope: "col" }, x)),
      ...["Games", "Average"].map((x) => h("th", { scope: "col", class: "wide" }, x)))), rows);
  const mine = h("p", { id: "lb-me" });
  const total = h("p", { class: "muted", id: "lb-total" });
  const more = h("button", { type: "button", id: "lb-more", hidden: true, onclick: () => void load(false) }, "More");
  const error = h("p", { class: "error", role: "alert" });
  let pageToken = "";
  let generation = 0;

  const line = (e: LeaderboardEntry) => h("tr", { "data-player": e.player?.playerId ?? "" },
    h("td", {}, e.rank), h("td", {}, playerLink(e.player?.playerId ?? "", e.player?.displayName ?? "")),
    h("td", { class: "rating" }, rating(e.record)), h("td", { class: "wlt" }, wlt(e.record)),
    h("td", { class: "wide" }, e.record?.games ?? 0), h("td", { class: "wide" }, (e.record?.averageScore ?? 0).toFixed(1)));

  async function load(first: boolean) {
    const gen = first ? ++generation : generation;
    if (first) pageToken = "";
    error.textContent = "";
    try {
      const res = await lobby.getLeaderboard({
        rulesetId: family.value, period: Number(period.value) as LeaderboardPeriod, pageToken,
      }, { signal: abort.signal });
      if (gen !== generation) return;
      if (first) replace(rows);
      rows.append(...res.entries.map(line));
      if (first && !res.entries.length) rows.append(h("tr", {}, h("td", { colspan: 6, class: "muted" }, "Nobody has finished a rated game here yet.")));
      pageToken = res.nextPageToken;
      more.hidden = !pageToken;
      total.textContent = `${res.totalSize} ranked.`;
      const me = res.callerEntry;
      mine.textContent = me?.rank ? `You: #${me.rank}, rating ${rating(me.record)}, ${wlt(me.record)}.` : "You have no rated game here in this period.";
    } catch (err) {
      if (!abort.signal.aborted) error.textContent = describeError(err);
    }
  }

  family.addEventListener("change", () => void load(true));
  period.addEventListener("change", () => void load(true));
  root.replaceChildren(h("section", { class: "card", id: "leaderboard-page" },
    h("h1", {}, "Leaderboard"),
    h("div", { class: "row" }, h("label", {}, "Game", family), h("label", {}, "Period", period)),
    mine, h("div", { class: "scroll" }, table), more, total, error));

  void lobby.listRulesets({}, { signal: abort.signal }).then((res) => {
    replace(family, ...res.rulesets.map((r) => h("option", { value: r.rulesetId }, r.name || familyName(r.rulesetId))));
    void load(true);
  }).catch((err) => { if (!abort.signal.aborted) error.textContent = describeError(err); });
  return () => abort.abort();
}
