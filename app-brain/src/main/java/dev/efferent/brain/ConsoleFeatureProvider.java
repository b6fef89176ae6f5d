package dev.efferent.brain;

import io.helidon.config.Config;

/**
 * Finds the web console, its page at {@code /} and its socket; its node is {@code console}
 * ({@code console.enabled: false} turns it off). The lightest of all: {@code /} takes what the others leave.
 */
public final class ConsoleFeatureProvider implements BrainFeatureProvider {
    @Override
    public String name() {
        return "console";
    }

    @Override
    public double weight() {
        return 1;
    }

    @Override
    public BrainFeature create(Config node, BrainContext context) {
        return new ConsoleFeature(context);
    }
}
