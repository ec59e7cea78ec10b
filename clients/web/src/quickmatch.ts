// Quick match (#/quick): the game and language asked for, a ticket (QuickMatch) followed live
// (WatchQuickMatchTicket) until the lobby seats the player in a match, which then opens; Cancel
// withdraws the ticket (CancelQuickMatchTicket). The ticket's id is kept in sessionStorage, so a
// reload goes on waiting for the same ticket; leaving the page while waiting cancels it.
import { create } from "@bufbuild/protobuf";
import { describeError, lobby, requestId } from "./api.js";
import { h, replace } from "./dom.js";
import {
  QuickMatchRequestSchema, TicketStatus, type QuickMatchTicket, type RulesetSummary,
} from "./gen/wordarena/v1/lobby_pb.js";
import { familyName } from "./names.js";

const TICKET = "wordarena.ticket";

export function quickMatchView(root: HTMLElement, openMatch: (matchId: string) => void): () => void {
  const abort = new AbortController();
  let ticketId: string | null = sessionStorage.getItem(TICKET);
  let queued = false;
  let opening = false;
  let rulesets: RulesetSummary[] = [];
  let waiting: QuickMatchTicket | undefined;

  const family = h("select", { id: "qm-family", name: "family" });
  const language = h("select", { id: "qm-language", name: "language" });
  const seats = h("input", { id: "qm-seats", name: "seats", type: "number", min: 2, max: 2, value: 2 });
  const botAfter = h("select", { id: "qm-bots", name: "bots" },
    h("option", { value: "0" }, "never"), h("option", { value: "30" }, "after 30 s"),
    h("option", { value: "60" }, "after 1 min"), h("option", { value: "180" }, "after 3 min"));
  const start = h("button", { type: "submit", class: "primary", id: "qm-start" }, "Find a game");
  const cancel = h("button", { type: "button", id: "qm-cancel", hidden: true, onclick: () => void doCancel() }, "Cancel");
  const state = h("p", { id: "qm-state", role: "status" });
  const error = h("p", { class: "error", role: "alert", id: "qm-error" });

  const fill = (select: HTMLSelectElement, values: string[]) => replace(select, ...values.map((v) => h("option", { value: v }, v)));
  function onFamily() {
    const r = rulesets.find((x) => x.rulesetId === family.value);
    if (!r) return;
    fill(language, r.languages);
    seats.min = String(r.minSeats);
    seats.max = String(r.maxSeats);
    seats.value = String(Math.min(Math.max(Number(seats.value), r.minSeats), r.maxSeats));
  }
  family.addEventListener("change", onFamily);

  const form = h("form", { id: "quick-form", class: "row" },
    h("label", {}, "Game", family), h("label", {}, "Language", language), h("label", {}, "Players", seats),
    h("label", {}, "Fill with bots", botAfter), start, cancel);
  form.addEventListener("submit", (ev) => { ev.preventDefault(); void enqueue(); });

  function setQueued(on: boolean) {
    queued = on;
    start.disabled = on;
    cancel.hidden = !on;
    for (const el of [family, language, seats, botAfter]) el.disabled = on;
    if (on) cancel.focus();
  }

  /** The form shows what a waiting ticket asks for (after a reload, the ticket's own criteria). */
  function showCriteria(t: QuickMatchTicket) {
    const r = t.criteria?.ruleset;
    if (!r || !rulesets.some((x) => x.rulesetId === r.rulesetId)) return;
    family.value = r.rulesetId;
    onFamily();
    language.value = r.language;
    if (t.criteria?.seats) seats.value = String(t.criteria.seats);
  }

  function show(t: QuickMatchTicket) {
    waiting = t;
    switch (t.status) {
      case TicketStatus.QUEUED:
        showCriteria(t);
        setQueued(true);
        state.textContent = `Looking for opponents: ${t.playersWaiting} waiting for ${familyName(t.criteria?.ruleset?.rulesetId ?? "")} (${t.criteria?.ruleset?.language ?? ""}).`;
        break;
      case TicketStatus.MATCHED:
        setQueued(false);
        forget();
        state.textContent = "Matched: opening the game…";
        if (t.assignment?.matchId && !opening) {
          opening = true;
          openMatch(t.assignment.matchId);
        }
        break;
      case TicketStatus.CANCELLED:
        setQueued(false);
        forget();
        state.textContent = "Cancelled.";
        break;
      case TicketStatus.EXPIRED:
        setQueued(false);
        forget();
        state.textContent = "No game found: the ticket expired. Try again.";
        break;
      default:
        break;
    }
  }

  function forget() {
    if (ticketId) sessionStorage.removeItem(TICKET);
    ticketId = null;
  }

  async function enqueue() {
    error.textContent = "";
    start.disabled = true;
    const wait = Number(botAfter.value);
    try {
      const res = await lobby.quickMatch(create(QuickMatchRequestSchema, {
        requestId: requestId(),
        criteria: {
          ruleset: { rulesetId: family.value, language: language.value },
          seats: Number(seats.value),
          botAfter: wait > 0 ? { seconds: BigInt(wait), nanos: 0 } : undefined,
        },
      }), { signal: abort.signal });
      const t = res.ticket;
      if (!t) return;
      ticketId = t.ticketId;
      sessionStorage.setItem(TICKET, t.ticketId);
      show(t);
      if (t.status === TicketStatus.QUEUED) void follow(t.ticketId);
    } catch (err) {
      if (!abort.signal.aborted) error.textContent = describeError(err);
      start.disabled = queued;
    }
  }

  /** Follows the ticket until it is no longer queued; a dropped stream is followed again. */
  async function follow(id: string) {
    let attempt = 0;
    while (!abort.signal.aborted && ticketId === id) {
      try {
        for await (const res of lobby.watchQuickMatchTicket({ ticketId: id }, { signal: abort.signal })) {
          attempt = 0;
          if (res.ticket) show(res.ticket);
        }
        if (ticketId !== id) return;
        const res = await lobby.getQuickMatchTicket({ ticketId: id }, { signal: abort.signal });
        if (res.ticket) show(res.ticket);
        if (res.ticket?.status !== TicketStatus.QUEUED) return;
      } catch (err) {
        if (abort.signal.aborted) return;
        error.textContent = `Waiting interrupted (${describeError(err)}); reconnecting…`;
      }
      attempt += 1;
      await new Promise((r) => setTimeout(r, Math.min(5000, 300 * attempt)));
    }
  }

  async function doCancel() {
    const id = ticketId;
    if (!id) return;
    error.textContent = "";
    try {
      const res = await lobby.cancelQuickMatchTicket({ ticketId: id });
      if (res.ticket) show(res.ticket);
    } catch (err) {
      error.textContent = describeError(err);
    }
  }

  root.replaceChildren(h("section", { class: "card", id: "quick" },
    h("h1", {}, "Quick match"),
    h("p", { class: "muted" }, "The lobby seats you with the next players who ask for the same game."),
    form, state, error));

  void lobby.listRulesets({}).then((res) => {
    rulesets = res.rulesets;
    replace(family, ...rulesets.map((r) => h("option", { value: r.rulesetId }, r.name || familyName(r.rulesetId))));
    onFamily();
    if (waiting?.status === TicketStatus.QUEUED) showCriteria(waiting);
  }).catch((err) => { error.textContent = describeError(err); });

  if (ticketId) {
    const id = ticketId;
    void lobby.getQuickMatchTicket({ ticketId: id }, { signal: abort.signal }).then((res) => {
      if (!res.ticket) return;
      show(res.ticket);
      if (res.ticket.status === TicketStatus.QUEUED) void follow(id);
    }).catch(() => forget());
  }

  return () => {
    abort.abort();
    // leaving the page while waiting withdraws the ticket: nobody is seated in a game unseen
    if (queued && ticketId && !opening) {
      void lobby.cancelQuickMatchTicket({ ticketId }).catch(() => {});
      forget();
    }
  };
}
