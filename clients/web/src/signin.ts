// Sign in as a guest at once: a name, nothing else.
import { create } from "@bufbuild/protobuf";
import { describeError, lobby } from "./api.js";
import { h } from "./dom.js";
import { SignInGuestRequestSchema } from "./gen/wordarena/v1/lobby_pb.js";
import { session } from "./session.js";

export function signInView(root: HTMLElement, done: () => void): () => void {
  const name = h("input", { id: "guest-name", name: "name", required: true, autocomplete: "nickname", autofocus: true });
  const error = h("p", { class: "error", role: "alert" });
  const button = h("button", { type: "submit", class: "primary" }, "Play as guest");
  const form = h("form", { class: "card", id: "signin" },
    h("h1", {}, "Play word games in your browser"),
    h("p", { class: "muted" }, "No sign-up: choose a name and play as a guest right away."),
    h("div", { class: "row" }, h("label", { for: "guest-name" }, "Your name", name), button),
    error);
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    button.disabled = true;
    error.textContent = "";
    try {
      const res = await lobby.signInGuest(create(SignInGuestRequestSchema, { displayName: name.value.trim() }));
      session.save(res.token?.token ?? "", { playerId: res.player?.playerId ?? "", displayName: res.player?.displayName ?? "" });
      done();
    } catch (err) {
      error.textContent = describeError(err);
      button.disabled = false;
    }
  });
  root.replaceChildren(form);
  name.focus();
  return () => {};
}
