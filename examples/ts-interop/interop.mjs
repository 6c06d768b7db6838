#!/usr/bin/env node
// Interop proof: the official MCP TypeScript SDK (@modelcontextprotocol/sdk, the client most hosts
// are built on) drives every tool and every purpose of the packfs-mcp binary over stdio, and checks
// each result: success and its key fields, the structured content against the tool's output schema
// (the SDK's own validation, proven to be on), and the text block against the structured content.
//
//   npm ci --prefix examples/ts-interop
//   node examples/ts-interop/interop.mjs --server /path/to/packfs-mcp [--root DIR]
//
// The server runs with --allow-write on a small workspace this script writes into --root (a folder
// that is empty or does not exist yet; by default a temporary folder). Its index, history and cache
// go to a temporary folder beside it, removed at the end. The exit status is 0 when every check
// passed and 1 otherwise, with the failing check and the server's stderr on stderr.
// The same options can come from the environment: PACKFS_MCP_BIN and PACKFS_INTEROP_ROOT.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';

const READER = 'packfs-file-reader';
const SEARCHER = 'packfs-file-searcher';
const WRITER = 'packfs-file-writer';

// Every purpose of every tool. The server's input schemas are checked against this list, so a
// purpose added to the server without a check here fails the run.
const PURPOSES = {
  [READER]: ['read', 'metadata', 'exists', 'history'],
  [SEARCHER]: ['list', 'search_content', 'search_semantic', 'relationships'],
  [WRITER]: ['create', 'update', 'append', 'edit', 'delete', 'move', 'copy', 'mkdir', 'restore'],
};

// A marker in a file outside the root: no response may ever contain it.
const MARKER = 'OUTSIDE-SECRET-MARKER-ts-interop';

// The workspace the server is started on.
const WORKSPACE = {
  'notes/index.md':
    '---\ntitle: Index\ntags: [home]\n---\n# Index\n\n' +
    'Start here.\n\n' +
    '- [[glossary]]: the words we use.\n' +
    '- [Sandbox design](../projects/design.md): why every call goes through `os.Root`.\n',
  'notes/glossary.md':
    '---\ntitle: Glossary\naliases: [vocabulary]\ntags: [reference]\n---\n# Glossary\n\n' +
    '**Root**: the one folder the server may touch.\n' +
    '**Intent**: a purpose, a target and options.\n',
  'projects/design.md':
    '---\ntitle: Sandbox design\nparent: [notes/index.md]\n---\n# Sandbox design\n\n' +
    '## Goals\n\nKeep the agent inside its folder: every call resolves through `os.Root`.\n\n' +
    '## Non-goals\n\nNeural embeddings. Back to the [index](../notes/index.md).\n',
  'data/books.csv': 'title,author\nDune,Frank Herbert\nThe Left Hand of Darkness,Ursula K. Le Guin\n',
  'todo.txt': 'write the interop test\nrun it in CI\n',
};

const { values: opts } = parseArgs({
  options: {
    server: { type: 'string' },
    root: { type: 'string' },
    timeout: { type: 'string', default: '180' },
  },
});
const serverBin = opts.server ?? process.env.PACKFS_MCP_BIN;
const rootArg = opts.root ?? process.env.PACKFS_INTEROP_ROOT;

let passed = 0;
let current = 'setup';
let serverStderr = '';
const clients = [];

function log(line) {
  process.stdout.write(line + '\n');
}

// check runs one named check; a failure stops the run with the check's name.
async function check(name, fn) {
  current = name;
  await fn();
  passed++;
  log(`ok   ${name}`);
}

function read(root, rel) {
  return fs.readFileSync(path.join(root, rel), 'utf8');
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// TamperingTransport wraps a transport and, when armed, rewrites the structured content of the
// next tool result before the client sees it. It proves that the client's output-schema
// validation is on: a result that no longer matches the schema must be rejected.
class TamperingTransport {
  constructor(inner) {
    this.inner = inner;
    this.tamper = null;
  }
  async start() {
    this.inner.onmessage = (message, extra) => {
      if (this.tamper && message.result && message.result.structuredContent) {
        this.tamper(message.result.structuredContent);
        this.tamper = null;
      }
      this.onmessage?.(message, extra);
    };
    this.inner.onerror = (error) => this.onerror?.(error);
    this.inner.onclose = () => this.onclose?.();
    return this.inner.start();
  }
  send(message, options) {
    return this.inner.send(message, options);
  }
  close() {
    return this.inner.close();
  }
  setProtocolVersion(version) {
    this.inner.setProtocolVersion?.(version);
  }
}

// connect starts the server with args after `serve --root ROOT` and returns a connected session.
async function connect(root, work, ...args) {
  const transport = new StdioClientTransport({
    command: serverBin,
    args: ['serve', '--root', root,
      '--index-dir', path.join(work, 'index'), '--history-dir', path.join(work, 'history'), ...args],
    env: { XDG_CACHE_HOME: path.join(work, 'cache'), HOME: work },
    stderr: 'pipe',
  });
  transport.stderr.on('data', (chunk) => { serverStderr += chunk; });
  const tampering = new TamperingTransport(transport);
  const client = new Client({ name: 'packfs-ts-interop', version: '1.0.0' }, { capabilities: {} });
  clients.push(client);
  await client.connect(tampering);
  return { client, tampering, root, called: new Set() };
}

// call runs one tool call and checks what every result must satisfy: one text block whose JSON
// equals the structured content, isError exactly when success is false, and metadata holding the
// call's time in milliseconds. It returns the structured content.
async function call(s, tool, args) {
  const res = await s.client.callTool({ name: tool, arguments: args });
  const where = `${tool} ${args.purpose}`;
  assert.ok(res.structuredContent && typeof res.structuredContent === 'object',
    `${where}: no structured content`);
  assert.equal(res.content.length, 1, `${where}: want one content block`);
  assert.equal(res.content[0].type, 'text', `${where}: the content block is not text`);
  assert.deepEqual(JSON.parse(res.content[0].text), res.structuredContent,
    `${where}: the text block and the structured content differ`);
  assert.ok(!res.content[0].text.includes(MARKER), `${where}: a response leaked the outside marker`);
  const out = res.structuredContent;
  assert.equal(typeof out.success, 'boolean', `${where}: success is not a boolean`);
  assert.equal(res.isError === true, !out.success, `${where}: isError=${res.isError} but success=${out.success}`);
  assert.equal(typeof out.metadata?.executionMs, 'number', `${where}: metadata.executionMs`);
  assert.equal(out.data, undefined, `${where}: the result has a data wrapper`);
  return out;
}

// ok runs a call that must succeed and records its purpose as exercised.
async function ok(s, tool, args) {
  const out = await call(s, tool, args);
  assert.equal(out.success, true, `${tool} ${args.purpose} failed: ${out.code}: ${out.error}`);
  s.called.add(`${tool} ${args.purpose}`);
  return out;
}

// refused runs a call that must fail with code.
async function refused(s, tool, args, code) {
  const out = await call(s, tool, args);
  assert.equal(out.success, false, `${tool} ${args.purpose}: want a refusal, got success`);
  assert.equal(out.code, code, `${tool} ${args.purpose}: code`);
  assert.ok(typeof out.error === 'string' && out.error.length >= 20,
    `${tool} ${args.purpose}: error message too thin to act on: ${out.error}`);
  return out;
}

// target builds a call's target: a root-relative path and any other fields.
function target(rel, extra = {}) {
  return { path: rel, ...extra };
}

async function main() {
  if (!serverBin) {
    throw new Error('no server binary: pass --server /path/to/packfs-mcp (or set PACKFS_MCP_BIN)');
  }
  const sdkVersion = JSON.parse(fs.readFileSync(
    new URL('./node_modules/@modelcontextprotocol/sdk/package.json', import.meta.url), 'utf8')).version;

  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'packfs-ts-interop-'));
  const root = path.resolve(rootArg ?? path.join(work, 'root'));
  try {
    if (fs.existsSync(root) && fs.readdirSync(root).length > 0) {
      throw new Error(`--root ${root} is not empty: give an empty or new folder, the script fills it`);
    }
    for (const [rel, text] of Object.entries(WORKSPACE)) {
      fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
      fs.writeFileSync(path.join(root, rel), text);
    }
    fs.mkdirSync(path.join(work, 'outside'));
    const secret = path.join(work, 'outside', 'secret.md');
    fs.writeFileSync(secret, `# Secret\n${MARKER}\n`);
    await run(root, work, secret, sdkVersion);
  } finally {
    await Promise.allSettled(clients.map((c) => c.close()));
    fs.rmSync(work, { recursive: true, force: true });
  }
}

async function run(root, work, secret, sdkVersion) {
  let s;
  await check('initialize', async () => {
    s = await connect(root, work, '--allow-write');
    const info = s.client.getServerVersion();
    assert.equal(info?.name, 'packfs-mcp', 'serverInfo.name');
    assert.ok(s.client.getServerCapabilities()?.tools, 'the server does not declare tools');
  });

  await check('tools/list: three tools, each purpose known, output schemas declared', async () => {
    const { tools } = await s.client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), [READER, SEARCHER, WRITER]);
    for (const t of tools) {
      assert.equal(t.inputSchema.type, 'object', `${t.name}: inputSchema`);
      assert.deepEqual([...t.inputSchema.properties.purpose.enum].sort(), [...PURPOSES[t.name]].sort(),
        `${t.name}: the purposes the server offers are not the ones this script checks`);
      // The SDK validates structured content only for tools with an output schema, once
      // listTools has cached it: without one, validation would silently be off.
      assert.equal(t.outputSchema?.type, 'object', `${t.name}: no output schema`);
      assert.equal(t.annotations?.readOnlyHint, t.name !== WRITER, `${t.name}: readOnlyHint`);
    }
  });

  // Schema validation is on: results rewritten to break the output schema must be rejected by
  // the SDK client, at the top level, nested and for a missing required field.
  const tampered = [
    ['a field the schema does not declare', READER, { purpose: 'exists', target: target('todo.txt') },
      (sc) => { sc.unexpected = 1; }],
    ['a nested field of the wrong type', SEARCHER, { purpose: 'list', target: target('.') },
      (sc) => { sc.files[0].path = 7; }],
    ['a required field missing', WRITER,
      { purpose: 'edit', target: target('todo.txt'), edits: [{ oldText: 'run', newText: 'ran' }], options: { dryRun: true } },
      (sc) => { delete sc.metadata; }],
  ];
  for (const [what, tool, args, tamper] of tampered) {
    await check(`output schema validation rejects ${what} (${tool})`, async () => {
      s.tampering.tamper = tamper;
      await assert.rejects(s.client.callTool({ name: tool, arguments: args }), (err) => {
        assert.ok(err instanceof McpError, `want an McpError, got ${err}`);
        assert.match(err.message, /output schema/);
        return true;
      });
      assert.equal(s.tampering.tamper, null, 'the result was never seen, so nothing was tampered with');
    });
  }

  // The reader.
  await check('reader read', async () => {
    const out = await ok(s, READER, { purpose: 'read', target: target('notes/glossary.md') });
    assert.equal(out.content, read(root, 'notes/glossary.md'));
    assert.equal(out.totalLines, read(root, 'notes/glossary.md').split('\n').length - 1);
    assert.match(out.version, /^[0-9a-f]{16}$/);
  });
  await check('reader read several', async () => {
    const out = await ok(s, READER, { purpose: 'read', target: { paths: ['todo.txt', 'nope.md'] } });
    assert.equal(out.files.length, 2);
    assert.equal(out.files[0].content, read(root, 'todo.txt'));
    assert.equal(out.files[1].success, false);
    assert.equal(out.files[1].code, 'NOT_FOUND');
  });
  await check('reader read by lines', async () => {
    const out = await ok(s, READER, { purpose: 'read', target: target('todo.txt'), preferences: { offset: 1, limit: 1 } });
    assert.equal(out.content, 'run it in CI\n');
    assert.equal(out.offset, 1);
    assert.equal(out.totalLines, 2);
  });
  await check('reader metadata', async () => {
    const out = await ok(s, READER, { purpose: 'metadata', target: target('data/books.csv') });
    assert.equal(out.sizeBytes, fs.statSync(path.join(root, 'data/books.csv')).size);
    assert.equal(out.type, 'file');
    assert.equal(out.lines, 3);
    assert.equal(typeof out.modified, 'string');
  });
  await check('reader exists', async () => {
    assert.equal((await ok(s, READER, { purpose: 'exists', target: target('todo.txt') })).exists, true);
    assert.equal((await ok(s, READER, { purpose: 'exists', target: target('nope.md') })).exists, false);
  });

  // The searcher.
  await check('searcher list', async () => {
    const out = await ok(s, SEARCHER, { purpose: 'list', target: target('.'), options: { recursive: true } });
    const listed = out.files.map((f) => f.path);
    for (const rel of Object.keys(WORKSPACE)) {
      assert.ok(listed.includes(rel), `the listing lacks ${rel}: ${listed}`);
    }
    assert.ok(listed.includes('notes'), 'the listing lacks the folder notes');
  });
  await check('searcher search_content', async () => {
    const out = await ok(s, SEARCHER, { purpose: 'search_content', target: target('.', { query: 'os.Root' }), options: { contextLines: 1 } });
    assert.deepEqual(out.files.map((f) => f.path), ['notes/index.md', 'projects/design.md']);
    const m = out.files[1].matches[0];
    assert.equal(m.line, 9);
    assert.equal(m.text, 'Keep the agent inside its folder: every call resolves through `os.Root`.');
    assert.deepEqual(m.before, ['']);
  });
  await check('searcher search_semantic', async () => {
    // The index is built in the background at start; a search says when it is complete.
    const deadline = Date.now() + 30_000;
    let out;
    for (;;) {
      out = await ok(s, SEARCHER, { purpose: 'search_semantic', target: target('.', { query: 'what are the goals of the sandbox' }) });
      if (out.indexComplete === true) break;
      assert.ok(Date.now() < deadline, 'the index did not complete within 30 s');
      await sleep(50);
    }
    const top = out.files[0];
    assert.equal(top?.path, 'projects/design.md', `top hit: ${JSON.stringify(top)}`);
    assert.equal(top.title, 'Sandbox design');
    assert.equal(top.score, 1);
    assert.match(top.snippet, /\*\*/, 'the snippet does not highlight the matched words');
  });
  await check('searcher relationships', async () => {
    const out = await ok(s, SEARCHER, { purpose: 'relationships', target: target('notes/glossary.md') });
    assert.equal(out.title, 'Glossary');
    assert.deepEqual(out.aliases, ['vocabulary']);
    assert.ok(out.backlinks.some((b) => b.path === 'notes/index.md'), `backlinks: ${JSON.stringify(out.backlinks)}`);
  });

  // The writer.
  await check('writer create', async () => {
    const out = await ok(s, WRITER, { purpose: 'create', target: target('drafts/plan.md'), content: '# Plan\nfirst\n', options: { createPath: true } });
    assert.equal(out.created, true);
    assert.equal(out.path, 'drafts/plan.md');
    assert.equal(read(root, 'drafts/plan.md'), '# Plan\nfirst\n');
  });
  await check('writer update', async () => {
    const out = await ok(s, WRITER, { purpose: 'update', target: target('drafts/plan.md'), content: '# Plan\nsecond\n' });
    assert.equal(out.sizeBytes, 14);
    assert.equal(read(root, 'drafts/plan.md'), '# Plan\nsecond\n');
  });
  await check('writer append', async () => {
    await ok(s, WRITER, { purpose: 'append', target: target('drafts/plan.md'), content: 'third\n' });
    assert.equal(read(root, 'drafts/plan.md'), '# Plan\nsecond\nthird\n');
  });
  await check('writer edit, dry run then for real', async () => {
    const edits = [{ oldText: 'second', newText: '2nd' }];
    const dry = await ok(s, WRITER, { purpose: 'edit', target: target('drafts/plan.md'), edits, options: { dryRun: true } });
    assert.equal(dry.dryRun, true);
    assert.match(dry.diff, /^-second$/m);
    assert.match(dry.diff, /^\+2nd$/m);
    assert.equal(read(root, 'drafts/plan.md'), '# Plan\nsecond\nthird\n', 'the dry run wrote');
    const out = await ok(s, WRITER, { purpose: 'edit', target: target('drafts/plan.md'), edits });
    assert.equal(out.replacements, 1);
    assert.equal(read(root, 'drafts/plan.md'), '# Plan\n2nd\nthird\n');
  });
  await check('writer mkdir', async () => {
    const out = await ok(s, WRITER, { purpose: 'mkdir', target: target('archive/2026') });
    assert.equal(out.created, true);
    assert.ok(fs.statSync(path.join(root, 'archive/2026')).isDirectory());
  });
  await check('writer move', async () => {
    const out = await ok(s, WRITER, { purpose: 'move', target: target('drafts/plan.md', { destination: 'archive/2026/plan.md' }) });
    assert.equal(out.destination, 'archive/2026/plan.md');
    assert.equal(read(root, 'archive/2026/plan.md'), '# Plan\n2nd\nthird\n');
    assert.ok(!fs.existsSync(path.join(root, 'drafts/plan.md')), 'the source is still there');
  });
  await check('reader history, then writer restore undoes the move', async () => {
    const h = await ok(s, READER, { purpose: 'history', target: target('drafts/plan.md') });
    assert.equal(h.history[0].purpose, 'move');
    assert.equal(h.history[0].movedTo, 'archive/2026/plan.md');
    await ok(s, WRITER, { purpose: 'restore', target: target('drafts/plan.md') });
    assert.equal(read(root, 'drafts/plan.md'), '# Plan\n2nd\nthird\n');
    const again = await ok(s, READER, { purpose: 'history', target: target('drafts/plan.md') });
    await ok(s, WRITER, { purpose: 'restore', target: { call: again.history[0].call } });
    assert.equal(read(root, 'archive/2026/plan.md'), '# Plan\n2nd\nthird\n');
    assert.ok(!fs.existsSync(path.join(root, 'drafts/plan.md')), 'the undo of the undo left the file');
  });
  await check('writer copy, then refused over it without overwrite', async () => {
    const out = await ok(s, WRITER, { purpose: 'copy', target: target('archive/2026/plan.md', { destination: 'archive/plan-copy.md' }) });
    assert.equal(out.created, true);
    assert.equal(read(root, 'archive/plan-copy.md'), '# Plan\n2nd\nthird\n');
    await refused(s, WRITER, { purpose: 'copy', target: target('archive/2026/plan.md', { destination: 'archive/plan-copy.md' }) }, 'ALREADY_EXISTS');
  });
  await check('writer delete', async () => {
    const out = await ok(s, WRITER, { purpose: 'delete', target: target('archive/2026/plan.md') });
    assert.equal(out.deleted, true);
    assert.ok(!fs.existsSync(path.join(root, 'archive/2026/plan.md')), 'the file is still there');
  });

  // Refusals: flat errors with a stable code, isError set, nothing revealed or written outside.
  await check('refused: read outside the root by ..', async () => {
    await refused(s, READER, { purpose: 'read', target: target(path.relative(root, secret)) }, 'PATH_OUTSIDE_ROOT');
    await refused(s, READER, { purpose: 'read', target: target('../x') }, 'PATH_OUTSIDE_ROOT');
  });
  await check('refused: read outside the root by an absolute path', async () => {
    await refused(s, READER, { purpose: 'read', target: target(secret) }, 'PATH_OUTSIDE_ROOT');
  });
  await check('refused: write outside the root', async () => {
    await refused(s, WRITER, { purpose: 'create', target: target('../x.md'), content: 'x' }, 'PATH_OUTSIDE_ROOT');
    assert.ok(!fs.existsSync(path.resolve(root, '../x.md')), 'a file was created outside the root');
  });
  await check('refused: unknown purpose', async () => {
    const out = await refused(s, READER, { purpose: 'write', target: target('todo.txt') }, 'INVALID_ARGUMENT');
    assert.equal(out.field, 'purpose');
  });

  await check('every purpose of every tool was exercised', async () => {
    const want = Object.entries(PURPOSES).flatMap(([tool, ps]) => ps.map((p) => `${tool} ${p}`)).sort();
    assert.deepEqual([...s.called].sort(), want);
  });

  await check('a read-only server does not offer the writer', async () => {
    const ro = await connect(root, work);
    const { tools } = await ro.client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), [READER, SEARCHER]);
  });

  const info = s.client.getServerVersion();
  log(`interop: ${passed} checks passed: @modelcontextprotocol/sdk ${sdkVersion}, ${info.name} ${info.version}, node ${process.version}`);
}

const watchdog = setTimeout(() => {
  process.stderr.write(`interop: FAIL: ${current}: no answer within ${opts.timeout} s\n${serverStderr}`);
  process.exit(1);
}, Number(opts.timeout) * 1000);
watchdog.unref();

try {
  await main();
} catch (err) {
  // An assertion's stack says which line failed; for anything else the message is enough.
  const detail = err instanceof assert.AssertionError ? err.stack : (err?.message ?? err);
  process.stderr.write(`interop: FAIL: ${current}: ${detail}\n`);
  if (serverStderr) {
    process.stderr.write(`--- server stderr (last 4 KB) ---\n${serverStderr.slice(-4096)}\n`);
  }
  process.exitCode = 1;
}
