package dev.efferent.scheduler;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A saved sequence of tool calls, replayed as one tool, {@code automation_<name>}: each step's arguments may hold
 * variables ({@code {{email}}}), filled in from the call's arguments.
 *
 * @param name        its name: lower-case letters, digits and {@code _}
 * @param description what it does, for the model and {@code /automations}
 * @param url         the pages it is for (a glob such as {@code https://shop.example/*}), for browser steps
 * @param steps       the calls, in order
 * @param created     when it was saved
 */
public record Automation(String name, String description, Optional<String> url, List<Step> steps, Instant created) {
    static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9_]{0,39}");
    private static final Pattern VARIABLE = Pattern.compile("\\{\\{([a-z][a-z0-9_]{0,39})}}");

    public Automation {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(url, "url");
        steps = List.copyOf(steps);
        Objects.requireNonNull(created, "created");
    }

    /**
     * One call.
     *
     * @param tool     the tool
     * @param params   its arguments, variables in place
     * @param approval whether it waits for a person's yes each time it runs
     */
    public record Step(String tool, ObjectNode params, boolean approval) {
    }

    /** The tool it is replayed as. */
    public String toolName() {
        return "automation_" + name;
    }

    /** Its variables, in the order they first appear. */
    public List<String> variables() {
        Set<String> found = new LinkedHashSet<>();
        for (Step s : steps) {
            walk(s.params().deepCopy(), text -> {
                Matcher m = VARIABLE.matcher(text);
                while (m.find()) {
                    found.add(m.group(1));
                }
                return text;
            });
        }
        return List.copyOf(found);
    }

    /** Step {@code i}'s arguments with {@code values} in place of the variables. */
    ObjectNode params(int i, Map<String, String> values) {
        ObjectNode params = steps.get(i).params().deepCopy();
        walk(params, text -> {
            Matcher m = VARIABLE.matcher(text);
            StringBuilder out = new StringBuilder();
            while (m.find()) {
                m.appendReplacement(out, Matcher.quoteReplacement(values.getOrDefault(m.group(1), m.group())));
            }
            return m.appendTail(out).toString();
        });
        return params;
    }

    /**
     * {@code params} with each literal of {@code literals} (variable → value) replaced by its variable, in every
     * text value: how a recorded call becomes a step.
     */
    static ObjectNode marked(ObjectNode params, Map<String, String> literals) {
        ObjectNode copy = params.deepCopy();
        walk(copy, text -> {
            String out = text;
            for (Map.Entry<String, String> e : literals.entrySet()) {
                out = out.replace(e.getValue(), "{{" + e.getKey() + "}}");
            }
            return out;
        });
        return copy;
    }

    /**
     * Why step {@code tool} with {@code params} (variables in place) is outside this automation's pages, if it is:
     * a {@code url} argument that {@link #url()} does not match. What a variable brings in cannot take a run
     * elsewhere.
     */
    Optional<String> outsideScope(ObjectNode params) {
        if (url.isEmpty() || !params.path("url").isTextual()) {
            return Optional.empty();
        }
        String target = params.get("url").asText();
        return matches(url.get(), target) ? Optional.empty()
                : Optional.of("its URL " + target + " is outside the automation's pages, " + url.get());
    }

    /** Whether {@code text} matches {@code glob}, where {@code *} stands for any characters. */
    static boolean matches(String glob, String text) {
        StringBuilder regex = new StringBuilder();
        for (String part : glob.split("\\*", -1)) {
            regex.append(regex.isEmpty() ? "" : ".*").append(Pattern.quote(part));
        }
        return Pattern.compile(regex.toString(), Pattern.DOTALL).matcher(text).matches();
    }

    /** Whether {@code name} is a variable's name. */
    static boolean isVariable(String name) {
        return VARIABLE.matcher("{{" + name + "}}").matches();
    }

    /** Applies {@code change} to every text value in {@code node}, in place. */
    private static void walk(JsonNode node, UnaryOperator<String> change) {
        if (node instanceof ObjectNode o) {
            for (Iterator<Map.Entry<String, JsonNode>> it = o.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                if (e.getValue().isTextual()) {
                    e.setValue(TextNode.valueOf(change.apply(e.getValue().asText())));
                } else {
                    walk(e.getValue(), change);
                }
            }
        } else if (node instanceof ArrayNode a) {
            for (int i = 0; i < a.size(); i++) {
                if (a.get(i).isTextual()) {
                    a.set(i, TextNode.valueOf(change.apply(a.get(i).asText())));
                } else {
                    walk(a.get(i), change);
                }
            }
        }
    }

    /** The JSON Schema of its tool: a string per variable, all required, and the machine to run on. */
    String inputSchema(ObjectMapper json) {
        ObjectNode schema = json.createObjectNode().put("type", "object");
        ObjectNode properties = schema.putObject("properties");
        ArrayNode required = schema.putArray("required");
        for (String v : variables()) {
            properties.putObject(v).put("type", "string");
            required.add(v);
        }
        properties.putObject("worker").put("type", "string").put("description", "the machine to run every step "
                + "on; without it, the conversation's active machine");
        return schema.toString();
    }

    /** The stored form. */
    String write(ObjectMapper json) {
        ObjectNode o = json.createObjectNode().put("name", name).put("description", description)
                .put("created", created.toString());
        url.ifPresent(u -> o.put("url", u));
        ArrayNode s = o.putArray("steps");
        for (Step step : steps) {
            ObjectNode n = s.addObject().put("tool", step.tool());
            n.set("params", step.params());
            n.put("approval", step.approval() ? "required" : "policy");
        }
        return o.toString();
    }

    /** Read back from the stored form. */
    static Automation read(JsonNode o) {
        List<Step> steps = new ArrayList<>();
        for (JsonNode s : o.path("steps")) {
            steps.add(new Step(s.path("tool").asText(), (ObjectNode) s.path("params"),
                    s.path("approval").asText().equals("required")));
        }
        return new Automation(o.path("name").asText(), o.path("description").asText(),
                Optional.ofNullable(o.get("url")).map(JsonNode::asText), steps, Instant.parse(o.path("created").asText()));
    }

    /** Steps as people read them, numbered from 1. */
    String describeSteps() {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < steps.size(); i++) {
            Step s = steps.get(i);
            out.append(i + 1).append(". ").append(s.tool()).append(' ').append(s.params())
                    .append(s.approval() ? "  (approval: required)" : "").append('\n');
        }
        return out.toString().strip();
    }
}
