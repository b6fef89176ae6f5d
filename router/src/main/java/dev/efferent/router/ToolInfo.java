package dev.efferent.router;

import dev.efferent.protocol.ToolDescriptor;
import dev.efferent.tools.spi.Placement;

import java.util.List;

/**
 * A tool the brain knows, and who can run it.
 *
 * @param descriptor the tool's spec as workers advertise it
 * @param placement  where it runs, after configuration overrides
 * @param workers    names of the online workers that have it (the brain's own worker is {@code brain})
 * @param origin     where the tool came from (module, version, jar): the brain's own copy, else as a worker said
 */
public record ToolInfo(ToolDescriptor descriptor, Placement placement, List<String> workers, String origin) {
}
