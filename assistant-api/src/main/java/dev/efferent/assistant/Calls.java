package dev.efferent.assistant;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.efferent.channel.spi.Conversation;
import dev.efferent.queue.Task;


/**
 * Tool calls an {@link Extension} makes on the person's behalf (an automation's steps), started exactly as the
 * assistant's are: checked against the tool's schema, judged by the approval policy, held with a question in the
 * conversation when it asks for a yes.
 */
public interface Calls {
    /** What came of starting a call. */
    sealed interface Started {
        /** A task: running, queued, or held for a yes (its status says). */
        record Submitted(Task task) implements Started {
        }

        /** Not started, and why, in words for the person. */
        record Refused(String reason) implements Started {
        }
    }

    /**
     * Starts {@code tool} with {@code params} as step {@code step} of automation run {@code run} in
     * {@code conversation}. The same run and step give the same task back (a step started again after a restart).
     *
     * @param conversation who asks: results and questions go there
     * @param run          the automation's run
     * @param step         the step of the run, from 0
     * @param tool         the tool
     * @param params       its arguments
     * @param worker       the machine that must run it; {@code ""} for the conversation's active one, or any
     * @param askFirst     hold it for a yes even where the policy would let it run
     */
    Started start(Conversation conversation, String run, int step, String tool, ObjectNode params,
                  String worker, boolean askFirst);
}
