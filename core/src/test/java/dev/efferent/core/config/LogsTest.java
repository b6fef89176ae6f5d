package dev.efferent.core.config;

import org.junit.jupiter.api.Test;

import java.util.logging.Level;
import java.util.logging.LogRecord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LogsTest {

    @Test
    void aValueCannotStartALineOfItsOwn() {
        assertEquals("laptop\\n2026-11-22 10:00:00 INFO  router: forged", Logs.oneLine(
                "laptop\n2026-11-22 10:00:00 INFO  router: forged", 500));
        assertEquals("a\\r\\tb\\u001b[31m\\u2028", Logs.oneLine("a\r\tb\u001b[31m\u2028", 500));
        assertEquals("ünïcode ✓ stays", Logs.oneLine("ünïcode ✓ stays", 500));
    }

    @Test
    void aLongValueIsCutWithItsLength() {
        assertEquals("abc…(10 chars)", Logs.oneLine("abcdefghij", 3));
    }

    @Test
    void everyRecordIsOneLineWithItsParametersEscapedAndCut() {
        LogRecord r = new LogRecord(Level.WARNING, "Worker {0} ({1}) sent {2} frames");
        r.setLoggerName("dev.efferent.router.WorkerMessages");
        r.setParameters(new Object[]{"evil\nWARNING forged", "x".repeat(2000), 12345});
        String line = new Logs.Line().format(r);
        assertEquals(1, line.lines().count(), line);
        assertTrue(line.contains("Worker evil\\nWARNING forged (" + "x".repeat(Logs.MAX_VALUE_CHARS) + "…(2000 chars))"
                + " sent 12,345 frames"), line);
    }

    @Test
    void aStackTraceCannotForgeARecordEither() {
        LogRecord r = new LogRecord(Level.WARNING, "failed");
        r.setLoggerName("dev.efferent.x");
        r.setThrown(new IllegalStateException("bad\n2026-11-22 10:00:00 INFO  router: forged"));
        String text = new Logs.Line().format(r);
        assertTrue(text.lines().skip(1).allMatch(l -> l.isEmpty() || Character.isWhitespace(l.charAt(0))), text);
        assertTrue(text.contains("\tjava.lang.IllegalStateException: bad\n"), text);
    }
}
