// The explorers on the course's pages: range inputs over frames drawn when the site was built
// (docs/explorers.py). Each control moves through its recorded positions; the picture shown is the
// frame of the current combination. No kernel: the notebook computes any position.
"use strict";
function minivitPlayer(root) {
  const manifest = JSON.parse(root.dataset.manifest);
  // frame paths are relative to the site's root; Sphinx writes the page's way there on <html>
  const rootUrl = document.documentElement.dataset.content_root
    ?? (typeof DOCUMENTATION_OPTIONS !== "undefined" ? DOCUMENTATION_OPTIONS.URL_ROOT : "") ?? "";
  const state = manifest.controls.map((c) => c.start);
  const controls = document.createElement("div");
  controls.className = "frame-controls";
  const image = document.createElement("img");
  image.className = "frame-image";
  image.alt = "the explorer's figure at the controls' positions";
  const show = () => {
    const key = state.join("-");
    image.src = rootUrl + manifest.frames[key];
    image.dataset.key = key;
  };
  manifest.controls.forEach((c, j) => {
    const row = document.createElement("label");
    row.className = "frame-control";
    const name = document.createElement("span");
    name.className = "frame-name";
    name.textContent = c.label;
    const readout = document.createElement("span");
    readout.className = "frame-readout";
    readout.textContent = c.labels[c.start];
    row.append(name);
    if (c.labels.length > 1) {
      const input = document.createElement("input");
      input.type = "range";
      input.min = 0;
      input.max = c.labels.length - 1;
      input.step = 1;
      input.value = c.start;
      input.setAttribute("aria-label", c.label);
      input.dataset.control = c.name;
      input.addEventListener("input", () => {
        state[j] = Number(input.value);
        readout.textContent = c.labels[state[j]];
        show();
      });
      row.append(input);
    } else {
      readout.title = "fixed on this page; the notebook moves it";
      readout.textContent += " (fixed here)";
    }
    row.append(readout);
    controls.append(row);
  });
  root.append(controls, image);
  show();
}
document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll(".frame-player").forEach(minivitPlayer);
});
