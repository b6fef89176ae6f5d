/**
 * The brain-worker wire protocol: every frame as a record under {@link dev.efferent.protocol.Message},
 * and {@link dev.efferent.protocol.ProtocolCodec}, which encodes and strictly decodes them.
 * No Helidon here: a worker in another language needs only {@code docs/protocol.md}.
 */
module efferent.protocol {
    requires transitive com.fasterxml.jackson.databind;

    exports dev.efferent.protocol;
}
