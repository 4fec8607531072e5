// @ts-check
// The review diff: what changed from the last approved version to the submitted one.
//
// Lines first (Myers' O(ND) algorithm over lines), then each changed block again by tokens:
// one token per CJK character (Han, kana, Hangul: Chinese has no spaces to split words at), one
// per word of other scripts, per whitespace run and per punctuation mark. Both passes stop at a
// budget, so a document of 1 MiB, 10,000 lines or one line of 100,000 characters never freezes
// the page:
//   - lines: at most LIMITS.lineEdits changed lines; beyond that the diff gives way to the full
//     text (`complete: false`);
//   - tokens: a changed block is compared token by token when, between the block's common
//     prefix and suffix, each side has at most LIMITS.blockTokens tokens and they differ in at
//     most LIMITS.tokenEdits tokens; otherwise the block is shown as whole lines removed and
//     added.
// No DOM here, so Node's test runner can load the module as it is.

/**
 * @typedef {'=' | '-' | '+'} Op
 * @typedef {{op: Op, text: string}} Part
 */
/**
 * One step of an edit script: keep, remove or add an item.
 * @template T
 * @typedef {[Op, T]} Edit
 */

export const LIMITS = Object.freeze({lineEdits: 2000, blockTokens: 20000, tokenEdits: 1000});

const CJK = '\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}';
const TOKEN = new RegExp(`[${CJK}]|[^\\s\\p{P}\\p{S}${CJK}]+|\\s+|[^]`, 'gu');

/**
 * @param {string} text
 * @returns {string[]}
 */
export function tokenize(text) {
  return text.match(TOKEN) ?? [];
}

/**
 * @param {string} text
 * @returns {string[]}
 */
function splitLines(text) {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

// The shortest edit script from a to b (arrays compared with ===), as [op, item] pairs with op
// '=', '-' or '+'; null when it needs more than maxEdits insertions and deletions.
/**
 * @template T
 * @param {readonly T[]} a
 * @param {readonly T[]} b
 * @param {number} maxEdits
 * @returns {Edit<T>[] | null}
 */
function myers(a, b, maxEdits) {
  const n = a.length;
  const m = b.length;
  const offset = maxEdits + 1;
  const v = new Int32Array(2 * maxEdits + 3);
  /** @type {Int32Array[]} */
  const trace = [];
  for (let d = 0; d <= maxEdits; d++) {
    trace.push(v.slice(offset - d - 1, offset + d + 2));
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1]) ?
          v[offset + k + 1] :
          v[offset + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return backtrack(a, b, trace, d);
    }
  }
  return null;
}

/**
 * @template T
 * @param {readonly T[]} a
 * @param {readonly T[]} b
 * @param {readonly Int32Array[]} trace
 * @param {number} edits
 * @returns {Edit<T>[]}
 */
function backtrack(a, b, trace, edits) {
  /** @type {Edit<T>[]} */
  const script = [];
  let x = a.length;
  let y = b.length;
  for (let d = edits; d > 0; d--) {
    const row = trace[d];
    /** @type {(k: number) => number} */
    const at = (k) => row[k + d + 1];
    const k = x - y;
    const down = k === -d || (k !== d && at(k - 1) < at(k + 1));
    const prevK = down ? k + 1 : k - 1;
    const prevX = at(prevK);
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      x--;
      y--;
      script.push(['=', a[x]]);
    }
    if (down) {
      y--;
      script.push(['+', b[y]]);
    } else {
      x--;
      script.push(['-', a[x]]);
    }
  }
  while (x > 0 && y > 0) {
    x--;
    y--;
    script.push(['=', a[x]]);
  }
  return script.reverse();
}

/**
 * @template T
 * @param {readonly T[]} a
 * @param {readonly T[]} b
 * @returns {number}
 */
function commonPrefix(a, b) {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

/**
 * @template T
 * @param {readonly T[]} a
 * @param {readonly T[]} b
 * @param {number} prefix
 * @returns {number}
 */
function commonSuffix(a, b, prefix) {
  let i = 0;
  while (i < a.length - prefix && i < b.length - prefix &&
         a[a.length - 1 - i] === b[b.length - 1 - i])
    i++;
  return i;
}

// Myers over the part of a and b between their common prefix and suffix; null when that part
// of either is longer than maxItems or needs more than maxEdits edits.
/**
 * @template T
 * @param {readonly T[]} a
 * @param {readonly T[]} b
 * @param {number} maxEdits
 * @param {number} [maxItems]
 * @returns {Edit<T>[] | null}
 */
function diffItems(a, b, maxEdits, maxItems = Infinity) {
  const prefix = commonPrefix(a, b);
  const suffix = commonSuffix(a, b, prefix);
  const changedA = a.slice(prefix, a.length - suffix);
  const changedB = b.slice(prefix, b.length - suffix);
  if (changedA.length > maxItems || changedB.length > maxItems) return null;
  const middle = myers(changedA, changedB, maxEdits);
  if (middle === null) return null;
  return [
    ...a.slice(0, prefix).map((item) => /** @type {Edit<T>} */ (['=', item])),
    ...middle,
    ...a.slice(a.length - suffix).map((item) => /** @type {Edit<T>} */ (['=', item])),
  ];
}

class Parts {
  constructor() {
    /** @type {Part[]} */
    this.list = [];
  }
  /**
   * @param {Op} op
   * @param {string} text
   */
  add(op, text) {
    if (text === '') return;
    const last = this.list[this.list.length - 1];
    if (last && last.op === op)
      last.text += text;
    else
      this.list.push({op, text});
  }
}

/**
 * @param {string} removed
 * @param {string} added
 * @param {Parts} parts
 */
function refineBlock(removed, added, parts) {
  const a = tokenize(removed);
  const b = tokenize(added);
  const script = diffItems(a, b, LIMITS.tokenEdits, LIMITS.blockTokens);
  if (script === null) {
    parts.add('-', removed);
    parts.add('+', added);
    return;
  }
  // Removals before additions inside a run of changes: reads as "this became that".
  let pendingRemoved = '';
  let pendingAdded = '';
  const flush = () => {
    parts.add('-', pendingRemoved);
    parts.add('+', pendingAdded);
    pendingRemoved = pendingAdded = '';
  };
  script.forEach(([op, token], i) => {
    // A lone space between two changes ("The quick" -> "A slow") is part of the change: otherwise
    // a reworded phrase reads as alternating word swaps.
    const glue = op === '=' && /^\s+$/.test(token) && (pendingRemoved || pendingAdded) &&
        i + 1 < script.length && script[i + 1][0] !== '=';
    if (op === '-' || glue) pendingRemoved += token;
    if (op === '+' || glue) pendingAdded += token;
    if (op === '=' && !glue) {
      flush();
      parts.add('=', token);
    }
  });
  flush();
}

// {complete: true, parts: [{op: '=' | '-' | '+', text}]}: the texts of '=' and '-' parts make
// `before`, those of '=' and '+' make `after`. {complete: false, parts: []} when the line budget
// is exceeded.
/**
 * @param {string} before
 * @param {string} after
 * @returns {{complete: boolean, parts: Part[]}}
 */
export function diff(before, after) {
  const script = diffItems(splitLines(before), splitLines(after), LIMITS.lineEdits);
  if (script === null) return {complete: false, parts: []};
  const parts = new Parts();
  let removed = '';
  let added = '';
  const flush = () => {
    if (removed !== '' && added !== '')
      refineBlock(removed, added, parts);
    else {
      parts.add('-', removed);
      parts.add('+', added);
    }
    removed = added = '';
  };
  for (const [op, line] of script) {
    if (op === '-')
      removed += line;
    else if (op === '+')
      added += line;
    else {
      flush();
      parts.add('=', line);
    }
  }
  flush();
  return {complete: true, parts: parts.list};
}

/**
 * One line of a diff as the review page shows it: a line of the submitted text (`line`, 1-based:
 * the line of the text split on "\n" that comments refer to) with the parts that make it, removed
 * text inside it included; or a line that only the approved text had (`line` null). `changed`:
 * it holds a removal or an addition. The parts' texts hold no line break of the row's own.
 * @typedef {{line: number | null, parts: Part[], changed: boolean}} Row
 */

// The rows of a diff's parts: every "\n" of an '=' or '+' part ends a line of the submitted text;
// a removed stretch that is whole lines of the approved text (at the start of a row, up to a "\n")
// is a row of its own; removed text inside a line stays in it, a removed line break shown as "↵".
/**
 * @param {readonly Part[]} parts
 * @returns {Row[]}
 */
export function diffRows(parts) {
  parts = alignedToLines(parts);
  /** @type {Row[]} */
  const rows = [];
  /** @type {Part[]} */
  let current = [];
  let hasNew = false;
  let line = 1;
  /** @param {Op} op @param {string} text */
  const add = (op, text) => {
    if (text !== '') current.push({op, text});
  };
  /** @param {boolean} submitted */
  const close = (submitted) => {
    rows.push({
      line: submitted ? line++ : null,
      parts: current,
      changed: current.some((part) => part.op !== '='),
    });
    current = [];
    hasNew = false;
  };
  for (const {op, text} of parts) {
    for (const piece of text.split(/(?<=\n)/)) {
      if (piece === '') continue;
      const ends = piece.endsWith('\n');
      const body = ends ? piece.slice(0, -1) : piece;
      if (op === '-') {
        if (ends && !hasNew) {
          add('-', body);
          close(false);
        } else {
          add('-', ends ? body + '↵' : body);
        }
        continue;
      }
      add(op, body);
      hasNew = true;
      if (ends) {
        // A line added or removed whole shows even when it is empty.
        if (current.length === 0) current.push({op, text: ''});
        close(true);
      }
    }
  }
  if (current.length > 0) close(hasNew);
  return rows;
}

// The same edits with every run of changes that starts with a line break, right before unchanged
// text that starts with one too, moved past it ("…flow" "-\nline" "=\nnext" becomes
// "…flow\n" "-line\n" "=next"): a line removed or added whole then reads as a row of its own,
// not as the end of the line before it. Both texts stay the same (an unchanged part may be left
// empty).
/**
 * @param {readonly Part[]} parts
 * @returns {Part[]}
 */
function alignedToLines(parts) {
  /** @type {Part[]} */
  const out = parts.map((part) => ({...part}));
  for (let i = 0; i < out.length; i++) {
    if (out[i].op === '=') continue;
    let end = i;
    while (end < out.length && out[end].op !== '=') end++;
    const next = out[end];
    const run = out.slice(i, end);
    if (next && next.text.startsWith('\n') && run.every((part) => part.text.startsWith('\n'))) {
      for (const part of run) part.text = part.text.slice(1) + '\n';
      next.text = next.text.slice(1);
      if (i > 0) {
        out[i - 1].text += '\n';
      } else {
        out.unshift({op: '=', text: '\n'});
        end++;
      }
    }
    i = end;
  }
  return out;
}

// The rows of a text shown whole (a first review, or a diff past its budget): its lines.
/**
 * @param {string} text
 * @returns {Row[]}
 */
export function textRows(text) {
  return diffRows([{op: '=', text}]);
}
