// Building and updating the pages with DOM calls only. Text from the server (SQL, users, messages) goes
// in through textContent, never as markup, and nothing sets an inline style (the CSP forbids it).
export interface ElementOptions {
  className?: string;
  text?: string;
  attrs?: Record<string, string>;
}

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, options: ElementOptions = {}, children: Node[] = []): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (options.className) node.className = options.className;
  if (options.text !== undefined) node.textContent = options.text;
  for (const [name, value] of Object.entries(options.attrs ?? {})) node.setAttribute(name, value);
  for (const child of children) node.appendChild(child);
  return node;
}

const SVG = 'http://www.w3.org/2000/svg';

export function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number> = {}): SVGElementTagNameMap[K] {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, String(value));
  return node;
}

/** Writes `text` only when it differs: an unchanged node keeps the user's text selection. */
export function setText(node: Node, text: string): void {
  if (node.textContent !== text) node.textContent = text;
}

export function setAttr(node: Element, name: string, value: string): void {
  if (node.getAttribute(name) !== value) node.setAttribute(name, value);
}

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const node = document.getElementById(id);
  if (!node) throw new Error(`The page lacks #${id}`);
  return node as T;
}

/** Replaces `parent`'s children with `children` (for small, rarely changing parts of a page). */
export function replaceChildren(parent: Element, children: Node[]): void {
  parent.replaceChildren(...children);
}

/** A two-column table of label and value rows; values are text. */
export function definitionRows(rows: [string, string | undefined][]): HTMLTableSectionElement {
  const body = el('tbody');
  for (const [label, value] of rows) {
    if (value === undefined || value === '') continue;
    body.appendChild(el('tr', {}, [el('th', { text: label }), el('td', { text: value })]));
  }
  return body;
}

/** A state word as a badge whose class colours it (state-running, state-failed, ...). */
export function stateBadge(state: string | undefined): HTMLSpanElement {
  const text = state ?? 'UNKNOWN';
  return el('span', { className: `badge ${stateClass(text)}`, text });
}

export function stateClass(state: string): string {
  let name = 'state-';
  for (const ch of state.toLowerCase()) name += (ch >= 'a' && ch <= 'z') || ch === '_' ? ch : '-';
  return name;
}
