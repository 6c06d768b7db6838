#!/usr/bin/env node
// Parallel writes through the packfs-mcp binary, driven by the official MCP TypeScript SDK: how many
// of the writes the server answered as successful are in the file afterwards. Each case starts the
// server afresh on a new temporary folder.
//
//   npm ci --prefix examples/ts-interop
//   go build -o /tmp/packfs-mcp ./cmd/packfs-mcp
//   node dev/bench/parallel-writes.mjs --server /tmp/packfs-mcp
//
// Cases: N appends in parallel over one stdio session to one file; the same to N files (the time
// of each, to show that calls on different files stay parallel); 8 HTTP clients appending 50 lines
// each, without and with target.version (re-read and retried on CONFLICT); 40 parallel edits of
// distinct lines of one file. It prints one markdown table, and exits 1 if any answered write is
// missing from the file.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const sdk = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'examples', 'ts-interop', 'node_modules', '@modelcontextprotocol', 'sdk', 'dist', 'esm');
const { Client } = await import(path.join(sdk, 'client', 'index.js'));
const { StdioClientTransport } = await import(path.join(sdk, 'client', 'stdio.js'));
const { StreamableHTTPClientTransport } = await import(path.join(sdk, 'client', 'streamableHttp.js'));

const WRITER = 'packfs-file-writer';
const READER = 'packfs-file-reader';

const { values: opts } = parseArgs({
  options: {
    server: { type: 'string', default: process.env.PACKFS_MCP_BIN || '' },
    appends: { type: 'string', default: '100' },
  },
});
assert.ok(opts.server, '--server PATH to the packfs-mcp binary is required');
const N = Number(opts.appends);

const serverArgs = (root, state) => ['serve', '--root', root, '--allow-write', '--no-index', '--rate-limit', '1000000',
  '--backup-dir', path.join(state, 'backups')];

function workspace() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'packfs-parallel-'));
  const root = path.join(dir, 'root');
  fs.mkdirSync(root);
  return { dir, root, state: dir };
}

async function stdioClient(root, state) {
  const client = new Client({ name: 'parallel-writes', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: opts.server, args: serverArgs(root, state), stderr: 'ignore',
    env: { ...process.env, XDG_CACHE_HOME: path.join(state, 'cache') } }));
  return client;
}

// result returns a call's structured content.
async function call(client, tool, args) {
  const res = await client.callTool({ name: tool, arguments: args });
  return res.structuredContent ?? JSON.parse(res.content[0].text);
}

const lines = (file) => fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);

async function appendsStdio() {
  const w = workspace();
  const file = path.join(w.root, 'log.md');
  fs.writeFileSync(file, '');
  const client = await stdioClient(w.root, w.state);
  const t0 = performance.now();
  const res = await Promise.all(Array.from({ length: N }, (_, i) =>
    call(client, WRITER, { purpose: 'append', target: { path: 'log.md' }, content: `line ${i}\n` })));
  const ms = performance.now() - t0;
  await client.close();
  const ok = res.filter((r) => r.success).length;
  const got = new Set(lines(file));
  const kept = res.filter((r, i) => r.success && got.has(`line ${i}`)).length;
  return { what: `${N} appends in parallel over one stdio session, one line each, same file`, ok, held: `${lines(file).length} lines`, lost: ok - kept, ms };
}

async function appendsStdioDistinct() {
  const w = workspace();
  for (let i = 0; i < N; i++) fs.writeFileSync(path.join(w.root, `f${i}.md`), '');
  const client = await stdioClient(w.root, w.state);
  const t0 = performance.now();
  const res = await Promise.all(Array.from({ length: N }, (_, i) =>
    call(client, WRITER, { purpose: 'append', target: { path: `f${i}.md` }, content: `line ${i}\n` })));
  const ms = performance.now() - t0;
  await client.close();
  const ok = res.filter((r) => r.success).length;
  const kept = res.filter((r, i) => r.success && lines(path.join(w.root, `f${i}.md`)).includes(`line ${i}`)).length;
  return { what: `${N} appends in parallel over one stdio session, one line each, ${N} files`, ok, held: `${kept} files with their line`, lost: ok - kept, ms };
}

function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

async function httpServer(w) {
  const port = await freePort();
  const proc = spawn(opts.server, [...serverArgs(w.root, w.state), '--http', `127.0.0.1:${port}`, '--http-client-rate-limit', '1000000'],
    { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, XDG_CACHE_HOME: path.join(w.state, 'cache') } });
  proc.stderr.resume();
  const url = new URL(`http://127.0.0.1:${port}/mcp`);
  for (let i = 0; i < 100; i++) {
    try {
      const c = new Client({ name: 'probe', version: '1.0.0' });
      await c.connect(new StreamableHTTPClientTransport(url));
      await c.close();
      return { proc, url };
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  proc.kill();
  throw new Error('the HTTP server did not start');
}

async function appendsHTTP(versioned) {
  const w = workspace();
  const file = path.join(w.root, 'log.md');
  fs.writeFileSync(file, '');
  const { proc, url } = await httpServer(w);
  let conflicts = 0;
  const clients = 8, each = 50;
  const t0 = performance.now();
  const answers = await Promise.all(Array.from({ length: clients }, async (_, c) => {
    const client = new Client({ name: `agent-${c}`, version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(url));
    const mine = [];
    for (let i = 0; i < each; i++) {
      const line = `client ${c} line ${i}\n`;
      for (;;) {
        const target = { path: 'log.md' };
        if (versioned) target.version = (await call(client, READER, { purpose: 'metadata', target: { path: 'log.md' } })).version;
        const r = await call(client, WRITER, { purpose: 'append', target, content: line });
        if (r.code === 'CONFLICT') { conflicts++; continue; }
        mine.push(r.success ? line.trim() : null);
        break;
      }
    }
    await client.close();
    return mine;
  }));
  const ms = performance.now() - t0;
  proc.kill();
  const all = answers.flat();
  const ok = all.filter(Boolean).length;
  const got = new Set(lines(file));
  const kept = all.filter((l) => l && got.has(l)).length;
  const what = versioned
    ? `${clients} HTTP clients, ${each} appends each, same file, each sending the version it just read and retrying on CONFLICT`
    : `${clients} HTTP clients, ${each} appends each, same file, no version`;
  return { what, ok: `${ok}${versioned ? ` (${conflicts} CONFLICTs retried)` : ''}`, held: `${lines(file).length} lines`, lost: ok - kept, ms };
}

async function editsStdio() {
  const w = workspace();
  const file = path.join(w.root, 'list.md');
  const E = 40;
  fs.writeFileSync(file, Array.from({ length: E }, (_, i) => `item ${i}: todo\n`).join(''));
  const client = await stdioClient(w.root, w.state);
  const t0 = performance.now();
  const res = await Promise.all(Array.from({ length: E }, (_, i) => call(client, WRITER,
    { purpose: 'edit', target: { path: 'list.md' }, edits: [{ oldText: `item ${i}: todo`, newText: `item ${i}: done` }] })));
  const ms = performance.now() - t0;
  await client.close();
  const ok = res.filter((r) => r.success).length;
  const conflicts = res.filter((r) => r.code === 'CONFLICT').length;
  const text = fs.readFileSync(file, 'utf8');
  const applied = Array.from({ length: E }, (_, i) => text.includes(`item ${i}: done`)).filter(Boolean).length;
  const kept = res.filter((r, i) => r.success && text.includes(`item ${i}: done`)).length;
  return { what: `${E} edit calls in parallel over one stdio session, each replacing a different line of one file`, ok: `${ok} (${conflicts} CONFLICT)`, held: `${applied} of the edits`, lost: ok - kept, ms };
}

const rows = [];
for (const run of [appendsStdio, appendsStdioDistinct, () => appendsHTTP(false), () => appendsHTTP(true), editsStdio]) {
  rows.push(await run());
}
console.log('| what the clients did | answered success | what the files hold | answered but missing | wall time |');
console.log('| --- | --- | --- | --- | --- |');
for (const r of rows) console.log(`| ${r.what} | ${r.ok} | ${r.held} | ${r.lost} | ${Math.round(r.ms)} ms |`);
process.exit(rows.some((r) => r.lost > 0) ? 1 : 0);
