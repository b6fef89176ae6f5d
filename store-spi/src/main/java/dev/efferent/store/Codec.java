package dev.efferent.store;

import java.util.Objects;
import java.util.function.Function;

/**
 * Turns a namespace's values into the text a store keeps and back. Lives with the namespace's owner (JSON, say), so
 * that the store needs nothing but the JDK. Equal values must encode to equal text: compare-and-set compares the text.
 *
 * @param <T> the type of the namespace's values
 */
public interface Codec<T> {
    /** The text kept for {@code value}. */
    String encode(T value);

    /** The value {@code text} was written from; throws an unchecked exception for text it cannot read. */
    T decode(String text);

    /** Text kept as it is. */
    static Codec<String> text() {
        return of(Function.identity(), Function.identity());
    }

    /** A codec of two functions. */
    static <T> Codec<T> of(Function<T, String> encode, Function<String, T> decode) {
        Objects.requireNonNull(encode, "encode");
        Objects.requireNonNull(decode, "decode");
        return new Codec<>() {
            @Override
            public String encode(T value) {
                return encode.apply(value);
            }

            @Override
            public T decode(String text) {
                return decode.apply(text);
            }
        };
    }
}
