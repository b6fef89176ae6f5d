package dev.efferent.model.spi;

/** Receives a reply's text as the model writes it. */
@FunctionalInterface
public interface ModelListener {
    /** A listener that ignores the text. */
    ModelListener NONE = delta -> {
    };

    /** The next piece of the reply's text. */
    void text(String delta);
}
