/**
 * What a tool plugin implements ({@link dev.efferent.tools.spi.ToolkitProvider},
 * {@link dev.efferent.tools.spi.Toolkit}, {@link dev.efferent.tools.spi.Tool}) and what a tool is given
 * and returns ({@link dev.efferent.tools.spi.ToolContext}, {@link dev.efferent.tools.spi.ToolParams},
 * {@link dev.efferent.tools.spi.ToolResult}). Names follow MCP's tool shape.
 */
package dev.efferent.tools.spi;
