package dev.efferent.core.plugin;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.function.Function;

/**
 * The providers of one service type, by name. Built from a {@link ServiceLoader} that the module declaring
 * {@code uses} created, plus providers added directly (the test seam). Fails with a clear message on
 * duplicate names and on providers that cannot be loaded, naming their module.
 *
 * @param <P> the provider type
 */
public final class PluginRegistry<P> {
    private static final System.Logger LOG = System.getLogger(PluginRegistry.class.getName());

    private final String kind;
    private final Map<String, Entry<P>> byName;
    private final List<String> failures;

    private PluginRegistry(String kind, Map<String, Entry<P>> byName, List<String> failures) {
        this.kind = kind;
        this.byName = byName;
        this.failures = failures;
    }

    /**
     * A builder.
     *
     * @param kind   what the plugins are, for messages, e.g. {@code "queue provider"}
     * @param naming how a provider names itself, e.g. {@code TaskQueueProvider::name}
     */
    public static <P> Builder<P> builder(String kind, Function<? super P, String> naming) {
        return new Builder<>(kind, naming);
    }

    /**
     * The provider named {@code name}.
     *
     * @throws PluginException listing the available names if there is none
     */
    public P select(String name) {
        Entry<P> entry = byName.get(name);
        if (entry == null) {
            if (byName.isEmpty()) {
                throw new PluginException("no " + kind + " named '" + name + "': no " + kind
                        + "s were found on the module path or in the plugins directory" + failureSuffix());
            }
            throw new PluginException("no " + kind + " named '" + name + "'; available: " + names() + failureSuffix());
        }
        return entry.provider();
    }

    /** The providers' names, sorted. */
    public List<String> names() {
        return byName.keySet().stream().sorted().toList();
    }

    /** Every provider, in name order. */
    public List<P> all() {
        return names().stream().map(n -> byName.get(n).provider()).toList();
    }

    /** Where the provider named {@code name} came from. */
    public PluginInfo info(String name) {
        Entry<P> entry = byName.get(name);
        if (entry == null) {
            throw new PluginException("no " + kind + " named '" + name + "'; available: " + names());
        }
        return entry.info();
    }

    /** Problems met while loading, when the registry was told to go on without the broken plugins. */
    public List<String> failures() {
        return failures;
    }

    private String failureSuffix() {
        return failures.isEmpty() ? "" : " (" + failures.size() + " failed to load: " + failures + ")";
    }

    private record Entry<P>(P provider, PluginInfo info) {
    }

    /** Builds a {@link PluginRegistry}. */
    public static final class Builder<P> {
        private final String kind;
        private final Function<? super P, String> naming;
        private final List<P> added = new ArrayList<>();
        private Iterable<ServiceLoader.Provider<P>> discovered = List.of();
        private boolean failOnError = true;

        private Builder(String kind, Function<? super P, String> naming) {
            this.kind = Objects.requireNonNull(kind, "kind");
            this.naming = Objects.requireNonNull(naming, "naming");
        }

        /** Discovers providers with {@code loader}; create it in the module that declares {@code uses}. */
        public Builder<P> discover(ServiceLoader<P> loader) {
            this.discovered = () -> loader.stream().iterator();
            return this;
        }

        /** Discovers providers from any source of {@link ServiceLoader.Provider}s, e.g. several module layers. */
        public Builder<P> discover(Iterable<ServiceLoader.Provider<P>> providers) {
            this.discovered = Objects.requireNonNull(providers, "providers");
            return this;
        }

        /** Turns discovery off, so only {@link #add added} providers count. */
        public Builder<P> discovery(boolean enabled) {
            if (!enabled) {
                this.discovered = List.of();
            }
            return this;
        }

        /** Adds a provider directly, as tests and embedders do. */
        public Builder<P> add(P provider) {
            added.add(Objects.requireNonNull(provider, "provider"));
            return this;
        }

        /** Whether a provider that fails to load fails the build ({@code true}, the default) or is skipped and logged. */
        public Builder<P> failOnError(boolean failOnError) {
            this.failOnError = failOnError;
            return this;
        }

        /**
         * Loads the providers.
         *
         * @throws PluginException if two providers share a name, or one fails to load and {@code failOnError}
         */
        public PluginRegistry<P> build() {
            Map<String, Entry<P>> byName = new LinkedHashMap<>();
            List<String> failures = new ArrayList<>();
            Iterator<ServiceLoader.Provider<P>> it = discovered.iterator();
            while (true) {
                ServiceLoader.Provider<P> provider;
                try {
                    if (!it.hasNext()) {
                        break;
                    }
                    provider = it.next();
                } catch (ServiceConfigurationError e) {
                    // The loader could not even locate this provider; the iterator may still go on.
                    failures.add(kind + " could not be located: " + e.getMessage());
                    if (failOnError) {
                        throw new PluginException("a " + kind + " could not be located: " + e.getMessage(), e);
                    }
                    continue;
                }
                try {
                    put(byName, provider.get());
                } catch (ServiceConfigurationError | RuntimeException e) {
                    if (e instanceof PluginException) {
                        throw e;
                    }
                    String module = PluginInfo.of("?", provider.type()).describeModule();
                    String message = kind + " " + provider.type().getName() + " in module " + module
                            + " failed to load: " + rootMessage(e);
                    if (failOnError) {
                        throw new PluginException(message, e);
                    }
                    LOG.log(Level.WARNING, message + "; going on without it", e);
                    failures.add(message);
                }
            }
            for (P provider : added) {
                put(byName, provider);
            }
            return new PluginRegistry<>(kind, Collections.unmodifiableMap(byName), List.copyOf(failures));
        }

        private void put(Map<String, Entry<P>> byName, P provider) {
            String name = naming.apply(provider);
            if (name == null || name.isBlank()) {
                throw new PluginException(kind + " " + provider.getClass().getName() + " in module "
                        + PluginInfo.of("?", provider.getClass()).describeModule() + " has no name");
            }
            PluginInfo info = PluginInfo.of(name, provider.getClass());
            Entry<P> previous = byName.putIfAbsent(name, new Entry<>(provider, info));
            if (previous != null) {
                throw new PluginException("two " + kind + "s are named '" + name + "': "
                        + previous.provider().getClass().getName() + " in module " + previous.info().describeModule()
                        + " and " + provider.getClass().getName() + " in module " + info.describeModule()
                        + "; remove one of them");
            }
            LOG.log(Level.INFO, "Found {0} ''{1}'' in module {2}", kind, name, info.describeModule());
        }

        private static String rootMessage(Throwable e) {
            Throwable t = e;
            while (t.getCause() != null && t.getCause() != t) {
                t = t.getCause();
            }
            String message = t.getMessage();
            return t == e ? String.valueOf(message) : e.getMessage() + " (caused by " + t + ")";
        }
    }
}
