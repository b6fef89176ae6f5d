package dev.efferent.scheduler;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.efferent.plugin.Ids;
import dev.efferent.store.Codec;
import dev.efferent.store.Namespace;
import dev.efferent.store.Space;
import dev.efferent.store.Store;

import java.lang.System.Logger.Level;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The schedules kept, by id, in the store's namespace {@code scheduler.schedules}: the store apart from the engine
 * that fires them ({@link Scheduler}) and the chat face ({@link ScheduleCommands}). Kept as the JSON text
 * {@link Schedules} writes, and read one by one: a schedule a newer brain wrote is left alone rather than making
 * every other unreadable; the compare-and-set that decides which brain fires compares the text that was read.
 */
final class ScheduleStore {
    private static final System.Logger LOG = System.getLogger(ScheduleStore.class.getName());
    static final Namespace<String> SCHEDULES = new Namespace<>("scheduler.schedules", Codec.text());
    static final String OWNER = "efferent.scheduler";
    /** More schedules than anyone keeps; a list past it is cut rather than read without end. */
    private static final int MAX = 100_000;

    private final Space<String> kept;
    private final Schedules schedules;
    /** Schedules this brain cannot read, already said so. */
    private final Set<String> unreadable = ConcurrentHashMap.newKeySet();

    ScheduleStore(Store store, Schedules schedules) {
        this.kept = store.claim(SCHEDULES, OWNER);
        this.schedules = schedules;
    }

    /** Every schedule kept, as text by id, readable or not. */
    Map<String, String> all() {
        return kept.entries(MAX);
    }

    /** Schedule {@code id}, if it is kept and this brain can read it. */
    Optional<Schedule> get(String id) {
        return kept.get(id).flatMap(data -> read(id, data));
    }

    void add(Schedule s) {
        kept.put(s.id(), schedules.write(s));
    }

    boolean remove(String id) {
        return kept.remove(id);
    }

    /** Replaces schedule {@code id} with {@code next} if it is still {@code read}; the text written, if it was. */
    Optional<String> replace(String id, String read, Schedule next) {
        String written = schedules.write(next);
        return kept.compareAndSet(id, read, written) ? Optional.of(written) : Optional.empty();
    }

    /** The schedule {@code data} holds; empty, said once, when this brain cannot read it. */
    Optional<Schedule> read(String id, String data) {
        try {
            return Optional.of(schedules.read(data));
        } catch (JsonProcessingException | RuntimeException e) {
            // Left as it is (a newer brain over the same database may know its form), and said once.
            if (unreadable.add(id)) {
                LOG.log(Level.WARNING, "Schedule " + id + " cannot be read by this brain and is left alone: "
                        + e.getMessage() + "; its data: " + data);
            }
            return Optional.empty();
        }
    }

    /** Short enough to type ({@code /unschedule s-7k2x9q}): 30 random bits, checked against the schedules kept. */
    String newId() {
        String id;
        do {
            id = "s-" + Ids.next().substring(0, 6);
        } while (kept.get(id).isPresent());
        return id;
    }
}
