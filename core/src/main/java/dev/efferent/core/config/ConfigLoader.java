package dev.efferent.core.config;

import io.helidon.config.Config;
import io.helidon.config.ConfigSources;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Loads Efferent's configuration. Highest precedence first: command-line options, {@code EFFERENT_*}
 * environment variables, then
 * Java system properties starting with {@code efferent.}, then the YAML file, then built-in defaults.
 * <p>
 * An environment variable maps to a key by dropping {@code EFFERENT_}, turning {@code __} into {@code -} and
 * {@code _} into {@code .}, and lower-casing: {@code EFFERENT_WORKER_SECRET} sets {@code worker.secret},
 * {@code EFFERENT_TOOLS_SHELL_MAX__OUTPUT__BYTES} sets {@code tools.shell.max-output-bytes}.
 */
public final class ConfigLoader {
    /** Prefix of the environment variables that configure Efferent. */
    public static final String ENV_PREFIX = "EFFERENT_";
    private static final String PROPERTY_PREFIX = "efferent.";

    private ConfigLoader() {
    }

    /**
     * Loads configuration from the process environment and system properties and a YAML file.
     *
     * @throws ConfigException if the file is missing or unreadable
     */
    public static Config load(Path file) {
        return load(file, System.getenv(), Map.of());
    }

    /** Loads configuration from the process environment and system properties. */
    public static Config load() {
        return load(System.getenv(), Map.of());
    }

    /**
     * Loads configuration from explicit sources, for tests and embedders.
     *
     * @param file     a YAML file
     * @param env      environment variables; only {@code EFFERENT_*} ones are read
     * @param defaults the lowest-precedence values, by key
     */
    public static Config load(Path file, Map<String, String> env, Map<String, String> defaults) {
        return load(file, Map.of(), env, defaults);
    }

    /** {@link #load(Path, Map, Map)} without a file. */
    public static Config load(Map<String, String> env, Map<String, String> defaults) {
        return load(Map.of(), env, defaults);
    }

    /**
     * Loads configuration with command-line overrides, which take precedence over everything else.
     *
     * @param file      a YAML file
     * @param overrides values by key from the command line
     * @param env       environment variables; only {@code EFFERENT_*} ones are read
     * @param defaults  the lowest-precedence values, by key
     */
    public static Config load(Path file, Map<String, String> overrides, Map<String, String> env,
                              Map<String, String> defaults) {
        return build(List.of(file), overrides, env, defaults);
    }

    /** {@link #load(Path, Map, Map, Map)} without a file. */
    public static Config load(Map<String, String> overrides, Map<String, String> env, Map<String, String> defaults) {
        return build(List.of(), overrides, env, defaults);
    }

    /** Configuration from its sources, highest precedence first; {@code files} holds at most one YAML file. */
    private static Config build(List<Path> files, Map<String, String> overrides, Map<String, String> env,
                                Map<String, String> defaults) {
        var builder = Config.builder()
                .disableEnvironmentVariablesSource()
                .disableSystemPropertiesSource()
                .disableParserServices()
                .addParser(new YamlParser())
                .addSource(ConfigSources.create(overrides).name("command line"))
                .addSource(ConfigSources.create(fromEnvironment(env)).name("environment variables EFFERENT_*"))
                .addSource(ConfigSources.create(fromSystemProperties()).name("system properties efferent.*"));
        files.forEach(path -> {
            if (!Files.isRegularFile(path)) {
                throw new ConfigException("configuration file '" + path.toAbsolutePath()
                        + "' does not exist; pass an existing YAML file or leave the option out to use defaults");
            }
            if (!Files.isReadable(path)) {
                throw new ConfigException("configuration file '" + path.toAbsolutePath() + "' is not readable");
            }
            builder.addSource(ConfigSources.file(path).build());
        });
        builder.addSource(ConfigSources.create(defaults).name("defaults"));
        try {
            return builder.build();
        } catch (io.helidon.config.ConfigException e) { // qualified: our own ConfigException is of this package
            throw new ConfigException("configuration could not be read: " + e.getMessage(), e);
        }
    }

    /** The configuration key an {@code EFFERENT_*} environment variable sets. */
    public static String keyOf(String environmentVariable) {
        String rest = environmentVariable.substring(ENV_PREFIX.length());
        return rest.replace("__", "-").replace('_', '.').toLowerCase(Locale.ROOT);
    }

    /** The environment variable that sets {@code key}, e.g. {@code EFFERENT_WORKER_SECRET} for {@code worker.secret}. */
    public static String environmentVariableOf(String key) {
        return ENV_PREFIX + key.replace("-", "__").replace('.', '_').toUpperCase(Locale.ROOT);
    }

    private static Map<String, String> fromEnvironment(Map<String, String> env) {
        Map<String, String> values = new HashMap<>();
        env.forEach((name, value) -> {
            if (name.startsWith(ENV_PREFIX) && name.length() > ENV_PREFIX.length()) {
                values.put(keyOf(name), value);
            }
        });
        return values;
    }

    private static Map<String, String> fromSystemProperties() {
        Map<String, String> values = new HashMap<>();
        System.getProperties().forEach((k, v) -> {
            String key = k.toString();
            if (key.startsWith(PROPERTY_PREFIX)) {
                values.put(key.substring(PROPERTY_PREFIX.length()), v.toString());
            }
        });
        return values;
    }
}
