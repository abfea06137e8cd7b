// The course's website: two fixes to the theme and to Sphinx's search, on every page.
"use strict";

// 1. The menu (primary sidebar) and contents (secondary sidebar) buttons. The theme's scripts attach
// their click handlers to the first `.primary-toggle` / `.secondary-toggle` of the page, which is a
// hidden button in the top header; the buttons a reader sees (in the article header) get none, so
// below 992 px the menu and the contents cannot be opened and on a desktop the sidebar cannot be
// collapsed (pydata-sphinx-theme #2451, sphinx-book-theme #988). Every other toggle passes its click
// on to the one the theme listens to: a dialog on a phone or a tablet, a collapse on a desktop. A
// theme without the bug opens the dialog itself, and the click is not passed on.
function minivitToggles() {
  for (const kind of ["primary", "secondary"]) {
    const [first, ...rest] = document.querySelectorAll(`.${kind}-toggle`);
    rest.forEach((button) =>
      button.addEventListener("click", (event) => {
        event.preventDefault();
        event.stopPropagation();
        const dialog = document.getElementById(`pst-${kind}-sidebar-modal`);
        if (dialog && dialog.open) return; // a theme that listens to this button has opened it
        first.click();
        const sidebar = document.getElementById(`pst-${kind}-sidebar`);
        if (sidebar) button.setAttribute("aria-expanded", String(!sidebar.classList.contains("pst-sidebar-hidden")));
      }),
    );
  }
}

// 2. Search snippets. Sphinx takes a result's snippet from the page's [role=main], which in this
// theme starts with the article header (its download and colour-mode menus: "System Settings Light
// Dark ..."), and holds the page's contents list and its previous/next links. The snippet is taken
// from the lesson's own text instead, with its white space collapsed.
function minivitSearchSnippets() {
  if (typeof Search === "undefined" || !Search.htmlToText) return; // only search.html loads searchtools.js
  const toText = Search.htmlToText;
  const chrome = ".bd-header-article, .bd-sidebar-secondary, .prev-next-area, .onlyprint, .frame-player, h1";
  Search.htmlToText = (html, anchor) => {
    const doc = new DOMParser().parseFromString(html, "text/html");
    doc.querySelectorAll(chrome).forEach((e) => e.remove());
    return toText(doc.documentElement.outerHTML, anchor).replace(/\s+/g, " ");
  };
}

document.addEventListener("DOMContentLoaded", () => {
  minivitToggles();
  minivitSearchSnippets();
});
