"""An OpenAI Agents SDK agent with packfs-mcp's tools, through MCPServerStdio.

    pip install openai-agents
    PACKFS_MCP_BIN="$(which packfs-mcp)" PACKFS_ROOT=/home/you/notes python openai_agents.py

It starts the server over stdio, lists the tools and makes one direct call, which needs no API key.
With OPENAI_API_KEY set, it also asks an agent a question that the agent answers with the tools.
Writing is off: add "--allow-write" to args to let the agent change files.
"""

import asyncio
import json
import os

from agents import Agent, Runner
from agents.mcp import MCPServerStdio

PACKFS_MCP_BIN = os.environ.get("PACKFS_MCP_BIN", "packfs-mcp")
PACKFS_ROOT = os.environ.get("PACKFS_ROOT", "/home/you/notes")


async def main() -> None:
    async with MCPServerStdio(
        name="packfs",
        params={"command": PACKFS_MCP_BIN, "args": ["serve", "--root", PACKFS_ROOT]},
        # The tools do not change while the server runs, so list them once.
        cache_tools_list=True,
        client_session_timeout_seconds=30,
    ) as server:
        tools = await server.list_tools()
        print("tools:", ", ".join(tool.name for tool in tools))

        # A direct call: every tool answers with flat JSON in structuredContent.
        result = await server.call_tool(
            "packfs-file-searcher",
            {"purpose": "search_content", "target": {"path": ".", "query": "os.Root"}},
        )
        print(json.dumps(result.structuredContent, indent=2))

        if not os.environ.get("OPENAI_API_KEY"):
            print("OPENAI_API_KEY is not set: skipping the agent run")
            return
        agent = Agent(
            name="Notes assistant",
            instructions=(
                "You answer questions about the files in one folder. Use the packfs tools to list, "
                "search and read them; paths are relative to that folder. Quote the lines you rely on."
            ),
            mcp_servers=[server],
        )
        run = await Runner.run(agent, "Which notes mention os.Root? Quote the lines.")
        print(run.final_output)


if __name__ == "__main__":
    asyncio.run(main())
