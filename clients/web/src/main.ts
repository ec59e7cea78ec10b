// The page: #/ the lobby (or signing in), #/match/ID a match (playing or watching).
import { Code } from "@connectrpc/connect";
import { isCode, lobby } from "./api.js";
import { $, h, replace } from "./dom.js";
import { gameView } from "./game.js";
import { lobbyView } from "./lobby.js";
import { session } from "./session.js";
import { signInView } from "./signin.js";

let cleanup: () => void = () => {};

function renderWho(): void {
  const me = session.me();
  const who = $("#who");
  if (!me) return replace(who);
  replace(who, "Playing as ", h("strong", { id: "me" }, me.displayName), " ",
    h("button", { type: "button", id: "sign-out", onclick: () => { session.clear(); route(); } }, "Sign out"));
}

function route(): void {
  cleanup();
  const root = $("#app");
  renderWho();
  if (!session.token()) {
    cleanup = signInView(root, () => { renderWho(); route(); });
    return;
  }
  const m = /^#\/match\/([^/]+)$/.exec(location.hash);
  if (m) {
    cleanup = gameView(root, decodeURIComponent(m[1]!));
  } else {
    cleanup = lobbyView(root, (id) => { location.hash = `#/match/${encodeURIComponent(id)}`; });
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
