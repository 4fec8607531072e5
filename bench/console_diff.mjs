// The console's review diff (src/console/diff.js) on the bad inputs, in Node: the median
// of 7 runs of each case, and the ratio to the smallest case (the machine is shared: read ratios).
//   node bench/console_diff.mjs
import { diff } from '../src/console/diff.js';

const lines = (n, f) => Array.from({ length: n }, (_, i) => f(i)).join('');
const big = lines(10_000, (i) => `第 ${i} 行：审核 line ${i}\n`);
let mib = '';
for (let i = 0, bytes = 0; bytes < 1 << 20; i++) {
  const line = `第 ${i} 行：审核流程说明 line ${i} of the handbook, padded to be long enough.\n`;
  mib += line;
  bytes += Buffer.byteLength(line);
}
const long = '审'.repeat(50_000) + 'x'.repeat(50_000);
let seed = 1;
const random = () => Array.from({ length: 100_000 }, () => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return '审核文档'[seed % 4];
}).join('');
const r1 = random();
const r2 = random();

const cases = [
  ['1 MiB, two lines changed', mib, mib.replace('第 100 行：审核', '第 100 行：复核').replace('line 9000 of', 'line 9000 (revised) of')],
  ['10,000 lines, two changed', big, big.replace('第 5000 行', '第五千行').replace('line 7\n', 'LINE 7\n')],
  ['10,000 lines, all changed (gives way)', big, lines(10_000, (i) => `其他 ${i}\n`)],
  ['100,000-character line, one character changed', long, long.slice(0, 30_000) + '改' + long.slice(30_001)],
  ['two random 100,000-character lines (shown as whole lines)', r1, r2],
];

const rows = cases.map(([name, before, after]) => {
  const times = [];
  let complete;
  for (let run = 0; run < 7; run++) {
    const start = process.hrtime.bigint();
    complete = diff(before, after).complete;
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  times.sort((a, b) => a - b);
  return { name, ms: times[3], complete };
});
const least = Math.min(...rows.map((r) => r.ms));
console.log('| case | median ms | × smallest | complete diff |');
console.log('|---|---:|---:|---|');
for (const r of rows) console.log(`| ${r.name} | ${r.ms.toFixed(1)} | ${(r.ms / least).toFixed(1)} | ${r.complete} |`);
