// The lobby: the live table list (WatchTables), creating a table, joining and watching.
import { create } from "@bufbuild/protobuf";
import { describeError, lobby, requestId } from "./api.js";
import { h, replace } from "./dom.js";
import { ChallengeMode } from "./gen/wordarena/v1/common_pb.js";
import {
  CreateTableRequestSchema, JoinTableRequestSchema, TableChangeKind, TableStatus, WatchTablesRequestSchema,
  type RulesetSummary, type Table,
} from "./gen/wordarena/v1/lobby_pb.js";
import { session } from "./session.js";
import { familyName } from "./names.js";

export function lobbyView(root: HTMLElement, openMatch: (matchId: string) => void): () => void {
  const abort = new AbortController();
  const me = session.me();
  const tables = new Map<string, Table>();
  const waiting = new Set<string>();
  const error = h("p", { class: "error", role: "alert" });
  const notice = h("p", { class: "notice", role: "status" });
  const list = h("ul", { class: "tables", id: "tables", "aria-label": "Tables" });
  const listState = h("p", { class: "muted", id: "tables-state" }, "Connecting…");

  const seated = (t: Table) => t.seats.some((s) => s.player?.playerId === me?.playerId);

  function go(t: Table) {
    if (t.match?.matchId) openMatch(t.match.matchId);
  }

  function renderList() {
    const rows = [...tables.values()].sort((a, b) => Number((b.createTime?.seconds ?? 0n) - (a.createTime?.seconds ?? 0n)));
    replace(list, ...rows.map((t) => tableRow(t)));
    if (!rows.length) list.append(h("li", { class: "muted" }, "No tables yet: open one."));
  }

  function tableRow(t: Table): HTMLElement {
    const s = t.settings;
    const mine = seated(t);
    const free = t.seats.filter((x) => !x.player).length;
    const title = `${familyName(s?.ruleset?.rulesetId ?? "")} · ${s?.ruleset?.language ?? ""} · ${s?.ruleset?.boardId ?? ""}`;
    const status = t.status === TableStatus.OPEN ? `open, ${free} free` : t.status === TableStatus.STARTED ? "playing" : "starting";
    const names = t.seats.map((x) => (x.player ? (x.player.bot ? `bot ${x.player.botLevel}` : x.player.displayName) : "—"));
    const actions: HTMLElement[] = [];
    if (t.status === TableStatus.OPEN && free > 0 && !mine) {
      actions.push(h("button", { class: "join", onclick: () => void join(t) }, "Join"));
    }
    if (t.status === TableStatus.STARTED && mine) actions.push(h("button", { class: "open", onclick: () => go(t) }, "Play"));
    if (t.status === TableStatus.STARTED && !mine && s?.options?.spectatorsAllowed) {
      actions.push(h("button", { class: "watch", onclick: () => go(t) }, "Watch"));
    }
    if (mine && t.status === TableStatus.OPEN) actions.push(h("span", { class: "muted" }, "waiting for players…"));
    return h("li", { class: mine ? "table mine" : "table", "data-table": t.tableId },
      h("strong", {}, title), h("span", { class: "seats" }, names.join(", ")), h("span", { class: "muted" }, status), ...actions);
  }

  async function join(t: Table) {
    error.textContent = "";
    try {
      waiting.add(t.tableId);
      const res = await lobby.joinTable(create(JoinTableRequestSchema, { tableId: t.tableId, requestId: requestId() }));
      if (res.table) onTable(res.table);
    } catch (err) {
      waiting.delete(t.tableId);
      error.textContent = describeError(err);
    }
  }

  function onTable(t: Table) {
    tables.set(t.tableId, t);
    renderList();
    if (t.status === TableStatus.STARTED && waiting.has(t.tableId) && t.match?.matchId) {
      waiting.delete(t.tableId);
      go(t);
    }
  }

  async function watch() {
    let attempt = 0;
    while (!abort.signal.aborted) {
      try {
        const req = create(WatchTablesRequestSchema, { filter: { statuses: [TableStatus.OPEN, TableStatus.STARTING, TableStatus.STARTED] } });
        tables.clear();
        for await (const change of lobby.watchTables(req, { signal: abort.signal })) {
          attempt = 0;
          const t = change.table;
          switch (change.kind) {
            case TableChangeKind.SYNCED:
              listState.textContent = "Live.";
              renderList();
              break;
            case TableChangeKind.CLOSED:
              if (t) tables.delete(t.tableId);
              renderList();
              break;
            case TableChangeKind.HEARTBEAT:
              break;
            default:
              if (t) onTable(t);
          }
        }
      } catch (err) {
        if (abort.signal.aborted) return;
        listState.textContent = `Table list interrupted (${describeError(err)}); reconnecting…`;
      }
      attempt += 1;
      await new Promise((r) => setTimeout(r, Math.min(5000, 300 * attempt)));
    }
  }

  const form = createForm(async (req) => {
    error.textContent = "";
    try {
      const res = await lobby.createTable(req);
      const t = res.table;
      if (!t) return;
      waiting.add(t.tableId);
      notice.textContent = "Table open: waiting for players.";
      onTable(t);
    } catch (err) {
      error.textContent = describeError(err);
    }
  }, error);

  root.replaceChildren(
    h("section", { class: "card" }, h("h2", {}, "Open a table"), form, error, notice),
    h("section", { class: "card" }, h("h2", {}, "Tables"), listState, list));
  void watch();
  return () => abort.abort();
}

type CreateRequest = ReturnType<typeof create<typeof CreateTableRequestSchema>>;

function createForm(submit: (req: CreateRequest) => Promise<void>, error: HTMLElement): HTMLFormElement {
  const family = h("select", { id: "family", name: "family" });
  const language = h("select", { id: "language", name: "language" });
  const board = h("select", { id: "board", name: "board" });
  const seats = h("input", { id: "seats", name: "seats", type: "number", min: 2, max: 2, value: 2 });
  const bots = h("input", { id: "bots", name: "bots", type: "number", min: 0, max: 1, value: 0 });
  const botLevel = h("input", { id: "bot-level", name: "bot-level", type: "number", min: 1, max: 6, value: 3 });
  const clock = h("input", { id: "clock", name: "clock", type: "number", min: 0, max: 20, value: 0, title: "minutes per player; 0 = untimed" });
  const challenge = h("select", { id: "challenge", name: "challenge" },
    h("option", { value: "0" }, "rules' default"), h("option", { value: "2" }, "accept or check"), h("option", { value: "1" }, "instant"));
  const spectators = h("input", { id: "spectators", name: "spectators", type: "checkbox", checked: true });
  const button = h("button", { type: "submit", class: "primary", id: "create" }, "Open table");
  let rulesets: RulesetSummary[] = [];

  const fill = (select: HTMLSelectElement, values: string[]) =>
    replace(select, ...values.map((v) => h("option", { value: v }, v)));

  function onFamily() {
    const r = rulesets.find((x) => x.rulesetId === family.value);
    if (!r) return;
    fill(language, r.languages);
    fill(board, r.boardIds);
    seats.min = String(r.minSeats);
    seats.max = String(r.maxSeats);
    seats.value = String(Math.min(Math.max(Number(seats.value), r.minSeats), r.maxSeats));
    bots.max = String(Math.max(0, Number(seats.value) - 1));
    clock.value = r.rulesetId === "wordtiles" ? "10" : "0";
    clock.min = r.rulesetId === "wordtiles" ? "3" : "0";
  }
  family.addEventListener("change", onFamily);
  seats.addEventListener("change", () => { bots.max = String(Math.max(0, Number(seats.value) - 1)); });

  void lobby.listRulesets({}).then((res) => {
    rulesets = res.rulesets;
    replace(family, ...rulesets.map((r) => h("option", { value: r.rulesetId }, r.name || familyName(r.rulesetId))));
    onFamily();
  }).catch((err) => { error.textContent = describeError(err); });

  const form = h("form", { id: "create-table", class: "row" },
    h("label", {}, "Game", family), h("label", {}, "Language", language), h("label", {}, "Board", board),
    h("label", {}, "Players", seats), h("label", {}, "Bots", bots), h("label", {}, "Bot level", botLevel),
    h("label", {}, "Clock (min)", clock), h("label", {}, "Words checked", challenge),
    h("label", {}, "Spectators", spectators), button);
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    button.disabled = true;
    const n = Number(seats.value);
    const botCount = Math.min(Number(bots.value), n - 1);
    const minutes = Number(clock.value);
    const req = create(CreateTableRequestSchema, {
      requestId: requestId(),
      seat: 0,
      settings: {
        ruleset: { rulesetId: family.value, language: language.value, boardId: board.value },
        seats: n,
        options: {
          spectatorsAllowed: spectators.checked,
          challengeMode: Number(challenge.value) as ChallengeMode,
          clock: minutes > 0 ? { perPlayer: { seconds: BigInt(minutes * 60), nanos: 0 } } : undefined,
        },
        bots: Array.from({ length: botCount }, (_, i) => ({ seat: n - 1 - i, botLevel: Number(botLevel.value) })),
      },
    });
    try {
      await submit(req);
    } finally {
      button.disabled = false;
    }
  });
  return form;
}
