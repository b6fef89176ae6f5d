/**
 * Schedules and reminders: once, at an interval or by cron in a time zone, each firing a reminder, a prompt for the
 * assistant or a tool call in its conversation; kept beside the tasks, and fired once by whichever brain over the
 * same database gets there first.
 */
module efferent.scheduler {
    requires transitive efferent.assistant.api;
    requires transitive efferent.conversations;
    requires transitive efferent.calls;
    requires efferent.core;
    requires com.fasterxml.jackson.databind;

    exports dev.efferent.scheduler;
}
