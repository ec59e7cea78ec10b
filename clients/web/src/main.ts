// The page: #/ the lobby (or signing in), #/match/ID a match (playing or watching), and the pages
// of account.ts, quickmatch.ts, tournaments.ts and records.ts (see page()).
import { Code } from "@connectrpc/connect";
import { isCode, lobby } from "./api.js";
import { accountView, passwordSignIn } from "./account.js";
import { $, h, replace } from "./dom.js";
import { gameView } from "./game.js";
import { lobbyView } from "./lobby.js";
import { quickMatchView } from "./quickmatch.js";
import { leaderboardView, recordView } from "./records.js";
import { session } from "./session.js";
import { signInView } from "./signin.js";
import { tournamentView, tournamentsView } from "./tournaments.js";

let cleanup: () => void = () => {};

const NAV: [string, string][] = [["#/", "Lobby"], ["#/quick", "Quick match"], ["#/tournaments", "Tournaments"],
  ["#/leaderboard", "Leaderboard"], ["#/record", "My record"], ["#/account", "Account"]];

function signOut(): void {
  session.clear();
  if (location.hash && location.hash !== "#/") location.hash = "#/"; // hashchange: route()
  else route();
}

function renderWho(): void {
  const me = session.me();
  const who = $("#who");
  const nav = $("#nav");
  if (!me) {
    replace(who);
    replace(nav);
    return;
  }
  // built once: a link keeps the keyboard focus across pages; only the current page's mark moves
  if (!nav.childElementCount) replace(nav, ...NAV.map(([href, label]) => h("a", { href }, label)));
  for (const a of nav.querySelectorAll("a")) {
    const here = a.getAttribute("href") === (location.hash || "#/");
    if (here) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
  replace(who, "Playing as ", h("strong", { id: "me" }, me.displayName), " ",
    h("button", { type: "button", id: "sign-out", onclick: signOut }, "Sign out"));
}

const openMatch = (id: string) => { location.hash = `#/match/${encodeURIComponent(id)}`; };

/** The pages besides the lobby and a match: their cleanup, or undefined for the lobby. */
function page(root: HTMLElement, hash: string): (() => void) | undefined {
  const arg = (re: RegExp) => { const m = re.exec(hash); return m ? decodeURIComponent(m[1]!) : undefined; };
  const tournament = arg(/^#\/tournament\/([^/]+)$/);
  const player = arg(/^#\/player\/([^/]+)$/);
  if (hash === "#/account") return accountView(root, renderWho, signOut);
  if (hash === "#/quick") return quickMatchView(root, openMatch);
  if (hash === "#/tournaments") return tournamentsView(root);
  if (tournament) return tournamentView(root, tournament);
  if (hash === "#/leaderboard") return leaderboardView(root);
  if (hash === "#/record") return recordView(root, "");
  if (player) return recordView(root, player);
  return undefined;
}

function route(): void {
  cleanup();
  const root = $("#app");
  renderWho();
  if (!session.token()) {
    cleanup = signInView(root, () => { renderWho(); route(); });
    root.append(passwordSignIn(() => { renderWho(); route(); }));
    return;
  }
  const m = /^#\/match\/([^/]+)$/.exec(location.hash);
  if (m) {
    cleanup = gameView(root, decodeURIComponent(m[1]!));
  } else {
    cleanup = page(root, location.hash) ?? lobbyView(root, openMatch);
  }
}

window.addEventListener("hashchange", route);
route();
// A token the lobby no longer accepts (expired, revoked): sign in again.
if (session.token()) {
  lobby.getMe({}).catch((err: unknown) => {
    if (isCode(err, Code.Unauthenticated)) {
      session.clear();
      route();
    }
  });
}
