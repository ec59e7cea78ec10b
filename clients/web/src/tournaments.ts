// Tournaments: the list (#/tournaments: ListTournaments page by page, the player's invitations
// first) and one tournament (#/tournament/ID): its state followed live (WatchTournament), register
// or unregister (accept or decline an invitation), the standings, the rounds' games, and the
// player's own pairing, whose game opens inside this page (the game page's view); after a game the
// next round's game is a button away, on the same page. What the page shows is the stream's state.
import { describeError, tournamentService } from "./api.js";
import { h, replace } from "./dom.js";
import { gameView } from "./game.js";
import {
  GameSide, TournamentGameStatus, TournamentStatus,
  type Entrant, type Tournament, type TournamentGame, type TournamentState,
} from "./gen/wordarena/v1/tournament_pb.js";
import { familyName } from "./names.js";
import { session } from "./session.js";

const STATUS: Record<number, string> = {
  [TournamentStatus.REGISTRATION]: "registration open", [TournamentStatus.RUNNING]: "running",
  [TournamentStatus.PAUSED]: "paused", [TournamentStatus.FINISHED]: "finished",
};
const statusText = (s: TournamentStatus) => STATUS[s] ?? "";

function gameLine(t: Tournament | undefined): string {
  const r = t?.settings?.game?.ruleset;
  return `${familyName(r?.rulesetId ?? "")} · ${r?.language ?? ""} · ${t?.settings?.rounds ?? 0} rounds`;
}

function tournamentRow(t: Tournament, extra: HTMLElement[] = []): HTMLElement {
  return h("li", { class: "tournament", "data-tournament": t.tournamentId },
    h("a", { href: `#/tournament/${encodeURIComponent(t.tournamentId)}`, class: "t-open" }, t.settings?.name ?? t.tournamentId),
    h("span", { class: "muted" }, gameLine(t)), h("span", { class: "t-state" }, statusText(t.status)), ...extra);
}

/** #/tournaments: invitations waiting for an answer, then every tournament, page by page. */
export function tournamentsView(root: HTMLElement): () => void {
  const abort = new AbortController();
  const invites = h("ul", { class: "tables", id: "invitations", "aria-label": "Invitations" });
  const invitesCard = h("section", { class: "card", hidden: true }, h("h2", {}, "Invitations"), invites);
  const list = h("ul", { class: "tables", id: "tournaments", "aria-label": "Tournaments" });
  const more = h("button", { type: "button", id: "t-more", hidden: true, onclick: () => void page() }, "More");
  const error = h("p", { class: "error", role: "alert" });
  let token = "";

  async function answer(t: Tournament, accept: boolean) {
    error.textContent = "";
    try {
      if (accept) await tournamentService.register({ tournamentId: t.tournamentId });
      else await tournamentService.unregister({ tournamentId: t.tournamentId });
      if (accept) location.hash = `#/tournament/${encodeURIComponent(t.tournamentId)}`;
      else void loadInvites();
    } catch (err) {
      error.textContent = describeError(err);
    }
  }

  async function loadInvites() {
    try {
      const res = await tournamentService.listTournaments({ invited: true, pageSize: 100 }, { signal: abort.signal });
      invitesCard.hidden = !res.tournaments.length;
      replace(invites, ...res.tournaments.map((t) => tournamentRow(t, [
        h("button", { type: "button", class: "t-accept", onclick: () => void answer(t, true) }, "Accept"),
        h("button", { type: "button", class: "t-decline", onclick: () => void answer(t, false) }, "Decline")])));
    } catch (err) {
      if (!abort.signal.aborted) error.textContent = describeError(err);
    }
  }

  async function page() {
    try {
      const res = await tournamentService.listTournaments({ pageToken: token }, { signal: abort.signal });
      if (!token && !res.tournaments.length) list.append(h("li", { class: "muted" }, "No tournaments yet."));
      list.append(...res.tournaments.map((t) => tournamentRow(t)));
      token = res.nextPageToken;
      more.hidden = !token;
    } catch (err) {
      if (!abort.signal.aborted) error.textContent = describeError(err);
    }
  }

  root.replaceChildren(invitesCard,
    h("section", { class: "card" }, h("h1", {}, "Tournaments"), list, more, error));
  void loadInvites();
  void page();
  return () => abort.abort();
}

/** #/tournament/ID: one tournament, live. */
export function tournamentView(root: HTMLElement, tournamentId: string): () => void {
  return new TournamentPage(root, tournamentId).start();
}

class TournamentPage {
  private readonly abort = new AbortController();
  private state: TournamentState | undefined;
  private mounted: { matchId: string; stop: () => void } | null = null;
  private entryKey = "";
  private nextKey = "";
  private readonly me = session.me()?.playerId ?? "";
  private readonly name = h("h1", { id: "t-name" }, "Tournament");
  private readonly about = h("p", { class: "muted", id: "t-about" });
  private readonly status = h("p", { class: "status", id: "t-status", role: "status" });
  private readonly entry = h("div", { class: "row", id: "t-entry" });
  private readonly error = h("p", { class: "error", role: "alert", id: "t-error" });
  private readonly pairing = h("p", { id: "t-pairing", role: "status" });
  private readonly next = h("div", { id: "t-next-box" });
  private readonly gameHost = h("div", { id: "t-game" });
  private readonly standings = h("div", { id: "standings" });
  private readonly games = h("div", { id: "t-games" });
  private readonly entrants = h("ul", { class: "entrants", id: "entrants", "aria-label": "Entrants" });

  constructor(private readonly root: HTMLElement, private readonly id: string) {}

  start(): () => void {
    this.root.replaceChildren(
      h("section", { class: "card" }, this.name, this.about, this.status, this.entry, this.error),
      h("section", { class: "card", id: "t-mine" }, h("h2", {}, "Your game"), this.pairing, this.next),
      this.gameHost,
      h("section", { class: "card" }, h("h2", {}, "Standings"), this.standings),
      h("section", { class: "card" }, h("h2", {}, "Rounds"), this.games),
      h("section", { class: "card" }, h("h2", {}, "Entrants"), this.entrants),
      h("p", {}, h("a", { href: "#/tournaments" }, "All tournaments")));
    void this.watch();
    return () => {
      this.abort.abort();
      this.mounted?.stop();
    };
  }

  private async watch(): Promise<void> {
    let attempt = 0;
    while (!this.abort.signal.aborted) {
      try {
        for await (const res of tournamentService.watchTournament({ tournamentId: this.id }, { signal: this.abort.signal })) {
          attempt = 0;
          if (res.state) this.show(res.state);
        }
        if (this.state?.tournament?.status === TournamentStatus.FINISHED) return;
      } catch (err) {
        if (this.abort.signal.aborted) return;
        this.status.textContent = `Connection lost (${describeError(err)}); reconnecting…`;
        if (!this.state) {
          this.error.textContent = describeError(err);
          return;
        }
      }
      attempt += 1;
      await new Promise((r) => setTimeout(r, Math.min(5000, 300 * attempt)));
    }
  }

  private entrantName(id: string): string {
    const e = this.state?.entrants.find((x) => x.entrantId === id);
    return e?.player?.displayName || (e?.player?.bot ? `bot ${e.player.botLevel}` : id);
  }

  private mine(): Entrant | undefined {
    return this.state?.entrants.find((e) => e.player?.playerId === this.me);
  }

  private show(state: TournamentState): void {
    this.state = state;
    const t = state.tournament;
    replace(this.name, t?.settings?.name ?? "Tournament");
    this.about.textContent = gameLine(t);
    const rounds = Object.values(t?.roundsPaired ?? {});
    const round = rounds.length ? Math.max(...rounds) : 0;
    this.status.textContent = `${statusText(t?.status ?? TournamentStatus.UNSPECIFIED)}${round ? `, round ${round} of ${t?.settings?.rounds ?? 0}` : ""}.`;
    this.status.dataset["status"] = TournamentStatus[t?.status ?? 0]?.toLowerCase() ?? "";
    this.renderEntry();
    this.renderMine();
    this.renderStandings();
    this.renderGames();
    replace(this.entrants, ...state.entrants.map((e) => h("li", { "data-entrant": e.entrantId },
      this.entrantName(e.entrantId),
      e.invited ? h("span", { class: "muted" }, " (invited)") : null,
      e.withdrawn ? h("span", { class: "muted" }, " (withdrawn)") : null,
      e.division && (state.tournament?.settings?.divisions.length ?? 0) > 1 ? h("span", { class: "muted" }, ` · ${e.division}`) : null)));
  }

  /** Register / unregister, or accept / decline an invitation; rebuilt only when it changes, so
   * the keyboard focus stays where it was. */
  private renderEntry(): void {
    const e = this.mine();
    const status = this.state?.tournament?.status;
    const finished = status === TournamentStatus.FINISHED;
    const open = status === TournamentStatus.REGISTRATION;
    const kind = !e || e.withdrawn ? "none" : e.invited ? "invited" : "entered";
    const checkIn = Number(this.state?.tournament?.settings?.checkInWindow?.seconds ?? 0n) > 0;
    const key = `${kind}:${status}:${e?.division ?? ""}:${checkIn}:${e?.checkedIn}`;
    if (key === this.entryKey) return;
    const hadFocus = this.entry.contains(document.activeElement);
    this.entryKey = key;
    const button = (id: string, label: string, register: boolean) =>
      h("button", { type: "button", id, class: register ? "primary" : "", onclick: () => void this.act(register) }, label);
    const parts: (HTMLElement | string)[] = [];
    if (kind === "entered") parts.push(h("span", { id: "t-registered" }, `You are registered${e?.division ? ` (${e.division})` : ""}.`));
    if (kind === "invited") parts.push(h("span", { id: "t-invited" }, "A director invited you."));
    if (kind === "none" && !finished) parts.push(h("span", { class: "muted" }, "You are not registered."));
    if (!finished) {
      if (kind === "none") parts.push(button("t-register", "Register", true));
      if (kind === "invited") parts.push(button("t-register", "Accept the invitation", true), button("t-unregister", "Decline", false));
      // once it has started, an entrant is withdrawn by a director only
      if (kind === "entered" && open) parts.push(button("t-unregister", "Unregister", false));
      // a tournament with a check-in window: whether it is open now is the server's answer
      if (kind === "entered" && open && checkIn) {
        parts.push(e?.checkedIn ? h("span", { id: "t-checked-in" }, "Checked in.")
          : h("button", { type: "button", id: "t-checkin", class: "primary", onclick: () => void this.checkIn() }, "Check in"));
      }
    }
    replace(this.entry, ...parts);
    if (hadFocus) this.entry.querySelector("button")?.focus();
  }

  private async checkIn(): Promise<void> {
    this.error.textContent = "";
    try {
      await tournamentService.checkIn({ tournamentId: this.id });
    } catch (err) {
      this.error.textContent = describeError(err);
    }
  }

  private async act(register: boolean): Promise<void> {
    this.error.textContent = "";
    try {
      if (register) await tournamentService.register({ tournamentId: this.id });
      else await tournamentService.unregister({ tournamentId: this.id });
    } catch (err) {
      this.error.textContent = describeError(err);
    }
  }

  /** The player's latest pairing: its game opens here; a later round's game once the mounted one
   * is over, by the Next button. */
  private renderMine(): void {
    const e = this.mine();
    const status = this.state?.tournament?.status;
    const games = e ? (this.state?.games ?? []).filter((g) => g.firstEntrantId === e.entrantId || g.secondEntrantId === e.entrantId) : [];
    const latest = games.sort((a, b) => a.round - b.round || a.game - b.game).at(-1);
    if (!e || e.invited || e.withdrawn) {
      this.pairing.textContent = status === TournamentStatus.FINISHED ? "The tournament is over." : "Register to be paired.";
    } else if (!latest) {
      this.pairing.textContent = status === TournamentStatus.FINISHED ? "The tournament is over." : "Waiting for the first round to be paired.";
    } else {
      this.pairing.textContent = this.pairingText(latest, e.entrantId);
    }
    const playable = latest && latest.status === TournamentGameStatus.PLAYING && latest.matchId && latest.secondEntrantId ? latest : undefined;
    if (playable && !this.mounted) this.mount(playable);
    const key = playable && this.mounted && this.mounted.matchId !== playable.matchId ? playable.matchId : "";
    if (key === this.nextKey) return;
    this.nextKey = key;
    if (!key || !playable || !e) return replace(this.next);
    const opponent = this.entrantName(playable.firstEntrantId === e.entrantId ? playable.secondEntrantId : playable.firstEntrantId);
    const go = h("button", { type: "button", class: "primary", id: "t-next", onclick: () => this.mount(playable) },
      `Round ${playable.round}: play your game against ${opponent}`);
    replace(this.next, go);
  }

  private pairingText(g: TournamentGame, mine: string): string {
    if (!g.secondEntrantId) return `Round ${g.round}: a bye.`;
    const first = g.firstEntrantId === mine;
    const opponent = this.entrantName(first ? g.secondEntrantId : g.firstEntrantId);
    const game = (this.state?.tournament?.settings?.gamesPerPairing ?? 1) > 1 ? `, game ${g.game + 1}` : "";
    switch (g.status) {
      case TournamentGameStatus.PENDING: return `Round ${g.round}${game}: against ${opponent}; the game is being set up…`;
      case TournamentGameStatus.PLAYING: return `Round ${g.round}${game}: you play ${opponent}${first ? " and move first" : ""}.`;
      case TournamentGameStatus.DONE: {
        const [own, their] = first ? [g.firstScore, g.secondScore] : [g.secondScore, g.firstScore];
        const side = first ? g.firstResult : g.firstResult === GameSide.WIN ? GameSide.LOSS : g.firstResult === GameSide.LOSS ? GameSide.WIN : g.firstResult;
        const word = side === GameSide.WIN ? "won" : side === GameSide.LOSS ? "lost" : "tied";
        const over = this.state?.tournament?.status === TournamentStatus.FINISHED ? " The tournament is over." : " Waiting for the next round.";
        return `Round ${g.round}${game}: you ${word} against ${opponent}, ${own}–${their}${g.forfeit ? " (forfeit)" : ""}.${over}`;
      }
      default: return `Round ${g.round}: against ${opponent}.`;
    }
  }

  private mount(g: TournamentGame): void {
    this.mounted?.stop();
    this.gameHost.dataset["match"] = g.matchId;
    this.mounted = { matchId: g.matchId, stop: gameView(this.gameHost, g.matchId) };
    this.nextKey = "";
    replace(this.next);
  }

  private renderStandings(): void {
    const divisions = this.state?.standings ?? [];
    replace(this.standings, ...divisions.map((d) => h("div", { class: "scroll" }, h("table", { class: "grid standings", "data-division": d.division },
      divisions.length > 1 ? h("caption", {}, d.division) : null,
      h("thead", {}, h("tr", {}, ...["#", "Player", "W-L-T", "Points", "Spread", "Byes"].map((x) => h("th", { scope: "col" }, x)))),
      h("tbody", {}, ...d.standings.map((s) => h("tr", { "data-entrant": s.entrantId, class: this.mine()?.entrantId === s.entrantId ? "mine" : "" },
        h("td", {}, s.rank), h("td", { class: "name" }, s.displayName), h("td", { class: "wlt" }, `${s.wins}-${s.losses}-${s.ties}`),
        h("td", { class: "points" }, s.points), h("td", {}, `${s.spread > 0 ? "+" : ""}${s.spread}`), h("td", {}, s.byes))))))));
    if (!divisions.some((d) => d.standings.length)) this.standings.append(h("p", { class: "muted" }, "No results yet."));
  }

  private renderGames(): void {
    const games = [...(this.state?.games ?? [])].sort((a, b) => a.round - b.round || a.pairing - b.pairing || a.game - b.game);
    if (!games.length) return replace(this.games, h("p", { class: "muted" }, "Not paired yet."));
    const byRound = new Map<number, TournamentGame[]>();
    for (const g of games) byRound.set(g.round, [...(byRound.get(g.round) ?? []), g]);
    replace(this.games, ...[...byRound].map(([round, gs]) => h("div", { "data-round": round },
      h("h3", {}, `Round ${round}`),
      h("ul", { class: "t-round" }, ...gs.map((g) => h("li", {}, this.gameText(g)))))));
  }

  private gameText(g: TournamentGame): string {
    const a = this.entrantName(g.firstEntrantId);
    if (!g.secondEntrantId) return `${a}: bye`;
    const b = this.entrantName(g.secondEntrantId);
    if (g.status !== TournamentGameStatus.DONE) return `${a} vs ${b}: ${g.status === TournamentGameStatus.PLAYING ? "playing" : "being set up"}`;
    const result = g.firstResult === GameSide.WIN ? `${a} won` : g.firstResult === GameSide.LOSS ? `${b} won` : "a tie";
    return `${a} ${g.firstScore} – ${g.secondScore} ${b}: ${result}${g.forfeit ? " by forfeit" : ""}`;
  }
}
