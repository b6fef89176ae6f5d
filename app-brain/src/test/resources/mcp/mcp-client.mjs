// A real MCP client, the official TypeScript SDK's, against the brain's /mcp. Prints one JSON line: what it saw.
// Usage: node mcp-client.mjs <url> <token> list | call <tool> <json> | progress-then-cancel <tool> <json>
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const [url, token, mode, tool, args] = process.argv.slice(2);
const transport = new StreamableHTTPClientTransport(new URL(url),
    { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
const client = new Client({ name: 'efferent-test-client', version: '1.0.0' });
const out = {};
try {
    await client.connect(transport);
    out.server = client.getServerVersion();
    if (mode === 'list') {
        const { tools } = await client.listTools();
        out.tools = tools.map(t => ({ name: t.name, workers: t.inputSchema.properties?.worker?.enum ?? [],
            readOnly: t.annotations?.readOnlyHint }));
    } else if (mode === 'call') {
        out.result = await client.callTool({ name: tool, arguments: JSON.parse(args) });
    } else if (mode === 'progress-then-cancel') {
        const abort = new AbortController();
        out.progress = [];
        try {
            out.result = await client.callTool({ name: tool, arguments: JSON.parse(args) }, undefined, {
                signal: abort.signal,
                timeout: 60000,
                onprogress: p => {
                    out.progress.push(p.message ?? String(p.progress));
                    if (out.progress.length === 2) {
                        abort.abort('enough');
                    }
                },
            });
        } catch (e) {
            out.cancelled = String(e.message ?? e);
        }
        // Time for the cancellation notification to reach the brain before the process exits.
        await new Promise(r => setTimeout(r, 500));
    }
} catch (e) {
    out.error = String(e.message ?? e);
    out.code = e.code;
}
console.log(JSON.stringify(out));
await client.close().catch(() => {});
process.exit(0);
