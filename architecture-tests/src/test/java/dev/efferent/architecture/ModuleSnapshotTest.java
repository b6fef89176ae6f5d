package dev.efferent.architecture;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * What every module requires, exports, opens, uses and provides matches {@code src/test/resources/modules.txt}, so
 * that a change to a module's surface is a visible diff in review. Accept an intended change with
 * {@code bin/efferent test -pl architecture-tests -Defferent.snapshot.update=true}.
 */
class ModuleSnapshotTest {
    @Test
    void theModulesSurfacesMatchTheirSnapshot() throws IOException {
        Path file = Path.of(System.getProperty("efferent.snapshot.file"));
        String now = ModuleSnapshot.of(ReactorModules.built().values());
        if (Boolean.getBoolean("efferent.snapshot.update")) {
            Files.writeString(file, now);
        }
        String committed = Files.isRegularFile(file) ? Files.readString(file) : "";
        assertEquals(committed, now, "a module's surface changed: if that is intended, run "
                + "'bin/efferent test -pl architecture-tests -Defferent.snapshot.update=true' and commit "
                + "architecture-tests/src/test/resources/modules.txt");
    }
}
