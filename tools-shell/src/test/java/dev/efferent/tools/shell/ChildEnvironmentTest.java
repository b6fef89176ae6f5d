package dev.efferent.tools.shell;

import dev.efferent.plugin.Settings;
import dev.efferent.tools.spi.ToolException;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ChildEnvironmentTest {
    private static final Map<String, String> PARENT = Map.of(
            "PATH", "/opt/bin:/usr/bin", "HOME", "/home/ada", "LANG", "de_DE.UTF-8", "TERM", "xterm",
            "EFFERENT_API_TOKEN", "token-1", "EFFERENT_DB_PASSWORD", "pw-2", "EFFERENT_WORKER_SECRET", "secret-3",
            "AWS_SECRET_ACCESS_KEY", "aws-4", "GOPATH", "/home/ada/go");

    @Test
    void onlyTheBaseVariablesPassByDefault() {
        assertEquals(Map.of("PATH", "/opt/bin:/usr/bin", "HOME", "/home/ada", "LANG", "de_DE.UTF-8", "TERM", "xterm"),
                ChildEnvironment.of(List.of(), PARENT, false).variables());
    }

    @Test
    void missingBaseVariablesGetDefaults() {
        Map<String, String> env = ChildEnvironment.of(List.of(), Map.of("TERM", ""), false).variables();
        assertEquals("/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", env.get("PATH"));
        assertEquals(System.getProperty("user.home"), env.get("HOME"));
        assertEquals("C.UTF-8", env.get("LANG"));
        assertEquals("dumb", env.get("TERM"));
        assertEquals(4, env.size());
    }

    @Test
    void listedNamesPassThroughAndAssignmentsSetValues() {
        Map<String, String> env = ChildEnvironment.of(List.of("GOPATH", "UNSET_HERE", "JAVA_TOOL_OPTIONS=-Xmx1g",
                "URL=a=b", "PATH=/only/this"), PARENT, false).variables();
        assertEquals("/home/ada/go", env.get("GOPATH"));
        assertEquals("-Xmx1g", env.get("JAVA_TOOL_OPTIONS"));
        assertEquals("a=b", env.get("URL"));
        assertEquals("/only/this", env.get("PATH"));
        assertFalse(env.containsKey("UNSET_HERE"));
        assertFalse(env.containsKey("AWS_SECRET_ACCESS_KEY"));
    }

    @Test
    void anEfferentVariableIsRefusedAtStartUpEvenWhenListed() {
        for (String entry : List.of("EFFERENT_API_TOKEN", "efferent_worker_secret", "EFFERENT_X=1")) {
            ToolException e = assertThrows(ToolException.class,
                    () -> ChildEnvironment.of(List.of(entry), PARENT, false));
            String name = entry.contains("=") ? entry.substring(0, entry.indexOf('=')) : entry;
            assertEquals("setting 'tools.shell.env' lists '" + name + "': variables named EFFERENT_* hold Efferent's "
                    + "own configuration and secrets and are never given to shell commands. Remove it from "
                    + "tools.shell.env; if a command needs the value, give it another name (NAME=value)", e.getMessage());
        }
    }

    @Test
    void aMalformedEntryIsNamed() {
        ToolException e = assertThrows(ToolException.class, () -> ChildEnvironment.of(List.of("1ABC"), PARENT, false));
        assertEquals("setting 'tools.shell.env' has the entry '1ABC', which is neither NAME nor NAME=value (a name is "
                + "letters, digits and _, not starting with a digit)", e.getMessage());
    }

    @Test
    void theProviderRefusesAnEfferentVariableAtStartUp() {
        Settings settings = key -> key.equals("env") ? Optional.of("GOPATH,EFFERENT_DB_PASSWORD")
                : key.equals("sandbox") ? Optional.of("none") : Optional.empty();
        ToolException e = assertThrows(ToolException.class, () -> new ShellToolkitProvider().create(settings));
        assertTrue(e.getMessage().startsWith("setting 'tools.shell.env' lists 'EFFERENT_DB_PASSWORD'"),
                e.getMessage());
    }

    @Test
    void windowsKeepsWhatCmdNeeds() {
        Map<String, String> env = ChildEnvironment.of(List.of(), Map.of("SYSTEMROOT", "C:\\Windows",
                "EFFERENT_API_TOKEN", "t"), true).variables();
        assertEquals("C:\\Windows", env.get("SYSTEMROOT"));
        assertFalse(env.containsKey("EFFERENT_API_TOKEN"));
    }

    @Test
    void appliedToAProcessBuilderItReplacesTheInheritedEnvironment() {
        ProcessBuilder builder = new ProcessBuilder("true");
        ChildEnvironment.of(List.of(), PARENT, false).applyTo(builder);
        assertEquals(Map.of("PATH", "/opt/bin:/usr/bin", "HOME", "/home/ada", "LANG", "de_DE.UTF-8", "TERM", "xterm"),
                builder.environment());
    }
}
