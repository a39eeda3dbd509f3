// Opens profiles in speedscope (the npm package's built web app) in Debian's
// headless chromium, driven by playwright-core, and writes what its Sandwich
// view's table shows: the per-function totals speedscope's own code computes.
//   node speedscope.mjs SPEEDSCOPE_DIR OUTDIR FILE... [--shot FILE.png]
// For each FILE (served with the app from 127.0.0.1), OUTDIR/BASENAME.table
// gets one line per row, "TOTAL\tSELF\tNAME" (the numbers as the page shows
// them, without their grouping commas and percentages). Exits 1 when a file
// does not load or the table cannot be read; the page's console goes to
// stderr. NODE_PATH must reach playwright-core (scripts/setup.sh installs it
// globally with npm); CHROMIUM names the browser (default /usr/bin/chromium).
import { createRequire } from 'module';
import fs from 'fs';
import http from 'http';
import path from 'path';

const require = createRequire(import.meta.url);
const { chromium } = require('playwright-core');

const args = process.argv.slice(2);
let shot = null;
const si = args.indexOf('--shot');
if (si >= 0) { shot = args[si + 1]; args.splice(si, 2); }
const [appDir, outDir, ...files] = args;
if (!appDir || !outDir || files.length === 0) {
  console.error('usage: node speedscope.mjs SPEEDSCOPE_DIR OUTDIR FILE... [--shot FILE.png]');
  process.exit(2);
}
const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm' };

// The app from appDir, the profiles under /data/N.
const server = http.createServer((req, res) => {
  const url = decodeURIComponent(req.url.split(/[?#]/)[0]);
  let file;
  const m = /^\/data\/(\d+)$/.exec(url);
  if (m) file = files[Number(m[1])];
  else file = path.join(appDir, path.normalize(url === '/' ? '/index.html' : url));
  fs.readFile(file || '', (err, data) => {
    if (err) { res.writeHead(404); res.end(); return; }
    res.writeHead(200, { 'Content-Type': types[path.extname(file)] || 'text/plain' });
    res.end(data);
  });
});

// The Sandwich table's rows. It renders only the rows in view (a virtual
// list), so the scroller is walked from top to bottom.
async function readTable(page) {
  const rows = new Map();
  for (let pass = 0; pass < 10000; pass++) {
    const got = await page.evaluate(() => {
      const out = [];
      for (const tr of document.querySelectorAll('tr')) {
        const td = tr.querySelectorAll('td');
        if (td.length === 3) out.push([td[0].textContent, td[1].textContent, td[2].textContent]);
      }
      // the scroller: the rows' nearest ancestor that scrolls
      let s = document.querySelector('tr');
      while (s && !(s.scrollHeight > s.clientHeight && getComputedStyle(s).overflowY !== 'visible')) s = s.parentElement;
      let more = false;
      if (s) {
        const before = s.scrollTop;
        s.scrollTop = before + s.clientHeight / 2;
        more = s.scrollTop > before;
      }
      return { out, more };
    });
    for (const [t, sf, name] of got.out) rows.set(name, [t, sf]);
    if (!got.more) break;
    await page.waitForTimeout(50);
  }
  const num = (s) => s.replace(/\s*\(.*$/, '').replace(/,/g, '').trim();
  return [...rows].map(([name, [t, sf]]) => `${num(t)}\t${num(sf)}\t${name}`);
}

server.listen(0, '127.0.0.1', async () => {
  const port = server.address().port;
  let status = 0;
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    // no connection leaves the machine (a closed network refuses them)
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
           '--disable-component-update', '--disable-sync'],
  });
  try {
    for (let i = 0; i < files.length; i++) {
      const name = path.basename(files[i]);
      const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      const log = [];
      page.on('console', (m) => log.push(m.text()));
      page.on('pageerror', (e) => log.push('error: ' + e.message));
      const data = `http://127.0.0.1:${port}/data/${i}`;
      await page.goto(`http://127.0.0.1:${port}/index.html#profileURL=${encodeURIComponent(data)}&title=${encodeURIComponent(name)}`);
      try {
        await page.getByText('Sandwich').first().click({ timeout: 20000 });
        await page.waitForSelector('td', { timeout: 20000 });
      } catch (e) {
        console.error(`speedscope: ${name} did not load: ${log.slice(-3).join(' | ')}`);
        status = 1;
        await page.close();
        continue;
      }
      const rows = await readTable(page);
      fs.writeFileSync(path.join(outDir, name + '.table'), rows.join('\n') + '\n');
      if (shot && i === 0) {
        await page.getByText('Left Heavy').first().click();
        await page.waitForTimeout(500);
        await page.screenshot({ path: shot });
      }
      await page.close();
    }
  } catch (e) {
    console.error('speedscope: ' + e.message);
    status = 1;
  }
  await browser.close();
  server.close();
  process.exit(status);
});
