package dev.efferent.protocol;

/**
 * One frame of the brain-worker protocol. The set is closed: {@link ProtocolCodec} knows every message.
 */
public sealed interface Message
        permits WorkerRegister, WorkerAck, WorkerHeartbeat, WorkerTools, TaskDispatch, TaskAccepted, TaskRejected,
                TaskProgress, TaskCancel, TaskResult, TaskResultAck, ErrorMessage {

    /** The current protocol version, sent in {@code worker:register}. */
    int PROTOCOL_VERSION = 1;

    /** The frame's {@code type} field, e.g. {@code "task:dispatch"}. */
    String type();
}
