package dev.efferent.model.spi;

/**
 * Tokens used.
 *
 * @param input  tokens read (the prompt)
 * @param output tokens written
 */
public record Usage(long input, long output) {
    /** Nothing used. */
    public static final Usage NONE = new Usage(0, 0);

    /** This and {@code other} together. */
    public Usage plus(Usage other) {
        return new Usage(input + other.input, output + other.output);
    }

    /** Input and output together. */
    public long total() {
        return input + output;
    }
}
