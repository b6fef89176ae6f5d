package dev.efferent.systemtests;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A PostgreSQL server of the test's own, from the installed binaries ({@code /usr/lib/postgresql/<n>/bin}),
 * so a test can stop and restart it without touching the shared one. As root it runs as the {@code postgres}
 * OS user, which PostgreSQL requires.
 */
final class PrivatePostgres implements AutoCloseable {
    private final Path bin;
    private final Path data;
    private final int port;

    private PrivatePostgres(Path bin, Path data, int port) {
        this.bin = bin;
        this.data = data;
        this.port = port;
    }

    static PrivatePostgres start(Path dir, int port) throws Exception {
        Path bin = findBin();
        Path data = dir.resolve("pgdata");
        Files.createDirectories(data);
        if (isRoot()) {
            run(List.of("chown", "-R", "postgres:postgres", dir.toString()), false);
            run(List.of("chmod", "755", dir.toString()), false);
        }
        PrivatePostgres pg = new PrivatePostgres(bin, data, port);
        pg.pg(List.of(bin.resolve("initdb").toString(), "-D", data.toString(), "-U", "postgres", "--auth=trust",
                "--encoding=UTF8"));
        pg.start();
        return pg;
    }

    String url() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
    }

    void start() throws Exception {
        pg(List.of(bin.resolve("pg_ctl").toString(), "-D", data.toString(), "-l", data.resolve("server.log").toString(),
                "-w", "-t", "60", "-o", "-h 127.0.0.1 -p " + port + " -k " + data, "start"));
    }

    void stop() throws Exception {
        pg(List.of(bin.resolve("pg_ctl").toString(), "-D", data.toString(), "-w", "-m", "fast", "stop"));
    }

    @Override
    public void close() throws Exception {
        if (Files.exists(data.resolve("postmaster.pid"))) {
            stop();
        }
    }

    private void pg(List<String> command) throws Exception {
        List<String> full = new ArrayList<>();
        if (isRoot()) {
            full.addAll(List.of("runuser", "-u", "postgres", "--"));
        }
        full.addAll(command);
        run(full, true);
    }

    private static void run(List<String> command, boolean mustSucceed) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(90, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("timed out: " + command);
        }
        if (mustSucceed && p.exitValue() != 0) {
            throw new AssertionError(String.join(" ", command) + " failed (" + p.exitValue() + "):\n" + out);
        }
    }

    private static boolean isRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    private static Path findBin() throws IOException {
        Path preferred = Path.of("/usr/lib/postgresql/15/bin");
        if (Files.isExecutable(preferred.resolve("pg_ctl"))) {
            return preferred;
        }
        try (var versions = Files.list(Path.of("/usr/lib/postgresql"))) {
            return versions.map(v -> v.resolve("bin")).filter(b -> Files.isExecutable(b.resolve("pg_ctl"))).findFirst()
                    .orElseThrow(() -> new AssertionError("no PostgreSQL binaries under /usr/lib/postgresql/*/bin; "
                            + "install postgresql"));
        } catch (IOException e) {
            throw new AssertionError("no PostgreSQL binaries under /usr/lib/postgresql: " + e.getMessage()
                    + "; install postgresql", e);
        }
    }
}
