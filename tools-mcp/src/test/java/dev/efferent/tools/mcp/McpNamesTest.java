package dev.efferent.tools.mcp;

import org.junit.jupiter.api.Test;

import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class McpNamesTest {

    @Test
    void namesAreLegalAndSayWhichServer() {
        assertEquals("files__read_file", McpNames.of("files", "read-file", Set.of()));
        assertEquals("my_srv__get_x_y", McpNames.of("My-Srv", "get.X/y", Set.of()));
        assertEquals("t_1__x", McpNames.of("1", "x", Set.of()));
        String long64 = McpNames.of("s", "x".repeat(100), Set.of());
        assertEquals(64, long64.length());
        assertTrue(long64.matches("[a-z][a-z0-9_]{0,63}"), long64);
    }

    @Test
    void aToolKeepsItsNameAndAFreedNameNeverGoesToAnotherTool() {
        McpNames names = new McpNames();
        assertEquals("s__a_b", names.name("s", "a-b"));
        assertEquals("s__a_b_2", names.name("s", "a.b"), "two MCP names that map alike are told apart");
        // The server lists them the other way round, or drops "a-b": a queued call for s__a_b_2 still means "a.b".
        assertEquals("s__a_b_2", names.name("s", "a.b"));
        assertEquals("s__a_b", names.name("s", "a-b"));
        assertEquals("s__a_b_3", names.name("s", "a/b"), "a newcomer never takes a name handed out before");
    }
}
