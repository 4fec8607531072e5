// The review page's diff by line (issue 38), without a browser: the rows diff.js makes of a diff
// are the submitted text's lines, numbered as comments refer to them (1-based, the text split on
// "\n"), with lines only the approved text had as rows of their own, unnumbered.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { diff, diffRows, textRows } from '../../src/console/diff.js';

const newSide = (row) => row.parts.filter((p) => p.op !== '-').map((p) => p.text).join('');
const oldSide = (row) => row.parts.filter((p) => p.op !== '+').map((p) => p.text).join('');
// The lines a comment's `line` counts: the text split on "\n", without the empty one after a
// final line break.
const linesOf = (text) => (text === '' ? [] : text.replace(/\n$/, '').split('\n'));

function checkedRows(before, after) {
  const result = diff(before, after);
  assert.equal(result.complete, true);
  const rows = diffRows(result.parts);
  const numbered = rows.filter((row) => row.line !== null);
  assert.deepEqual(numbered.map((row) => row.line), numbered.map((_, i) => i + 1),
    JSON.stringify([before, after]));
  assert.deepEqual(numbered.map(newSide), linesOf(after), JSON.stringify([before, after]));
  for (const row of rows) {
    assert.ok(row.parts.every((p) => !p.text.includes('\n')), JSON.stringify(row));
    assert.equal(row.changed, row.parts.some((p) => p.op !== '='), JSON.stringify(row));
    if (row.line === null) assert.ok(row.parts.every((p) => p.op === '-'), JSON.stringify(row));
  }
  return rows;
}

test('a changed line keeps its number; a removed line has none; an added one is numbered', () => {
  const rows = checkedRows('标题\n文档审核流程\n删掉这一行\n不变\n', '标题\n文档复核流程\n不变\n新增\n');
  assert.deepEqual(rows.map((row) => [row.line, oldSide(row), newSide(row), row.changed]), [
    [1, '标题', '标题', false],
    [2, '文档审核流程', '文档复核流程', true],
    [null, '删掉这一行', '', true],
    [3, '不变', '不变', false],
    [4, '', '新增', true],
  ]);
  assert.deepEqual(rows[1].parts, [{ op: '=', text: '文档' }, { op: '-', text: '审' },
    { op: '+', text: '复' }, { op: '=', text: '核流程' }]);
});

test('an empty line added is a row of its own; a line break removed inside a line shows', () => {
  assert.deepEqual(checkedRows('a\nb\n', 'a\n\nb\n').map((row) => [row.line, row.changed]),
    [[1, false], [2, true], [3, false]]);
  const joined = checkedRows('ab\ncd\n', 'ab cd\n');
  assert.equal(joined.length, 1);
  assert.match(oldSide(joined[0]), /↵/);
});

test('the text shown whole: one row per line, the last one without a line break too', () => {
  assert.deepEqual(textRows('第一行\n第二行').map((row) => [row.line, newSide(row)]),
    [[1, '第一行'], [2, '第二行']]);
  assert.deepEqual(textRows('一\n\n三\n').map((row) => row.line), [1, 2, 3]);
  assert.deepEqual(textRows(''), []);
});

test('any two texts: the numbered rows are the submitted lines (2,000 random pairs)', () => {
  let seed = 11;
  const random = (n) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const alphabet = ['a', 'b', ' ', '中', '文', '\n', '\n', '，', 'é'];
  const text = () => Array.from({ length: random(40) }, () => alphabet[random(alphabet.length)]).join('');
  for (let i = 0; i < 2000; i++) checkedRows(text(), text());
});
