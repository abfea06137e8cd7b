// The explorers on the course's pages, played without a kernel over frames drawn when the site was
// built (docs/explorers.py, minivit/widgets/frames.py). Each control takes the input its kind asks
// for: toggles or a menu for a choice, a slider for a number, a slider and a play button for
// training time. The picture is the frame of the current combination; its text (the figure's
// titles) is its alt and is read out when it changes, and a control that moves nothing at the
// others' positions says so. The notebook computes any position.
"use strict";
const MINIVIT_TOGGLES = 6; // a choice with at most this many options is toggles, else a menu
const MINIVIT_PLAY_MS = 700; // one training-time position per this long while playing

function minivitPlayer(root) {
  const manifest = JSON.parse(root.dataset.manifest);
  const name = root.dataset.name || "explorer";
  // frame paths are relative to the site's root; Sphinx writes the page's way there on <html>
  const rootUrl = document.documentElement.dataset.content_root
    ?? (typeof DOCUMENTATION_OPTIONS !== "undefined" ? DOCUMENTATION_OPTIONS.URL_ROOT : "") ?? "";
  const state = manifest.controls.map((c) => c.start);
  const setters = []; // per control: show a new position in its input
  const notes = []; // per control: the "moves nothing here" note
  root.setAttribute("role", "group");
  root.setAttribute("aria-label", `${name}: the explorer's controls and its picture`);

  const controls = document.createElement("div");
  controls.className = "frame-controls";
  const figure = document.createElement("div");
  figure.className = "frame-figure";
  const image = document.createElement("img");
  image.className = "frame-image";
  image.width = manifest.width;
  image.height = manifest.height;
  if (manifest.legible_width) image.style.minWidth = `${manifest.legible_width}px`;
  figure.append(image);
  const hint = document.createElement("p");
  hint.className = "frame-hint";
  hint.textContent = "The figure is wider than the page: swipe or scroll it sideways.";
  hint.hidden = true;
  const status = document.createElement("p");
  status.className = "frame-status";
  status.setAttribute("aria-live", "polite");

  const keyOf = (positions) => positions.join("-");
  const said = () => manifest.controls.map((c, j) => `${c.label} ${c.labels[state[j]]}`).join(", ");
  const preload = () => { // the frames one move away, so that a move shows at once
    manifest.controls.forEach((c, j) => {
      [state[j] - 1, state[j] + 1].filter((i) => i >= 0 && i < c.labels.length).forEach((i) => {
        const next = state.slice();
        next[j] = i;
        new Image().src = rootUrl + manifest.frames[keyOf(next)];
      });
    });
  };
  const show = (announce) => {
    const key = keyOf(state);
    const text = manifest.texts ? manifest.texts[key] : "";
    image.src = rootUrl + manifest.frames[key];
    image.dataset.key = key;
    image.alt = `${name} at ${said()}${text ? ": " + text : ""}`;
    if (announce) status.textContent = image.alt;
    manifest.controls.forEach((c, j) => { // does moving control j change the picture, here?
      if (c.labels.length < 2 || !manifest.hashes) return;
      const seen = new Set(c.labels.map((_, i) => {
        const other = state.slice();
        other[j] = i;
        return manifest.hashes[keyOf(other)];
      }));
      notes[j].hidden = seen.size > 1;
    });
    preload();
  };
  const move = (j, i, announce = true) => {
    state[j] = i;
    setters[j](i);
    show(announce);
  };

  manifest.controls.forEach((c, j) => {
    const row = document.createElement("div");
    row.className = "frame-control";
    row.dataset.control = c.name;
    row.dataset.kind = c.kind;
    const id = `${root.dataset.lesson}-${root.dataset.explorer}-${c.name}`;
    const label = document.createElement("span");
    label.className = "frame-name";
    label.id = `${id}-label`;
    label.textContent = c.label;
    const readout = document.createElement("output");
    readout.className = "frame-readout";
    const note = document.createElement("span");
    note.className = "frame-note";
    note.textContent = "moves nothing while the other controls are as they are";
    note.hidden = true;
    notes.push(note);
    row.append(label);
    if (c.labels.length < 2) {
      readout.textContent = `${c.labels[0]} (fixed here; the notebook moves it)`;
      setters.push(() => {});
      row.append(readout);
    } else if (c.kind === "choice" && c.labels.length <= MINIVIT_TOGGLES) {
      const group = document.createElement("span");
      group.className = "frame-toggles";
      group.setAttribute("role", "radiogroup");
      group.setAttribute("aria-labelledby", label.id);
      const buttons = c.labels.map((text, i) => {
        const b = document.createElement("button");
        b.type = "button";
        b.className = "frame-toggle";
        b.textContent = text;
        b.setAttribute("role", "radio");
        b.addEventListener("click", () => move(j, i));
        b.addEventListener("keydown", (e) => { // arrows move along the group, as radio buttons do
          const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[e.key];
          if (!step) return;
          e.preventDefault();
          const next = (state[j] + step + c.labels.length) % c.labels.length;
          move(j, next);
          buttons[next].focus();
        });
        group.append(b);
        return b;
      });
      setters.push((i) => buttons.forEach((b, k) => {
        b.setAttribute("aria-checked", String(k === i));
        b.tabIndex = k === i ? 0 : -1;
      }));
      row.append(group);
    } else if (c.kind === "choice") {
      const select = document.createElement("select");
      select.setAttribute("aria-labelledby", label.id);
      c.labels.forEach((text, i) => select.append(new Option(text, String(i))));
      select.addEventListener("change", () => move(j, Number(select.value)));
      setters.push((i) => { select.value = String(i); });
      row.append(select);
    } else {
      const input = document.createElement("input");
      input.type = "range";
      input.min = 0;
      input.max = c.labels.length - 1;
      input.step = 1;
      input.setAttribute("aria-labelledby", label.id);
      input.addEventListener("input", () => move(j, Number(input.value)));
      setters.push((i) => {
        input.value = i;
        input.setAttribute("aria-valuetext", c.labels[i]); // read out as the value, not its index
        readout.textContent = c.labels[i];
      });
      if (c.kind === "time") {
        const play = document.createElement("button");
        play.type = "button";
        play.className = "frame-play";
        play.setAttribute("aria-label", `play ${c.label}`);
        play.setAttribute("aria-pressed", "false");
        play.textContent = "\u25B6";
        let timer = null;
        const stop = () => {
          clearInterval(timer);
          timer = null;
          play.setAttribute("aria-pressed", "false");
          play.textContent = "\u25B6";
        };
        play.addEventListener("click", () => {
          if (timer) return stop();
          if (state[j] === c.labels.length - 1) move(j, 0, false); // from the start again
          play.setAttribute("aria-pressed", "true");
          play.textContent = "\u275A\u275A";
          timer = setInterval(() => {
            if (state[j] >= c.labels.length - 1) return stop();
            move(j, state[j] + 1, false);
          }, MINIVIT_PLAY_MS);
        });
        input.addEventListener("input", stop);
        row.append(play);
      }
      row.append(input, readout);
    }
    row.append(note);
    controls.append(row);
    setters[j](state[j]);
  });
  root.append(controls, figure, hint, status);
  show(false);
  const wide = () => { hint.hidden = figure.scrollWidth <= figure.clientWidth + 1; };
  image.addEventListener("load", wide);
  window.addEventListener("resize", wide);
}
document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll(".frame-player").forEach(minivitPlayer);
});
