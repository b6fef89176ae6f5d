package dev.efferent.conversations;

import dev.efferent.calls.Outcome;
import dev.efferent.channel.spi.OutgoingMessage;
import dev.efferent.queue.Task;
import dev.efferent.tools.spi.Content;
import dev.efferent.tools.spi.ToolResult;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** The checkpoint messages of a task: {@code [🔄 NN%] …}, {@code [✅ Complete] …}, {@code [❌ Failed] …}. */
final class Checkpoints {
    private final int maxChars;

    /** @param maxChars longest result text sent in one message; the rest is offered with /result */
    Checkpoints(int maxChars) {
        this.maxChars = maxChars;
    }

    static OutgoingMessage.Progress progress(String taskId, int percent, String message) {
        // No share known (a command reports its lines, not a percentage): no "0%" that looks stuck.
        String text = (percent > 0 ? "[🔄 " + percent + "%] " : "[🔄] ") + (message.isBlank() ? "working"
                : oneLine(message, 300));
        return new OutgoingMessage.Progress(taskId, percent, text);
    }

    /** One line for an assistant's tool call: {@code ✅ read_file on laptop · 120 ms}, its task linked by id. */
    static OutgoingMessage.Result compact(Task task, String worker) {
        Outcome outcome = Outcome.ofFinished(task);
        boolean ok = outcome.ok();
        String where = worker.isEmpty() ? "" : " on " + worker;
        String how = switch (outcome) {
            case Outcome.Completed c -> ok ? took(task) : " · returned an error" + took(task);
            case Outcome.Cancelled c -> " · cancelled";
            case Outcome.Failed f -> " · failed: " + oneLine(f.error(), 200);
        };
        return new OutgoingMessage.Result(task.id(), ok, (ok ? "✅ " : "❌ ") + task.tool() + where + how
                + " (" + task.id() + ")");
    }

    /** The messages that report how {@code task} ended: the result text, and any images it returned. */
    List<OutgoingMessage> finished(Task task) {
        List<OutgoingMessage> out = new ArrayList<>();
        String head = task.tool() + " (" + task.id() + ")";
        switch (Outcome.ofFinished(task)) {
            case Outcome.Completed completed -> {
                ToolResult result = completed.result();
                String label = result.isError() ? "[❌ Failed] " : "[✅ Complete] ";
                out.add(new OutgoingMessage.Result(task.id(), !result.isError(),
                        label + head + took(task) + "\n" + truncate(result.text(), task.id())));
                for (Content c : result.content()) {
                    if (c instanceof Content.Image image) {
                        out.add(new OutgoingMessage.Image(image.mimeType(), image.data(), head));
                    }
                }
            }
            case Outcome.Cancelled cancelled -> out.add(new OutgoingMessage.Result(task.id(), false, "[❌ Cancelled] "
                    + head + ": " + cancelled.reason()));
            case Outcome.Failed failed -> out.add(new OutgoingMessage.Result(task.id(), false, "[❌ Failed] " + head
                    + ": " + failed.error()));
        }
        return out;
    }

    /** Text cut to the size a chat can take, at a line break where possible, saying how to get the rest. */
    String truncate(String text, String taskId) {
        String body = text.isBlank() ? "(no output)" : text.stripTrailing();
        if (body.length() <= maxChars) {
            return body;
        }
        int cut = body.lastIndexOf('\n', maxChars);
        if (cut < maxChars / 2) {
            cut = maxChars;
        }
        return body.substring(0, cut) + "\n… " + (body.length() - cut) + " more characters; send /result " + taskId
                + " for all of it";
    }

    private static String took(Task task) {
        return task.finishedAt().map(f -> " in " + human(Duration.between(task.createdAt(), f))).orElse("");
    }


    static String human(Duration d) {
        long s = d.toSeconds();
        if (s < 1) {
            return d.toMillis() + " ms";
        }
        if (s < 60) {
            return s + " s";
        }
        if (s < 3600) {
            return (s / 60) + " min " + (s % 60) + " s";
        }
        return (s / 3600) + " h " + (s % 3600 / 60) + " min";
    }

    static String oneLine(String text, int max) {
        String line = text.replace('\n', ' ').strip();
        return line.length() > max ? line.substring(0, max) + "…" : line;
    }
}
