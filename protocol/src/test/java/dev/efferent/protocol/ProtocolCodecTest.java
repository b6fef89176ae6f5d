package dev.efferent.protocol;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ProtocolCodecTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final ProtocolCodec codec = new ProtocolCodec();

    static ObjectNode object(String json) {
        try {
            return (ObjectNode) JSON.readTree(json);
        } catch (Exception e) {
            throw new IllegalArgumentException(e);
        }
    }

    static Stream<Message> everyMessage() {
        ToolDescriptor readFile = new ToolDescriptor("read_file", "Read a file",
                object("{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"}}}"), "LOCAL",
                true, false, true, false);
        return Stream.of(
                new WorkerRegister(1, "w-123", "laptop", "laptop.local", "linux-amd64", List.of(readFile), 4),
                new WorkerAck("w-123", 3, 15000),
                new WorkerAck("w-123", 3, 15000, 1 << 20),
                new WorkerHeartbeat(120, 0.42, 2),
                new WorkerTools(List.of(readFile)),
                new TaskDispatch("t1", "read_file", object("{\"path\":\"a.txt\"}"), 5, 300000, 1),
                new TaskDispatch("t2", "browser_text", object("{}"), 5, 300000, 1, "telegram:42"),
                new TaskAccepted("t1"),
                new TaskRejected("t1", RejectReason.BUSY, "all 4 slots taken"),
                new TaskProgress("t1", 50, "halfway"),
                new TaskCancel("t1", "cancelled by user"),
                TaskResult.completed("t1", object("{\"content\":[{\"type\":\"text\",\"text\":\"hi\"}],\"isError\":false}"), 12),
                TaskResult.ended("t1", ResultStatus.FAILED, "boom", 3),
                TaskResult.ended("t1", ResultStatus.CANCELLED, "cancelled by user", 3),
                new TaskResultAck("t1"),
                new ErrorMessage(ErrorCode.MISSING_FIELD, "task:progress: field 'taskId' is missing"));
    }

    @ParameterizedTest
    @MethodSource("everyMessage")
    void everyMessageSurvivesARoundTrip(Message message) {
        String frame = codec.encode(message);
        assertTrue(frame.contains("\"type\":\"" + message.type() + "\""), frame);
        assertEquals(message, codec.decode(frame));
    }

    @Test
    void everyTypeOfTheDesignIsKnown() {
        assertEquals(List.of("worker:register", "worker:ack", "worker:heartbeat", "worker:tools", "task:dispatch",
                "task:accepted", "task:rejected", "task:progress", "task:cancel", "task:result", "task:result:ack", "error"),
                ProtocolCodec.types());
        assertEquals(ProtocolCodec.types(), everyMessage().map(Message::type).distinct().toList());
        assertTrue(codec.encode(everyMessage().filter(m -> m instanceof TaskDispatch).findFirst().orElseThrow())
                .indexOf("session") < 0, "an empty session is left out of the frame");
    }

    @Test
    void dispatchDefaultsPriorityAndTimeout() {
        Message m = codec.decode("{\"type\":\"task:dispatch\",\"taskId\":\"t1\",\"tool\":\"stat\",\"params\":{},\"attempt\":1}");
        assertEquals(new TaskDispatch("t1", "stat", object("{}"), 5, 300000, 1), m);
    }

    @Test
    void unknownFieldsAreIgnored() {
        assertEquals(new TaskAccepted("t1"), codec.decode("{\"type\":\"task:accepted\",\"taskId\":\"t1\",\"extra\":42}"));
    }

    static Stream<Arguments> malformedFrames() {
        return Stream.of(
                Arguments.of("{\"type\":", ErrorCode.INVALID_JSON, "frame is not valid JSON at line 1, column 9: it ends "
                        + "before the JSON value is complete"),
                Arguments.of("{\"type\":x}", ErrorCode.INVALID_JSON, "frame is not valid JSON at line 1, column 10: "
                        + "unexpected word 'x'"),
                Arguments.of("{\"type\":@}", ErrorCode.INVALID_JSON, "frame is not valid JSON at line 1, column 9: "
                        + "unexpected character '@' (code 64)"),
                Arguments.of("", ErrorCode.INVALID_JSON, "frame is empty; expected a JSON object"),
                Arguments.of("{\"type\":\"task:accepted\",\"taskId\":\"t\"} trailing", ErrorCode.INVALID_JSON,
                        "unexpected word 'trailing'"),
                Arguments.of("{\"type\":\"task:accepted\",\"taskId\":\"a\",\"taskId\":\"b\"}", ErrorCode.INVALID_JSON,
                        "field 'taskId' appears twice"),
                Arguments.of("[1,2]", ErrorCode.NOT_AN_OBJECT, "frame must be a JSON object, got an array"),
                Arguments.of("\"hello\"", ErrorCode.NOT_AN_OBJECT, "frame must be a JSON object, got a string"),
                Arguments.of("{\"taskId\":\"t1\"}", ErrorCode.MISSING_TYPE, "frame has no 'type' field; expected one of ["),
                Arguments.of("{\"type\":7}", ErrorCode.MISSING_TYPE, "frame field 'type' must be a string, got an integer"),
                Arguments.of("{\"type\":\"task:explode\"}", ErrorCode.UNKNOWN_TYPE,
                        "unknown message type 'task:explode'; expected one of [worker:register, "),
                Arguments.of("{\"type\":\"task:accepted\"}", ErrorCode.MISSING_FIELD,
                        "task:accepted: field 'taskId' is missing"),
                Arguments.of("{\"type\":\"task:accepted\",\"taskId\":null}", ErrorCode.MISSING_FIELD,
                        "task:accepted: field 'taskId' is missing"),
                Arguments.of("{\"type\":\"task:accepted\",\"taskId\":\"\"}", ErrorCode.OUT_OF_RANGE,
                        "task:accepted: field 'taskId' must not be empty"),
                Arguments.of("{\"type\":\"task:accepted\",\"taskId\":12}", ErrorCode.INVALID_FIELD,
                        "task:accepted: field 'taskId' must be a string, got an integer"),
                Arguments.of("{\"type\":\"task:progress\",\"taskId\":\"t1\",\"percent\":\"50\"}", ErrorCode.INVALID_FIELD,
                        "task:progress: field 'percent' must be an integer, got a string"),
                Arguments.of("{\"type\":\"task:progress\",\"taskId\":\"t1\",\"percent\":50.5}", ErrorCode.INVALID_FIELD,
                        "task:progress: field 'percent' must be an integer, got a number"),
                Arguments.of("{\"type\":\"task:progress\",\"taskId\":\"t1\",\"percent\":101}", ErrorCode.OUT_OF_RANGE,
                        "task:progress: field 'percent' must be from 0 to 100, got 101"),
                Arguments.of("{\"type\":\"task:progress\",\"taskId\":\"t1\",\"percent\":-1}", ErrorCode.OUT_OF_RANGE,
                        "task:progress: field 'percent' must be from 0 to 100, got -1"),
                Arguments.of(dispatch("\"priority\":0"), ErrorCode.OUT_OF_RANGE,
                        "task:dispatch: field 'priority' must be from 1 to 10, got 0"),
                Arguments.of(dispatch("\"priority\":11"), ErrorCode.OUT_OF_RANGE,
                        "task:dispatch: field 'priority' must be from 1 to 10, got 11"),
                Arguments.of(dispatch("\"timeoutMs\":-5"), ErrorCode.OUT_OF_RANGE,
                        "task:dispatch: field 'timeoutMs' must be at least 1, got -5"),
                Arguments.of(dispatch("\"timeoutMs\":true"), ErrorCode.INVALID_FIELD,
                        "task:dispatch: field 'timeoutMs' must be an integer, got a boolean"),
                Arguments.of("{\"type\":\"task:dispatch\",\"taskId\":\"t1\",\"tool\":\"x\",\"params\":[],\"attempt\":1}",
                        ErrorCode.INVALID_FIELD, "task:dispatch: field 'params' must be an object, got an array"),
                Arguments.of("{\"type\":\"task:dispatch\",\"taskId\":\"t1\",\"tool\":\"x\",\"params\":{}}",
                        ErrorCode.MISSING_FIELD, "task:dispatch: field 'attempt' is missing"),
                Arguments.of("{\"type\":\"task:rejected\",\"taskId\":\"t1\",\"reason\":\"tired\"}", ErrorCode.OUT_OF_RANGE,
                        "task:rejected: field 'reason' must be one of [busy, unknown_tool, bad_params, shutting_down], got 'tired'"),
                Arguments.of("{\"type\":\"task:result\",\"taskId\":\"t1\",\"status\":\"done\",\"durationMs\":1}",
                        ErrorCode.OUT_OF_RANGE,
                        "task:result: field 'status' must be one of [completed, failed, cancelled], got 'done'"),
                Arguments.of("{\"type\":\"task:result\",\"taskId\":\"t1\",\"status\":\"completed\",\"durationMs\":1}",
                        ErrorCode.MISSING_FIELD,
                        "task:result: field 'result' is missing; it is required when status is completed"),
                Arguments.of("{\"type\":\"task:result\",\"taskId\":\"t1\",\"status\":\"failed\",\"durationMs\":1}",
                        ErrorCode.MISSING_FIELD,
                        "task:result: field 'error' is missing; it is required when status is failed"),
                Arguments.of("{\"type\":\"worker:heartbeat\",\"uptimeSeconds\":5,\"loadAverage\":\"high\",\"activeTasks\":0}",
                        ErrorCode.INVALID_FIELD, "worker:heartbeat: field 'loadAverage' must be a number, got a string"),
                Arguments.of(register("\"maxConcurrentTasks\":0", "[]"), ErrorCode.OUT_OF_RANGE,
                        "worker:register: field 'maxConcurrentTasks' must be from 1 to 1024, got 0"),
                Arguments.of(register("\"maxConcurrentTasks\":2", "{}"), ErrorCode.INVALID_FIELD,
                        "worker:register: field 'capabilities' must be an array, got an object"),
                Arguments.of(register("\"maxConcurrentTasks\":2", "[{\"name\":\"x\",\"inputSchema\":{},\"placement\":\"MOON\"}]"),
                        ErrorCode.OUT_OF_RANGE,
                        "worker:register: field 'capabilities[0].placement' must be one of [CLOUD, HYBRID, LOCAL], got 'MOON'"),
                Arguments.of(register("\"maxConcurrentTasks\":2",
                                "[{\"name\":\"x\",\"inputSchema\":{},\"placement\":\"LOCAL\",\"annotations\":{\"readOnlyHint\":\"yes\"}}]"),
                        ErrorCode.INVALID_FIELD,
                        "worker:register: field 'capabilities[0].annotations.readOnlyHint' must be true or false, got a string"),
                Arguments.of(register("\"maxConcurrentTasks\":2", "[{\"placement\":\"LOCAL\",\"inputSchema\":{}}]"),
                        ErrorCode.MISSING_FIELD, "worker:register: field 'capabilities[0].name' is missing"),
                Arguments.of(register("\"maxConcurrentTasks\":2", "[{\"name\":\"Bad-Name\\u0000\",\"inputSchema\":{},"
                                + "\"placement\":\"LOCAL\"}]"), ErrorCode.OUT_OF_RANGE,
                        "worker:register: field 'capabilities[0].name' must be a tool name matching [a-z][a-z0-9_]{0,63}, "
                                + "got 'Bad-Name\\u0000'"),
                Arguments.of(register("\"maxConcurrentTasks\":2", "[{\"name\":\"x\",\"inputSchema\":{},\"placement\":"
                                + "\"LOCAL\"},{\"name\":\"x\",\"inputSchema\":{},\"placement\":\"LOCAL\"}]"),
                        ErrorCode.OUT_OF_RANGE, "worker:register: field 'capabilities[1].name' must be a name no other "
                                + "tool of this worker has, got a second 'x'"),
                Arguments.of(register("\"maxConcurrentTasks\":2", "[{\"name\":\"x\",\"inputSchema\":{\"type\":\"string\"},"
                                + "\"placement\":\"LOCAL\"}]"), ErrorCode.OUT_OF_RANGE,
                        "worker:register: field 'capabilities[0].inputSchema' must be a JSON Schema of an object "
                                + "({\"type\": \"object\", …}), got type a string"),
                Arguments.of(register("\"maxConcurrentTasks\":2", "[{\"name\":\"x\",\"inputSchema\":" + "{\"type\":\"object\",\"x\":" + "[".repeat(40) + "]".repeat(40) + "}" + ","
                                + "\"placement\":\"LOCAL\"}]"), ErrorCode.OUT_OF_RANGE,
                        "worker:register: field 'capabilities[0].inputSchema' must be at most 32 levels deep, got more "
                                + "than 32 levels"),
                Arguments.of("{\"type\":\"worker:heartbeat\",\"uptimeSeconds\":5,\"loadAverage\":1e400,\"activeTasks\":0}",
                        ErrorCode.OUT_OF_RANGE, "field 'loadAverage' is a number too large to represent (Infinity); numbers must be finite"),
                Arguments.of("{\"type\":\"task:result\",\"taskId\":\"t\",\"status\":\"completed\",\"durationMs\":1,"
                                + "\"result\":{\"content\":5,\"isError\":false}}", ErrorCode.INVALID_FIELD,
                        "task:result: field 'result.content' must be an array, got an integer"),
                Arguments.of("{\"type\":\"task:result\",\"taskId\":\"t\",\"status\":\"completed\",\"durationMs\":1,"
                                + "\"result\":{\"content\":[]}}", ErrorCode.MISSING_FIELD,
                        "task:result: field 'result.isError' is missing"));
    }

    private static String dispatch(String override) {
        return "{\"type\":\"task:dispatch\",\"taskId\":\"t1\",\"tool\":\"stat\",\"params\":{},\"attempt\":1," + override + "}";
    }

    private static String register(String field, String capabilities) {
        return "{\"type\":\"worker:register\",\"protocolVersion\":1,\"workerId\":\"w\",\"name\":\"n\","
                + "\"capabilities\":" + capabilities + "," + field + "}";
    }

    @ParameterizedTest
    @MethodSource("malformedFrames")
    void malformedFrameIsRefusedWithAPreciseMessage(String frame, ErrorCode code, String message) {
        ProtocolException e = assertThrows(ProtocolException.class, () -> codec.decode(frame));
        assertEquals(code, e.code(), e.getMessage());
        assertTrue(e.getMessage().startsWith(message) || e.getMessage().contains(message),
                "expected '" + message + "' in '" + e.getMessage() + "'");
    }

    @Test
    void frameOverTheMaximumIsRefusedBeforeParsing() {
        ProtocolCodec small = new ProtocolCodec(2048);
        String big = "{\"type\":\"task:progress\",\"taskId\":\"t1\",\"percent\":1,\"message\":\"" + "x".repeat(3000) + "\"}";
        ProtocolException e = assertThrows(ProtocolException.class, () -> small.decode(big));
        assertEquals(ErrorCode.FRAME_TOO_LARGE, e.code());
        assertEquals("frame of more than 2048 bytes exceeds the maximum of 2048 bytes", e.getMessage());
    }

    @Test
    void multiByteCharactersCountAsBytes() {
        ProtocolCodec small = new ProtocolCodec(2048);
        // 700 three-byte characters: 700 chars, but 2100 bytes of message alone.
        String frame = "{\"type\":\"task:progress\",\"taskId\":\"t1\",\"percent\":1,\"message\":\"" + "€".repeat(700) + "\"}";
        ProtocolException e = assertThrows(ProtocolException.class, () -> small.decode(frame));
        assertTrue(e.getMessage().matches("frame of \\d+ bytes exceeds the maximum of 2048 bytes"), e.getMessage());
    }

    @Test
    void defaultMaximumIsOneMebibyte() {
        assertEquals(1024 * 1024, codec.maxFrameBytes());
        String justUnder = "{\"type\":\"task:progress\",\"taskId\":\"t1\",\"percent\":1,\"message\":\""
                + "x".repeat(1024 * 1024 - 100) + "\"}";
        assertEquals(TaskProgress.class, codec.decode(justUnder).getClass());
    }

    @Test
    void encodingAnOversizeMessageIsRefused() {
        ProtocolCodec small = new ProtocolCodec(2048);
        ProtocolException e = assertThrows(ProtocolException.class,
                () -> small.encode(new TaskProgress("t1", 1, "y".repeat(4000))));
        assertEquals(ErrorCode.FRAME_TOO_LARGE, e.code());
        assertTrue(e.getMessage().startsWith("task:progress frame of more than 2048 bytes"), e.getMessage());
    }

    @Test
    void errorFromANewerPeerWithAnUnknownCodeIsStillRead() {
        ErrorMessage m = (ErrorMessage) codec.decode("{\"type\":\"error\",\"code\":\"quantum_flux\",\"message\":\"?\"}");
        assertEquals(ErrorCode.INTERNAL, m.code());
    }

    @Test
    void recordsRefuseValuesTheCodecWouldRefuse() {
        assertThrows(IllegalArgumentException.class, () -> new TaskProgress("t1", 101, ""));
        assertThrows(IllegalArgumentException.class, () -> new TaskDispatch("t1", "x", object("{}"), 0, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> new TaskDispatch("t1", "x", object("{}"), 5, -1, 1));
        assertThrows(IllegalArgumentException.class,
                () -> new TaskResult("t1", ResultStatus.COMPLETED, Optional.empty(), Optional.empty(), 0));
    }

    @Test
    void errorFrameCarriesTheRefusal() {
        ProtocolException e = assertThrows(ProtocolException.class, () -> codec.decode("[]"));
        assertEquals("{\"type\":\"error\",\"code\":\"not_an_object\",\"message\":\"frame must be a JSON object, got an array\"}",
                codec.encode(ErrorMessage.of(e)));
    }
}
