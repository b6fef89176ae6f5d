package dev.efferent.router;

import dev.efferent.protocol.ErrorCode;
import dev.efferent.protocol.ErrorMessage;
import dev.efferent.protocol.Message;
import dev.efferent.protocol.ProtocolException;
import dev.efferent.protocol.TaskAccepted;
import dev.efferent.protocol.TaskProgress;
import dev.efferent.protocol.TaskRejected;
import dev.efferent.protocol.TaskResult;
import dev.efferent.protocol.WorkerHeartbeat;
import dev.efferent.protocol.WorkerRegister;
import dev.efferent.protocol.WorkerTools;

import java.lang.System.Logger.Level;

/**
 * Where each frame a worker sends goes: to {@link WorkerRegistration} (who it is, its tools, that it is alive) or to
 * {@link TaskReports} (what became of its tasks). Runs on the router's thread only.
 */
final class WorkerProtocol {
    private static final System.Logger LOG = System.getLogger(WorkerProtocol.class.getName());
    private final WorkerRegistration registration;
    private final TaskReports reports;

    WorkerProtocol(WorkerRegistration registration, TaskReports reports) {
        this.registration = registration;
        this.reports = reports;
    }

    void onMessage(Connection c, Message message) {
        if (message instanceof WorkerRegister register) {
            registration.register(c, register);
            return;
        }
        WorkerSession s = c.session;
        if (s == null || !s.online) {
            c.refuse(new ProtocolException(ErrorCode.UNEXPECTED_MESSAGE,
                    message.type() + " before worker:register; register first"));
            return;
        }
        switch (message) {
            case WorkerHeartbeat h -> registration.heartbeat(s, h);
            case TaskAccepted a -> reports.accepted(s, a);
            case TaskRejected r -> reports.rejected(s, r);
            case TaskProgress p -> reports.progress(s, p);
            case TaskResult r -> reports.result(s, r);
            case WorkerTools t -> registration.tools(c, s, t);
            case ErrorMessage e -> LOG.log(Level.WARNING, "Worker {0} reported {1}: {2}", s.name, e.code().wire(),
                    e.message());
            default -> c.link.send(new ErrorMessage(ErrorCode.UNEXPECTED_MESSAGE,
                    message.type() + " is sent by the brain, not by workers"));
        }
    }

    void onClosed(Connection c, String why) {
        registration.onClosed(c, why);
    }
}
