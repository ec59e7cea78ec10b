// Accounts: signing in with a name and password (SignIn), and the account page (#/account):
// who the player is (GetMe), claiming the guest account with a password (ClaimAccount: the same
// player, its record and rating kept), signing out. Every refusal shown is the server's.
import { create } from "@bufbuild/protobuf";
import { describeError, lobby } from "./api.js";
import { h, replace } from "./dom.js";
import type { Player } from "./gen/wordarena/v1/common_pb.js";
import { ClaimAccountRequestSchema, SignInRequestSchema, type AuthToken } from "./gen/wordarena/v1/lobby_pb.js";
import { session } from "./session.js";

function remember(player: Player | undefined, token: AuthToken | undefined): void {
  session.save(token?.token ?? "", { playerId: player?.playerId ?? "", displayName: player?.displayName ?? "" });
}

/** The sign-in form for a claimed account, shown under the guest sign-in. */
export function passwordSignIn(done: () => void): HTMLElement {
  const name = h("input", { id: "account-name", name: "username", required: true, autocomplete: "username" });
  const password = h("input", { id: "account-password", name: "password", type: "password", required: true, autocomplete: "current-password" });
  const error = h("p", { class: "error", role: "alert", id: "account-error" });
  const button = h("button", { type: "submit", id: "account-signin" }, "Sign in");
  const form = h("form", { class: "card", id: "password-signin" },
    h("h2", {}, "Have an account?"),
    h("div", { class: "row" }, h("label", { for: "account-name" }, "Name", name),
      h("label", { for: "account-password" }, "Password", password), button),
    error);
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    button.disabled = true;
    error.textContent = "";
    try {
      const res = await lobby.signIn(create(SignInRequestSchema, { name: name.value.trim(), password: password.value }));
      remember(res.player, res.token);
      done();
    } catch (err) {
      error.textContent = describeError(err);
      button.disabled = false;
    }
  });
  return form;
}

/** #/account: who the player is; a guest claims the account here; sign out. */
export function accountView(root: HTMLElement, changed: () => void, signOut: () => void): () => void {
  const abort = new AbortController();
  const error = h("p", { class: "error", role: "alert", id: "claim-error" });
  const notice = h("p", { class: "notice", role: "status", id: "account-notice" });
  const about = h("div", { id: "account" }, h("p", {}, "Loading…"));
  const card = h("section", { class: "card" }, h("h1", {}, "Your account"), about, notice, error);
  root.replaceChildren(card);

  async function load(): Promise<void> {
    try {
      const me = await lobby.getMe({}, { signal: abort.signal });
      const p = me.player;
      const created = me.createTime ? new Date(Number(me.createTime.seconds) * 1000).toLocaleDateString() : "";
      replace(about,
        h("p", {}, "Name: ", h("strong", { id: "account-shown-name" }, p?.displayName ?? "")),
        h("p", { id: "account-kind" }, p?.guest ? "A guest: this browser alone can play as you." : "An account: sign in with its name and password anywhere."),
        created ? h("p", { class: "muted" }, `Playing since ${created}.`) : null,
        h("p", {}, h("a", { href: "#/record", id: "account-record" }, "Your record and rating")),
        p?.guest ? claimForm(p.displayName) : null,
        h("p", {}, h("button", { type: "button", id: "account-sign-out", onclick: signOut }, "Sign out")));
    } catch (err) {
      if (!abort.signal.aborted) error.textContent = describeError(err);
    }
  }

  function claimForm(current: string): HTMLElement {
    const name = h("input", { id: "claim-name", name: "username", value: current, autocomplete: "username" });
    const password = h("input", { id: "claim-password", name: "new-password", type: "password", required: true, autocomplete: "new-password" });
    const button = h("button", { type: "submit", class: "primary", id: "claim" }, "Claim this account");
    const form = h("form", { id: "claim-form" },
      h("h2", {}, "Keep this player"),
      h("p", { class: "muted" }, "Choose a password: your games, record and rating stay yours, and you can sign in from any device."),
      h("div", { class: "row" }, h("label", { for: "claim-name" }, "Account name", name),
        h("label", { for: "claim-password" }, "Password", password), button));
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      button.disabled = true;
      error.textContent = "";
      try {
        const res = await lobby.claimAccount(create(ClaimAccountRequestSchema, { name: name.value.trim(), password: password.value }));
        remember(res.player, res.token);
        notice.textContent = `Claimed: sign in as ${res.player?.displayName ?? ""} with your password from any device.`;
        changed();
        await load();
      } catch (err) {
        error.textContent = describeError(err);
        button.disabled = false;
      }
    });
    return form;
  }

  void load();
  return () => abort.abort();
}
