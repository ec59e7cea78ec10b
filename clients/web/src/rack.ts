// The player's rack: click (or Enter on) a tile to pick it, then a square to put it there; or
// drag it onto the square.
import { h, replace } from "./dom.js";
import type { Tile } from "./gen/wordarena/v1/common_pb.js";
import { RACK_DRAG, tileFace } from "./board.js";

export class RackView {
  readonly el: HTMLElement;

  constructor(private readonly onTile: (index: number) => void) {
    this.el = h("div", { class: "rack", id: "rack", role: "group", "aria-label": "Your rack" });
  }

  /** `irradiated`: the view's board is (War of Words): every letter is worth 1, no face value shown. */
  render(tiles: readonly Tile[], used: ReadonlySet<number>, selected: number | null, irradiated = false): void {
    replace(this.el, ...tiles.map((t, i) => {
      const face = tileFace(t);
      if (irradiated && face.value) face.value = "";
      const text = t.isBlank ? "?" : face.text;
      const classes = [t.action ? "action" : "", i === selected ? "selected" : "", used.has(i) ? "used" : ""].filter(Boolean);
      return h("button", {
        type: "button", class: classes.join(" "), "data-rack": i, "data-letter": t.isBlank ? "?" : t.letter,
        "aria-pressed": i === selected ? "true" : "false", disabled: used.has(i),
        "aria-label": t.isBlank ? "blank" : `${text} ${face.value}`.trim(), onclick: () => this.onTile(i),
        draggable: used.has(i) ? undefined : "true",
        ondragstart: ((ev: DragEvent) => ev.dataTransfer?.setData(RACK_DRAG, String(i))) as EventListener,
      }, text, face.value ? h("sub", {}, face.value) : null);
    }));
  }
}
