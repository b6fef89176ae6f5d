package dev.efferent.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Throws generated frames at the codec: valid messages mutated field by field (deleted, retyped, replaced by
 * extremes, nested deep), truncated text and random bytes. Every frame must either decode to a message that
 * encodes and decodes to itself, or be refused with a {@link ProtocolException} that has a code and a message.
 * Nothing else may escape. Seeded, so a failure names the frame that caused it and can be replayed.
 */
class CodecFuzzTest {
    private static final int FRAMES = 100_000;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private final ProtocolCodec codec = new ProtocolCodec();

    @Test
    void aHundredThousandGeneratedFramesAreEachAcceptedOrRefusedWithAReason() {
        Random random = new Random(20261122);
        List<String> seeds = ProtocolCodecTest.everyMessage().map(codec::encode).toList();
        Map<ErrorCode, Integer> refused = new EnumMap<>(ErrorCode.class);
        int accepted = 0;
        for (int i = 0; i < FRAMES; i++) {
            String frame = frame(random, seeds);
            try {
                Message message = codec.decode(frame);
                assertEquals(message, codec.decode(codec.encode(message)), "round trip of " + frame);
                accepted++;
            } catch (ProtocolException e) {
                assertFalse(e.getMessage() == null || e.getMessage().isBlank(), "no message for " + frame);
                refused.merge(e.code(), 1, Integer::sum);
            } catch (RuntimeException | StackOverflowError e) {
                throw new AssertionError("frame " + i + " escaped the codec with " + e + ": "
                        + frame.substring(0, Math.min(frame.length(), 500)), e);
            }
        }
        System.out.println("codec fuzz: " + FRAMES + " frames, " + accepted + " accepted, refused by code " + refused);
        assertTrue(accepted > 100, "the generator also makes valid frames");
        assertTrue(refused.size() >= 6, "the generator reaches many refusals: " + refused);
    }

    private static String frame(Random random, List<String> seeds) {
        int kind = random.nextInt(20);
        String seed = seeds.get(random.nextInt(seeds.size()));
        if (kind == 0) {
            byte[] bytes = new byte[random.nextInt(64)];
            random.nextBytes(bytes);
            return new String(bytes, StandardCharsets.ISO_8859_1);
        }
        if (kind == 1) {
            return seed.substring(0, random.nextInt(seed.length() + 1));
        }
        if (kind == 2) {
            return seed;
        }
        if (kind == 3) {
            // Deeper than any JSON writer would write: only by hand.
            int levels = 900 + random.nextInt(2000);
            return seed.substring(0, seed.length() - 1) + ",\"deep\":" + "{\"a\":".repeat(levels) + "{}"
                    + "}".repeat(levels) + "}";
        }
        try {
            ObjectNode node = (ObjectNode) JSON.readTree(seed);
            int mutations = 1 + random.nextInt(3);
            for (int m = 0; m < mutations; m++) {
                mutate(random, node);
            }
            return JSON.writeValueAsString(node);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Changes one field somewhere in {@code root}, possibly inside nested objects and arrays. */
    private static void mutate(Random random, ObjectNode root) {
        ObjectNode target = root;
        // Walk down into a nested object now and then (capabilities, params, result).
        for (int depth = 0; depth < 3 && random.nextBoolean(); depth++) {
            List<JsonNode> containers = new ArrayList<>();
            target.forEach(child -> {
                if (child.isObject()) {
                    containers.add(child);
                } else if (child.isArray()) {
                    child.forEach(item -> {
                        if (item.isObject()) {
                            containers.add(item);
                        }
                    });
                }
            });
            if (containers.isEmpty()) {
                break;
            }
            target = (ObjectNode) containers.get(random.nextInt(containers.size()));
        }
        List<String> names = new ArrayList<>();
        target.fieldNames().forEachRemaining(names::add);
        String field = names.isEmpty() || random.nextInt(8) == 0 ? "x" + random.nextInt(5)
                : names.get(random.nextInt(names.size()));
        if (random.nextInt(5) == 0) {
            target.remove(field);
        } else {
            target.set(field, value(random));
        }
    }

    private static JsonNode value(Random random) {
        return switch (random.nextInt(16)) {
            case 0 -> NODES.nullNode();
            case 1 -> NODES.booleanNode(random.nextBoolean());
            case 2 -> NODES.numberNode(random.nextInt());
            case 3 -> NODES.numberNode(random.nextLong());
            case 4 -> NODES.numberNode(random.nextDouble() * 1e300 * (random.nextBoolean() ? 1 : -1));
            case 5 -> NODES.numberNode(new BigDecimal("1e400"));
            case 6 -> NODES.numberNode(new BigInteger("123456789012345678901234567890"));
            case 7 -> NODES.textNode("");
            case 8 -> NODES.textNode("\u0000\ud800x\n");
            case 9 -> NODES.textNode("a".repeat(random.nextInt(3000)));
            case 10 -> NODES.textNode(List.of("busy", "completed", "LOCAL", "text", "object", "shutting_down",
                    "worker:register", "task:result").get(random.nextInt(8)));
            case 11 -> NODES.arrayNode();
            case 12 -> NODES.objectNode();
            case 13 -> deep(random.nextInt(900));
            case 14 -> {
                ArrayNode items = NODES.arrayNode();
                for (int i = random.nextInt(4); i > 0; i--) {
                    items.add(NODES.objectNode().put("type", "text").put("text", "x"));
                }
                yield items;
            }
            default -> NODES.objectNode().put("type", "object");
        };
    }

    private static JsonNode deep(int levels) {
        JsonNode node = NODES.objectNode();
        for (int i = 0; i < levels; i++) {
            ObjectNode parent = NODES.objectNode();
            parent.set("a", node);
            node = parent;
        }
        return node;
    }
}
