package dev.efferent.core.tools;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The machine's load average over the last minute, as heartbeats report it. On Linux it is read from
 * {@code /proc/loadavg}: the platform MXBean would load a few hundred classes into an idle worker for one number.
 */
public final class SystemLoad {
    private static final Path LOADAVG = Path.of("/proc/loadavg");

    private SystemLoad() {
    }

    /** The one-minute load average, or a negative number where the machine does not say. */
    public static double average() {
        if (Files.isReadable(LOADAVG)) {
            try {
                String text = Files.readString(LOADAVG).strip();
                int space = text.indexOf(' ');
                return Double.parseDouble(space < 0 ? text : text.substring(0, space));
            } catch (IOException | NumberFormatException e) {
                return -1;
            }
        }
        return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }
}
