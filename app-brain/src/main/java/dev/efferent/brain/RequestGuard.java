package dev.efferent.brain;

import io.helidon.http.HeaderName;
import io.helidon.http.HeaderNames;
import io.helidon.http.HeaderValues;
import io.helidon.http.Headers;
import io.helidon.http.HttpPrologue;
import io.helidon.http.Method;
import io.helidon.http.Status;
import io.helidon.webserver.http.Filter;
import io.helidon.webserver.http.FilterChain;
import io.helidon.webserver.http.RoutingRequest;
import io.helidon.webserver.http.RoutingResponse;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Keeps web pages out. The brain runs shell commands, and any page open in the user's browser can send requests
 * to {@code 127.0.0.1}: a cross-site form or {@code fetch} (refused by {@code Origin}), a DNS-rebinding page whose
 * own name resolves to this machine (refused by {@code Host}), a page framing the console (refused by the CSP).
 * Applies to every HTTP request and, through {@link #refusal(HttpPrologue, Headers)}, to both WebSocket upgrades,
 * which Helidon handles before any filter runs.
 */
public final class RequestGuard implements Filter {
    private static final System.Logger LOG = System.getLogger(RequestGuard.class.getName());
    private static final Set<String> LOOPBACK_NAMES = Set.of("localhost", "localhost.", "ip6-localhost");
    /** The console loads its own script, style and the data-URL icon, and talks to its own origin only. */
    static final String CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; "
            + "img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
    private static final Set<Method> SAFE = Set.of(Method.GET, Method.HEAD, Method.OPTIONS);
    private static final HeaderName CSP = HeaderNames.create("Content-Security-Policy");
    private static final HeaderName REFERRER_POLICY = HeaderNames.create("Referrer-Policy");
    private static final String LIVENESS = "/observe/health/live";

    private final Set<String> allowedHosts;
    private final Set<String> allowedOrigins;
    private final boolean anyHost;
    private final BearerToken apiToken;
    private final Views views;
    private final RefusalLog refusals = new RefusalLog(LOG, Duration.ofSeconds(10), Clock.systemUTC());

    RequestGuard(List<String> allowedHosts, List<String> allowedOrigins, BearerToken apiToken, Views views) {
        this.anyHost = allowedHosts.contains("*");
        this.allowedHosts = allowedHosts.stream().map(h -> h.toLowerCase(Locale.ROOT)).collect(Collectors.toSet());
        this.allowedOrigins = allowedOrigins.stream().map(RequestGuard::normalOrigin).collect(Collectors.toSet());
        this.apiToken = apiToken;
        this.views = views;
    }

    @Override
    public void filter(FilterChain chain, RoutingRequest req, RoutingResponse res) {
        res.header(CSP, CONTENT_SECURITY_POLICY);
        res.header(HeaderValues.create(HeaderNames.create("X-Frame-Options"), "DENY"));
        res.header(HeaderNames.create("X-Content-Type-Options"), "nosniff");
        res.header(REFERRER_POLICY, "no-referrer");
        Optional<String> refusal = refusal(req.prologue(), req.headers());
        if (refusal.isPresent()) {
            // Also where refused WebSocket upgrades are logged: they come here, and only here is the peer known.
            refusals.warn("Refused {0} {1} from {2}: {3}", req.prologue().method().text(), req.path().path(),
                    Peers.of(req), refusal.get());
            refuse(res, Status.FORBIDDEN_403, refusal.get());
            return;
        }
        String path = req.path().path();
        if (!SAFE.contains(req.prologue().method()) && path.startsWith("/api/") && !isJson(req.headers())) {
            refuse(res, Status.UNSUPPORTED_MEDIA_TYPE_415, "state-changing requests need 'Content-Type: "
                    + "application/json' (a web page cannot send that cross-site without asking first); got "
                    + req.headers().first(HeaderNames.CONTENT_TYPE).map(v -> "'" + v + "'").orElse("none"));
            return;
        }
        if (path.startsWith("/observe") && !path.equals(LIVENESS) && !apiToken.accepts(req.headers())) {
            res.header(HeaderValues.create(HeaderNames.WWW_AUTHENTICATE, "Bearer realm=\"efferent\""));
            refuse(res, Status.UNAUTHORIZED_401, "missing or wrong API token: health details and metrics need "
                    + "'Authorization: Bearer <api.token>'; " + LIVENESS + " is open for liveness probes");
            return;
        }
        chain.proceed();
    }

    /**
     * Why a request (or WebSocket upgrade) with these headers is refused: a {@code Host} that is not this
     * machine's loopback, an IP address or a configured name; an {@code Origin} other than the brain's own or a
     * configured one. Empty when it may go on. A request without {@code Origin} is not from a cross-site page:
     * browsers send it on every cross-origin request and every WebSocket.
     */
    Optional<String> refusal(HttpPrologue prologue, Headers headers) {
        Optional<String> host = headers.first(HeaderNames.HOST).map(String::strip);
        if (host.isEmpty() || host.get().isEmpty()) {
            return Optional.of("a request without a Host header");
        }
        if (!hostAllowed(host.get())) {
            return Optional.of("Host '" + host.get() + "' is not this brain's name: add it to "
                    + "server.allowed-hosts (EFFERENT_SERVER_ALLOWED__HOSTS) if you reach the brain by that name");
        }
        Optional<String> origin = headers.first(HeaderNames.ORIGIN).map(String::strip);
        if (origin.isPresent() && !originAllowed(origin.get(), host.get())) {
            return Optional.of("Origin '" + origin.get() + "' may not use this brain: only its "
                    + "own pages may, and those listed in server.allowed-origins (EFFERENT_SERVER_ALLOWED__ORIGINS)");
        }
        return Optional.empty();
    }

    /** Where refusals of requests and sockets are logged, at most one line every 10 s. */
    RefusalLog refusals() {
        return refusals;
    }


    boolean hostAllowed(String hostHeader) {
        String host = hostName(hostHeader);
        if (anyHost || LOOPBACK_NAMES.contains(host) || allowedHosts.contains(host)) {
            return true;
        }
        // An address literal cannot be a rebinding attack: that needs a name the attacker's DNS answers for.
        return isAddressLiteral(host);
    }

    private boolean originAllowed(String origin, String hostHeader) {
        String normal = normalOrigin(origin);
        if (allowedOrigins.contains(normal)) {
            return true;
        }
        String host = hostHeader.toLowerCase(Locale.ROOT);
        return normal.equals("http://" + host) || normal.equals("https://" + host);
    }

    /** The host name of a {@code Host} header, lower case, without port or IPv6 brackets. */
    static String hostName(String hostHeader) {
        String h = hostHeader.toLowerCase(Locale.ROOT);
        if (h.startsWith("[")) {
            int end = h.indexOf(']');
            return end < 0 ? h : h.substring(1, end);
        }
        int colon = h.lastIndexOf(':');
        return colon < 0 ? h : h.substring(0, colon);
    }

    private static boolean isAddressLiteral(String host) {
        boolean v4 = host.matches("\\d{1,3}(\\.\\d{1,3}){3}");
        boolean v6 = host.contains(":") && host.matches("[0-9a-f:.]+");
        if (!v4 && !v6) {
            return false;
        }
        try {
            // Only literals reach here, so this parses and never asks DNS.
            InetAddress.getByName(host);
            return true;
        } catch (UnknownHostException e) {
            return false;
        }
    }

    private static String normalOrigin(String origin) {
        String o = origin.strip().toLowerCase(Locale.ROOT);
        return o.endsWith("/") ? o.substring(0, o.length() - 1) : o;
    }

    private static boolean isJson(Headers headers) {
        return headers.first(HeaderNames.CONTENT_TYPE)
                .map(v -> v.toLowerCase(Locale.ROOT).split(";", 2)[0].strip())
                .filter(t -> t.equals("application/json"))
                .isPresent();
    }

    private void refuse(RoutingResponse res, Status status, String message) {
        res.status(status);
        res.header(HeaderValues.CONTENT_TYPE_JSON);
        res.send(views.error(status.code(), message).toString());
    }
}
