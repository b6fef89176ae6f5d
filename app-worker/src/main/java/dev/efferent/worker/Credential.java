package dev.efferent.worker;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.efferent.core.config.ConfigException;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;

/**
 * What the worker sends as {@code Authorization: Bearer …}: the token this machine got by pairing (kept in
 * {@code <state-dir>/worker-token}, mode 600), or else the shared worker secret.
 *
 * @param bearer the credential itself
 * @param paired whether it is this machine's own token (said when the brain refuses it)
 */
record Credential(String bearer, boolean paired) {
    private static final System.Logger LOG = System.getLogger(Credential.class.getName());
    static final String TOKEN_FILE = "worker-token";
    private static final ObjectMapper JSON = new ObjectMapper();

    @Override
    public String toString() {
        return paired ? "Credential[paired token]" : "Credential[worker secret]";
    }

    /** What the brain was refused with, for the message that says what to do. */
    String refusal(URI brain) {
        return paired
                ? "The brain at " + brain + " refused this machine's paired token (401): it was revoked, or the brain "
                + "lost it. Ask the brain for a new code (bin/efferent pair, or /pair in the chat) and start this "
                + "worker with --pair CODE; or, to use the shared worker secret instead, delete the token file "
                + "(worker-token in the state directory), which is used before the secret"
                : "The brain at " + brain + " refused the worker secret (401 Unauthorized); set "
                + "EFFERENT_WORKER_SECRET or --secret-file to the brain's worker.secret, or pair this machine "
                + "(--pair CODE)";
    }

    /**
     * The credential to use: with a pairing code, the token it is exchanged for now (and kept); else the token kept
     * from an earlier pairing; else the shared secret.
     */
    static Credential resolve(WorkerSettings settings, String workerId) {
        Path file = settings.stateDir().resolve(TOKEN_FILE);
        if (settings.pairCode().isPresent()) {
            String token = exchange(settings.brainUrls().getFirst(), settings.pairCode().get(), workerId,
                    settings.name());
            keep(file, token);
            LOG.log(Level.INFO, "Paired with {0} as {1}; the token is kept in {2} (readable only by this user)",
                    settings.brainUrls().getFirst(), settings.name(), file);
            return new Credential(token, true);
        }
        if (Files.exists(file)) {
            try {
                String token = Files.readString(file, StandardCharsets.UTF_8).strip();
                if (!token.isEmpty()) {
                    if (settings.secret().isPresent()) {
                        LOG.log(Level.INFO, "Using this machine''s paired token ({0}), not the worker secret", file);
                    }
                    return new Credential(token, true);
                }
            } catch (IOException e) {
                throw new ConfigException("cannot read this machine's paired token in " + file + ": "
                        + e.getMessage(), e);
            }
        }
        return settings.secret().map(s -> new Credential(s, false)).orElseThrow(() -> new ConfigException(
                "this machine is not paired and has no worker secret: ask the brain for a code (bin/efferent pair, "
                        + "or /pair in the chat) and start with --pair CODE, or set EFFERENT_WORKER_SECRET to the "
                        + "brain's worker.secret (or pass --secret-file FILE)"));
    }

    /** {@code POST /api/v1/pair} on the brain: the code for a token, or a message that says what went wrong. */
    static String exchange(URI brain, String code, String workerId, String name) {
        URI url = URI.create(brain.toString().replaceFirst("^(?i)ws", "http")).resolve("/api/v1/pair");
        String body = JSON.createObjectNode().put("code", code).put("workerId", workerId).put("name", name)
                .toString();
        HttpResponse<String> response;
        try (HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build()) {
            response = client.send(HttpRequest.newBuilder(url).timeout(Duration.ofSeconds(30))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new ConfigException("cannot reach the brain at " + url + " to pair: " + e.getMessage()
                    + "; check --brain-url and that the brain runs", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ConfigException("interrupted while pairing with " + url, e);
        }
        JsonNode answer;
        try {
            answer = JSON.readTree(response.body());
        } catch (JsonProcessingException e) {
            answer = JSON.createObjectNode();
        }
        if (response.statusCode() != 201 || !answer.path("token").isTextual()) {
            String why = answer.path("error").asText("");
            throw new ConfigException("the brain at " + url + " refused to pair this machine (" + response.statusCode()
                    + (why.isEmpty() ? "" : ": " + why) + ")");
        }
        return answer.path("token").textValue();
    }

    private static void keep(Path file, String token) {
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            Path temp = file.resolveSibling(file.getFileName() + ".tmp");
            Files.deleteIfExists(temp);
            try {
                Files.createFile(temp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            } catch (UnsupportedOperationException e) {
                // Not a POSIX file system (Windows): the user's profile directory protects it.
                Files.createFile(temp);
            } catch (FileAlreadyExistsException e) {
                throw new IOException("another process writes " + temp, e);
            }
            Files.writeString(temp, token + "\n", StandardCharsets.UTF_8);
            StateFiles.move(temp, file);
        } catch (IOException e) {
            throw new ConfigException("paired, but cannot keep the token in " + file + " (" + e.getMessage() + "): set "
                    + "worker.state-dir (--state-dir) to a directory this user may write, and pair again", e);
        }
    }
}
