package dev.efferent.tools.fs;

import dev.efferent.tools.spi.ToolContext;
import dev.efferent.tools.spi.ToolException;

import java.time.Duration;
import java.time.Instant;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * search_files' regular expression, run over one line at a time with a step budget and cancellation checks.
 *
 * <p>Why: {@code java.util.regex} backtracks, so a pattern such as {@code (.*a){20}b} does not finish in any useful time on a
 * line of forty {@code a}s, and a running {@link Matcher} heeds no interrupt: the thread keeps a CPU long after its call was
 * cancelled or timed out. The matcher reads its input only through {@link CharSequence#charAt} (code points are
 * read through it too), so the line is handed over wrapped in a sequence that counts those reads. Every
 * {@value #CHECK_EVERY} reads it checks the line's budget, the call's cancellation and its deadline: past the
 * budget the line is given up ({@link Outcome#TOO_SLOW}); cancelled or past the deadline, the search ends with the
 * usual failure.
 *
 * <p>Not thread-safe: one per search.
 */
final class BoundedMatcher {
    /**
     * The default of {@code tools.fs.max-regex-steps}, the reads a line may cost beyond its per-character
     * allowance. An ordinary pattern reads each character of a line a few times per place it tries, so a line of a
     * few hundred characters costs thousands of reads; a million is some milliseconds, which a person never
     * notices, while an exponential pattern exceeds it within a few dozen characters.
     */
    static final long DEFAULT_MAX_STEPS = 1_000_000;
    /**
     * Reads allowed per character of the line, on top of the budget: a linear search of a long line (a minified
     * file of megabytes on one line) costs a few reads per character, more with large alternations, and must not
     * be mistaken for a runaway pattern. A thousand per character leaves room for patterns with hundreds of
     * alternatives and still gives up a quadratic pattern on a line of more than a few thousand characters.
     */
    static final long STEPS_PER_CHAR = 1_000;
    /**
     * The host cancels a call at its deadline, with its own "timed out" message; the deadline is checked here too
     * only as a backstop for a host whose timer is late or missing, this long after it, so that the host's message
     * is the one seen whenever the host does its part.
     */
    static final Duration DEADLINE_GRACE = Duration.ofSeconds(1);
    /** How many reads pass between two checks; a power of two, so the check is a mask. About 10 µs of matching. */
    static final int CHECK_EVERY = 4096;

    /** How one line fared. */
    enum Outcome {
        /** The pattern matches somewhere in the line. */
        MATCH,
        /** It does not. */
        NO_MATCH,
        /** The line's budget ran out before the matcher could tell; the line was given up. */
        TOO_SLOW
    }

    private final Matcher matcher;
    private final long maxSteps;
    private final ToolContext context;
    private final CountedLine line = new CountedLine();

    BoundedMatcher(Pattern pattern, long maxSteps, ToolContext context) {
        this.matcher = pattern.matcher("");
        this.maxSteps = maxSteps;
        this.context = context;
    }

    /**
     * Whether {@code text} matches, within its budget.
     *
     * @throws ToolException if the call was cancelled or ran past its deadline meanwhile
     */
    Outcome find(String text) {
        line.reset(text, maxSteps + STEPS_PER_CHAR * text.length());
        matcher.reset(line);
        try {
            return matcher.find() ? Outcome.MATCH : Outcome.NO_MATCH;
        } catch (OutOfSteps e) {
            return Outcome.TOO_SLOW;
        }
    }

    /**
     * The line as the matcher sees it. The read count runs on across lines, so that lines too short to reach a
     * check on their own still lead to one; each line's limit is set from the count where it starts.
     */
    private final class CountedLine implements CharSequence {
        private String text = "";
        private long steps;
        private long limit;

        void reset(String newText, long budget) {
            text = newText;
            limit = steps + budget;
        }

        @Override
        public char charAt(int index) {
            if ((++steps & (CHECK_EVERY - 1)) == 0) {
                check();
            }
            return text.charAt(index);
        }

        private void check() {
            if (steps > limit) {
                throw new OutOfSteps();
            }
            context.checkCancelled();
            if (Instant.now().isAfter(context.deadline().plus(DEADLINE_GRACE))) {
                throw new ToolException("task " + context.taskId() + " ran past its deadline");
            }
        }

        @Override
        public int length() {
            return text.length();
        }

        @Override
        public CharSequence subSequence(int start, int end) {
            return text.subSequence(start, end);
        }

        @Override
        public String toString() {
            return text;
        }
    }

    /** Thrown out of the matcher when a line's budget runs out; caught in {@link #find}, never seen outside. */
    private static final class OutOfSteps extends RuntimeException {
        OutOfSteps() {
            super(null, null, false, false);
        }
    }
}
