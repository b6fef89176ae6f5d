package dev.efferent.router;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.LongFunction;

/**
 * The router's thread, on which all routing state lives, and its timers. After each turn (one event handled) it
 * runs {@code afterTurn}, which publishes what readers on other threads see (decision 41): a turn answering a
 * caller publishes before the caller is answered, so that caller reads its own change.
 */
final class RouterLoop {
    private static final System.Logger LOG = System.getLogger(RouterLoop.class.getName());

    private volatile Thread thread;
    private final ThreadPoolExecutor loop = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS,
            new LinkedBlockingQueue<>(), work -> thread = Thread.ofPlatform().name("efferent-router").unstarted(work));
    private final ScheduledExecutorService timers;
    private final Runnable afterTurn;
    private final BooleanSupplier changedMuch;
    /** Under a stream of events, counts (tasks running, heartbeats) are published at least this often. */
    private static final long COUNTS_EVERY_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    private long publishedAt = System.nanoTime();
    /** Numbers the events in the order they run (taken and handed over under one lock). */
    private final AtomicLong posted = new AtomicLong();
    /** The number of the last event a thread posted: that thread reads the view only once it is published. */
    private final ThreadLocal<long[]> postedHere = ThreadLocal.withInitial(() -> new long[1]);
    /** Calls that waited for the router's thread (call()). */
    private final AtomicLong calls = new AtomicLong();
    /** When the event running now started (System.nanoTime), 0 while the loop waits for one. */
    private volatile long turnStarted;
    /** Router's thread: the number of the event that ran last. */
    private long ran;
    /** The number of the last event whose effects the published view shows. */
    private volatile long publishedThrough;
    /** Router's thread: answers to give once this turn's view is published ({@link #later}). */
    private final List<Runnable> later = new ArrayList<>();
    /** Calls not answered yet: answered with an error if the loop stops before running them. */
    private final Set<CompletableFuture<?>> unanswered = ConcurrentHashMap.newKeySet();

    /**
     * @param afterTurn   publishes the view, on the router's thread
     * @param changedMuch whether workers or tools came or went since the last publish: then it is published after
     *                    the turn whatever waits; otherwise once nothing waits, or a millisecond after the last
     * @param timers      runs the router's timers ({@link #timers()} outside tests); stopped with the loop
     */
    RouterLoop(Runnable afterTurn, BooleanSupplier changedMuch, ScheduledExecutorService timers) {
        this.timers = timers;
        this.afterTurn = afterTurn;
        this.changedMuch = changedMuch;
    }

    /** Runs {@code work} on the router's thread, logging anything it throws; false if the router is closed. */
    boolean post(Runnable work) {
        try {
            execute(n -> () -> {
                ran = n;
                turnStarted = System.nanoTime();
                try {
                    work.run();
                } catch (RuntimeException e) {
                    LOG.log(Level.ERROR, "Router failed while handling an event; it goes on", e);
                } finally {
                    turnStarted = 0;
                }
                // A worker or tool that came or went is shown at once: the next turn may wait long in the queue (a
                // database that does not answer). Counts alone may wait for a quiet moment, a millisecond at most,
                // unless someone is answered now: they read what the router knows next.
                if (!later.isEmpty() || changedMuch.getAsBoolean() || loop.getQueue().isEmpty()
                        || System.nanoTime() - publishedAt >= COUNTS_EVERY_NANOS) {
                    publish(n);
                }
                runLater();
            });
            return true;
        } catch (RejectedExecutionException e) {
            LOG.log(Level.DEBUG, "Router is closed; event dropped");
            return false;
        }
    }

    /** Runs {@code work} on the router's thread and waits for its answer; what it threw is thrown here. */
    <T> T call(Callable<T> work) {
        if (Thread.currentThread() == thread) {
            throw new IllegalStateException("the router's own thread cannot wait for itself: post the work instead");
        }
        calls.incrementAndGet();
        CompletableFuture<T> answer = new CompletableFuture<>();
        unanswered.add(answer);
        answer.whenComplete((a, e) -> unanswered.remove(answer));
        execute(n -> () -> {
            ran = n;
            turnStarted = System.nanoTime();
            T result = null;
            Throwable failure = null;
            try {
                result = work.call();
            } catch (Throwable e) {
                failure = e;
            } finally {
                turnStarted = 0;
            }
            // Published before the caller hears back: it reads its own change.
            publish(n);
            runLater();
            if (failure == null) {
                answer.complete(result);
            } else {
                answer.completeExceptionally(failure);
            }
        });
        return await(answer);
    }

    /**
     * Whether the published view shows every event the calling thread posted: a thread that hands the router a
     * frame and then reads what it knows reads its own change (and waits for it, the one case a reader waits).
     */
    boolean publishedForThisThread() {
        // The router's own thread knows what it did (and must never wait for itself).
        return Thread.currentThread() == thread || postedHere.get()[0] <= publishedThrough;
    }

    /** Hands the event numbered next to the router's thread; in order of number. */
    private void execute(LongFunction<Runnable> event) {
        synchronized (posted) {
            long n = posted.incrementAndGet();
            loop.execute(event.apply(n));
            postedHere.get()[0] = n;
        }
    }

    /**
     * Runs {@code answer} (completing a caller's future) once this turn's view is published: whoever is answered then
     * reads the router as the answer left it. On the router's thread only.
     */
    void later(Runnable answer) {
        later.add(answer);
    }

    private void runLater() {
        // An answer may add another (a waiter's callback ending a wait): all run, in order.
        for (int i = 0; i < later.size(); i++) {
            try {
                later.get(i).run();
            } catch (RuntimeException e) {
                LOG.log(Level.ERROR, "Router failed while answering a caller; it goes on", e);
            }
        }
        later.clear();
    }

    /** How long the router's thread has been on the event it runs now; zero while it waits for one. */
    Duration busy() {
        long started = turnStarted;
        return started == 0 ? Duration.ZERO : Duration.ofNanos(Math.max(0, System.nanoTime() - started));
    }

    /** How many calls have waited for the router's thread. */
    long calls() {
        return calls.get();
    }

    /** Runs {@code work} on the router's thread after {@code delay}. */
    Future<?> schedule(Runnable work, Duration delay) {
        // A block, so a Runnable: post's answer would make the lambda a Callable.
        return timers.schedule(() -> {
            post(work);
        }, Math.max(0, delay.toMillis()), TimeUnit.MILLISECONDS);
    }

    /** Posts {@code work} every {@code every}, first after one period. */
    void every(Duration every, Runnable work) {
        long ms = every.toMillis();
        timers.scheduleWithFixedDelay(() -> {
            post(work);
        }, ms, ms, TimeUnit.MILLISECONDS);
    }

    /**
     * Stops the timers and the thread, letting the events already posted run for up to five seconds; whether the
     * thread stopped.
     */
    boolean stop() {
        timers.shutdownNow();
        loop.shutdown();
        try {
            if (!loop.awaitTermination(5, TimeUnit.SECONDS)) {
                loop.shutdownNow();
                // Interrupted, the thread stops soon.
                loop.awaitTermination(2, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            loop.shutdownNow();
            Thread.currentThread().interrupt();
        }
        // Calls the loop dropped unrun would wait for ever.
        RejectedExecutionException stopped = new RejectedExecutionException("the router has stopped");
        List.copyOf(unanswered).forEach(answer -> answer.completeExceptionally(stopped));
        return loop.isTerminated();
    }

    /**
     * Publishes the view in the middle of a turn, on the router's thread: before the router closes a lost worker's
     * link, so that whoever sees the close finds the worker offline.
     */
    void publishNow() {
        // The event running now is not done: the view shows those before it whole.
        publish(ran - 1);
    }

    private void publish(long through) {
        publishedAt = System.nanoTime();
        afterTurn.run();
        publishedThrough = through;
    }

    /** What the router's thread answered; what it threw, thrown here. */
    static <T> T await(Future<T> future) {
        try {
            return future.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CompletionException(e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new CompletionException(e.getCause());
        }
    }

    /** Cancelled timers leave the queue at once: each one holds its connection or task until it would have run. */
    static ScheduledThreadPoolExecutor timers() {
        ScheduledThreadPoolExecutor timers = new ScheduledThreadPoolExecutor(1,
                Thread.ofPlatform().name("efferent-router-timers").daemon().factory());
        timers.setRemoveOnCancelPolicy(true);
        return timers;
    }
}
