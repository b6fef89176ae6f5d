package dev.efferent.model.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.efferent.model.spi.ModelException;
import dev.efferent.model.spi.ModelException.Kind;

import java.io.IOException;
import java.io.InputStream;
import java.lang.System.Logger.Level;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CancellationException;

/**
 * One model API over HTTP: a POST of JSON, tried again on 429, 5xx and an unreachable server (never on another
 * 4xx), with every failure turned into a {@link ModelException} that names the server, quotes it and says what to
 * check. The whole call, reading included, ends at the configured timeout.
 */
public final class ModelHttp {
    private static final System.Logger LOG = System.getLogger(ModelHttp.class.getName());
    /** A server asking to wait longer than this is not waited for: the call fails and says when to try. */
    private static final Duration LONGEST_WAIT = Duration.ofMinutes(1);
    private static final int QUOTED_CHARS = 300;
    /** The longest answer, or tool call arguments, accepted. */
    static final int MAX_ANSWER_CHARS = 1_000_000;
    /** The most tool calls accepted in one answer. */
    static final int MAX_CALLS = 128;

    private final ModelSettings settings;
    private final String keyHint;
    private final ObjectMapper json;
    private final HttpClient client;

    /**
     * @param settings the provider's settings
     * @param keyHint  where the API key comes from, for messages, e.g. {@code model.api-key or OPENAI_API_KEY}
     * @param json     the provider's JSON mapper
     */
    public ModelHttp(ModelSettings settings, String keyHint, ObjectMapper json) {
        this.settings = settings;
        this.keyHint = keyHint;
        this.json = json;
        this.client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(settings.timeout().compareTo(Duration.ofSeconds(10)) < 0 ? settings.timeout()
                        : Duration.ofSeconds(10))
                .build();
    }

    /** Reads a successful answer's body. */
    @FunctionalInterface
    public interface BodyReader<T> {
        T read(InputStream body) throws IOException;
    }

    /**
     * POSTs {@code body} to {@code path} (below the base URL) and reads a 2xx answer with {@code reader}.
     *
     * @throws ModelException       when the server cannot be reached or refuses, after the retries allowed
     * @throws CancellationException when the calling thread is interrupted (its interrupt flag is kept)
     */
    public <T> T post(String path, Map<String, String> headers, String body, BodyReader<T> reader) {
        URI uri = URI.create(settings.baseUrl() + path);
        long deadline = System.nanoTime() + settings.timeout().toNanos();
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(settings.timeout())
                .header("Content-Type", "application/json")
                .header("Accept", settings.stream() ? "text/event-stream" : "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
        headers.forEach(request::header);
        Duration backoff = settings.retryBackoff();
        for (int attempt = 1; ; attempt++) {
            ModelException failure;
            try {
                HttpResponse<InputStream> response = client.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
                if (response.statusCode() / 100 == 2) {
                    return read(response.body(), reader, deadline);
                }
                failure = refusal(response, attempt);
            } catch (HttpConnectTimeoutException | ConnectException e) {
                // java.net.http reports a refused connection as a bare ConnectException over a closed channel.
                String why = e instanceof ConnectException && (e.getMessage() == null || e.getMessage().isBlank())
                        ? "the connection was refused" : reason(e);
                failure = new ModelException(Kind.UNREACHABLE, "Could not reach " + where() + ": " + why
                        + ". Is the server running there? Check model.base-url (EFFERENT_MODEL_BASE__URL).",
                        Optional.empty(), e);
            } catch (HttpTimeoutException e) {
                throw new ModelException(Kind.TIMEOUT, where() + " did not answer within " + human(settings.timeout())
                        + ". A larger model may need a longer model.timeout (EFFERENT_MODEL_TIMEOUT).",
                        Optional.empty(), e);
            } catch (IOException e) {
                failure = new ModelException(Kind.UNREACHABLE, "The connection to " + where() + " failed: " + reason(e)
                        + ".", Optional.empty(), e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CancellationException("the call to " + where() + " was stopped");
            }
            if (!failure.retryable() || attempt > settings.maxRetries()) {
                throw failure;
            }
            Duration wait = failure.retryAfter().orElse(backoff);
            if (wait.compareTo(LONGEST_WAIT) > 0 || System.nanoTime() + wait.toNanos() - deadline > 0) {
                throw failure;
            }
            LOG.log(Level.INFO, "{0}; trying again in {1} ({2} of {3} retries)", failure.getMessage(), human(wait),
                    attempt, settings.maxRetries());
            try {
                Thread.sleep(wait);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CancellationException("the call to " + where() + " was stopped");
            }
            backoff = backoff.multipliedBy(2);
        }
    }

    /** The server, for messages: {@code openai at http://127.0.0.1:11434/v1}. */
    public String where() {
        return settings.provider() + " at " + settings.baseUrl();
    }

    /**
     * Refuses an answer that grows past what any real one needs: a server that streams without end must not use
     * up the brain's memory.
     *
     * @param grown the answer's text, or one call's arguments, so far
     * @param calls the tool calls so far
     */
    public void checkSize(CharSequence grown, int calls) {
        if (grown.length() > MAX_ANSWER_CHARS) {
            throw malformed("an answer (or a tool call's arguments) longer than " + MAX_ANSWER_CHARS + " characters");
        }
        if (calls > MAX_CALLS) {
            throw malformed("more than " + MAX_CALLS + " tool calls in one answer");
        }
    }

    /** A malformed answer, in words. */
    public ModelException malformed(String what) {
        return new ModelException(Kind.MALFORMED, where() + " sent an answer that cannot be understood: " + what
                + ". Is model.base-url the API's base (for OpenAI-compatible servers it ends in /v1)?");
    }

    /** Reads the body; closes it at the deadline, so a server that stops sending cannot hold the call. */
    private <T> T read(InputStream body, BodyReader<T> reader, long deadline) {
        Thread caller = Thread.currentThread();
        Thread watchdog = Thread.ofVirtual().name("efferent-model-deadline").start(() -> {
            try {
                Thread.sleep(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
                body.close();
            } catch (InterruptedException e) {
                // The call ended first: nothing to do.
            } catch (IOException e) {
                LOG.log(Level.DEBUG, "Closing a model answer at its deadline failed", e);
            }
        });
        try (body) {
            return reader.read(body);
        } catch (JsonProcessingException e) {
            throw malformed("it is not JSON (" + e.getOriginalMessage() + ")");
        } catch (IOException e) {
            if (System.nanoTime() - deadline >= 0) {
                throw new ModelException(Kind.TIMEOUT, where() + " did not finish its answer within "
                        + human(settings.timeout()) + ". A larger model may need a longer model.timeout "
                        + "(EFFERENT_MODEL_TIMEOUT).", Optional.empty(), e);
            }
            if (caller.isInterrupted()) {
                throw new CancellationException("the call to " + where() + " was stopped");
            }
            throw new ModelException(Kind.UNREACHABLE, "The connection to " + where() + " broke during the answer: "
                    + reason(e) + ".", Optional.empty(), e);
        } finally {
            watchdog.interrupt();
        }
    }

    private ModelException refusal(HttpResponse<InputStream> response, int attempt) throws IOException {
        int status = response.statusCode();
        String said;
        try (InputStream in = response.body()) {
            said = serverWords(new String(in.readNBytes(64 * 1024), StandardCharsets.UTF_8));
        }
        String quoted = said.isEmpty() ? "" : ": " + said;
        return switch (status) {
            case 401, 403 -> new ModelException(Kind.REFUSED, where() + " refused the request (" + status + ")" + quoted
                    + ". Check the API key (" + keyHint + ").");
            case 429 -> new ModelException(Kind.RATE_LIMITED, where() + " is limiting the rate (429" + tries(attempt)
                    + ")" + quoted + ". Wait a moment and try again, or check your plan's limits.",
                    retryAfter(response), null);
            default -> {
                if (status / 100 == 5) {
                    yield new ModelException(Kind.SERVER_ERROR, where() + " failed (" + status + tries(attempt) + ")"
                            + quoted + ". Try again later.", retryAfter(response), null);
                }
                if (contextTooLong(said)) {
                    yield new ModelException(Kind.CONTEXT_TOO_LONG, where() + " says the conversation is too long for "
                            + "the model (" + status + ")" + quoted + ". Send /new to start afresh, or lower "
                            + "agent.max-context-tokens.");
                }
                yield new ModelException(Kind.BAD_REQUEST, where() + " refused the request (" + status + ")" + quoted
                        + ". Check model.name (" + settings.name() + ") and model.base-url.");
            }
        };
    }

    private String tries(int attempt) {
        return attempt > 1 ? ", " + attempt + " tries" : "";
    }

    /** The message in an error body: OpenAI's and Anthropic's {@code error.message}, else the text, shortened. */
    private String serverWords(String body) {
        String words = body.strip();
        try {
            JsonNode j = json.readTree(body);
            if (j != null) {
                JsonNode m = j.path("error").path("message");
                if (m.isTextual()) {
                    words = m.asText();
                } else if (j.path("error").isTextual()) {
                    words = j.path("error").asText();
                } else if (j.path("message").isTextual()) {
                    words = j.path("message").asText();
                }
            }
        } catch (IOException e) {
            // Not JSON: quote the text as it is.
        }
        words = words.replaceAll("\\s+", " ");
        return words.length() > QUOTED_CHARS ? words.substring(0, QUOTED_CHARS) + "…" : words;
    }

    private static boolean contextTooLong(String words) {
        String w = words.toLowerCase(Locale.ROOT);
        return w.contains("context_length") || w.contains("context length") || w.contains("prompt is too long")
                || w.contains("maximum context") || w.contains("too many tokens");
    }

    /** {@code Retry-After} as seconds or an HTTP date. */
    private static Optional<Duration> retryAfter(HttpResponse<?> response) {
        return response.headers().firstValue("Retry-After").map(String::strip).flatMap(v -> {
            try {
                return Optional.of(Duration.ofMillis((long) (Double.parseDouble(v) * 1000)));
            } catch (NumberFormatException e) {
                try {
                    Duration until = Duration.between(Instant.now(),
                            ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant());
                    return Optional.of(until.isNegative() ? Duration.ZERO : until);
                } catch (DateTimeParseException d) {
                    return Optional.empty();
                }
            }
        });
    }

    private static String reason(Throwable e) {
        String message = e.getMessage();
        if (message == null || message.isBlank()) {
            return e.getCause() != null && e.getCause() != e ? reason(e.getCause()) : e.getClass().getSimpleName();
        }
        return message;
    }

    private static String human(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
    }
}
