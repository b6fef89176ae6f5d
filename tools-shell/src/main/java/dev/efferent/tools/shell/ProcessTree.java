package dev.efferent.tools.shell;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Kills a command and everything it started. With its own process group the group is killed at once, which
 * also reaches children that were re-parented after their parent died; the JDK's view of descendants is
 * killed as well, for platforms without process groups. Under bubblewrap the command runs in a session of its
 * own ({@code --new-session}), out of the group's reach; the group kill still ends it, as it kills bubblewrap,
 * whose pid namespace, with every process in it, dies with it.
 */
final class ProcessTree {
    private static final System.Logger LOG = System.getLogger(ProcessTree.class.getName());

    private ProcessTree() {
    }

    static void kill(Process process, boolean ownGroup) {
        List<ProcessHandle> descendants = process.descendants().toList();
        if (ownGroup) {
            killGroup(process.pid());
        }
        process.destroyForcibly();
        descendants.forEach(ProcessHandle::destroyForcibly);
        // Children started between the snapshot and the kill of their parent.
        process.descendants().forEach(ProcessHandle::destroyForcibly);
    }

    private static void killGroup(long pgid) {
        try {
            ProcessBuilder builder = new ProcessBuilder("kill", "-KILL", "--", "-" + pgid)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD);
            // Like every process this module starts, kill gets none of the worker's secrets; it needs only PATH.
            builder.environment().keySet().retainAll(Set.of("PATH"));
            Process kill = builder.start();
            if (!kill.waitFor(5, TimeUnit.SECONDS)) {
                kill.destroyForcibly();
                LOG.log(Level.WARNING, "kill of process group {0} did not finish in 5s", pgid);
            }
        } catch (IOException e) {
            LOG.log(Level.WARNING, "Could not run kill for process group " + pgid + "; killing processes one by one", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
