package dev.efferent.core.plugin;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PluginRegistryTest {

    /** A service type for these tests. */
    interface Greeter {
        String name();
    }

    record NamedGreeter(String name) implements Greeter {
    }

    static final class OtherGreeter implements Greeter {
        @Override
        public String name() {
            return "hello";
        }
    }

    static final class BrokenGreeter implements Greeter {
        @Override
        public String name() {
            return "broken";
        }
    }

    private static PluginRegistry.Builder<Greeter> builder() {
        return PluginRegistry.<Greeter>builder("greeter", Greeter::name).discovery(false);
    }

    private static ServiceLoader.Provider<Greeter> provider(Class<? extends Greeter> type, Greeter instance) {
        return new ServiceLoader.Provider<>() {
            @Override
            public Class<? extends Greeter> type() {
                return type;
            }

            @Override
            public Greeter get() {
                return instance;
            }
        };
    }

    private static ServiceLoader.Provider<Greeter> failing(String cause) {
        return new ServiceLoader.Provider<>() {
            @Override
            public Class<? extends Greeter> type() {
                return BrokenGreeter.class;
            }

            @Override
            public Greeter get() {
                throw new ServiceConfigurationError("provider constructor threw",
                        new IllegalStateException(cause));
            }
        };
    }

    @Test
    void selectsByName() {
        NamedGreeter hello = new NamedGreeter("hello");
        PluginRegistry<Greeter> registry = builder().add(hello).add(new NamedGreeter("bye")).build();
        assertEquals(hello, registry.select("hello"));
        assertEquals(List.of("bye", "hello"), registry.names());
        assertEquals("efferent.core", registry.info("hello").module());
    }

    @Test
    void unknownNameListsWhatIsAvailable() {
        PluginRegistry<Greeter> registry = builder().add(new NamedGreeter("hello")).add(new NamedGreeter("bye")).build();
        PluginException e = assertThrows(PluginException.class, () -> registry.select("howdy"));
        assertEquals("no greeter named 'howdy'; available: [bye, hello]", e.getMessage());
    }

    @Test
    void zeroProvidersSaysNoneWereFound() {
        PluginException e = assertThrows(PluginException.class, () -> builder().build().select("hello"));
        assertEquals("no greeter named 'hello': no greeters were found on the module path or in the plugins directory",
                e.getMessage());
    }

    @Test
    void twoProvidersWithOneNameFailNamingBoth() {
        PluginException e = assertThrows(PluginException.class,
                () -> builder().add(new NamedGreeter("hello")).add(new OtherGreeter()).build());
        assertTrue(e.getMessage().startsWith("two greeters are named 'hello': "
                + NamedGreeter.class.getName() + " in module efferent.core"), e.getMessage());
        assertTrue(e.getMessage().contains(" and " + OtherGreeter.class.getName() + " in module efferent.core"),
                e.getMessage());
        assertTrue(e.getMessage().endsWith("; remove one of them"), e.getMessage());
    }

    @Test
    void providerThatFailsToLoadIsReportedWithItsModuleAndCause() {
        PluginException e = assertThrows(PluginException.class, () -> PluginRegistry
                .<Greeter>builder("greeter", Greeter::name)
                .discover(List.of(provider(OtherGreeter.class, new OtherGreeter()), failing("no config file")))
                .build());
        assertTrue(e.getMessage().startsWith("greeter " + BrokenGreeter.class.getName() + " in module efferent.core"),
                e.getMessage());
        assertTrue(e.getMessage().contains("failed to load: provider constructor threw"), e.getMessage());
        assertTrue(e.getMessage().contains("no config file"), e.getMessage());
    }

    @Test
    void brokenProviderCanBeSkippedWhenConfiguredSo() {
        PluginRegistry<Greeter> registry = PluginRegistry.<Greeter>builder("greeter", Greeter::name)
                .discover(List.of(failing("bad descriptor"), provider(OtherGreeter.class, new OtherGreeter())))
                .failOnError(false)
                .build();
        assertEquals(List.of("hello"), registry.names());
        assertEquals(1, registry.failures().size());
        assertTrue(registry.failures().getFirst().contains(BrokenGreeter.class.getName()));
        PluginException e = assertThrows(PluginException.class, () -> registry.select("broken"));
        assertTrue(e.getMessage().contains("(1 failed to load: "), e.getMessage());
    }

    @Test
    void providerWithoutANameIsRefused() {
        PluginException e = assertThrows(PluginException.class, () -> builder().add(new NamedGreeter(" ")).build());
        assertTrue(e.getMessage().endsWith("has no name"), e.getMessage());
    }
}
