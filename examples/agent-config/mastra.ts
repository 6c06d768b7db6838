// A Mastra agent with packfs-mcp's tools, through MCPClient from @mastra/mcp.
//
//   npm install @mastra/core @mastra/mcp
//   PACKFS_MCP_BIN="$(which packfs-mcp)" PACKFS_ROOT=/home/you/notes OPENAI_API_KEY=... npx tsx mastra.ts
//
// MCPClient starts the server over stdio (a server entry with a command) and lists its tools;
// listTools() names them serverName_toolName, here packfs_packfs-file-reader and so on. Writing is
// off: add '--allow-write' to args to let the agent change files.
import { Agent } from '@mastra/core/agent';
import { MCPClient } from '@mastra/mcp';

export const packfs = new MCPClient({
  id: 'packfs',
  servers: {
    packfs: {
      command: process.env.PACKFS_MCP_BIN ?? 'packfs-mcp',
      args: ['serve', '--root', process.env.PACKFS_ROOT ?? '/home/you/notes'],
    },
  },
});

async function main() {
  try {
    const tools = await packfs.listTools();
    console.log('tools:', Object.keys(tools).join(', '));

    const agent = new Agent({
      id: 'notes-agent',
      name: 'Notes agent',
      instructions:
        'You answer questions about the files in one folder. Use the packfs tools to list, search and ' +
        'read them; paths are relative to that folder. Quote the lines you rely on.',
      model: 'openai/gpt-4o-mini',
      tools,
    });
    const result = await agent.generate('Which notes mention os.Root? Quote the lines.');
    console.log(result.text);
  } finally {
    await packfs.disconnect();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
