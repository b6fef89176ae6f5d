/**
 * The brain as an MCP server: {@code /mcp}, the Streamable HTTP transport, offering every tool of every machine to
 * any MCP client and calling them through the router.
 */
package dev.efferent.brain.mcp;
