package dev.efferent.store;

/**
 * Typed durable state beside the task queue: conversations, schedules, parked turns, worker tokens. Each namespace has
 * one owner, who claims it at start and alone reads and writes it through the {@link Space} it gets. Thread-safe;
 * every operation throws {@link StoreException} when the store cannot be reached.
 */
public interface Store extends AutoCloseable {
    /**
     * Claims {@code namespace} for {@code owner} and returns its space. The same owner may claim a namespace again
     * (a component built twice in one process); another owner is refused.
     *
     * @param namespace the namespace and its codec
     * @param owner     who owns it, by module name, e.g. {@code efferent.scheduler}
     * @throws StoreException naming both owners, when another owner has claimed a namespace of that name
     */
    <T> Space<T> claim(Namespace<T> namespace, String owner);

    /** Whether what is kept outlives this process (a database), as opposed to living in its memory. */
    boolean durable();

    /** Releases the store's connections; its spaces fail afterwards. */
    @Override
    void close();
}
