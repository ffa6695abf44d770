// @ts-check
/**
 * Building DOM without HTML strings: text always goes in as text nodes, attributes through setAttribute, so
 * nothing a run recorded (a task with `<script>`, a model's `<img onerror>`) can become markup.
 */

/**
 * @param {string} tag
 * @param {Record<string, string | number | boolean | undefined | ((event: Event) => void)>} [props]
 * @param {...(Node | string | number | null | undefined | false)} children
 * @returns {HTMLElement}
 */
export function h(tag, props = {}, ...children) {
  const element = document.createElement(tag);
  setProps(element, props);
  append(element, children);
  return element;
}

const SVG = 'http://www.w3.org/2000/svg';

/**
 * @param {string} tag
 * @param {Record<string, string | number | boolean | undefined | ((event: Event) => void)>} [props]
 * @param {...(Node | string | number | null | undefined | false)} children
 * @returns {SVGElement}
 */
export function s(tag, props = {}, ...children) {
  const element = /** @type {SVGElement} */ (document.createElementNS(SVG, tag));
  setProps(element, props);
  append(element, children);
  return element;
}

/**
 * @param {Element} element
 * @param {Record<string, string | number | boolean | undefined | ((event: Event) => void)>} props
 */
function setProps(element, props) {
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') element.addEventListener(name.replace(/^on/, ''), value);
    else if (/^on/i.test(name)) throw new Error(`refusing inline handler attribute ${name}`);
    else element.setAttribute(name, value === true ? '' : String(value));
  }
}

/**
 * @param {Element} element
 * @param {(Node | string | number | null | undefined | false)[]} children
 */
function append(element, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    element.append(
      typeof child === 'string' ? showBidiControls(child) : typeof child === 'number' ? String(child) : child,
    );
  }
}

/** Embedding, override and isolate controls: text that reorders what follows it. */
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/g;

/**
 * Text with its bidirectional controls shown as `[U+202E]`: a model's `\u202E` inside a tool name or a task would
 * otherwise reverse the text after it on the page (`ok · 5 ms` read as `sm 5 · ko`), the dashboard's own words
 * included. Marks (U+200E, U+200F) reorder nothing beyond themselves and stay.
 * @param {string} text
 */
export function showBidiControls(text) {
  return text.replace(BIDI_CONTROLS, (control) => `[U+${control.charCodeAt(0).toString(16).toUpperCase()}]`);
}

/** @param {Element} element */
export function clear(element) {
  while (element.firstChild) element.firstChild.remove();
}

/** @param {string} iso */
export function when(iso) {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}
