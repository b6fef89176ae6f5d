package dev.efferent.core.tools;

/** Receives a running tool's progress reports. Called on the tool's thread; must not block. */
@FunctionalInterface
public interface ProgressListener {
    /** A listener that drops every report. */
    ProgressListener NONE = (taskId, percent, message) -> {
    };

    /**
     * A progress report.
     *
     * @param taskId  the task
     * @param percent 0 to 100
     * @param message what the tool is doing
     */
    void progress(String taskId, int percent, String message);
}
