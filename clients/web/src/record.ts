// The game record download: the match server's GetMatchRecord (GCG text) saved as a .gcg file,
// during a game (no racks, as the server writes it for a running match) and once it is over
// (every rack). The page writes the server's text as it is; it builds no record itself.
import { describeError, type MatchClient } from "./api.js";
import { h } from "./dom.js";
import { MatchStatus } from "./gen/wordarena/v1/match_pb.js";

export class RecordDownload {
  readonly el: HTMLElement;
  private readonly note = h("p", { class: "muted", id: "record-note", "aria-live": "polite" });
  private readonly button = h("button", { type: "button", id: "record", onclick: () => void this.download() }, "Download the record (.gcg)");

  constructor(private readonly client: () => MatchClient, private readonly matchId: string) {
    this.el = h("div", { class: "record" }, this.button, this.note);
  }

  async download(): Promise<void> {
    this.note.textContent = "Asking the server for the record…";
    this.note.className = "muted";
    try {
      const res = await this.client().getMatchRecord({ matchId: this.matchId });
      const url = URL.createObjectURL(new Blob([res.gcg], { type: "text/plain;charset=utf-8" }));
      const link = h("a", { href: url, download: `wordarena-${this.matchId}.gcg`, hidden: true });
      document.body.append(link);
      link.click();
      link.remove();
      window.setTimeout(() => URL.revokeObjectURL(url), 60_000);
      const over = res.status === MatchStatus.FINISHED;
      this.note.textContent = over
        ? `Saved the record of the finished game (with every rack), to event ${res.lastSeq}.`
        : `Saved the record so far, to event ${res.lastSeq} (no racks while the game runs).`;
    } catch (err) {
      this.note.textContent = `No record: ${describeError(err)}`;
      this.note.className = "error";
    }
  }
}
