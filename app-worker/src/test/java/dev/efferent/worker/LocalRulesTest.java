package dev.efferent.worker;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.efferent.core.config.ConfigException;
import dev.efferent.core.config.ConfigLoader;
import dev.efferent.core.tools.LocalToolExecutor;
import dev.efferent.core.tools.LocalTools;
import io.helidon.config.Config;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A machine's own rules: from --deny and a file, deny only, and what they refuse. */
class LocalRulesTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    @TempDir
    Path dir;

    private LocalRules rules(Map<String, String> values) {
        Config config = ConfigLoader.load(values, Map.of(), Map.of());
        LocalToolExecutor executor = LocalTools.open(ConfigLoader.load(Map.of("tools.roots", dir.toString()), Map.of(),
                Map.of()));
        return LocalRules.from(config, "laptop", executor);
    }

    @Test
    void rulesFromOptionsAndAFileRefuseWhatTheyCover() throws Exception {
        Path file = dir.resolve("deny.txt");
        Files.writeString(file, "# the laptop's own rules\nwrite_file if path=/etc/**\n\n");
        LocalRules rules = rules(Map.of("worker.deny.0", "run_shell if command~.*rm -rf.*",
                "worker.deny.1", "deny * on laptop if path=~/.ssh/**", "worker.deny-file", file.toString()));
        assertEquals(3, rules.rules().size());
        assertEquals(Optional.of("refused by laptop's own rule 'deny run_shell if command~.*rm -rf.*' (a machine's "
                + "own rules win over the brain's)"), rules.refusal("run_shell",
                JSON.createObjectNode().put("command", "cd /tmp && rm -rf x")));
        assertTrue(rules.refusal("run_shell", JSON.createObjectNode().put("command", "ls")).isEmpty());
        assertTrue(rules.refusal("write_file", JSON.createObjectNode().put("path", "/etc/hosts")).isPresent());
        assertTrue(rules.refusal("read_file", JSON.createObjectNode().put("path", "~/.ssh/id_ed25519")).isPresent());
    }

    @Test
    void aRuleThatDoesNotDenyOrCannotBeReadIsRefusedAtStart() {
        ConfigException allow = assertThrows(ConfigException.class, () -> rules(Map.of("worker.deny.0",
                "allow run_shell")));
        assertTrue(allow.getMessage().startsWith("a worker's own rules can only deny: 'allow run_shell'"),
                allow.getMessage());
        ConfigException file = assertThrows(ConfigException.class, () -> rules(Map.of("worker.deny-file",
                dir.resolve("missing").toString())));
        assertTrue(file.getMessage().startsWith("worker.deny-file '"), file.getMessage());
    }
}
