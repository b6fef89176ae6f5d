package dev.efferent.router;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.Executors;
import java.util.concurrent.FutureTask;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Timers and a clock that the test moves: nothing runs until {@link #advance} reaches its time, and then it runs on the
 * test's thread, in order of due time. The router's waits (registration, heartbeats, link probes) are tested without
 * sleeping.
 */
final class ManualScheduler extends AbstractExecutorService implements ScheduledExecutorService {
    private final PriorityQueue<Job> jobs = new PriorityQueue<>();
    private Instant now;
    private long added;
    private volatile boolean shutdown;

    ManualScheduler(Instant start) {
        this.now = start;
    }

    /** The clock that reads this scheduler's time. */
    Clock clock() {
        return new Clock() {
            @Override
            public ZoneId getZone() {
                return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(ZoneId zone) {
                return this;
            }

            @Override
            public Instant instant() {
                return now();
            }
        };
    }

    synchronized Instant now() {
        return now;
    }

    /** Moves time forward by {@code duration}, running each job that falls due on the way at its own time. */
    void advance(Duration duration) {
        Instant end;
        synchronized (this) {
            end = now.plus(duration);
        }
        while (true) {
            Job next;
            synchronized (this) {
                next = jobs.peek();
                if (next == null || next.due.isAfter(end) || shutdown) {
                    now = end;
                    return;
                }
                jobs.poll();
                now = next.due;
            }
            next.run();
        }
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        return add(new Job(Executors.callable(command), delay(delay, unit), Duration.ZERO));
    }

    @Override
    public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
        throw new UnsupportedOperationException("the router schedules Runnables only");
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
        return scheduleWithFixedDelay(command, initialDelay, period, unit);
    }

    /** As at a fixed rate: a job takes no time on this clock. */
    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
        return add(new Job(Executors.callable(command), delay(initialDelay, unit),
                Duration.of(delay, unit.toChronoUnit())));
    }

    private Instant delay(long delay, TimeUnit unit) {
        return now().plus(Duration.of(Math.max(0, delay), unit.toChronoUnit()));
    }

    private synchronized Job add(Job job) {
        if (!shutdown) {
            job.order = added++;
            jobs.add(job);
        }
        return job;
    }

    @Override
    public void execute(Runnable command) {
        schedule(command, 0, TimeUnit.MILLISECONDS);
    }

    @Override
    public synchronized void shutdown() {
        shutdown = true;
        jobs.clear();
    }

    @Override
    public List<Runnable> shutdownNow() {
        shutdown();
        return List.of();
    }

    @Override
    public boolean isShutdown() {
        return shutdown;
    }

    @Override
    public boolean isTerminated() {
        return shutdown;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
        return shutdown;
    }

    /** A job due at {@code due}, again every {@code period} after that unless the period is zero. */
    private final class Job extends FutureTask<Object> implements ScheduledFuture<Object> {
        private Instant due;
        private long order;
        private final Duration period;

        Job(Callable<Object> work, Instant due, Duration period) {
            super(work);
            this.due = due;
            this.period = period;
        }

        @Override
        public void run() {
            if (period.isZero()) {
                super.run();
            } else if (runAndReset()) {
                synchronized (ManualScheduler.this) {
                    due = now.plus(period);
                }
                add(this);
            }
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            synchronized (ManualScheduler.this) {
                jobs.remove(this);
            }
            return super.cancel(mayInterruptIfRunning);
        }

        @Override
        public long getDelay(TimeUnit unit) {
            return unit.convert(Duration.between(now(), due));
        }

        @Override
        public int compareTo(Delayed other) {
            Job o = (Job) other;
            int byDue = due.compareTo(o.due);
            return byDue != 0 ? byDue : Long.compare(order, o.order);
        }
    }
}
