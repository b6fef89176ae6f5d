package dev.efferent.brain;

import io.helidon.common.Weighted;
import io.helidon.config.Config;

/**
 * Finds the parts of the brain's web server, in the way of Helidon's {@code ServerFeatureProvider}: the assembly
 * loads every provider with {@link java.util.ServiceLoader} and builds each one's {@link BrainFeature} from its own
 * configuration node, highest {@link #weight() weight} first (a feature that serves {@code /} goes last, since it
 * takes whatever the others leave).
 */
public interface BrainFeatureProvider extends Weighted {
    /** The feature's name, which is also its configuration node: {@code "api"} is built from {@code api.*}. */
    String name();

    /** Whether the feature is served: yes unless its node says {@code enabled: false}. */
    default boolean enabled(Config node) {
        return node.get("enabled").asBoolean().orElse(true);
    }

    /**
     * Builds the feature.
     *
     * @param node    the feature's configuration node ({@link #name()})
     * @param context the brain's shared parts
     * @return the feature, never null; fails with a {@code ConfigException} naming a bad key
     */
    BrainFeature create(Config node, BrainContext context);
}
