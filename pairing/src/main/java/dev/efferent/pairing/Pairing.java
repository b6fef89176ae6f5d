package dev.efferent.pairing;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.efferent.pairing.PairingStore.Kind;
import dev.efferent.queue.QueueException;
import dev.efferent.router.Router;
import dev.efferent.store.Store;
import dev.efferent.store.StoreException;

import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.Deque;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * Joining machines without the shared secret. A code ({@link #newCode}) is good once, for {@link #CODE_TTL}; a
 * worker exchanges it ({@link #exchange}) for a token bound to its worker id, which the brain keeps only as a
 * hash. {@link #revoke} takes a token back and disconnects the machine at once; a brain over the same database
 * that has it connected notices within {@link #RECHECK}. The chat's {@code /pair} and {@code /workers paired|revoke}
 * are {@link PairingCommands}. Thread-safe.
 */
public final class Pairing implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(Pairing.class.getName());
    /** How long a code works. */
    public static final Duration CODE_TTL = Duration.ofMinutes(10);
    /** How often connections let in by a token check that it was not revoked by another brain. */
    static final Duration RECHECK = Duration.ofSeconds(30);
    /** Tries a minute one address may make; more wait for the minute to pass. */
    static final int MAX_TRIES_PER_ADDRESS = 10;
    /** Wrong tries a minute from all addresses together; more and this brain takes none for the rest of it. */
    static final int MAX_WRONG_PER_MINUTE = 60;
    /** No 0/O, 1/I/L: a code read aloud or off a phone is typed right. */
    private static final String ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ";
    private static final Pattern NAME = Pattern.compile("[\\p{L}\\p{N}._-]{1,64}");
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9._-]{1,128}");
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Router router;
    private final PairingStore store;
    private final Supplier<String> brainUrl;
    private final Clock clock;
    private final SecureRandom random = new SecureRandom();
    /** Recent tries: when, and from which address; a right one is taken out again. */
    private final Deque<Try> tries = new ArrayDeque<>();

    private record Try(Instant at, String from) {
    }
    /** Worker ids let in here by a token, with the token's hash: checked every {@link #RECHECK}. */
    private final Map<String, String> admitted = new ConcurrentHashMap<>();
    private final ReentrantLock exchanging = new ReentrantLock();
    private volatile Set<String> pairedIds = Set.of();
    private volatile Set<String> pairedNames = Set.of();
    private final ScheduledExecutorService timer;

    private Pairing(Router router, PairingStore store, Supplier<String> brainUrl, Clock clock) {
        this.router = router;
        this.store = store;
        this.brainUrl = brainUrl;
        this.clock = clock;
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> Thread.ofPlatform().daemon()
                .name("efferent-pairing").unstarted(r));
        refreshPaired();
        router.protectPaired((id, name) -> pairedIds.contains(id) || pairedNames.contains(name));
        timer.scheduleWithFixedDelay(this::recheck, RECHECK.toMillis(), RECHECK.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Pairing for a brain.
     *
     * @param router   the brain's router, to disconnect a revoked machine
     * @param store    the brain's store: codes and tokens are kept there if it outlives the process, else in
     *                 {@code file}
     * @param file     where they are kept when the store is in memory (mode 600)
     * @param brainUrl the URL a new machine connects to, for the command printed with a code
     * @param clock    for expiry
     */
    public static Pairing open(Router router, Store store, Path file, Supplier<String> brainUrl,
                               Clock clock) {
        return store.durable() ? inStore(router, store, brainUrl, clock) : inFile(router, file, brainUrl, clock);
    }

    /** Pairing with codes and tokens in {@code store}, whether it outlives the process or not. */
    public static Pairing inStore(Router router, Store store, Supplier<String> brainUrl,
                                  Clock clock) {
        return new Pairing(router, new PairingStore.InStore(store), brainUrl, clock);
    }

    /** Pairing with codes and tokens in {@code file} (mode 600). */
    public static Pairing inFile(Router router, Path file, Supplier<String> brainUrl, Clock clock) {
        return new Pairing(router, new PairingStore.InFile(file), brainUrl, clock);
    }

    /** A new one-time code, good for {@link #CODE_TTL}; {@code by} says who asked, for the log. */
    public PairingCode newCode(String by) {
        pruneExpiredCodes();
        StringBuilder code = new StringBuilder();
        for (int i = 0; i < 10; i++) {
            code.append(ALPHABET.charAt(random.nextInt(ALPHABET.length())));
        }
        code.insert(5, '-');
        Instant expires = clock.instant().plus(CODE_TTL);
        ObjectNode entry = JSON.createObjectNode().put("expiresAt", expires.toString()).put("by", by);
        store.put(Kind.CODE, hash(normalize(code.toString())), entry.toString());
        LOG.log(Level.INFO, "Pairing code made for {0}, valid until {1}", by, expires);
        return new PairingCode(code.toString(), expires, "bin/efferent worker --brain-url " + brainUrl.get() + " --pair "
                + code);
    }

    /**
     * Exchanges {@code code} for a token bound to {@code workerId} and {@code name}. A machine that paired before
     * (same id) gets a new token and its old one stops working.
     *
     * @param from the address the request came from: each may try {@link #MAX_TRIES_PER_ADDRESS} codes a minute
     * @throws PairingException for a wrong, used or expired code, too many tries lately, a name another machine
     *                          is paired under, or an unusable name or id
     */
    public WorkerToken exchange(String code, String workerId, String name, String from) {
        // A lock, not synchronized: the store may block on its database, and a virtual thread must not pin its
        // carrier while it waits (Java 21).
        exchanging.lock();
        try {
            return exchangeLocked(code, workerId, name, from);
        } finally {
            exchanging.unlock();
        }
    }

    private WorkerToken exchangeLocked(String code, String workerId, String name, String from) {
        if (workerId == null || !ID.matcher(workerId).matches()) {
            throw new PairingException(PairingException.Kind.INVALID, "workerId must be 1 to 128 letters, digits, "
                    + "'.', '_' or '-'");
        }
        if (name == null || !NAME.matcher(name).matches()) {
            throw new PairingException(PairingException.Kind.INVALID, "the worker's name must be 1 to 64 letters, "
                    + "digits, '.', '_' or '-' (set it with --name)");
        }
        // Counted before the code is looked up, so that requests sent together cannot all pass the limit.
        Try attempt = new Try(clock.instant(), from);
        if (!admit(attempt)) {
            throw new PairingException(PairingException.Kind.TOO_MANY, "too many pairing codes tried in the last "
                    + "minute: wait a minute and try again");
        }
        String key = hash(normalize(code == null ? "" : code));
        Optional<Instant> expires = store.get(Kind.CODE, key).flatMap(Pairing::expiry);
        if (expires.isEmpty() || !expires.get().isAfter(clock.instant())) {
            store.get(Kind.CODE, key).ifPresent(stale -> store.remove(Kind.CODE, key));
            LOG.log(Level.WARNING, "Refused a pairing as {0} ({1}) from {2}: wrong, used or expired code", name,
                    workerId, from);
            throw new PairingException(PairingException.Kind.WRONG_CODE, "the pairing code is wrong, used or "
                    + "expired: ask the brain for a new one (bin/efferent pair, or /pair in the chat)");
        }
        forgive(attempt);
        Map<String, PairedWorker> tokens = tokens();
        if (tokens.values().stream().anyMatch(w -> w.name().equals(name) && !w.workerId().equals(workerId))) {
            // Checked before the code is used, so the person can try again with another name.
            throw new PairingException(PairingException.Kind.NAME_TAKEN, "another machine is paired as '" + name
                    + "': start this one with another --name, or revoke the other first (/workers revoke " + name
                    + ")");
        }
        if (!store.remove(Kind.CODE, key)) {
            throw new PairingException(PairingException.Kind.WRONG_CODE, "the pairing code was just used by "
                    + "another machine: ask the brain for a new one (bin/efferent pair, or /pair in the chat)");
        }
        tokens.forEach((k, w) -> {
            if (w.workerId().equals(workerId)) {
                forget(k);
            }
        });
        byte[] secret = new byte[32];
        random.nextBytes(secret);
        String token = "efw_" + Base64.getUrlEncoder().withoutPadding().encodeToString(secret);
        PairedWorker worker = new PairedWorker(workerId, name, clock.instant(), Optional.empty());
        store.put(Kind.TOKEN, hash(token), write(worker));
        refreshPaired();
        LOG.log(Level.INFO, "Worker {0} ({1}) paired from {2}", name, workerId, from);
        return new WorkerToken(worker, token);
    }

    /** Records a try if the limits allow it. */
    private synchronized boolean admit(Try attempt) {
        Instant minuteAgo = attempt.at().minus(Duration.ofMinutes(1));
        while (!tries.isEmpty() && !tries.peekFirst().at().isAfter(minuteAgo)) {
            tries.removeFirst();
        }
        long fromThere = tries.stream().filter(t -> t.from().equals(attempt.from())).count();
        if (fromThere >= MAX_TRIES_PER_ADDRESS || tries.size() >= MAX_WRONG_PER_MINUTE) {
            return false;
        }
        tries.addLast(attempt);
        return true;
    }

    /** A right code: its try does not count against anyone. */
    private synchronized void forgive(Try attempt) {
        tries.remove(attempt);
    }

    private static Optional<Instant> expiry(String entry) {
        try {
            return Optional.of(Instant.parse(read(entry).path("expiresAt").asText()));
        } catch (RuntimeException e) {
            // A record this brain cannot read is no code it made: treated as expired.
            return Optional.empty();
        }
    }

    private void forget(String tokenHash) {
        store.remove(Kind.TOKEN, tokenHash);
        store.remove(Kind.SEEN, tokenHash);
    }

    /**
     * The paired worker {@code token} belongs to, if it is one; noted as its last connection, and watched from now
     * on so that a revocation by another brain ends its connection here.
     */
    public Optional<PairedWorker> connecting(String token) {
        String hash = hash(token);
        Optional<PairedWorker> found = store.get(Kind.TOKEN, hash).map(this::parse);
        found.ifPresent(w -> {
            try {
                store.put(Kind.SEEN, hash, clock.instant().toString());
            } catch (QueueException | StoreException e) {
                LOG.log(Level.DEBUG, "Could not note when {0} connected: {1}", w.name(), e.getMessage());
            }
            admitted.put(w.workerId(), hash);
        });
        return found;
    }

    /** The paired worker {@code token} belongs to, if it is one; nothing noted. */
    public Optional<PairedWorker> find(String token) {
        return store.get(Kind.TOKEN, hash(token)).map(this::parse);
    }

    /** The paired machines, by name. */
    public List<PairedWorker> workers() {
        List<PairedWorker> all = new ArrayList<>(tokens().values());
        all.sort(Comparator.comparing(PairedWorker::name).thenComparing(PairedWorker::workerId));
        return all;
    }

    /** Whether worker {@code id} joined with a code (as last seen by this brain; cheap, for every console update). */
    public boolean paired(String id) {
        return pairedIds.contains(id);
    }

    /**
     * Takes back the token of the machine paired as {@code nameOrId} and disconnects it at once.
     *
     * @return the machine, and whether it was connected here
     * @throws PairingException (NOT_FOUND) if no paired machine has that name or id
     */
    public Revoked revoke(String nameOrId) {
        Map<String, PairedWorker> tokens = tokens();
        // An id is exact; a name is taken only if one machine has it.
        List<Map.Entry<String, PairedWorker>> matching = tokens.entrySet().stream()
                .filter(e -> e.getValue().workerId().equals(nameOrId)).toList();
        if (matching.isEmpty()) {
            matching = tokens.entrySet().stream().filter(e -> e.getValue().name().equals(nameOrId)).toList();
            if (matching.stream().map(e -> e.getValue().workerId()).distinct().count() > 1) {
                throw new PairingException(PairingException.Kind.NOT_FOUND, "more than one machine is paired as '"
                        + nameOrId + "': revoke one by its worker id (/workers paired lists them)");
            }
        }
        if (matching.isEmpty()) {
            throw new PairingException(PairingException.Kind.NOT_FOUND, "no machine is paired as '" + nameOrId
                    + "'" + (tokens.isEmpty() ? "; none is paired (machines joined with the shared worker secret "
                    + "are shut out by changing worker.secret)" : "; paired: " + String.join(", ",
                    workers().stream().map(PairedWorker::name).toList())));
        }
        PairedWorker worker = matching.getFirst().getValue();
        matching.forEach(e -> forget(e.getKey()));
        refreshPaired();
        boolean disconnected = router.disconnect(worker.workerId(), "worker token revoked");
        LOG.log(Level.INFO, "Revoked the token of worker {0} ({1}){2}", worker.name(), worker.workerId(),
                disconnected ? "; disconnected it" : "");
        return new Revoked(worker, disconnected);
    }

    /**
     * A revocation's outcome.
     *
     * @param worker       the machine whose token was taken back
     * @param disconnected whether it was connected to this brain, and now is not
     */
    public record Revoked(PairedWorker worker, boolean disconnected) {
    }

    /** Whether machines may join this brain at all (it runs with hands). */
    public boolean handsEnabled() {
        return router.settings().handsEnabled();
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }

    /** Ends connections here whose token another brain revoked; keeps the paired ids fresh. */
    void recheck() {
        try {
            refreshPaired();
            // Kept whether online or not (one entry per paired machine): a machine that registers after its token
            // was revoked, in the seconds between its upgrade and its registration, is caught here too.
            admitted.forEach((id, key) -> {
                if (store.get(Kind.TOKEN, key).isEmpty()) {
                    admitted.remove(id, key);
                    router.disconnect(id, "worker token revoked");
                }
            });
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Could not check the paired workers'' tokens: {0}", e.getMessage());
        }
    }

    private void refreshPaired() {
        List<PairedWorker> all = List.copyOf(tokens().values());
        pairedIds = Set.copyOf(all.stream().map(PairedWorker::workerId).toList());
        pairedNames = Set.copyOf(all.stream().map(PairedWorker::name).toList());
    }

    private Map<String, PairedWorker> tokens() {
        Map<String, PairedWorker> all = new LinkedHashMap<>();
        Map<String, String> seen = store.values(Kind.SEEN);
        store.values(Kind.TOKEN).forEach((k, v) -> {
            try {
                PairedWorker w = parse(v);
                Optional<Instant> last = Optional.ofNullable(seen.get(k))
                        .map(Instant::parse);
                all.put(k, new PairedWorker(w.workerId(), w.name(), w.pairedAt(), last));
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "Skipping the paired worker kept as {0}: {1}", k, e.getMessage());
            }
        });
        return all;
    }

    private void pruneExpiredCodes() {
        Instant now = clock.instant();
        store.values(Kind.CODE).forEach((k, v) -> {
            if (expiry(v).filter(t -> t.isAfter(now)).isEmpty()) {
                store.remove(Kind.CODE, k);
            }
        });
    }

    private static String normalize(String code) {
        return code.toUpperCase(Locale.ROOT).replaceAll("[\\s-]", "");
    }

    static String hash(String secret) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(secret.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this Java has no SHA-256", e);
        }
    }

    private static JsonNode read(String value) {
        try {
            return JSON.readTree(value);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not JSON: " + e.getOriginalMessage());
        }
    }

    private PairedWorker parse(String value) {
        JsonNode n = read(value);
        return new PairedWorker(n.path("workerId").asText(), n.path("name").asText(),
                Instant.parse(n.path("pairedAt").asText()),
                n.hasNonNull("lastConnected") ? Optional.of(Instant.parse(n.path("lastConnected").asText()))
                        : Optional.empty());
    }

    private static String write(PairedWorker w) {
        ObjectNode n = JSON.createObjectNode().put("workerId", w.workerId()).put("name", w.name())
                .put("pairedAt", w.pairedAt().toString());
        w.lastConnected().ifPresent(t -> n.put("lastConnected", t.toString()));
        return n.toString();
    }
}
