package dev.efferent.bench;

import java.util.Arrays;
import java.util.Locale;

/** Latencies of one run, in nanoseconds. */
final class Stats {
    private final long[] samples;
    private int n;

    Stats(int capacity) {
        samples = new long[capacity];
    }

    void add(long nanos) {
        samples[n++] = nanos;
    }

    long percentile(double p) {
        long[] sorted = Arrays.copyOf(samples, n);
        Arrays.sort(sorted);
        return sorted[Math.min(n - 1, (int) Math.ceil(p / 100.0 * n) - 1)];
    }

    int count() {
        return n;
    }

    static String micros(long nanos) {
        return String.format(Locale.ROOT, "%.0f µs", nanos / 1000.0);
    }

    static String millis(long nanos) {
        return String.format(Locale.ROOT, "%.2f ms", nanos / 1_000_000.0);
    }

    /** The median of several runs' values. */
    static long median(long... values) {
        long[] v = values.clone();
        Arrays.sort(v);
        return v[v.length / 2];
    }

    static double median(double... values) {
        double[] v = values.clone();
        Arrays.sort(v);
        return v[v.length / 2];
    }
}
