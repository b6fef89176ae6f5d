package dev.efferent.router;

import dev.efferent.core.tools.TaskRunner;
import dev.efferent.protocol.Message;

/**
 * The brain's own worker: the router dispatches to it exactly as to a remote one, and it runs the tools in
 * this process. In single-machine mode it has every tool; with hands enabled, only CLOUD tools.
 */
final class InProcessWorker implements WorkerLink {
    private volatile TaskRunner runner;

    void attach(TaskRunner runner) {
        this.runner = runner;
    }

    @Override
    public void send(Message message) {
        runner.handle(message);
    }

    @Override
    public void close(int code, String reason) {
        runner.cancelAll(reason);
    }

    @Override
    public String describe() {
        return "in-process";
    }
}
