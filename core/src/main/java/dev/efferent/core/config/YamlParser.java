package dev.efferent.core.config;

import io.helidon.common.media.type.MediaType;
import io.helidon.common.media.type.MediaTypes;
import io.helidon.config.spi.ConfigNode.ListNode;
import io.helidon.config.spi.ConfigNode.ObjectNode;
import io.helidon.config.spi.ConfigParser;
import io.helidon.config.spi.ConfigParserException;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.composer.Composer;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.parser.ParserImpl;
import org.yaml.snakeyaml.reader.StreamReader;
import org.yaml.snakeyaml.resolver.Resolver;

import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Reader;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Reads a YAML configuration file into Helidon's configuration tree. SnakeYAML's {@code Yaml} front door maps YAML
 * onto Java beans and so needs {@code java.desktop} (12 MiB of every runtime image); configuration needs plain maps,
 * lists and scalars, which its safe constructor makes without it. Only the standard YAML tags are understood (a
 * tag naming a Java class is an error), aliases of collections are refused, and a file is at most 1 MiB.
 */
final class YamlParser implements ConfigParser {
    private static final Set<MediaType> MEDIA_TYPES = Set.of(MediaTypes.APPLICATION_X_YAML);

    @Override
    public Set<MediaType> supportedMediaTypes() {
        return MEDIA_TYPES;
    }

    @Override
    public List<String> supportedSuffixes() {
        return List.of("yml", "yaml");
    }

    @Override
    public ObjectNode parse(Content content) throws ConfigParserException {
        try (Reader reader = new InputStreamReader(content.data(), content.charset())) {
            Object data = read(reader);
            if (data == null) {
                return ObjectNode.empty();
            }
            if (!(data instanceof Map<?, ?> map)) {
                throw new ConfigParserException("a configuration file holds keys and values at its top level, not "
                        + data.getClass().getSimpleName().toLowerCase(Locale.ROOT));
            }
            return object(map);
        } catch (IOException | RuntimeException e) {
            // SnakeYAML throws more than YAMLException (a NumberFormatException for "!!int abc").
            throw new ConfigParserException("not valid YAML: " + e.getMessage(), e);
        }
    }

    private static Object read(Reader reader) {
        LoaderOptions options = new LoaderOptions();
        // A configuration has no use for aliases of collections, which can make a small file a huge (or, with a
        // self-reference, endless) tree.
        options.setMaxAliasesForCollections(0);
        options.setCodePointLimit(1 << 20);
        SafeConstructor constructor = new SafeConstructor(options);
        constructor.setComposer(new Composer(new ParserImpl(new StreamReader(reader), options), new Resolver(), options));
        return constructor.getSingleData(Object.class);
    }

    private static ObjectNode object(Map<?, ?> map) {
        ObjectNode.Builder builder = ObjectNode.builder();
        map.forEach((key, value) -> {
            String name = String.valueOf(key);
            if (value instanceof Map<?, ?> m) {
                builder.addObject(name, object(m));
            } else if (value instanceof List<?> l) {
                builder.addList(name, list(l));
            } else {
                builder.addValue(name, value == null ? "" : String.valueOf(value));
            }
        });
        return builder.build();
    }

    private static ListNode list(List<?> items) {
        ListNode.Builder builder = ListNode.builder();
        for (Object item : items) {
            if (item instanceof Map<?, ?> m) {
                builder.addObject(object(m));
            } else if (item instanceof List<?> l) {
                builder.addList(list(l));
            } else {
                builder.addValue(item == null ? "" : String.valueOf(item));
            }
        }
        return builder.build();
    }
}
