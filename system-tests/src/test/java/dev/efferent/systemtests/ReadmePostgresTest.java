package dev.efferent.systemtests;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The README's PostgreSQL walkthrough, run as written: its commands make the role and the database, and the settings
 * of its brain command start a brain whose queue is there (launched from the brain's module path, as
 * {@code bin/efferent brain} launches it once built). Only the names differ (the role and database "efferent" get a name
 * of this run's, so that a database a developer keeps is never touched), and PGHOST/PGPORT point the commands at
 * the test's PostgreSQL, as a user would for one elsewhere.
 */
class ReadmePostgresTest extends SystemFixture {
    private static final Pattern NAME = Pattern.compile("(?<!bin/)(?<![A-Za-z_.-])efferent(?![A-Za-z_-])");

    @Test
    void thePostgresqlWalkthroughWorksAsWritten() throws Exception {
        String name = "efferent_readme_" + Long.toHexString(System.nanoTime());
        List<String> lines = walkthrough(name);
        URI db = URI.create(DB_URL.substring("jdbc:".length()));
        Path bin = Files.createDirectories(dir.resolve("bin"));
        sudoShim(bin);
        try {
            List<String> brainCommand = new ArrayList<>();
            for (String line : lines) {
                if (line.startsWith("sudo ")) {
                    run(line, bin, db);
                } else {
                    brainCommand.add(line);
                }
            }
            Map<String, String> env = new HashMap<>();
            Matcher assignment = Pattern.compile("([A-Z_]+)=(\\S+)").matcher(String.join(" ", brainCommand));
            while (assignment.find()) {
                env.put(assignment.group(1), assignment.group(2).replace("127.0.0.1:5432",
                        db.getHost() + ":" + db.getPort()));
            }
            assertTrue(String.join(" ", brainCommand).endsWith("bin/efferent brain --hands"), brainCommand.toString());
            assertEquals(name, env.get("EFFERENT_DB_USER"));
            Launched brain = brain("readme", freePort(), env.get("EFFERENT_DB_URL"), env);
            String id = submit(brain, "{\"tool\":\"stat\",\"params\":{\"path\":\".\"}}");
            JsonNode queued = call(brain, "GET", "/api/v1/tasks/" + id, null, 200);
            assertEquals("queued", queued.path("status").asText(), "kept in the README's database: " + queued);
            brain.process().destroy();
            brain.process().waitFor(30, TimeUnit.SECONDS);
        } finally {
            try (Connection c = DriverManager.getConnection(DB_URL, DB_USER, DB_PASSWORD);
                 Statement st = c.createStatement()) {
                st.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
                st.execute("DROP ROLE IF EXISTS " + name);
            }
        }
    }

    /** The lines of the README's first shell block under its PostgreSQL heading, continuations joined. */
    private static List<String> walkthrough(String name) throws Exception {
        String readme = Files.readString(Path.of(System.getProperty("efferent.test.root"), "README.md"));
        int section = readme.indexOf("## A durable queue with PostgreSQL");
        int start = readme.indexOf("```bash\n", section) + "```bash\n".length();
        String block = readme.substring(start, readme.indexOf("```", start));
        List<String> lines = new ArrayList<>();
        for (String line : block.replace("\\\n", " ").split("\n")) {
            String command = line.strip();
            if (!command.isEmpty() && !command.startsWith("#")) {
                lines.add(NAME.matcher(command).replaceAll(name));
            }
        }
        return lines;
    }

    private void run(String command, Path bin, URI db) throws Exception {
        // In /tmp: the postgres OS user may not enter the build's directory.
        ProcessBuilder pb = new ProcessBuilder("bash", "-c", command).redirectErrorStream(true)
                .directory(Path.of(System.getProperty("java.io.tmpdir")).toFile());
        pb.environment().put("PATH", bin + ":" + System.getenv("PATH"));
        pb.environment().put("PGHOST", db.getHost());
        pb.environment().put("PGPORT", String.valueOf(db.getPort()));
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), command);
        assertEquals(0, p.exitValue(), "README command failed: " + command + "\n" + out);
    }

    /**
     * {@code sudo -u postgres …} as the README writes it: as root (CI), runuser does it; otherwise the real sudo,
     * never asking for a password.
     */
    private static void sudoShim(Path bin) throws Exception {
        Path sudo = bin.resolve("sudo");
        Files.writeString(sudo, """
                #!/bin/sh
                if [ "$(id -u)" = 0 ] && [ "$1" = "-u" ]; then
                  user="$2"; shift 2
                  exec runuser -u "$user" -- "$@"
                fi
                exec /usr/bin/sudo -n --preserve-env=PGHOST,PGPORT "$@"
                """);
        Files.setPosixFilePermissions(sudo, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
}
