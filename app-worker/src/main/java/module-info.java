/**
 * The worker: connects out to the brain over a WebSocket and runs the tools that need this machine.
 * Its client and launcher arrive with the brain/worker issue. Holds no queue, router or server code.
 */
module efferent.worker {
    requires efferent.core;
    requires efferent.protocol;
}
