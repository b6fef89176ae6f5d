package dev.efferent.scheduler;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.efferent.router.Stores;
import dev.efferent.store.Codec;
import dev.efferent.store.Namespace;
import dev.efferent.store.Space;
import dev.efferent.store.Store;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The automations saved, by name ({@code scheduler.automations}), and the recordings going on, by conversation
 * ({@code scheduler.recordings}): the store apart from the chat face ({@link Automations}). An automation is kept as
 * the text {@link Automation#write} made and read one by one, so that one a newer brain saved is left alone rather
 * than hiding the others.
 */
final class AutomationStore {
    private static final System.Logger LOG = System.getLogger(AutomationStore.class.getName());
    static final String OWNER = "efferent.scheduler";
    /** More automations than anyone saves; a list past it is cut rather than read without end. */
    private static final int MAX = 10_000;

    private final Space<String> automations;
    private final Space<JsonNode> recordings;
    private final ObjectMapper json;
    private final Set<String> unreadable = ConcurrentHashMap.newKeySet();

    AutomationStore(Store store, ObjectMapper json) {
        this.automations = store.claim(new Namespace<>("scheduler.automations", Codec.text()), OWNER);
        this.recordings = store.claim(new Namespace<>("scheduler.recordings", Stores.json()), OWNER);
        this.json = json;
    }

    /** The automations saved, by name; one this brain cannot read is left out (and said once). */
    List<Automation> list() {
        List<Automation> all = new ArrayList<>();
        automations.entries(MAX).forEach((name, data) -> read(name, data).ifPresent(all::add));
        all.sort(Comparator.comparing(Automation::name));
        return all;
    }

    Optional<Automation> get(String name) {
        return automations.get(name).flatMap(data -> read(name, data));
    }

    void save(Automation a) {
        automations.put(a.name(), a.write(json));
    }

    void delete(String name) {
        automations.remove(name);
    }

    /** The recording going on in {@code conversation}: the automation's name and since when. */
    Optional<JsonNode> recording(String conversation) {
        return recordings.get(conversation);
    }

    void startRecording(String conversation, JsonNode recording) {
        recordings.put(conversation, recording);
    }

    void stopRecording(String conversation) {
        recordings.remove(conversation);
    }

    private Optional<Automation> read(String name, String data) {
        try {
            return Optional.of(Automation.read(json.readTree(data)));
        } catch (IOException | RuntimeException e) {
            // Left as it is (a newer brain over the same database may know its form), and said once.
            if (unreadable.add(name)) {
                LOG.log(Level.WARNING, "Automation " + name + " cannot be read by this brain and is left alone: "
                        + e.getMessage());
            }
            return Optional.empty();
        }
    }
}
