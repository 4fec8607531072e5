// What every browser test needs: a docgate of its own (the binary ctest names, on a free port,
// over a throwaway SQLite database), tokens from `docgate token`, Debian's headless Chromium
// through playwright-core, the API beside the browser, axe-core, and screenshots on request.
//
// A test exits with 77 (ctest's skip) and says why when Chromium or the binary is missing.
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { after } from 'node:test';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

export const CHROMIUM = process.env.DOCGATE_CHROMIUM || '/usr/bin/chromium';
export const BINARY = process.env.DOCGATE_BINARY || path.join(here, '../../build/docgate');
export const SCREENSHOTS = path.join(here, '../../docs/screenshots');
// Generous bound for any wait on a condition: the machine is shared and slow under sanitizers.
export const PATIENCE_MS = 60_000;

// Ends a test file as skipped (exit 77, which ctest reports as such), saying why.
export function skip(why) {
  console.log(`SKIPPED: ${path.basename(process.argv[1])}: ${why}`);
  process.exit(77);
}

// The test OpenID provider (oidc_provider.mjs); skips the file when its npm package is missing.
export async function importOidcProvider() {
  try {
    return await import('./oidc_provider.mjs');
  } catch (error) {
    if (error.code !== 'ERR_MODULE_NOT_FOUND') throw error;
    return skip(`oidc-provider is not installed (npm ci in tests/browser): ${error.message}`);
  }
}

export function skipUnlessReady() {
  for (const [file, what] of [[CHROMIUM, 'Chromium (apt-get install chromium)'],
    [BINARY, 'the docgate binary (set DOCGATE_BINARY)']]) {
    if (!fs.existsSync(file)) skip(`${file} is missing: ${what}`);
  }
}

// A docgate serving on 127.0.0.1:<free port> until stop().
export async function startDocgate(env = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docgate-browser-'));
  // Only the settings below: none of the caller's DOCGATE_* variables (a test run exports some).
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('DOCGATE_')));
  const settings = {
    ...inherited,
    DOCGATE_DATABASE_URL: `sqlite://${dir}/docgate.db`,
    DOCGATE_JWT_SECRET: 'browser-test-secret-0123456789abcdef0123456789',
    DOCGATE_LISTEN: '127.0.0.1:0',
    DOCGATE_LOG_LEVEL: 'info',  // the "serving http://..." line tells the port
    ...env,
  };
  const child = spawn(BINARY, ['serve'], { env: settings, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const base = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`docgate did not start:\n${log}`));
    }, PATIENCE_MS);
    const read = (chunk) => {
      log = (log + chunk).slice(-65536);  // the last lines, for a failure's message
      const found = /serving (http:\/\/[^\s]+)/.exec(log);
      if (found) { clearTimeout(timer); resolve(found[1].replace(/\/?$/, '/')); }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.on('exit', (code) => { clearTimeout(timer); reject(new Error(`docgate exited ${code}:\n${log}`)); });
  });
  child.removeAllListeners('exit');
  // `name`: the token's display name; by default the sub capitalized (alice: Alice), null for none.
  const token = (sub, roles, extra = [], { name = sub[0].toUpperCase() + sub.slice(1) } = {}) =>
    execFileSync(BINARY,
      ['token', '--sub', sub, '--roles', roles, ...(name === null ? [] : ['--name', name]), ...extra],
      { env: settings, encoding: 'utf8' }).trim();
  return {
    base,
    token,
    log: () => log,
    api: (tokenValue, method, target, body, headers = {}) => callApi(base, tokenValue, method, target, body, headers),
    metric: async (name) => readMetric(base, name),
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.on('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function callApi(base, token, method, target, body, headers) {
  const response = await fetch(new URL(target.replace(/^\//, ''), base), {
    method,
    headers: {
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let json = null;
  try { json = JSON.parse(text); } catch { /* not JSON */ }
  return { status: response.status, headers: response.headers, json, text };
}

// The sum of a counter over its labels, from /metrics.
async function readMetric(base, name) {
  const text = await (await fetch(new URL('metrics', base))).text();
  let sum = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith(`${name} `) || line.startsWith(`${name}{`)) sum += Number(line.split(' ').pop());
  }
  return sum;
}

// Polls `probe` until it returns a truthy value; never a fixed sleep.
export async function eventually(probe, what, bound = PATIENCE_MS) {
  const deadline = Date.now() + bound;
  for (let pause = 20; ; pause = Math.min(pause * 2, 500)) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}

// What a test file starts with: skipped (77) without Chromium or the binary, else a docgate and a
// browser of its own, both stopped after the file's last test.
export async function setUp(env = {}) {
  skipUnlessReady();
  const docgate = await startDocgate(env);
  const browser = await launchBrowser().catch(async (error) => {
    await docgate.stop();
    throw error;
  });
  after(async () => {
    await browser.close();
    await docgate.stop();
  });
  return { docgate, browser };
}

export async function launchBrowser() {
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}

// A page of the console signed in with `token` (through the /#token= link), in `locale`.
// Errors thrown by the page's scripts are collected in page.errors; tests assert it stays empty.
export async function openConsole(browser, docgate, token, locale = 'en-US') {
  const context = await browser.newContext({ locale, viewport: { width: 1200, height: 900 } });
  context.setDefaultTimeout(PATIENCE_MS);
  const page = await context.newPage();
  page.errors = [];
  page.on('pageerror', (error) => page.errors.push(error.message));
  await page.goto(token ? `${docgate.base}#token=${token}` : docgate.base);
  await page.getByTestId(token ? 'nav-documents' : 'token-input').waitFor();
  return page;
}

// The id at the end of the page's route (#/documents/<id>, #/reviews/<id>).
export function idInUrl(page) {
  return decodeURIComponent(new URL(page.url()).hash.split('/').pop());
}

// Saved to docs/screenshots/<name>.png only with DOCGATE_SCREENSHOTS=1 (the README's pictures).
export async function screenshot(page, name) {
  if (process.env.DOCGATE_SCREENSHOTS !== '1') return;
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

// axe-core's WCAG 2.1 A/AA rules on the page as it is; returns the serious and critical ones.
export async function seriousViolations(page) {
  const source = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  // The console's CSP forbids injected scripts; evaluate() runs in an isolated world instead.
  await page.evaluate(source);
  const result = await page.evaluate(() => window.axe.run(document, {
    runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
  }));
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}
