package dev.efferent.brain;

import io.helidon.config.Config;

/**
 * Finds workers' way in, {@code /ws/worker}; its node is {@code worker}, where {@code worker.secret} is. Always
 * served: {@code hands.enabled} says whether workers may connect, and without hands the route says why they cannot.
 */
public final class WorkerSocketFeatureProvider implements BrainFeatureProvider {
    @Override
    public String name() {
        return "worker";
    }

    @Override
    public double weight() {
        return 200;
    }

    @Override
    public boolean enabled(Config node) {
        return true;
    }

    @Override
    public BrainFeature create(Config node, BrainContext context) {
        return new WorkerSocketFeature(context.router(), context.workers(), context.codec(), context.guard(),
                context.views(), context.router().settings().handsEnabled());
    }
}
