package dev.efferent.router;

import dev.efferent.queue.QueueException;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Calls waiting for the router's thread, queued together: those submitted before a flush runs there are admitted
 * with it, in one commit ({@link Admission#submitAll}). Callers wait on any thread; the flush runs on the router's.
 */
final class Submissions {
    private static final System.Logger LOG = System.getLogger(Submissions.class.getName());
    /** At most this many calls per addAll: a burst is queued in several statements rather than one huge one. */
    private static final int MAX_BATCH = 256;

    private final Admission admission;
    private final Predicate<Runnable> post;
    private final Consumer<Runnable> later;
    private final List<Pending> waiting = new ArrayList<>();
    private final AtomicLong submitted = new AtomicLong();

    private record Pending(TaskRequest request, CompletableFuture<Submission> answer) {
    }

    /** @param post runs work on the router's thread; false once the router is closed */
    Submissions(Admission admission, Predicate<Runnable> post, Consumer<Runnable> later) {
        this.admission = admission;
        this.post = post;
        this.later = later;
    }

    /** Queues {@code request} with the next flush; the answer completes once it is admitted or refused. */
    CompletableFuture<Submission> submit(TaskRequest request) {
        submitted.incrementAndGet();
        CompletableFuture<Submission> answer = new CompletableFuture<>();
        boolean first;
        synchronized (waiting) {
            first = waiting.isEmpty();
            waiting.add(new Pending(request, answer));
        }
        if (first && !post.test(this::flush)) {
            refuse(new QueueException("the brain is shutting down; submit the call again once it runs"));
        }
        return answer;
    }

    /** Calls submitted since start: each waited for the router's thread. */
    long submitted() {
        return submitted.get();
    }

    /** Calls waiting for the router's thread (for tests). */
    int size() {
        synchronized (waiting) {
            return waiting.size();
        }
    }

    /** Answers every call still waiting with {@code why}: the router is closing. */
    void refuse(RuntimeException why) {
        List<Pending> left;
        synchronized (waiting) {
            left = List.copyOf(waiting);
            waiting.clear();
        }
        left.forEach(p -> p.answer().completeExceptionally(why));
    }

    private void flush() {
        List<Pending> batch = take();
        // Answered once the turn's view is published: a caller reads the router with its call in it.
        List<CompletableFuture<Submission>> answers = batch.stream().map(p -> new CompletableFuture<Submission>())
                .toList();
        try {
            admission.submitAll(batch.stream().map(Pending::request).toList(), answers);
        } catch (Throwable e) {
            // Every caller not answered yet is told, whatever went wrong (one answered already keeps its answer: its
            // task is queued); the router's thread goes on.
            LOG.log(Level.ERROR, "Router failed while queueing " + batch.size() + " calls; each caller is told", e);
            answers.forEach(a -> a.completeExceptionally(e));
        }
        later.accept(() -> {
            for (int i = 0; i < batch.size(); i++) {
                CompletableFuture<Submission> answer = batch.get(i).answer();
                answers.get(i).whenComplete((s, e) -> {
                    if (e == null) {
                        answer.complete(s);
                    } else {
                        answer.completeExceptionally(e);
                    }
                });
            }
        });
    }

    /** Takes the calls waiting, at most {@link #MAX_BATCH}; the rest stay for the next flush, which is then posted. */
    private List<Pending> take() {
        synchronized (waiting) {
            List<Pending> head = waiting.subList(0, Math.min(MAX_BATCH, waiting.size()));
            List<Pending> batch = List.copyOf(head);
            head.clear();
            if (!waiting.isEmpty() && !post.test(this::flush)) {
                refuse(new QueueException("the brain is shutting down; submit the call again once it runs"));
            }
            return batch;
        }
    }
}
