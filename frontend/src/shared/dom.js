// Small DOM helpers shared by the page scripts.

/** An element with an optional class and text (text is always set as text, never as HTML). */
export function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = text;
  return node;
}

/** A label and a preformatted value, as the results panels show Expected, Your output and Stdout. */
export function kv(label, value) {
  const row = el("div", "kv");
  row.appendChild(el("span", null, label));
  row.appendChild(el("pre", null, value));
  return row;
}

/** The JSON a template embedded in a <script type="application/json"> (null when absent). */
export function embedded(id) {
  const node = document.getElementById(id);
  return node ? JSON.parse(node.textContent) : null;
}
