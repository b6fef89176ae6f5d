package dev.efferent.store;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A named part of the store, with the codec of its values: what an owner claims. Names are dotted, lower-case, and
 * start with the owner's area, e.g. {@code scheduler.schedules}; they are kept in the store, so a name never changes.
 *
 * @param name  the namespace's name: lower-case letters, digits and dashes, in dot-separated parts, at most 100
 * @param codec how its values are written
 * @param <T>   the type of its values
 */
public record Namespace<T>(String name, Codec<T> codec) {
    private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9-]*(\\.[a-z][a-z0-9-]*)*");

    public Namespace {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(codec, "codec");
        if (name.length() > 100 || !NAME.matcher(name).matches()) {
            throw new StoreException("a namespace's name is lower-case letters, digits and dashes in dot-separated "
                    + "parts, at most 100 characters, such as 'scheduler.schedules'; got '" + name + "'");
        }
    }
}
