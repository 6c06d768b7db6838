"""A LangChain agent with packfs-mcp's tools, through langchain-mcp-adapters' MultiServerMCPClient.

    pip install langchain-mcp-adapters langchain langchain-anthropic
    PACKFS_MCP_BIN="$(which packfs-mcp)" PACKFS_ROOT=/home/you/notes python langchain_mcp.py

MultiServerMCPClient starts a new server for every tool call by default; this example keeps one
session open instead (client.session), so the server and its search index stay up for the whole
run. It lists the tools and makes one direct call, which needs no API key; with ANTHROPIC_API_KEY
set, it also asks an agent a question. Writing is off: add "--allow-write" to args to allow it.
"""

import asyncio
import os

from langchain.agents import create_agent
from langchain_mcp_adapters.client import MultiServerMCPClient
from langchain_mcp_adapters.tools import load_mcp_tools

PACKFS_MCP_BIN = os.environ.get("PACKFS_MCP_BIN", "packfs-mcp")
PACKFS_ROOT = os.environ.get("PACKFS_ROOT", "/home/you/notes")

client = MultiServerMCPClient(
    {
        "packfs": {
            "transport": "stdio",
            "command": PACKFS_MCP_BIN,
            "args": ["serve", "--root", PACKFS_ROOT],
        }
    }
)


async def main() -> None:
    async with client.session("packfs") as session:
        tools = await load_mcp_tools(session)
        print("tools:", ", ".join(tool.name for tool in tools))

        # A direct call through the LangChain tool, which returns what the model would see: the
        # result's JSON text. A refused call (isError) raises a ToolException instead.
        reader = next(tool for tool in tools if tool.name == "packfs-file-reader")
        print(await reader.ainvoke({"purpose": "exists", "target": {"path": "README.md"}}))

        if not os.environ.get("ANTHROPIC_API_KEY"):
            print("ANTHROPIC_API_KEY is not set: skipping the agent run")
            return
        agent = create_agent("claude-sonnet-4-5-20250929", tools)
        result = await agent.ainvoke(
            {"messages": [{"role": "user", "content": "Which notes mention os.Root? Quote the lines."}]}
        )
        print(result["messages"][-1].content)


if __name__ == "__main__":
    asyncio.run(main())
