package dev.efferent.chat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * {@code bin/efferent pair [--brain-url http://127.0.0.1:18789] [--token-file FILE | --token TOKEN]}: asks a running brain for a
 * one-time pairing code and prints it with the command that uses it on the machine to join.
 */
public final class PairMain {
    private static final ObjectMapper JSON = new ObjectMapper();

    private PairMain() {
    }

    /** Prints a code; exits 2 on bad options, 1 if the brain cannot be reached or refuses. */
    public static void main(String[] args) {
        String brain = "http://127.0.0.1:18789";
        boolean brainGiven = false;
        String token = System.getenv().getOrDefault("EFFERENT_API_TOKEN", "");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--brain-url" -> {
                    brain = value(args, ++i, "--brain-url");
                    brainGiven = true;
                }
                case "--token-file" -> token = ChatMain.tokenFile(value(args, ++i, "--token-file"));
                case "--token" -> {
                    token = value(args, ++i, "--token");
                    System.err.println("efferent pair: note: a token on the command line is shown by 'ps' to every "
                            + "user of this machine; EFFERENT_API_TOKEN or --token-file keep it out of sight");
                }
                case "--help", "-h" -> {
                    System.out.println("""
                            Usage: efferent pair [--brain-url http://host:18789] [--token-file FILE | --token TOKEN]
                            Asks the brain for a one-time code (valid 10 minutes) that lets one machine join:
                            run the printed command there. The API token comes from --token-file, --token (seen by
                            'ps'), EFFERENT_API_TOKEN, else ~/.efferent/brain/api-token (made by a brain on this
                            machine).""");
                    return;
                }
                default -> ChatMain.fail("pair", 2, "unknown option '" + args[i] + "'");
            }
        }
        URI base = URI.create(brain.replaceAll("/+$", "").replaceFirst("^(?i)ws", "http"));
        token = ChatMain.madeToken(base, token);
        HttpResponse<String> response;
        try (HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build()) {
            HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve("/api/v1/pairing-codes"))
                    .timeout(Duration.ofSeconds(30)).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{}"));
            if (!token.isEmpty()) {
                request.header("Authorization", "Bearer " + token);
            }
            response = client.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            ChatMain.fail("pair", 1, "cannot reach the brain at " + base + ": " + ChatMain.reason(e)
                    + ". Is it running (bin/efferent brain --hands)? Another address: --brain-url");
            return;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        JsonNode answer;
        try {
            answer = JSON.readTree(response.body());
        } catch (IOException e) {
            answer = JSON.createObjectNode();
        }
        if (response.statusCode() == 401) {
            ChatMain.fail("pair", 1, "the brain at " + base + " refused the API token: set EFFERENT_API_TOKEN or "
                    + "pass --token-file");
        }
        if (response.statusCode() != 201 || !answer.path("code").isTextual()) {
            ChatMain.fail("pair", 1, "the brain at " + base + " made no code (" + response.statusCode()
                    + (answer.path("error").isTextual() ? ": " + answer.path("error").asText() : "") + ")");
        }
        String code = answer.path("code").asText();
        // Asked from elsewhere, the address used here is how other machines reach the brain too.
        String command = brainGiven && !ChatMain.isLoopback(base)
                ? "bin/efferent worker --brain-url " + base.toString().replaceFirst("^(?i)http", "ws") + " --pair "
                + code
                : answer.path("command").asText();
        System.out.println("Pairing code: " + code + " (works once, for "
                + answer.path("validForSeconds").asLong(600) / 60 + " minutes)");
        System.out.println("On the machine to join, run:");
        System.out.println("  " + command);
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            ChatMain.fail("pair", 2, "option " + option + " needs a value");
        }
        return args[i];
    }
}
