package dev.efferent.brain;

import io.helidon.config.Config;

/** Finds the REST API at {@code /api/v1}; its node is {@code api} ({@code api.enabled: false} turns it off). */
public final class ApiFeatureProvider implements BrainFeatureProvider {
    @Override
    public String name() {
        return "api";
    }

    @Override
    public double weight() {
        return 400;
    }

    @Override
    public BrainFeature create(Config node, BrainContext context) {
        return new ApiFeature(context);
    }
}
