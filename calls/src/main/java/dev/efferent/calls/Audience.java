package dev.efferent.calls;

/**
 * Who is shown the tools ({@link Gateway#catalogue}): each sees every tool with the machines that have it, and the
 * machine to run it on as an argument where that is a choice.
 */
public enum Audience {
    /**
     * The assistant's model: the machine argument only where more than one machine has the tool (a call naming none
     * runs on the conversation's active machine), each machine as the router lists it.
     */
    ASSISTANT("The machine to run it on; without it, the conversation's active machine."),
    /**
     * An MCP client: the machine argument on every tool, each machine named once, and a schema of type object as the
     * protocol wants.
     */
    MCP("The machine to run it on; without it, any that has the tool.");

    private final String machineDescription;

    Audience(String machineDescription) {
        this.machineDescription = machineDescription;
    }

    /** How the machine argument is described to this audience. */
    String machineDescription() {
        return machineDescription;
    }
}
