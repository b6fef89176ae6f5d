package dev.efferent.router;

import dev.efferent.core.tools.CatalogEntry;
import dev.efferent.protocol.ToolDescriptor;
import dev.efferent.tools.spi.ToolHints;
import dev.efferent.tools.spi.ToolSpec;

/** Tool specs as the protocol carries them. */
final class Descriptors {
    private Descriptors() {
    }

    /** The descriptor of a catalogued tool, with its placement after configuration overrides. */
    static ToolDescriptor of(CatalogEntry entry, RouterSettings settings) {
        ToolSpec spec = entry.spec();
        ToolHints h = spec.hints();
        return new ToolDescriptor(spec.name(), spec.description(), entry.inputSchema(),
                settings.placementOf(spec.name(), spec.placement()).name(),
                h.readOnly(), h.destructive(), h.idempotent(), h.openWorld());
    }
}
