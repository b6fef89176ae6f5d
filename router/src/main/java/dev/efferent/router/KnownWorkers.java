package dev.efferent.router;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.efferent.protocol.Message;
import dev.efferent.protocol.ProtocolCodec;
import dev.efferent.protocol.ToolDescriptor;
import dev.efferent.protocol.WorkerTools;
import dev.efferent.store.Namespace;
import dev.efferent.store.Space;
import dev.efferent.store.Store;
import dev.efferent.store.StoreException;

import java.lang.System.Logger.Level;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The workers this brain has seen, kept in the store's namespace {@code router.workers} (with PostgreSQL, in its
 * database), so that after a restart work can still be queued for a machine that has not reconnected yet. A store in
 * memory keeps them until the process ends: its tasks are gone after a restart too. Router thread only.
 */
final class KnownWorkers {
    private static final System.Logger LOG = System.getLogger(KnownWorkers.class.getName());
    /** More workers than anyone pairs; a list past it is cut rather than read without end. */
    private static final int MAX = 10_000;

    private final Space<JsonNode> records;
    private final ProtocolCodec codec;
    private final ObjectMapper json;

    /** A worker as remembered: what to list, and its tools with their schemas. */
    record Remembered(WorkerInfo info, List<ToolDescriptor> tools) {
    }

    KnownWorkers(Store store, ProtocolCodec codec, ObjectMapper json) {
        this.records = store.claim(new Namespace<>("router.workers", Stores.json()), "efferent.router");
        this.codec = codec;
        this.json = json;
    }

    /** Keeps {@code info} and its tools; a store that cannot be reached is logged, never in the way. */
    void remember(WorkerInfo info, List<ToolDescriptor> tools) {
        if (info.local()) {
            return;
        }
        ObjectNode node = json.createObjectNode();
        node.put("id", info.id());
        node.put("name", info.name());
        node.put("hostname", info.hostname());
        node.put("platform", info.platform());
        node.put("maxConcurrency", info.maxConcurrency());
        node.put("lastSeen", info.lastHeartbeat().toString());
        node.put("tools", codec.encode(new WorkerTools(tools)));
        try {
            records.put(info.id(), node);
        } catch (StoreException e) {
            LOG.log(Level.WARNING, "Could not keep worker {0} in the store: {1}", info.name(),
                    e.getMessage());
        }
    }

    void forget(String id) {
        try {
            records.remove(id);
        } catch (StoreException e) {
            LOG.log(Level.WARNING, "Could not forget worker {0} in the store: {1}", id, e.getMessage());
        }
    }

    /** Every worker remembered, offline; one that cannot be read back is skipped and said. */
    List<Remembered> load() {
        List<Remembered> all = new ArrayList<>();
        Map<String, JsonNode> values;
        try {
            values = records.entries(MAX);
        } catch (StoreException e) {
            LOG.log(Level.WARNING, "Could not read the workers kept in the store: {0}", e.getMessage());
            return all;
        }
        values.forEach((key, node) -> {
            try {
                Message tools = codec.decode(node.path("tools").asText());
                if (!(tools instanceof WorkerTools list)) {
                    throw new IllegalArgumentException("its tools are a " + tools.type());
                }
                // Checked as a worker's own list is: a schema the store now holds may not be trusted blindly.
                WorkerRegistration.schemas("worker:" + node.path("name").asText(), list.capabilities());
                all.add(new Remembered(new WorkerInfo(node.path("id").asText(), node.path("name").asText(),
                        node.path("hostname").asText(), node.path("platform").asText(), false, false,
                        Instant.parse(node.path("lastSeen").asText()), Instant.parse(node.path("lastSeen").asText()),
                        0, node.path("maxConcurrency").asInt(1), 0,
                        list.capabilities().stream().map(ToolDescriptor::name).toList()), list.capabilities()));
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "Skipping the worker kept as {0}: {1}", key, e.getMessage());
            }
        });
        return all;
    }
}
