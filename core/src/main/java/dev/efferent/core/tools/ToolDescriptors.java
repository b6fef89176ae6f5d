package dev.efferent.core.tools;

import dev.efferent.protocol.ToolDescriptor;
import dev.efferent.tools.spi.Placement;
import dev.efferent.tools.spi.ToolHints;
import dev.efferent.tools.spi.ToolSpec;

/** Catalogued tools as the protocol advertises them. */
public final class ToolDescriptors {
    private ToolDescriptors() {
    }

    /** The descriptor of {@code entry}, with its own placement. */
    public static ToolDescriptor of(CatalogEntry entry) {
        return of(entry, entry.spec().placement());
    }

    /** The descriptor of {@code entry}, with {@code placement} in place of its own. */
    public static ToolDescriptor of(CatalogEntry entry, Placement placement) {
        ToolSpec spec = entry.spec();
        ToolHints h = spec.hints();
        return new ToolDescriptor(spec.name(), spec.description(), entry.inputSchema(), placement.name(),
                h.readOnly(), h.destructive(), h.idempotent(), h.openWorld(), entry.origin().describeModule());
    }
}
