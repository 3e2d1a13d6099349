// At phone widths every table of the console is a stack of cards, one per row, each cell with its
// column's name before it (styles.css): the names are the header cells' text, copied to the body
// cells' data-label here, for every table the pages render now or later.

/** Gives each body cell of each table under `root` its column's header text as data-label. */
export function labelTableCells(root: ParentNode): void {
  for (const table of root.querySelectorAll("table")) {
    const names = [...table.querySelectorAll("thead th")].map((th) => th.textContent?.trim() ?? "");
    for (const row of table.querySelectorAll("tbody tr")) {
      [...row.children].forEach((cell, index) => {
        const name = names[index] ?? "";
        if (cell.getAttribute("data-label") !== name) cell.setAttribute("data-label", name);
      });
    }
  }
}

/** Keeps the labels true as pages render rows (a mutation of attributes alone does not call back). */
export function keepTableCellsLabelled(root: HTMLElement): MutationObserver {
  labelTableCells(root);
  const observer = new MutationObserver(() => labelTableCells(root));
  observer.observe(root, { childList: true, subtree: true, characterData: true });
  return observer;
}
